/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The table definitions' helpers (rsw_table.h): the list `describe` prints, lookups, the
 * row builder every `show` command goes through, and the table of `show icmp`, whose
 * command neigh/icmp.c registers from the same X-macro.
 */

#include <string.h>

#include <rte_log.h>

#include "rsw_icmp.h"
#include "rsw_table.h"

static const struct rsw_field_def icmp_fields[] = {
	RSW_FOREACH_ICMP_CTR(RSW_FIELD_OF_CTR)
		RSW_FIELD("rate_pps", GAUGE, "pps",
			  "switch.icmp_unreachable.rate_pps: ICMP errors sent per second at most"),
	RSW_FIELD("unreachable_enabled", STATE, "", "whether ICMP unreachable errors are sent"),
};

const struct rsw_table_def rsw_table_icmp = {
	.command = "show icmp",
	.key = "icmp",
	.fields = icmp_fields,
	.n_fields = RSW_TABLE_N_FIELDS(icmp_fields),
};

const struct rsw_table_def *const rsw_tables[] = {
	&rsw_table_ports,  &rsw_table_queues,    &rsw_table_pfc,       &rsw_table_buffer,
	&rsw_table_pgs,    &rsw_table_drops,     &rsw_table_lb_groups, &rsw_table_lb_members,
	&rsw_table_routes, &rsw_table_neighbors, &rsw_table_icmp,      NULL,
};

const char *
rsw_field_kind_name(enum rsw_field_kind k)
{
	switch (k) {
	case RSW_FK_COUNTER:
		return "counter";
	case RSW_FK_GAUGE:
		return "gauge";
	case RSW_FK_LABEL:
		return "label";
	case RSW_FK_STATE:
		return "state";
	}
	return "?";
}

const struct rsw_field_def *
rsw_table_field(const struct rsw_table_def *t, const char *name)
{
	unsigned int i;

	for (i = 0; i < t->n_fields; i++)
		if (strcmp(t->fields[i].name, name) == 0)
			return &t->fields[i];
	return NULL;
}

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

/* Whether name is the member of t's rows that holds a nested table. */
static bool
is_nested(const struct rsw_table_def *t, const char *name)
{
	size_t klen = strlen(t->key);
	unsigned int i;

	for (i = 0; rsw_tables[i] != NULL; i++) {
		const struct rsw_table_def *c = rsw_tables[i];

		if (c->parent == t && strncmp(c->key, t->key, klen) == 0 && c->key[klen] == '.' &&
		    strcmp(c->key + klen + 1, name) == 0)
			return true;
	}
	return false;
}

json_t *
rsw_row(const struct rsw_table_def *t, json_t *o)
{
	json_t *row, *v;
	const char *name;
	unsigned int i;

	if (o == NULL)
		return NULL;
	row = json_object();
	if (row == NULL) {
		json_decref(o);
		return NULL;
	}
	for (i = 0; i < t->n_fields; i++) {
		v = json_object_get(o, t->fields[i].name);
		if (v != NULL)
			json_object_set(row, t->fields[i].name, v);
	}
	json_object_foreach(o, name, v)
	{
		if (rsw_table_field(t, name) != NULL)
			continue;
		if (is_nested(t, name))
			json_object_set(row, name, v);
		else
			RTE_LOG(ERR, USER1, "railsw: %s: field %s of %s is not described\n",
				t->command, name, t->key);
	}
	json_decref(o);
	return row;
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
