/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The one description of every table the control socket returns (table.c): each field's
 * name, kind, unit and help. The `show` commands build their rows through it (rsw_row), the
 * `describe` command prints it, telemetry takes its commands and keys from it, and the
 * Prometheus exposition its types, HELP lines and labels (docs/cli.md, `describe`).
 * Counters kept in X-macros (rsw_stats.h, rsw_qos.h, rsw_icmp.h) carry their columns there
 * and are expanded into the tables here.
 *
 * Thread-safety: the definitions are constant; rsw_row and rsw_tables_describe allocate
 * JSON and may be called from any thread.
 */

#ifndef RSW_TABLE_H
#define RSW_TABLE_H

#include <jansson.h>
#include <stdbool.h>

/* What a field is. Prometheus: counter -> counter, gauge and state -> gauge, label -> label. */
enum rsw_field_kind {
	RSW_FK_COUNTER, /* only goes up, zeroed by `clear counters` */
	RSW_FK_GAUGE,   /* a level now (depths, occupancy, speeds, watermarks) */
	RSW_FK_LABEL,   /* names the row (port, tc, prefix, ...) */
	RSW_FK_STATE,   /* a state (up, paused, reachable, ...) */
};

/* Flags of a field. */
#define RSW_FIELD_NO_METRIC 0x1u /* a number or boolean Prometheus leaves out */
#define RSW_FIELD_OPTIONAL  0x2u /* present in some rows only (ipv4 of a port without one) */

struct rsw_field_def {
	const char *name; /* the JSON member */
	enum rsw_field_kind kind;
	const char *unit;       /* packets, bytes, ns, bps, ...; "" for labels and states */
	const char *help;       /* one line */
	const char *prom_label; /* labels: the Prometheus label it becomes; NULL: none */
	unsigned int flags;     /* RSW_FIELD_... */
};

struct rsw_table_def {
	const char *command;       /* the socket's words without arguments: "show ports" */
	const char *key;           /* the JSON member the rows live in: "ports", "groups.members" */
	const char *metric_prefix; /* after "railsw_" in metric names: "", "pg_", ... */
	const struct rsw_table_def *parent; /* nested table: the table whose rows hold it */
	const char *nested;                 /* the member of the rows holding a nested table */
	const struct rsw_field_def *fields;
	unsigned int n_fields;
};

/* A field definition. */
#define RSW_FIELD(n, k, u, h)                                                                      \
	{                                                                                          \
		.name = (n), .kind = RSW_FK_##k, .unit = (u), .help = (h)                          \
	}
/* A label that Prometheus carries as label pl (NULL: not at all). */
#define RSW_LABEL(n, pl, h)                                                                        \
	{                                                                                          \
		.name = (n), .kind = RSW_FK_LABEL, .unit = "", .help = (h), .prom_label = (pl)     \
	}
/* A field with flags. */
#define RSW_FIELD_F(n, k, u, h, f)                                                                 \
	{                                                                                          \
		.name = (n), .kind = RSW_FK_##k, .unit = (u), .help = (h), .flags = (f)            \
	}
/* Expanders of the counter X-macros into field definitions. */
#define RSW_FIELD_OF_PORT_CTR(n, is_drop, k, u, h) RSW_FIELD(#n, k, u, h),
#define RSW_FIELD_OF_CTR(n, k, u, h)               RSW_FIELD(#n, k, u, h),

#define RSW_TABLE_N_FIELDS(a) ((unsigned int)(sizeof(a) / sizeof((a)[0])))

/* The tables, defined next to the commands that build them (one file per noun). */
extern const struct rsw_table_def rsw_table_ports;
extern const struct rsw_table_def rsw_table_queues;
extern const struct rsw_table_def rsw_table_pfc;
extern const struct rsw_table_def rsw_table_buffer;
extern const struct rsw_table_def rsw_table_pgs;
extern const struct rsw_table_def rsw_table_drops;
extern const struct rsw_table_def rsw_table_drop_totals;
extern const struct rsw_table_def rsw_table_lb_groups;
extern const struct rsw_table_def rsw_table_lb_members;
extern const struct rsw_table_def rsw_table_routes;
extern const struct rsw_table_def rsw_table_neighbors;
extern const struct rsw_table_def rsw_table_icmp;
extern const struct rsw_table_def rsw_table_fpm;
extern const struct rsw_table_def rsw_table_punt;
extern const struct rsw_table_def rsw_table_kif;
extern const struct rsw_table_def rsw_table_llr;
extern const struct rsw_table_def rsw_table_cbfc;
extern const struct rsw_table_def rsw_table_workers;

/** "counter", "gauge", "label" or "state". */
const char *rsw_field_kind_name(enum rsw_field_kind k);

/** The field of t named name, or NULL. */
const struct rsw_field_def *rsw_table_field(const struct rsw_table_def *t, const char *name);

/** The table of command (words without arguments) and key, or NULL. */
const struct rsw_table_def *rsw_table_find(const char *command, const char *key);

/** Every table, in `describe` order, NULL-terminated. */
extern const struct rsw_table_def *const rsw_tables[];

/**
 * A row of t from o, with o's members in t's field order. A member that t does not define
 * (nested tables of t excepted) is logged as a bug and left out: the JSON of the socket
 * cannot hold a field `describe` does not list. Takes o's reference.
 * @return the row, or NULL (o NULL, or out of memory).
 */
json_t *rsw_row(const struct rsw_table_def *t, json_t *o);

/**
 * The reply {t->key: [rows]} of a `show` command whose module gives its rows as an array of
 * JSON objects: a row of t (rsw_row) from each object of items (borrowed; NULL: no rows).
 * @return the reply, or NULL (out of memory).
 */
json_t *rsw_rows(const struct rsw_table_def *t, json_t *items);

/** The `describe` reply: {"tables":[{"command","key","fields":[{name,kind,unit,help}]}]}. */
json_t *rsw_tables_describe(void);

#endif /* RSW_TABLE_H */
