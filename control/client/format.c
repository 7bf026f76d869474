/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * railctl's rendering of a reply for people: arrays of objects become aligned tables (nested
 * arrays as sub-tables under their row), transposed when wider than RSW_CTL_WIDTH columns;
 * objects become "key: value" lines; control characters are shown as '?'. With them the
 * helpers every file of railctl uses: the growing string buffer and the warning line.
 */

#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "railctl_priv.h"

#define RSW_CTL_WIDTH      120 /* wider tables are transposed */
#define RSW_CTL_SUB_INDENT 4   /* nested tables, under their row */
#define RSW_CTL_LONG_CELL  24  /* transposed: longer text goes below the blocks */

/* "railctl: message" on stderr (railctl_priv.h). */
void
railctl_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("railctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void
railctl_sb_add(struct sbuf *sb, const char *s, size_t n)
{
	if (sb->len + n + 1 > sb->cap) {
		size_t cap = sb->cap ? sb->cap : 64;

		while (cap < sb->len + n + 1)
			cap *= 2;
		sb->p = realloc(sb->p, cap);
		if (sb->p == NULL) {
			railctl_warn("out of memory");
			exit(EXIT_USAGE);
		}
		sb->cap = cap;
	}
	memcpy(sb->p + sb->len, s, n);
	sb->len += n;
	sb->p[sb->len] = '\0';
}

void
railctl_sb_puts(struct sbuf *sb, const char *s)
{
	railctl_sb_add(sb, s, strlen(s));
}

/* Take the string out of sb (never NULL). */
char *
railctl_sb_take(struct sbuf *sb)
{
	char *p;

	if (sb->p == NULL)
		railctl_sb_add(sb, "", 0);
	p = sb->p;
	memset(sb, 0, sizeof(*sb));
	return p;
}

/* Printed columns of a UTF-8 string (one per code point). */
size_t
railctl_text_width(const char *s)
{
	size_t w = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* Append s, with control characters (terminal escapes) shown as '?'. */
void
railctl_sb_text(struct sbuf *sb, const char *s)
{
	for (; *s != '\0'; s++) {
		char c = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;

		railctl_sb_add(sb, &c, 1);
	}
}

static bool
is_object_array(json_t *v)
{
	size_t i;
	json_t *e;

	if (!json_is_array(v) || json_array_size(v) == 0)
		return false;
	json_array_foreach(v, i, e) if (!json_is_object(e)) return false;
	return true;
}

static void sb_value(struct sbuf *sb, json_t *v);

/* "k=v,k=v" */
static void
sb_object(struct sbuf *sb, json_t *o, const char *sep)
{
	const char *k;
	json_t *v;
	bool first = true;

	json_object_foreach(o, k, v)
	{
		if (!first)
			railctl_sb_puts(sb, sep);
		first = false;
		railctl_sb_text(sb, k);
		railctl_sb_puts(sb, "=");
		sb_value(sb, v);
	}
}

/* One value as table-cell text. */
static void
sb_value(struct sbuf *sb, json_t *v)
{
	char num[64];
	size_t i;
	json_t *e;

	switch (json_typeof(v)) {
	case JSON_STRING:
		railctl_sb_text(sb, json_string_value(v));
		break;
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		railctl_sb_puts(sb, num);
		break;
	case JSON_REAL:
		snprintf(num, sizeof(num), "%.6g", json_real_value(v));
		railctl_sb_puts(sb, num);
		break;
	case JSON_TRUE:
		railctl_sb_puts(sb, "true");
		break;
	case JSON_FALSE:
		railctl_sb_puts(sb, "false");
		break;
	case JSON_NULL:
		railctl_sb_puts(sb, "-");
		break;
	case JSON_OBJECT:
		if (json_object_size(v) == 0)
			railctl_sb_puts(sb, "-");
		else
			sb_object(sb, v, ",");
		break;
	case JSON_ARRAY:
		if (json_array_size(v) == 0)
			railctl_sb_puts(sb, "-");
		json_array_foreach(v, i, e)
		{
			if (i > 0)
				railctl_sb_puts(sb, json_is_object(e) ? "; " : ",");
			if (json_is_object(e))
				sb_object(sb, e, " ");
			else
				sb_value(sb, e);
		}
		break;
	}
}

char *
railctl_value_text(json_t *v)
{
	struct sbuf sb = {0};

	if (v == NULL)
		return strdup("");
	sb_value(&sb, v);
	return railctl_sb_take(&sb);
}

struct cell {
	char *text;
	bool num; /* a JSON number: right-aligned */
};

/* An array of objects laid out as rows x columns of text. */
struct table {
	size_t nrows;
	size_t ncols;
	const char **keys;  /* column keys, order of first appearance */
	bool *nested;       /* column holds arrays of objects (sub-tables) */
	struct cell *cells; /* nrows x ncols */
	size_t *width;      /* per column, header included */
	bool *numeric;      /* every non-empty cell of the column is a number */
};

void *
railctl_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (p == NULL) {
		railctl_warn("out of memory");
		exit(EXIT_USAGE);
	}
	return p;
}

static void
table_build(struct table *t, json_t *arr)
{
	size_t i, c, maxcols = 0;
	const char *k;
	json_t *o, *v;

	memset(t, 0, sizeof(*t));
	t->nrows = json_array_size(arr);
	json_array_foreach(arr, i, o) maxcols += json_object_size(o);
	t->keys = railctl_xcalloc(maxcols, sizeof(*t->keys));
	t->nested = railctl_xcalloc(maxcols, sizeof(*t->nested));
	json_array_foreach(arr, i, o)
	{
		json_object_foreach(o, k, v)
		{
			for (c = 0; c < t->ncols; c++)
				if (strcmp(t->keys[c], k) == 0)
					break;
			if (c == t->ncols)
				t->keys[t->ncols++] = k;
			if (is_object_array(v))
				t->nested[c] = true;
		}
	}
	t->cells = railctl_xcalloc(t->nrows * t->ncols, sizeof(*t->cells));
	t->width = railctl_xcalloc(t->ncols, sizeof(*t->width));
	t->numeric = railctl_xcalloc(t->ncols, sizeof(*t->numeric));
	for (c = 0; c < t->ncols; c++) {
		t->width[c] = railctl_text_width(t->keys[c]);
		t->numeric[c] = true;
	}
	json_array_foreach(arr, i, o)
	{
		for (c = 0; c < t->ncols; c++) {
			struct cell *cell = &t->cells[i * t->ncols + c];
			size_t w;

			v = json_object_get(o, t->keys[c]);
			cell->text = railctl_value_text(v);
			cell->num = json_is_number(v);
			w = railctl_text_width(cell->text);
			if (w > t->width[c])
				t->width[c] = w;
			if (v != NULL && !json_is_null(v) && !cell->num)
				t->numeric[c] = false;
		}
	}
}

static void
table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i].text);
	free(t->cells);
	free(t->keys);
	free(t->nested);
	free(t->width);
	free(t->numeric);
}

static void
put_cell(const char *text, size_t width, bool right, bool last)
{
	size_t pad = width - railctl_text_width(text);

	if (right)
		printf("%*s%s", (int)pad, "", text);
	else if (last)
		fputs(text, stdout);
	else
		printf("%s%*s", text, (int)pad, "");
}

/* Columns of t that are printed as plain columns. */
static size_t
table_line_width(const struct table *t, size_t indent)
{
	size_t c, w = indent, n = 0;

	for (c = 0; c < t->ncols; c++) {
		if (t->nested[c])
			continue;
		w += t->width[c] + (n++ ? 2 : 0);
	}
	return w;
}

/* One row per object; nested arrays of objects as indented sub-tables. */
static void
print_table(struct table *t, json_t *arr, size_t indent)
{
	size_t r, c, last = 0;
	bool first;

	for (c = 0; c < t->ncols; c++)
		if (!t->nested[c])
			last = c;
	printf("%*s", (int)indent, "");
	first = true;
	for (c = 0; c < t->ncols; c++) {
		if (t->nested[c])
			continue;
		printf("%s", first ? "" : "  ");
		first = false;
		put_cell(t->keys[c], t->width[c], t->numeric[c], c == last);
	}
	putchar('\n');
	for (r = 0; r < t->nrows; r++) {
		json_t *o = json_array_get(arr, r);

		printf("%*s", (int)indent, "");
		first = true;
		for (c = 0; c < t->ncols; c++) {
			struct cell *cell = &t->cells[r * t->ncols + c];

			if (t->nested[c])
				continue;
			printf("%s", first ? "" : "  ");
			first = false;
			put_cell(cell->text, t->width[c], t->numeric[c] && cell->num, c == last);
		}
		putchar('\n');
		for (c = 0; c < t->ncols; c++) {
			json_t *sub = json_object_get(o, t->keys[c]);

			if (!t->nested[c])
				continue;
			if (is_object_array(sub))
				railctl_print_rows(sub, indent + RSW_CTL_SUB_INDENT);
			else
				printf("%*s%s: %s\n", (int)(indent + RSW_CTL_SUB_INDENT), "",
				       t->keys[c], t->cells[r * t->ncols + c].text);
		}
	}
}

/*
 * The table turned on its side: one row per field, one column per object,
 * split into blocks of columns that fit RSW_CTL_WIDTH. Column headers come
 * from "name" or "port" (joined with the next field when not unique, e.g.
 * "p0/3" for port/tc), else the object's index. A field with a text longer than
 * RSW_CTL_LONG_CELL (devargs) would widen its whole column: such fields follow the
 * blocks, one line per object.
 */
static void
print_transposed(struct table *t, size_t indent)
{
	size_t label = SIZE_MAX, second = SIZE_MAX, r, c, k, fw = 0, start, end, w;
	char **hdr = railctl_xcalloc(t->nrows, sizeof(*hdr));
	size_t *cw = railctl_xcalloc(t->nrows, sizeof(*cw));
	char *corner;
	bool *long_col = railctl_xcalloc(t->ncols, sizeof(*long_col));
	struct sbuf sb = {0};
	bool unique = true;

	for (c = 0; c < t->ncols; c++)
		for (r = 0; r < t->nrows; r++)
			if (!t->cells[r * t->ncols + c].num &&
			    railctl_text_width(t->cells[r * t->ncols + c].text) > RSW_CTL_LONG_CELL)
				long_col[c] = true;

	for (c = 0; c < t->ncols && label == SIZE_MAX; c++)
		if (strcmp(t->keys[c], "name") == 0)
			label = c;
	for (c = 0; c < t->ncols && label == SIZE_MAX; c++)
		if (strcmp(t->keys[c], "port") == 0)
			label = c;
	if (label != SIZE_MAX) {
		for (r = 0; r < t->nrows && unique; r++)
			for (k = 0; k < r && unique; k++)
				if (strcmp(t->cells[r * t->ncols + label].text,
					   t->cells[k * t->ncols + label].text) == 0)
					unique = false;
		for (c = 0; c < t->ncols && !unique && second == SIZE_MAX; c++)
			if (c != label && !t->nested[c])
				second = c;
	}
	for (r = 0; r < t->nrows; r++) {
		if (label == SIZE_MAX) {
			char idx[32];

			snprintf(idx, sizeof(idx), "%zu", r);
			railctl_sb_puts(&sb, idx);
		} else {
			railctl_sb_puts(&sb, t->cells[r * t->ncols + label].text);
			if (second != SIZE_MAX) {
				railctl_sb_puts(&sb, "/");
				railctl_sb_puts(&sb, t->cells[r * t->ncols + second].text);
			}
		}
		hdr[r] = railctl_sb_take(&sb);
	}
	if (label == SIZE_MAX) {
		railctl_sb_puts(&sb, "#");
	} else {
		railctl_sb_puts(&sb, t->keys[label]);
		if (second != SIZE_MAX) {
			railctl_sb_puts(&sb, "/");
			railctl_sb_puts(&sb, t->keys[second]);
		}
	}
	corner = railctl_sb_take(&sb);

	fw = railctl_text_width(corner);
	for (c = 0; c < t->ncols; c++)
		if (c != label && c != second && railctl_text_width(t->keys[c]) > fw)
			fw = railctl_text_width(t->keys[c]);
	for (r = 0; r < t->nrows; r++) {
		cw[r] = railctl_text_width(hdr[r]);
		for (c = 0; c < t->ncols; c++)
			if (c != label && c != second && !long_col[c] &&
			    railctl_text_width(t->cells[r * t->ncols + c].text) > cw[r])
				cw[r] = railctl_text_width(t->cells[r * t->ncols + c].text);
	}

	for (start = 0; start < t->nrows || start == 0; start = end) {
		/* As many object columns as fit, at least one. */
		w = indent + fw;
		for (end = start; end < t->nrows; end++) {
			if (end > start && w + 2 + cw[end] > RSW_CTL_WIDTH)
				break;
			w += 2 + cw[end];
		}
		if (start > 0)
			putchar('\n');
		printf("%*s", (int)indent, "");
		put_cell(corner, fw, false, start == end);
		for (r = start; r < end; r++) {
			printf("  ");
			put_cell(hdr[r], cw[r], true, false);
		}
		putchar('\n');
		for (c = 0; c < t->ncols; c++) {
			if (c == label || c == second || long_col[c])
				continue;
			printf("%*s", (int)indent, "");
			put_cell(t->keys[c], fw, false, start == end);
			for (r = start; r < end; r++) {
				printf("  ");
				put_cell(t->cells[r * t->ncols + c].text, cw[r], true, false);
			}
			putchar('\n');
		}
		if (end == start)
			break;
	}
	for (k = 0, r = 0; r < t->nrows; r++)
		if (railctl_text_width(hdr[r]) > k)
			k = railctl_text_width(hdr[r]);
	for (c = 0; c < t->ncols; c++) {
		if (!long_col[c] || c == label || c == second)
			continue;
		printf("\n%*s%s:\n", (int)indent, "", t->keys[c]);
		for (r = 0; r < t->nrows; r++) {
			printf("%*s", (int)indent + 2, "");
			put_cell(hdr[r], k, false, false);
			printf("  %s\n", t->cells[r * t->ncols + c].text);
		}
	}
	free(long_col);
	for (r = 0; r < t->nrows; r++)
		free(hdr[r]);
	free(hdr);
	free(cw);
	free(corner);
}

/* An array of objects, as a table or, when too wide, transposed. */
void
railctl_print_rows(json_t *arr, size_t indent)
{
	struct table t;

	table_build(&t, arr);
	if (table_line_width(&t, indent) > RSW_CTL_WIDTH)
		print_transposed(&t, indent);
	else
		print_table(&t, arr, indent);
	table_free(&t);
}

/* "key: value", objects as indented blocks, arrays of objects as tables. */
static void
print_field(const char *key, json_t *v, size_t indent)
{
	const char *k;
	json_t *e;
	char *text;

	printf("%*s", (int)indent, "");
	if (json_is_object(v) && json_object_size(v) > 0) {
		printf("%s:\n", key);
		json_object_foreach(v, k, e) print_field(k, e, indent + 2);
	} else if (is_object_array(v)) {
		printf("%s:\n", key);
		railctl_print_rows(v, indent + 2);
	} else {
		text = railctl_value_text(v);
		printf("%s: %s\n", key, text);
		free(text);
	}
}

/* The reply of `help`: "usage    description" lines. */
static void
print_help(json_t *cmds)
{
	size_t i, w = 0, cap = 40;
	json_t *e;

	json_array_foreach(cmds, i, e)
	{
		size_t l = railctl_text_width(json_string_value(json_object_get(e, "usage")) ?: "");

		if (l > w)
			w = l;
	}
	if (w > cap)
		w = cap;
	json_array_foreach(cmds, i, e)
	{
		const char *u = json_string_value(json_object_get(e, "usage")) ?: "";
		const char *h = json_string_value(json_object_get(e, "help")) ?: "";
		struct sbuf sb = {0};
		char *us, *hs;

		railctl_sb_text(&sb, u);
		us = railctl_sb_take(&sb);
		railctl_sb_text(&sb, h);
		hs = railctl_sb_take(&sb);
		if (railctl_text_width(us) > w)
			printf("%s\n%*s  %s\n", us, (int)w, "", hs);
		else
			printf("%s%*s  %s\n", us, (int)(w - railctl_text_width(us)), "", hs);
		free(us);
		free(hs);
	}
	/* railctl's own commands: the switch does not know them. */
	printf("%-*s  %s\n", (int)w, "plan FILE [--json]",
	       "cabling and addressing of FILE's fabric (railctl itself; no switch needed)");
	printf("%-*s  %s\n", (int)w, "top [--interval S] [--count N]",
	       "live rates per port, drop reason and queue (railctl itself)");
}

void
railctl_print_reply(json_t *reply)
{
	const char *k;
	json_t *v;
	char *text;

	if (json_is_array(reply)) {
		if (is_object_array(reply)) {
			railctl_print_rows(reply, 0);
		} else {
			text = railctl_value_text(reply);
			printf("%s\n", text);
			free(text);
		}
		return;
	}
	if (!json_is_object(reply)) {
		text = railctl_value_text(reply);
		printf("%s\n", text);
		free(text);
		return;
	}
	if (railctl_print_trace(reply))
		return;
	if (json_is_true(json_object_get(reply, "ok"))) {
		printf("ok\n");
		json_object_foreach(reply, k, v) if (strcmp(k, "ok") != 0) print_field(k, v, 0);
		return;
	}
	if (json_object_size(reply) == 1) {
		void *it = json_object_iter(reply);

		k = json_object_iter_key(it);
		v = json_object_iter_value(it);
		if (strcmp(k, "commands") == 0 && is_object_array(v)) {
			print_help(v);
			return;
		}
		if (is_object_array(v)) {
			railctl_print_rows(v, 0);
			return;
		}
		if (json_is_array(v) && json_array_size(v) == 0) {
			printf("no %s\n", k);
			return;
		}
	}
	json_object_foreach(reply, k, v) print_field(k, v, 0);
}
