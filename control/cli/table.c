/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The table definitions' helpers (rsw_table.h): field lookups, the row builder every `show`
 * command goes through, and the table of `show icmp`, whose command neigh/icmp.c registers
 * from the same X-macro. The list of every table is catalog.c's.
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

/* Whether name is the member of t's rows that holds its nested table. */
static bool
is_nested(const struct rsw_table_def *t, const char *name)
{
	return t->nested != NULL && strcmp(t->nested, name) == 0;
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

json_t *
rsw_rows(const struct rsw_table_def *t, json_t *items)
{
	json_t *rows = json_array(), *n;
	size_t i;

	if (rows == NULL)
		return NULL;
	json_array_foreach(items, i, n) json_array_append_new(rows, rsw_row(t, json_incref(n)));
	return json_pack("{s:o}", t->key, rows);
}
