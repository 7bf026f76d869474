/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The catalog of every table the socket returns (rsw_table.h): the list `describe` prints
 * and telemetry and Prometheus walk, and lookups in it. It refers to the nouns' definitions;
 * the nouns never refer to it.
 */

#include <string.h>

#include "rsw_table.h"

const struct rsw_table_def *const rsw_tables[] = {
	&rsw_table_ports,
	&rsw_table_queues,
	&rsw_table_pfc,
	&rsw_table_buffer,
	&rsw_table_pgs,
	&rsw_table_drops,
	&rsw_table_drop_totals,
	&rsw_table_lb_groups,
	&rsw_table_lb_members,
	&rsw_table_routes,
	&rsw_table_neighbors,
	&rsw_table_icmp,
	&rsw_table_fpm,
	&rsw_table_punt,
	&rsw_table_kif,
	&rsw_table_llr, /* docs/link.md */
	&rsw_table_workers,
	&rsw_table_cbfc, /* docs/link.md */
	NULL,
};

const struct rsw_table_def *
rsw_table_find(const char *command, const char *key)
{
	unsigned int i;

	for (i = 0; rsw_tables[i] != NULL; i++)
		if (strcmp(rsw_tables[i]->command, command) == 0 &&
		    strcmp(rsw_tables[i]->key, key) == 0)
			return rsw_tables[i];
	return NULL;
}

/* One table of `describe`: {"command","key","fields":[{"name","kind","unit","help"}]}. */
static json_t *
describe_table(const struct rsw_table_def *d)
{
	json_t *fields = json_array();
	unsigned int j;

	if (fields == NULL)
		return NULL;
	for (j = 0; j < d->n_fields; j++) {
		const struct rsw_field_def *f = &d->fields[j];

		if (json_array_append_new(fields, json_pack("{s:s, s:s, s:s, s:s}", "name", f->name,
							    "kind", rsw_field_kind_name(f->kind),
							    "unit", f->unit, "help", f->help)) !=
		    0) {
			json_decref(fields);
			return NULL;
		}
	}
	return json_pack("{s:s, s:s, s:o}", "command", d->command, "key", d->key, "fields", fields);
}

json_t *
rsw_tables_describe(void)
{
	json_t *tables = json_array();
	unsigned int i;

	for (i = 0; tables != NULL && rsw_tables[i] != NULL; i++) {
		if (json_array_append_new(tables, describe_table(rsw_tables[i])) != 0) {
			json_decref(tables);
			return NULL;
		}
	}
	return tables ? json_pack("{s:o}", "tables", tables) : NULL;
}
