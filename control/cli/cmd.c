/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The command registry behind the control socket (docs/cli.md). A request
 * line is checked (printable UTF-8, at most RSW_CMD_MAX_LINE bytes and
 * RSW_CMD_MAX_WORDS words), split on spaces and tabs, matched against the
 * longest registered word sequence and handed to that command's handler with
 * the remaining words as arguments. Nothing here touches the dataplane: the
 * handlers do, through their own modules. No DPDK dependency, so railctl and
 * the unit tests link it as is.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsw_cmd.h"

/* Longest command name or offending words quoted back in an error message. */
#define RSW_CMD_QUOTE_MAX 64

struct rsw_cmd {
	char *name;                     /* "show queues": words joined by one space */
	char *usage;                    /* argument synopsis, "" when none */
	char *help;                     /* one-line description */
	char *words[RSW_CMD_MAX_WORDS]; /* point into wbuf */
	char *wbuf;                     /* name, split in place */
	int nwords;                     /* entries used in words[] */
	int min_args;                   /* fewest arguments after the words */
	int max_args;                   /* most arguments, < 0: no bound */
	rsw_cmd_fn *fn;                 /* the handler */
	void *ctx;                      /* its argument */
};

/*
 * Thread-safety: written by rsw_cmd_register before the socket opens, read by
 * rsw_cmd_exec on the control thread only. No locks.
 */
struct rsw_cmd_main {
	struct rsw_cmd *cmds; /* registered commands, registration order */
	size_t n;             /* entries used */
	size_t cap;           /* entries allocated */
};

static struct rsw_cmd_main rsw_cmd_main;

static const char rsw_cmd_help_name[] = "help";

/* The built-in `help`, listed with the others; only name, usage and help are used. */
static const struct rsw_cmd rsw_cmd_help_cmd = {
	.name = (char *)rsw_cmd_help_name,
	.usage = (char *)"[COMMAND...]",
	.help = (char *)"list the commands (those starting with COMMAND)",
};

/*
 * Length of the UTF-8 sequence starting at s (at most len bytes), or 0 when it
 * is not a valid, shortest-form, non-surrogate encoding of a code point that is
 * not a C1 control. ASCII control bytes other than tab are rejected too.
 */
static size_t
utf8_char_len(const unsigned char *s, size_t len)
{
	unsigned char c = s[0];
	uint32_t cp;
	size_t n, i;

	if (c < 0x80)
		return (c >= 0x20 && c != 0x7f) || c == '\t' ? 1 : 0;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	if (cp >= 0xd800 && cp <= 0xdfff)
		return 0;
	if (cp >= 0x80 && cp <= 0x9f)
		return 0;
	return n;
}

static bool
line_is_text(const char *line, size_t len)
{
	const unsigned char *s = (const unsigned char *)line;
	size_t i = 0, n;

	while (i < len) {
		n = utf8_char_len(s + i, len - i);
		if (n == 0)
			return false;
		i += n;
	}
	return true;
}

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Split buf (NUL-terminated, modified in place) into at most max words.
 * Returns the number of words, or -E2BIG when there are more.
 */
static int
split_words(char *buf, char **words, int max)
{
	int n = 0;
	char *p = buf;

	for (;;) {
		while (is_blank(*p))
			p++;
		if (*p == '\0')
			return n;
		if (n == max)
			return -E2BIG;
		words[n++] = p;
		while (*p != '\0' && !is_blank(*p))
			p++;
		if (*p != '\0')
			*p++ = '\0';
	}
}

/* Copy s into a string of at most RSW_CMD_QUOTE_MAX bytes, "..." when cut. */
static void
quote_trunc(char *dst, size_t dstlen, const char *s)
{
	size_t len = strlen(s);

	if (len <= RSW_CMD_QUOTE_MAX) {
		snprintf(dst, dstlen, "%s", s);
		return;
	}
	len = RSW_CMD_QUOTE_MAX - 3;
	/* Do not cut a UTF-8 sequence in half. */
	while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
		len--;
	snprintf(dst, dstlen, "%.*s...", (int)len, s);
}

/* Join words[0..n) with single spaces into dst (truncated to dstlen). */
static void
join_words(char *dst, size_t dstlen, char **words, int n)
{
	size_t off = 0;
	int i;

	dst[0] = '\0';
	for (i = 0; i < n && off < dstlen; i++)
		off += snprintf(dst + off, dstlen - off, "%s%s", i ? " " : "", words[i]);
}

json_t *
rsw_cmd_error(const char *fmt, ...)
{
	char msg[16384]; /* room for every line of a multi-error reload */
	json_t *o, *str;
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	str = json_string(msg);
	if (str == NULL) {
		/* Not UTF-8 (or a cut sequence): keep the ASCII, mask the rest. */
		for (i = 0; msg[i] != '\0'; i++)
			if ((unsigned char)msg[i] >= 0x80 || (unsigned char)msg[i] < 0x20)
				msg[i] = '?';
		str = json_string(msg);
	}
	o = json_object();
	if (o == NULL || str == NULL || json_object_set_new(o, "error", str) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *
rsw_cmd_ok(void)
{
	return json_pack("{s:b}", "ok", 1);
}

static void
cmd_free(struct rsw_cmd *c)
{
	free(c->name);
	free(c->usage);
	free(c->help);
	free(c->wbuf);
}

static struct rsw_cmd *
cmd_find_exact(char **words, int nwords)
{
	size_t i;
	int w;

	for (i = 0; i < rsw_cmd_main.n; i++) {
		struct rsw_cmd *c = &rsw_cmd_main.cmds[i];

		if (c->nwords != nwords)
			continue;
		for (w = 0; w < nwords; w++)
			if (strcmp(c->words[w], words[w]) != 0)
				break;
		if (w == nwords)
			return c;
	}
	return NULL;
}

int
rsw_cmd_register(const char *words, int min_args, int max_args, const char *usage, const char *help,
		 rsw_cmd_fn *fn, void *ctx)
{
	struct rsw_cmd c = {0};
	size_t len;
	int n;

	if (words == NULL || fn == NULL || min_args < 0 || (max_args >= 0 && max_args < min_args))
		return -EINVAL;
	len = strlen(words);
	if (len == 0 || len > RSW_CMD_MAX_LINE || !line_is_text(words, len))
		return -EINVAL;

	c.wbuf = strdup(words);
	if (c.wbuf == NULL)
		return -ENOMEM;
	n = split_words(c.wbuf, c.words, RSW_CMD_MAX_WORDS);
	if (n <= 0) {
		free(c.wbuf);
		return -EINVAL;
	}
	c.nwords = n;
	/* Requests starting with "help" go to the built-in. */
	if (strcmp(c.words[0], rsw_cmd_help_name) == 0 || cmd_find_exact(c.words, n)) {
		free(c.wbuf);
		return -EEXIST;
	}

	c.name = malloc(len + 1);
	c.usage = strdup(usage != NULL ? usage : "");
	c.help = strdup(help != NULL ? help : "");
	if (c.name == NULL || c.usage == NULL || c.help == NULL) {
		cmd_free(&c);
		return -ENOMEM;
	}
	join_words(c.name, len + 1, c.words, n);
	c.min_args = min_args;
	c.max_args = max_args;
	c.fn = fn;
	c.ctx = ctx;

	if (rsw_cmd_main.n == rsw_cmd_main.cap) {
		size_t cap = rsw_cmd_main.cap ? rsw_cmd_main.cap * 2 : 32;
		struct rsw_cmd *cmds = realloc(rsw_cmd_main.cmds, cap * sizeof(*cmds));

		if (cmds == NULL) {
			cmd_free(&c);
			return -ENOMEM;
		}
		rsw_cmd_main.cmds = cmds;
		rsw_cmd_main.cap = cap;
	}
	rsw_cmd_main.cmds[rsw_cmd_main.n++] = c;
	return 0;
}

void
rsw_cmd_unregister_all(void)
{
	size_t i;

	for (i = 0; i < rsw_cmd_main.n; i++)
		cmd_free(&rsw_cmd_main.cmds[i]);
	free(rsw_cmd_main.cmds);
	memset(&rsw_cmd_main, 0, sizeof(rsw_cmd_main));
}

/* "show queues [PORT]" */
static json_t *
usage_string(const char *name, const char *usage)
{
	char buf[RSW_CMD_MAX_LINE + 64];

	snprintf(buf, sizeof(buf), "%s%s%s", name, usage[0] ? " " : "", usage);
	return json_string(buf);
}

static json_t *
help_entry(const char *name, const char *usage, const char *help)
{
	json_t *e = json_object();

	if (e == NULL || json_object_set_new(e, "command", json_string(name)) < 0 ||
	    json_object_set_new(e, "usage", usage_string(name, usage)) < 0 ||
	    json_object_set_new(e, "help", json_string(help)) < 0) {
		json_decref(e);
		return NULL;
	}
	return e;
}

static int
cmd_cmp_name(const void *a, const void *b)
{
	const struct rsw_cmd *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* Does command c start with the words prefix[0..n)? */
static bool
cmd_has_prefix(const struct rsw_cmd *c, char **prefix, int n)
{
	int i;

	if (n > c->nwords)
		return false;
	for (i = 0; i < n; i++)
		if (strcmp(c->words[i], prefix[i]) != 0)
			return false;
	return true;
}

/* The built-in `help [COMMAND...]`: every command, sorted by name. */
static json_t *
cmd_help(int argc, char **argv)
{
	const struct rsw_cmd **sorted = NULL;
	json_t *reply, *list, *e;
	size_t i, n = 0;

	reply = json_object();
	list = json_array();
	if (reply == NULL || list == NULL || json_object_set_new(reply, "commands", list) < 0) {
		json_decref(reply);
		return NULL;
	}
	sorted = malloc((rsw_cmd_main.n + 1) * sizeof(*sorted));
	if (sorted == NULL)
		goto fail;
	if (argc == 0 || (argc == 1 && strcmp(argv[0], rsw_cmd_help_name) == 0))
		sorted[n++] = &rsw_cmd_help_cmd;
	for (i = 0; i < rsw_cmd_main.n; i++)
		if (cmd_has_prefix(&rsw_cmd_main.cmds[i], argv, argc))
			sorted[n++] = &rsw_cmd_main.cmds[i];
	if (n > 1)
		qsort(sorted, n, sizeof(*sorted), cmd_cmp_name);

	for (i = 0; i < n; i++) {
		e = help_entry(sorted[i]->name, sorted[i]->usage, sorted[i]->help);
		if (json_array_append_new(list, e) < 0)
			goto fail;
	}
	free(sorted);
	if (argc > 0 && json_array_size(list) == 0) {
		char words[RSW_CMD_MAX_LINE + 1], quoted[RSW_CMD_QUOTE_MAX + 1];

		json_decref(reply);
		join_words(words, sizeof(words), argv, argc);
		quote_trunc(quoted, sizeof(quoted), words);
		return rsw_cmd_error("unknown command '%s'", quoted);
	}
	return reply;
fail:
	free(sorted);
	json_decref(reply);
	return NULL;
}

json_t *
rsw_cmd_exec(const char *line, size_t len)
{
	char buf[RSW_CMD_MAX_LINE + 1];
	char *words[RSW_CMD_MAX_WORDS + 1];
	struct rsw_cmd *best = NULL;
	int nwords, nargs;
	json_t *reply;
	size_t i;

	if (line == NULL)
		len = 0;
	if (len > RSW_CMD_MAX_LINE)
		return rsw_cmd_error("request too long (%zu bytes, at most %d)", len,
				     RSW_CMD_MAX_LINE);
	if (!line_is_text(line, len))
		return rsw_cmd_error("malformed request");
	if (len > 0)
		memcpy(buf, line, len);
	buf[len] = '\0';

	nwords = split_words(buf, words, RSW_CMD_MAX_WORDS);
	if (nwords < 0)
		return rsw_cmd_error("too many words (at most %d)", RSW_CMD_MAX_WORDS);
	if (nwords == 0)
		return rsw_cmd_error("empty request");
	words[nwords] = NULL;

	if (strcmp(words[0], rsw_cmd_help_name) == 0) {
		reply = cmd_help(nwords - 1, words + 1);
		return reply != NULL ? reply : rsw_cmd_error("out of memory");
	}

	for (i = 0; i < rsw_cmd_main.n; i++) {
		struct rsw_cmd *c = &rsw_cmd_main.cmds[i];

		if (c->nwords <= nwords && (best == NULL || c->nwords > best->nwords) &&
		    cmd_has_prefix(c, words, c->nwords))
			best = c;
	}
	if (best == NULL) {
		char joined[RSW_CMD_MAX_LINE + 1], quoted[RSW_CMD_QUOTE_MAX + 1];

		join_words(joined, sizeof(joined), words, nwords);
		quote_trunc(quoted, sizeof(quoted), joined);
		return rsw_cmd_error("unknown command '%s'", quoted);
	}

	nargs = nwords - best->nwords;
	if (nargs < best->min_args || (best->max_args >= 0 && nargs > best->max_args)) {
		return rsw_cmd_error("usage: %s%s%s", best->name, best->usage[0] ? " " : "",
				     best->usage);
	}

	reply = best->fn(nargs, words + best->nwords, best->ctx);
	if (reply == NULL)
		return rsw_cmd_error("internal error: '%s' gave no reply", best->name);
	return reply;
}
