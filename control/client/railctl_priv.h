/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * What the files of railctl share (client/): the exit status, the growable string, the
 * renderers of format.c and `railctl plan`. railctl is a program: these may print and exit.
 */

#ifndef RSW_RAILCTL_PRIV_H
#define RSW_RAILCTL_PRIV_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

enum {
	EXIT_OK = 0,
	EXIT_REPLY_ERROR = 1,
	EXIT_USAGE = 2,
};

/* A growable string. Allocation failure is fatal: railctl may exit. */
struct sbuf {
	char *p;
	size_t len;
	size_t cap;
};

/* railctl.c: "railctl: message" on stderr. */
void railctl_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* format.c */
void railctl_sb_add(struct sbuf *sb, const char *s, size_t n);
void railctl_sb_puts(struct sbuf *sb, const char *s);
/* Take the string out of sb (never NULL). */
char *railctl_sb_take(struct sbuf *sb);
/* Append s, with control characters (terminal escapes) shown as '?'. */
void railctl_sb_text(struct sbuf *sb, const char *s);
/* Printed columns of a UTF-8 string (one per code point). */
size_t railctl_text_width(const char *s);
/* calloc, or exit on failure. */
void *railctl_xcalloc(size_t n, size_t size);
/* One value as table-cell text (free it). */
char *railctl_value_text(json_t *v);
/* An array of objects, as a table or, when too wide, transposed. */
void railctl_print_rows(json_t *arr, size_t indent);
/* A reply for people. */
void railctl_print_reply(json_t *reply);

/** `trace show`'s reply, one block per frame (trace_fmt.c). @return false: not that reply. */
bool railctl_print_trace(json_t *reply);

/* plan.c: railctl plan FILE [--json], argv[i] being "plan"; returns the exit status. */
int railctl_cmd_plan(int argc, char **argv, int i, bool json);

#endif /* RSW_RAILCTL_PRIV_H */
