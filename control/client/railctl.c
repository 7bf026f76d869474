/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * railctl: the command-line client of the control socket (../shared/CLI.md).
 * It sends one request line (its arguments joined by spaces) and prints the
 * JSON reply, either as is (--json) or rendered for people: arrays of objects
 * become aligned tables, transposed when wider than RSW_CTL_WIDTH columns.
 * Exit 0 on success, 1 when the switch answered with an error, 2 on usage
 * errors or when the switch cannot be reached. No DPDK here. `plan FILE` needs
 * no switch: railctl loads FILE with the switch's own loader and prints the
 * plan of topology.c (docs/topology.md).
 */

#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "rsw_cmd.h"
#include "rsw_config.h"
#include "rsw_top.h"
#include "rsw_topology.h"

#define RSW_CTL_DEFAULT_SOCK "/run/railsw/railsw.sock"
#define RSW_CTL_TIMEOUT_MS   5000
#define RSW_CTL_WIDTH        120          /* wider tables are transposed */
#define RSW_CTL_MAX_REPLY    (256u << 20) /* sanity bound on one reply line */
#define RSW_CTL_SUB_INDENT   4            /* nested tables, under their row */
#define RSW_CTL_LONG_CELL    24           /* transposed: longer text goes below the blocks */

enum {
	EXIT_OK = 0,
	EXIT_REPLY_ERROR = 1,
	EXIT_USAGE = 2,
};

static const char *prog = "railctl";

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-s SOCKET] [--json] COMMAND [ARGS...]\n"
		"\n"
		"Send COMMAND to a running railsw and print its reply.\n"
		"\n"
		"options:\n"
		"  -s, --socket SOCKET  control socket (default: $RAILSW_SOCK, else %s)\n"
		"  -j, --json           print the reply as the switch sent it (one JSON line)\n"
		"  -h, --help           print this help\n"
		"\n"
		"commands: `%s help` lists the commands the switch knows, e.g.\n"
		"  show ports | queues [PORT] | pfc [PORT] | buffer [PORT] | drops | lb | routes\n"
		"  show neighbors | topology | config\n"
		"  clear counters\n"
		"  port NAME down|up\n"
		"  reload [FILE]\n"
		"  plan FILE [--json]   cabling and addressing of the fabric of FILE's topology:\n"
		"                       (computed by railctl itself; no switch needed)\n"
		"  top [--interval S] [--count N]  live rates (railctl's own view)\n"
		"\n"
		"exit status: 0 success, 1 the switch answered with an error,\n"
		"2 usage error or switch unreachable.\n",
		prog, RSW_CTL_DEFAULT_SOCK, prog);
}

static void __attribute__((format(printf, 1, 2))) warn(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A growable string. Allocation failure is fatal: railctl may exit. */
struct sbuf {
	char *p;
	size_t len;
	size_t cap;
};

static void
sb_add(struct sbuf *sb, const char *s, size_t n)
{
	if (sb->len + n + 1 > sb->cap) {
		size_t cap = sb->cap ? sb->cap : 64;

		while (cap < sb->len + n + 1)
			cap *= 2;
		sb->p = realloc(sb->p, cap);
		if (sb->p == NULL) {
			warn("out of memory");
			exit(EXIT_USAGE);
		}
		sb->cap = cap;
	}
	memcpy(sb->p + sb->len, s, n);
	sb->len += n;
	sb->p[sb->len] = '\0';
}

static void
sb_puts(struct sbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

/* Take the string out of sb (never NULL). */
static char *
sb_take(struct sbuf *sb)
{
	char *p;

	if (sb->p == NULL)
		sb_add(sb, "", 0);
	p = sb->p;
	memset(sb, 0, sizeof(*sb));
	return p;
}

/* Printed columns of a UTF-8 string (one per code point). */
static size_t
text_width(const char *s)
{
	size_t w = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* Append s, with control characters (terminal escapes) shown as '?'. */
static void
sb_text(struct sbuf *sb, const char *s)
{
	for (; *s != '\0'; s++) {
		char c = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;

		sb_add(sb, &c, 1);
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
			sb_puts(sb, sep);
		first = false;
		sb_text(sb, k);
		sb_puts(sb, "=");
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
		sb_text(sb, json_string_value(v));
		break;
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		sb_puts(sb, num);
		break;
	case JSON_REAL:
		snprintf(num, sizeof(num), "%.6g", json_real_value(v));
		sb_puts(sb, num);
		break;
	case JSON_TRUE:
		sb_puts(sb, "true");
		break;
	case JSON_FALSE:
		sb_puts(sb, "false");
		break;
	case JSON_NULL:
		sb_puts(sb, "-");
		break;
	case JSON_OBJECT:
		if (json_object_size(v) == 0)
			sb_puts(sb, "-");
		else
			sb_object(sb, v, ",");
		break;
	case JSON_ARRAY:
		if (json_array_size(v) == 0)
			sb_puts(sb, "-");
		json_array_foreach(v, i, e)
		{
			if (i > 0)
				sb_puts(sb, json_is_object(e) ? "; " : ",");
			if (json_is_object(e))
				sb_object(sb, e, " ");
			else
				sb_value(sb, e);
		}
		break;
	}
}

static char *
value_text(json_t *v)
{
	struct sbuf sb = {0};

	if (v == NULL)
		return strdup("");
	sb_value(&sb, v);
	return sb_take(&sb);
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

static void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (p == NULL) {
		warn("out of memory");
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
	t->keys = xcalloc(maxcols, sizeof(*t->keys));
	t->nested = xcalloc(maxcols, sizeof(*t->nested));
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
	t->cells = xcalloc(t->nrows * t->ncols, sizeof(*t->cells));
	t->width = xcalloc(t->ncols, sizeof(*t->width));
	t->numeric = xcalloc(t->ncols, sizeof(*t->numeric));
	for (c = 0; c < t->ncols; c++) {
		t->width[c] = text_width(t->keys[c]);
		t->numeric[c] = true;
	}
	json_array_foreach(arr, i, o)
	{
		for (c = 0; c < t->ncols; c++) {
			struct cell *cell = &t->cells[i * t->ncols + c];
			size_t w;

			v = json_object_get(o, t->keys[c]);
			cell->text = value_text(v);
			cell->num = json_is_number(v);
			w = text_width(cell->text);
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
	size_t pad = width - text_width(text);

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

static void print_rows(json_t *arr, size_t indent);

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
				print_rows(sub, indent + RSW_CTL_SUB_INDENT);
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
	char **hdr = xcalloc(t->nrows, sizeof(*hdr));
	size_t *cw = xcalloc(t->nrows, sizeof(*cw));
	char *corner;
	bool *long_col = xcalloc(t->ncols, sizeof(*long_col));
	struct sbuf sb = {0};
	bool unique = true;

	for (c = 0; c < t->ncols; c++)
		for (r = 0; r < t->nrows; r++)
			if (!t->cells[r * t->ncols + c].num &&
			    text_width(t->cells[r * t->ncols + c].text) > RSW_CTL_LONG_CELL)
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
			sb_puts(&sb, idx);
		} else {
			sb_puts(&sb, t->cells[r * t->ncols + label].text);
			if (second != SIZE_MAX) {
				sb_puts(&sb, "/");
				sb_puts(&sb, t->cells[r * t->ncols + second].text);
			}
		}
		hdr[r] = sb_take(&sb);
	}
	if (label == SIZE_MAX) {
		sb_puts(&sb, "#");
	} else {
		sb_puts(&sb, t->keys[label]);
		if (second != SIZE_MAX) {
			sb_puts(&sb, "/");
			sb_puts(&sb, t->keys[second]);
		}
	}
	corner = sb_take(&sb);

	fw = text_width(corner);
	for (c = 0; c < t->ncols; c++)
		if (c != label && c != second && text_width(t->keys[c]) > fw)
			fw = text_width(t->keys[c]);
	for (r = 0; r < t->nrows; r++) {
		cw[r] = text_width(hdr[r]);
		for (c = 0; c < t->ncols; c++)
			if (c != label && c != second && !long_col[c] &&
			    text_width(t->cells[r * t->ncols + c].text) > cw[r])
				cw[r] = text_width(t->cells[r * t->ncols + c].text);
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
		if (text_width(hdr[r]) > k)
			k = text_width(hdr[r]);
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
static void
print_rows(json_t *arr, size_t indent)
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
		print_rows(v, indent + 2);
	} else {
		text = value_text(v);
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
		size_t l = text_width(json_string_value(json_object_get(e, "usage")) ?: "");

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

		sb_text(&sb, u);
		us = sb_take(&sb);
		sb_text(&sb, h);
		hs = sb_take(&sb);
		if (text_width(us) > w)
			printf("%s\n%*s  %s\n", us, (int)w, "", hs);
		else
			printf("%s%*s  %s\n", us, (int)(w - text_width(us)), "", hs);
		free(us);
		free(hs);
	}
	/* railctl's own commands: the switch does not know them. */
	printf("%-*s  %s\n", (int)w, "plan FILE [--json]",
	       "cabling and addressing of FILE's fabric (railctl itself; no switch needed)");
	printf("%-*s  %s\n", (int)w, "top [--interval S] [--count N]",
	       "live rates per port, drop reason and queue (railctl itself)");
}

static void
print_reply(json_t *reply)
{
	const char *k;
	json_t *v;
	char *text;

	if (json_is_array(reply)) {
		if (is_object_array(reply)) {
			print_rows(reply, 0);
		} else {
			text = value_text(reply);
			printf("%s\n", text);
			free(text);
		}
		return;
	}
	if (!json_is_object(reply)) {
		text = value_text(reply);
		printf("%s\n", text);
		free(text);
		return;
	}
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
			print_rows(v, 0);
			return;
		}
		if (json_is_array(v) && json_array_size(v) == 0) {
			printf("no %s\n", k);
			return;
		}
	}
	json_object_foreach(reply, k, v) print_field(k, v, 0);
}

static const char *
jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "";
}

/* "switch:port" of one end of a cable. */
static char *
cable_end(json_t *l, const char *sw, const char *port)
{
	struct sbuf sb = {0};

	sb_text(&sb, jstr(l, sw));
	sb_puts(&sb, ":");
	sb_text(&sb, jstr(l, port));
	return sb_take(&sb);
}

/* The plan for people: a summary, the tiers, the switches and one line per cable. */
static void
print_plan(json_t *plan)
{
	json_t *links = json_object_get(plan, "links"), *l;
	size_t i, n = json_array_size(links), wa = 0, wai = 0, wb = 0;
	char **ends = xcalloc(2 * (n ? n : 1), sizeof(*ends));

	printf("%s fabric: %" JSON_INTEGER_FORMAT " SUs x %" JSON_INTEGER_FORMAT
	       " servers, %" JSON_INTEGER_FORMAT " rails, %" JSON_INTEGER_FORMAT " spines%s;"
	       " radix %" JSON_INTEGER_FORMAT "\n",
	       jstr(plan, "design"), json_integer_value(json_object_get(plan, "sus")),
	       json_integer_value(json_object_get(plan, "servers_per_su")),
	       json_integer_value(json_object_get(plan, "rails")),
	       json_integer_value(json_object_get(plan, "spines")),
	       strcmp(jstr(plan, "design"), "rail-only") == 0 ? " per rail" : "",
	       json_integer_value(json_object_get(plan, "radix")));
	printf("gpu_prefix %s, fabric_prefix %s; %" JSON_INTEGER_FORMAT " servers, "
	       "%" JSON_INTEGER_FORMAT " server NICs\n",
	       jstr(plan, "gpu_prefix"), jstr(plan, "fabric_prefix"),
	       json_integer_value(json_object_get(plan, "servers")),
	       json_integer_value(json_object_get(plan, "server_nics")));
	if (json_is_string(json_object_get(plan, "this")))
		printf("this file's switch: %s\n", jstr(plan, "this"));
	printf("\ntiers:\n");
	print_rows(json_object_get(plan, "tiers"), 2);
	printf("  oversubscription: leaf downlink vs uplink capacity; %s\n",
	       jstr(json_object_get(plan, "speeds"), "note"));
	printf("\nswitches:\n");
	print_rows(json_object_get(plan, "switches"), 2);

	printf("\ncables (%zu):\n", n);
	json_array_foreach(links, i, l)
	{
		ends[2 * i] = cable_end(l, "a", "a_port");
		ends[2 * i + 1] = cable_end(l, "b", "b_port");
		if (text_width(ends[2 * i]) > wa)
			wa = text_width(ends[2 * i]);
		if (text_width(jstr(l, "a_ip")) > wai)
			wai = text_width(jstr(l, "a_ip"));
		if (text_width(ends[2 * i + 1]) > wb)
			wb = text_width(ends[2 * i + 1]);
	}
	json_array_foreach(links, i, l)
	{
		printf("  %-*s  %-*s  <->  %-*s  %s\n", (int)wa, ends[2 * i], (int)wai,
		       jstr(l, "a_ip"), (int)wb, ends[2 * i + 1], jstr(l, "b_ip"));
		free(ends[2 * i]);
		free(ends[2 * i + 1]);
	}
	free(ends);
}

/*
 * railctl plan FILE [--json]: load FILE as railsw would (switch: and ports: optional) and
 * print the plan of its fabric. Exit 0, 1 on a bad plan, 2 on usage errors.
 */
static int
cmd_plan(int argc, char **argv, int i, bool json)
{
	struct rsw_topo_error e = {0};
	char err[RSW_CFG_ERR_LEN + 4096]; /* the file name, then e.msg */
	const char *file = NULL;
	struct rsw_config *cfg;
	json_t *plan;
	char *text;

	for (i++; i < argc; i++) {
		if (strcmp(argv[i], "-j") == 0 || strcmp(argv[i], "--json") == 0) {
			json = true;
		} else if (file == NULL && argv[i][0] != '\0') {
			file = argv[i];
		} else {
			warn("plan: unexpected argument '%s'", argv[i]);
			warn("usage: plan FILE [--json]");
			return EXIT_USAGE;
		}
	}
	if (file == NULL) {
		warn("usage: plan FILE [--json]");
		return EXIT_USAGE;
	}
	cfg = rsw_config_load_plan(file, err, sizeof(err));
	plan = cfg != NULL ? rsw_topology_plan_json(cfg, &e) : NULL;
	if (cfg != NULL && plan == NULL)
		snprintf(err, sizeof(err), "%.4000s: %s", file, e.msg);
	rsw_config_free(cfg);
	if (plan == NULL) {
		warn("%s", err);
		if (json) {
			json_t *o = json_pack("{s:s}", "error", err);

			text = o != NULL ? json_dumps(o, JSON_COMPACT) : NULL;
			if (text != NULL)
				printf("%s\n", text);
			free(text);
			json_decref(o);
		}
		return EXIT_REPLY_ERROR;
	}
	if (json) {
		text = json_dumps(plan, JSON_COMPACT | JSON_REAL_PRECISION(6));
		if (text == NULL) {
			warn("out of memory");
			json_decref(plan);
			return EXIT_USAGE;
		}
		printf("%s\n", text);
		free(text);
	} else {
		print_plan(plan);
	}
	json_decref(plan);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		warn("write error: %s", strerror(errno));
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static int
wait_fd(int fd, short events, long deadline)
{
	struct pollfd pfd = {.fd = fd, .events = events};
	long left;
	int rc;

	for (;;) {
		left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		rc = poll(&pfd, 1, (int)left);
		if (rc > 0)
			return 0;
		if (rc == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

/* Connect, send the request, read one reply line into *out. 0 or -errno. */
static int
transact(const char *path, const char *req, char **out, const char **stage)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	long deadline = now_ms() + RSW_CTL_TIMEOUT_MS;
	size_t len = strlen(req), off = 0;
	struct sbuf sb = {0};
	char buf[65536], *nl;
	ssize_t n;
	int fd, rc;

	*stage = "connect";
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		if (rc == -EINTR)
			continue;
		if (rc != -EAGAIN || now_ms() >= deadline)
			goto out;
		/* Backlog full: the switch is busy, try again shortly. */
		poll(NULL, 0, 10);
	}

	*stage = "send";
	while (off < len) {
		n = send(fd, req + off, len - off, MSG_NOSIGNAL);
		if (n >= 0) {
			off += n;
			continue;
		}
		rc = -errno;
		if (rc == -EINTR)
			continue;
		if (rc != -EAGAIN || (rc = wait_fd(fd, POLLOUT, deadline)) < 0)
			goto out;
	}

	*stage = "receive";
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n > 0) {
			nl = memchr(buf, '\n', n);
			sb_add(&sb, buf, nl ? (size_t)(nl - buf) : (size_t)n);
			if (nl != NULL)
				break;
			if (sb.len > RSW_CTL_MAX_REPLY) {
				rc = -EMSGSIZE;
				goto out;
			}
			continue;
		}
		if (n == 0) {
			rc = -ECONNRESET; /* closed before a complete line */
			goto out;
		}
		rc = -errno;
		if (rc == -EINTR)
			continue;
		if (rc != -EAGAIN || (rc = wait_fd(fd, POLLIN, deadline)) < 0)
			goto out;
	}
	*out = sb_take(&sb);
	rc = 0;
out:
	free(sb.p);
	close(fd);
	return rc;
}

int
main(int argc, char **argv)
{
	const char *sock = getenv("RAILSW_SOCK"), *stage = "";
	struct sbuf req = {0};
	bool json = false;
	char *line = NULL;
	json_error_t jerr;
	json_t *reply, *err;
	int i, rc;

	if (sock == NULL || sock[0] == '\0')
		sock = RSW_CTL_DEFAULT_SOCK;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return EXIT_OK;
		} else if (strcmp(a, "-j") == 0 || strcmp(a, "--json") == 0) {
			json = true;
		} else if (strcmp(a, "-s") == 0 || strcmp(a, "--socket") == 0) {
			if (i + 1 >= argc) {
				warn("%s needs a SOCKET argument", a);
				usage(stderr);
				return EXIT_USAGE;
			}
			sock = argv[++i];
		} else if (strncmp(a, "--socket=", 9) == 0) {
			sock = a + 9;
		} else if (a[0] == '-' && a[1] != '\0') {
			warn("unknown option '%s'", a);
			usage(stderr);
			return EXIT_USAGE;
		} else {
			break;
		}
	}
	if (i >= argc) {
		warn("missing COMMAND");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (sock[0] == '\0') {
		warn("empty socket path");
		return EXIT_USAGE;
	}

	if (strcmp(argv[i], "plan") == 0)
		return cmd_plan(argc, argv, i, json);
	if (strcmp(argv[i], "top") == 0)
		return rsw_top_main(sock, json, argc - i, argv + i);

	for (; i < argc; i++) {
		const unsigned char *p;

		for (p = (const unsigned char *)argv[i]; *p != '\0'; p++) {
			if (*p < 0x20 || *p == 0x7f) {
				warn("argument '%s' contains a control character", argv[i]);
				free(req.p);
				return EXIT_USAGE;
			}
		}
		if (argv[i][0] == '\0') {
			warn("empty argument");
			free(req.p);
			return EXIT_USAGE;
		}
		if (req.len > 0)
			sb_puts(&req, " ");
		sb_puts(&req, argv[i]);
	}
	if (req.len > RSW_CMD_MAX_LINE) {
		warn("request too long (%zu bytes, at most %d)", req.len, RSW_CMD_MAX_LINE);
		free(req.p);
		return EXIT_USAGE;
	}
	sb_puts(&req, "\n");

	rc = transact(sock, req.p, &line, &stage);
	free(req.p);
	if (rc < 0) {
		if (rc == -ETIMEDOUT)
			warn("%s: no reply within %d s", sock, RSW_CTL_TIMEOUT_MS / 1000);
		else if (strcmp(stage, "connect") == 0)
			warn("cannot reach the switch at %s: %s", sock, strerror(-rc));
		else
			warn("%s: %s: %s", sock, stage, strerror(-rc));
		return EXIT_USAGE;
	}

	reply = json_loads(line, JSON_DECODE_ANY, &jerr);
	if (reply == NULL) {
		warn("%s: invalid reply: %s", sock, jerr.text);
		free(line);
		return EXIT_USAGE;
	}
	err = json_is_object(reply) ? json_object_get(reply, "error") : NULL;
	rc = err != NULL ? EXIT_REPLY_ERROR : EXIT_OK;
	if (json) {
		printf("%s\n", line);
	} else if (err != NULL) {
		char *text = value_text(err);

		warn("error: %s", text);
		free(text);
	} else {
		print_reply(reply);
	}
	json_decref(reply);
	free(line);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		warn("write error: %s", strerror(errno));
		return EXIT_USAGE;
	}
	return rc;
}
