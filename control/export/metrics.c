/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Prometheus text exposition (docs/observability.md): a scrape (http.c) runs the `show` commands
 * of docs/cli.md through the command registry, so metric values are exactly the counters
 * `railctl --json` prints; this file formats them as text format 0.0.4 (railsw_<field>,
 * labels from the row: port, tc, priority, ...). Types, HELP lines and labels come from
 * the tables' definitions (rsw_table.h).
 */

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsw_metrics.h"
#include "rsw_table.h"

/* A growing text buffer; oom latches the first allocation failure. */
struct sbuf {
	char *p;
	size_t len;
	size_t cap;
	bool oom;
};

static void
sb_grow(struct sbuf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	if (b->oom || b->len + more + 1 <= b->cap)
		return;
	while (cap < b->len + more + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (p == NULL) {
		b->oom = true;
		return;
	}
	b->p = p;
	b->cap = cap;
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	sb_grow(b, (size_t)n);
	if (b->oom)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static void
sb_putc(struct sbuf *b, char c)
{
	sb_grow(b, 1);
	if (b->oom)
		return;
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

/* A label value with \, " and newline escaped (text format 0.0.4). */
static void
sb_label_value(struct sbuf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			sb_printf(b, "\\\\");
		else if (*s == '"')
			sb_printf(b, "\\\"");
		else if (*s == '\n')
			sb_printf(b, "\\n");
		else
			sb_putc(b, *s);
	}
}

/* A metric name character: [a-zA-Z0-9_:] (others become '_'). */
static char
name_char(char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '_' || c == ':')
		return c;
	return '_';
}

static bool
is_sample(const json_t *v)
{
	return json_is_integer(v) || json_is_real(v) || json_is_boolean(v);
}

/* Whether field f of a table is a metric: counters, gauges and states, unless left out. */
static bool
is_metric(const struct rsw_field_def *f)
{
	return f->kind != RSW_FK_LABEL && !(f->flags & RSW_FIELD_NO_METRIC);
}

static void
sb_name(struct sbuf *b, const struct rsw_table_def *t, const char *field)
{
	const char *s;

	sb_printf(b, "railsw_");
	for (s = t->metric_prefix ? t->metric_prefix : ""; *s != '\0'; s++)
		sb_putc(b, name_char(*s));
	for (s = field; *s != '\0'; s++)
		sb_putc(b, name_char(*s));
}

/* HELP text: backslash and newline escaped (text format 0.0.4). */
static void
sb_help(struct sbuf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			sb_printf(b, "\\\\");
		else if (*s == '\n')
			sb_printf(b, "\\n");
		else
			sb_putc(b, *s);
	}
}

/* The Prometheus labels of t's fields found in row, continuing after *first. */
static void
sb_labels_of(struct sbuf *b, const struct rsw_table_def *t, const json_t *row, bool *first)
{
	unsigned int i;
	char num[32];

	for (i = 0; i < t->n_fields; i++) {
		const struct rsw_field_def *f = &t->fields[i];
		const json_t *v;
		const char *s;

		if (f->kind != RSW_FK_LABEL || f->prom_label == NULL)
			continue;
		v = json_object_get(row, f->name);
		if (json_is_string(v)) {
			s = json_string_value(v);
		} else if (json_is_integer(v)) {
			snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
			s = num;
		} else {
			continue;
		}
		sb_printf(b, "%s%s=\"", *first ? "{" : ",", f->prom_label);
		sb_label_value(b, s);
		sb_putc(b, '"');
		*first = false;
	}
}

/* The labels of a row of t: its parent row's first (nested tables), then its own. */
static void
sb_labels(struct sbuf *b, const struct rsw_table_def *t, const json_t *parent, const json_t *row)
{
	bool first = true;

	if (t->parent != NULL && parent != NULL)
		sb_labels_of(b, t->parent, parent, &first);
	sb_labels_of(b, t, row, &first);
	if (!first)
		sb_putc(b, '}');
}

static void
sb_value(struct sbuf *b, const json_t *v)
{
	if (json_is_integer(v))
		sb_printf(b, " %" JSON_INTEGER_FORMAT "\n", json_integer_value(v));
	else if (json_is_real(v))
		sb_printf(b, " %.17g\n", json_real_value(v));
	else
		sb_printf(b, " %d\n", json_is_true(v) ? 1 : 0);
}

/*
 * Every metric field of table t (rsw_table.h) that some row holds as a number or boolean:
 * one # HELP (the field's help) and one # TYPE line (counter -> counter, gauge and state ->
 * gauge), then its samples, one per row (samples of a metric stay together). rows[i] sits
 * in the row parents[i] of t's parent table (parents NULL: t is not nested).
 */
static void
emit_table(struct sbuf *b, const struct rsw_table_def *t, const json_t *rows, const json_t *parents)
{
	const json_t *row;
	unsigned int f;
	size_t i;

	for (f = 0; f < t->n_fields; f++) {
		const struct rsw_field_def *fd = &t->fields[f];
		bool any = false;

		if (!is_metric(fd))
			continue;
		json_array_foreach(rows, i, row) any =
			any || is_sample(json_object_get(row, fd->name));
		if (!any)
			continue;
		sb_printf(b, "# HELP ");
		sb_name(b, t, fd->name);
		sb_putc(b, ' ');
		sb_help(b, fd->help);
		sb_printf(b, " (%s%s%s)\n# TYPE ", t->command, fd->unit[0] ? ", " : "", fd->unit);
		sb_name(b, t, fd->name);
		sb_printf(b, " %s\n", fd->kind == RSW_FK_COUNTER ? "counter" : "gauge");
		json_array_foreach(rows, i, row)
		{
			const json_t *s = json_object_get(row, fd->name);

			if (!is_sample(s))
				continue;
			sb_name(b, t, fd->name);
			sb_labels(b, t, parents ? json_array_get(parents, i) : NULL, row);
			sb_value(b, s);
		}
	}
}

/* The rows of a nested table (t->key "parent.member") of reply, and the parent row of each. */
static void
nested_rows(const struct rsw_table_def *t, const json_t *reply, json_t *rows, json_t *parents)
{
	const char *dot = strchr(t->key, '.');
	char parent_key[64];
	json_t *pr, *r;
	size_t i, j;

	if (dot == NULL || (size_t)(dot - t->key) >= sizeof(parent_key))
		return;
	memcpy(parent_key, t->key, (size_t)(dot - t->key));
	parent_key[dot - t->key] = '\0';
	json_array_foreach(json_object_get(reply, parent_key), i, pr)
	{
		json_array_foreach(json_object_get(pr, dot + 1), j, r)
		{
			json_array_append(rows, r);
			json_array_append(parents, pr);
		}
	}
}

/* Emit table t of reply (a `show` reply): an array of rows, one object, or a nested list. */
static void
emit_reply(struct sbuf *b, const struct rsw_table_def *t, const json_t *reply)
{
	const json_t *v;
	json_t *rows, *parents;

	if (reply == NULL)
		return;
	if (t->parent != NULL) {
		rows = json_array();
		parents = json_array();
		if (rows != NULL && parents != NULL) {
			nested_rows(t, reply, rows, parents);
			emit_table(b, t, rows, parents);
		} else {
			b->oom = true;
		}
		json_decref(rows);
		json_decref(parents);
		return;
	}
	v = json_object_get(reply, t->key);
	if (json_is_array(v)) {
		emit_table(b, t, v, NULL);
	} else if (json_is_object(v)) {
		rows = json_pack("[O]", v);
		if (rows == NULL)
			b->oom = true;
		emit_table(b, t, rows, NULL);
		json_decref(rows);
	}
}

char *
rsw_metrics_format(const struct rsw_metrics_src *src, size_t *len)
{
	struct sbuf b = {0};

	sb_grow(&b, 0);
	if (!b.oom)
		b.p[0] = '\0';
	emit_reply(&b, &rsw_table_ports, src->ports);
	emit_reply(&b, &rsw_table_queues, src->queues);
	emit_reply(&b, &rsw_table_pfc, src->pfc);
	emit_reply(&b, &rsw_table_buffer, src->buffer);
	emit_reply(&b, &rsw_table_pgs, src->buffer);
	emit_reply(&b, &rsw_table_drops, src->drops);
	emit_reply(&b, &rsw_table_drop_totals, src->drops);
	emit_reply(&b, &rsw_table_lb_members, src->lb);
	emit_reply(&b, &rsw_table_punt, src->punt);
	emit_reply(&b, &rsw_table_llr, src->llr);
	emit_reply(&b, &rsw_table_workers, src->workers);
	emit_reply(&b, &rsw_table_cbfc, src->cbfc);
	if (b.oom) {
		free(b.p);
		errno = ENOMEM;
		return NULL;
	}
	*len = b.len;
	return b.p;
}
