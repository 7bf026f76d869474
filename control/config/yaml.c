/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The loader's view of libyaml nodes: the FILE:LINE error, mappings with known keys, and typed
 * values (integers, booleans, words, names, MAC and IP addresses, sizes, fractions, TCs). Each
 * getter checks its value and reports the line of anything wrong.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_priv.h"

/* Append "\nline" to c->err if it fits whole; false if not. */
static bool
add_line(struct ctx *c, size_t *used, const char *line)
{
	size_t len = strlen(line);

	if (*used + 1 + len + 1 > c->errlen)
		return false;
	c->err[(*used)++] = '\n';
	memcpy(c->err + *used, line, len + 1);
	*used += len;
	return true;
}

/*
 * c->errors into c->err: the lines that fit whole (the first one cut if it must be), then
 * how many more there were past RSW_CFG_MAX_ERRS.
 */
static void
render_errors(struct ctx *c)
{
	int i, n = c->n_msgs < RSW_CFG_MAX_ERRS ? c->n_msgs : RSW_CFG_MAX_ERRS;
	char more[RSW_CFG_MSG_LEN];
	size_t used;

	if (c->err == NULL || c->errlen == 0)
		return;
	snprintf(c->err, c->errlen, "%s", c->errors[0].text);
	used = strlen(c->err);
	for (i = 1; i < n; i++)
		if (!add_line(c, &used, c->errors[i].text))
			return;
	if (c->n_msgs > RSW_CFG_MAX_ERRS) {
		snprintf(more, sizeof(more), "%.400s: %d more error%s not shown", c->name,
			 c->n_msgs - RSW_CFG_MAX_ERRS,
			 c->n_msgs - RSW_CFG_MAX_ERRS == 1 ? "" : "s");
		add_line(c, &used, more);
	}
}

/* One error or warning line into c->errors, in line order, and all of them into c->err. */
static void
add_msg(struct ctx *c, int line, const char *kind, const char *fmt, va_list ap)
{
	struct cfg_error *e;
	int i, n;

	if (c->n_msgs++ >= RSW_CFG_MAX_ERRS) {
		render_errors(c);
		return;
	}
	/* After every message of a line up to this one: file order, and report order within it. */
	for (i = c->n_msgs - 1; i > 0 && c->errors[i - 1].line > line; i--)
		c->errors[i] = c->errors[i - 1];
	e = &c->errors[i];
	e->line = line;
	/* A long line is cut at RSW_CFG_MSG_LEN - 1 bytes, as it always was. */
	if (line > 0)
		n = snprintf(e->text, sizeof(e->text), "%s:%d: %s", c->name, line, kind);
	else
		n = snprintf(e->text, sizeof(e->text), "%s: %s", c->name, kind);
	if (n >= 0 && (size_t)n < sizeof(e->text))
		vsnprintf(e->text + n, sizeof(e->text) - (size_t)n, fmt, ap);
	render_errors(c);
}

int
cfg_fail(struct ctx *c, int line, const char *fmt, ...)
{
	va_list ap;

	c->n_errors++;
	va_start(ap, fmt);
	add_msg(c, line, "", fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void
cfg_warn(struct ctx *c, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_msg(c, line, "warning: ", fmt, ap);
	va_end(ap);
}

int
cfg_line_of(const yaml_node_t *n)
{
	return n == NULL ? 0 : (int)n->start_mark.line + 1;
}

yaml_node_t *
cfg_node_at(struct ctx *c, int idx)
{
	return yaml_document_get_node(c->doc, idx);
}

const char *
cfg_sval(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* An absent value: `key:`, `key: ~`, `key: null`. Sections given so count as empty. */
bool
cfg_is_null(const yaml_node_t *n)
{
	const char *s;

	if (n == NULL)
		return true;
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	s = cfg_sval(n);
	return strcmp(s, "") == 0 || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
	       strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

int
cfg_seq_len(const yaml_node_t *n)
{
	return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
}

yaml_node_t *
cfg_seq_item(struct ctx *c, const yaml_node_t *n, int i)
{
	return cfg_node_at(c, n->data.sequence.items.start[i]);
}

/*
 * Edit distance of a and b, a transposition of two neighbours counting as one edit (optimal
 * string alignment: "qso" is one edit from "qos"), or 3 when it is more than 2.
 */
static int
edit_distance(const char *a, const char *b)
{
	int rows[3][CFG_KEY_LEN + 1], *prev2, *prev, *cur, best;
	size_t la = strlen(a), lb = strlen(b), i, j;

	if (la > CFG_KEY_LEN || lb > CFG_KEY_LEN || (la > lb ? la - lb : lb - la) > 2)
		return 3;
	for (j = 0; j <= lb; j++)
		rows[0][j] = (int)j;
	for (i = 1; i <= la; i++) {
		prev2 = rows[(i + 1) % 3]; /* row i - 2 */
		prev = rows[(i + 2) % 3];  /* row i - 1 */
		cur = rows[i % 3];
		cur[0] = (int)i;
		for (j = 1; j <= lb; j++) {
			best = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
	}
	best = rows[la % 3][lb];
	return best > 2 ? 3 : best;
}

/*
 * The known key closest to name, within edit distance 2 and at most half the known key's
 * length (so "gpu" is not "corrected" into "su"), or NULL.
 */
static const char *
closest_key(const char *name, const char *const *keys, size_t nk)
{
	const char *best = NULL;
	int d, best_d = 3;
	size_t i;

	for (i = 0; i < nk; i++) {
		d = edit_distance(name, keys[i]);
		if (d < best_d && 2 * (size_t)d <= strlen(keys[i])) {
			best = keys[i];
			best_d = d;
		}
	}
	return best;
}

static int
unknown_key(struct ctx *c, yaml_node_t *k, const char *what, const char *const *keys, size_t nk)
{
	const char *name = cfg_sval(k), *near = closest_key(name, keys, nk);
	char in[CFG_KEY_LEN + 8] = "", hint[CFG_KEY_LEN + 24] = "";

	if (what != NULL)
		snprintf(in, sizeof(in), " in '%s'", what);
	if (near != NULL)
		snprintf(hint, sizeof(hint), "; did you mean '%s'?", near);
	return cfg_fail(c, cfg_line_of(k), "unknown key '%.64s'%s%s", name, in, hint);
}

/*
 * Collect the keys of mapping n into out[] (indexed like keys[]). Unknown keys (with the
 * closest known key as a suggestion), duplicate keys and non-scalar keys are errors, every
 * one reported in file order; out[] holds the keys that were fine. what is the section for
 * messages, NULL at top level. A null value (`qos:`) is an empty mapping.
 */
int
cfg_get_map(struct ctx *c, yaml_node_t *n, const char *what, const char *const *keys, size_t nk,
	    struct kv *out)
{
	yaml_node_pair_t *p;
	int rc = 0;
	size_t i;

	memset(out, 0, nk * sizeof(*out));
	if (cfg_is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return cfg_fail(c, cfg_line_of(n), "'%s' must be a mapping", what);
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = cfg_node_at(c, p->key);
		const char *name;

		if (k->type != YAML_SCALAR_NODE) {
			rc = cfg_fail(c, cfg_line_of(k), "keys must be plain words");
			continue;
		}
		name = cfg_sval(k);
		for (i = 0; i < nk; i++)
			if (strcmp(name, keys[i]) == 0)
				break;
		if (i == nk) {
			rc = unknown_key(c, k, what, keys, nk);
			continue;
		}
		if (out[i].v != NULL) {
			rc = cfg_fail(c, cfg_line_of(k), "duplicate key '%s' (first at line %d)",
				      name, out[i].line);
			continue;
		}
		out[i].v = cfg_node_at(c, p->value);
		out[i].line = cfg_line_of(k);
	}
	return rc;
}

/* Keys of a mapping with data keys (dscp_to_tc: { 26: 3 }) must be scalars, no duplicates. */
int
cfg_map_scalar_key(struct ctx *c, yaml_node_t *k, const char *what)
{
	if (k->type != YAML_SCALAR_NODE)
		return cfg_fail(c, cfg_line_of(k), "keys of '%s' must be plain values", what);
	return 0;
}

int
cfg_get_scalar(struct ctx *c, yaml_node_t *n, const char *key, const char *kind, const char **out)
{
	if (n->type != YAML_SCALAR_NODE || cfg_is_null(n))
		return cfg_fail(c, cfg_line_of(n), "'%s' must be %s", key, kind);
	if (strlen(cfg_sval(n)) != n->data.scalar.length)
		return cfg_fail(c, cfg_line_of(n), "'%s' must not contain a NUL character", key);
	*out = cfg_sval(n);
	return 0;
}

int
cfg_get_int(struct ctx *c, yaml_node_t *n, const char *key, int64_t min, int64_t max, int64_t *out)
{
	const char *s;
	int64_t v;

	if (cfg_get_scalar(c, n, key, "an integer", &s) < 0)
		return -EINVAL;
	if (!cfg_parse_i64(s, &v)) {
		const char *d = s + (*s == '-' || *s == '+');

		/* All digits but too many: a range error, not a type error. */
		if (*d != '\0' && strspn(d, "0123456789") == strlen(d))
			return cfg_fail(c, cfg_line_of(n),
					"'%s' must be between %lld and %lld (got %.32s)", key,
					(long long)min, (long long)max, s);
		return cfg_fail(c, cfg_line_of(n), "'%s' must be an integer", key);
	}
	if (v < min || v > max)
		return cfg_fail(c, cfg_line_of(n), "'%s' must be between %lld and %lld (got %lld)",
				key, (long long)min, (long long)max, (long long)v);
	*out = v;
	return 0;
}

int
cfg_get_u32(struct ctx *c, yaml_node_t *n, const char *key, int64_t min, int64_t max, uint32_t *out)
{
	int64_t v;

	if (cfg_get_int(c, n, key, min, max, &v) < 0)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int
cfg_get_bool(struct ctx *c, yaml_node_t *n, const char *key, bool *out)
{
	const char *s;

	if (cfg_get_scalar(c, n, key, "true or false", &s) < 0)
		return -EINVAL;
	if (strcasecmp(s, "true") == 0)
		*out = true;
	else if (strcasecmp(s, "false") == 0)
		*out = false;
	else
		return cfg_fail(c, cfg_line_of(n), "'%s' must be true or false (got '%.32s')", key,
				s);
	return 0;
}

/* One word of names[] (n of them, joined by ", " in the message); its index into *out. */
int
cfg_get_enum(struct ctx *c, yaml_node_t *n, const char *key, const char *const *names, int nn,
	     int *out)
{
	char list[256] = "";
	const char *s;
	int i;

	if (cfg_get_scalar(c, n, key, "a word", &s) < 0)
		return -EINVAL;
	for (i = 0; i < nn; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	for (i = 0; i < nn; i++) {
		strncat(list, names[i], sizeof(list) - strlen(list) - 1);
		if (i + 1 < nn)
			strncat(list, " | ", sizeof(list) - strlen(list) - 1);
	}
	return cfg_fail(c, cfg_line_of(n), "'%s' must be %s (got '%.32s')", key, list, s);
}

static bool
valid_name(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len >= RSW_NAME_LEN)
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") ==
	       len;
}

int
cfg_get_name(struct ctx *c, yaml_node_t *n, const char *key, char out[RSW_NAME_LEN])
{
	const char *s;

	if (cfg_get_scalar(c, n, key, "a name", &s) < 0)
		return -EINVAL;
	if (!valid_name(s))
		return cfg_fail(
			c, cfg_line_of(n),
			"'%s' must be 1 to %d characters of A-Z a-z 0-9 _ . - (got '%.40s')", key,
			RSW_NAME_LEN - 1, s);
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

int
cfg_get_text(struct ctx *c, yaml_node_t *n, const char *key, char *out, size_t size)
{
	const char *s;

	if (cfg_get_scalar(c, n, key, "a string", &s) < 0)
		return -EINVAL;
	if (*s == '\0')
		return cfg_fail(c, cfg_line_of(n), "'%s' must not be empty", key);
	if (strlen(s) >= size)
		return cfg_fail(c, cfg_line_of(n), "'%s' is too long (at most %zu characters)", key,
				size - 1);
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

int
cfg_get_mac(struct ctx *c, yaml_node_t *n, const char *key, uint8_t mac[6])
{
	static const uint8_t zero[6];
	const char *s;

	if (cfg_get_scalar(c, n, key, "a MAC address like 02:00:00:00:00:01", &s) < 0)
		return -EINVAL;
	if (!cfg_parse_mac(s, mac))
		return cfg_fail(c, cfg_line_of(n),
				"'%s' must be a MAC address like 02:00:00:00:00:01 (got '%.32s')",
				key, s);
	if (mac[0] & 1)
		return cfg_fail(c, cfg_line_of(n), "'%s' must be a unicast MAC address (got %s)",
				key, s);
	if (memcmp(mac, zero, 6) == 0)
		return cfg_fail(c, cfg_line_of(n), "'%s' must not be all zero", key);
	return 0;
}

/* family 0: either. */
int
cfg_get_ip(struct ctx *c, yaml_node_t *n, const char *key, int family, struct rsw_ip *ip)
{
	const char *kind = family == RSW_AF_INET    ? "an IPv4 address"
			   : family == RSW_AF_INET6 ? "an IPv6 address"
						    : "an IP address";
	const char *s;

	if (cfg_get_scalar(c, n, key, kind, &s) < 0)
		return -EINVAL;
	if (!cfg_parse_ip(s, ip) || (family != 0 && ip->family != family))
		return cfg_fail(c, cfg_line_of(n), "'%s' must be %s (got '%.48s')", key, kind, s);
	if (!cfg_ip_unicast(ip))
		return cfg_fail(c, cfg_line_of(n), "'%s' must be a unicast address (got %s)", key,
				s);
	return 0;
}

/* A size (rsw_parse_size) between min and max bytes. */
int
cfg_get_size(struct ctx *c, yaml_node_t *n, const char *key, uint64_t min, uint64_t max,
	     uint64_t *out)
{
	char lo[32], hi[32];
	const char *s;
	uint64_t v;

	if (cfg_get_scalar(c, n, key, "a size like 512KB", &s) < 0)
		return -EINVAL;
	if (rsw_parse_size(s, &v) < 0)
		return cfg_fail(c, cfg_line_of(n),
				"'%s' must be a size like 512KB, 16MB or 65536 (got '%.32s')", key,
				s);
	if (v < min || v > max)
		return cfg_fail(c, cfg_line_of(n), "'%s' must be between %s and %s (got %.32s)",
				key, cfg_size_str(min, lo, sizeof(lo)),
				cfg_size_str(max, hi, sizeof(hi)), s);
	*out = v;
	return 0;
}

/* A decimal number (YAML float or integer) with 0 < v <= max. */
int
cfg_get_fraction(struct ctx *c, yaml_node_t *n, const char *key, double max, double *out)
{
	const char *s;
	char *end;
	double v;

	if (cfg_get_scalar(c, n, key, "a number", &s) < 0)
		return -EINVAL;
	/* Decimal only: no hex, inf or nan, which strtod would take. */
	if (strspn(s, "0123456789.eE+-") != strlen(s))
		return cfg_fail(c, cfg_line_of(n), "'%s' must be a number (got '%.32s')", key, s);
	v = strtod(s, &end);
	if (end == s || *end != '\0')
		return cfg_fail(c, cfg_line_of(n), "'%s' must be a number (got '%.32s')", key, s);
	if (!(v > 0) || v > max)
		return cfg_fail(c, cfg_line_of(n),
				"'%s' must be more than 0 and at most %g (got %.32s)", key, max, s);
	*out = v;
	return 0;
}

/* A TC 0-7 written as a scalar: role is "entry" (of a list) or "key" (of a mapping). */
int
cfg_get_tc(struct ctx *c, yaml_node_t *n, const char *key, const char *role, int *tc)
{
	int64_t v;

	if (n->type != YAML_SCALAR_NODE || cfg_is_null(n))
		return cfg_fail(c, cfg_line_of(n), "'%s' %s must be a TC between 0 and 7", key,
				role);
	if (strlen(cfg_sval(n)) != n->data.scalar.length || !cfg_parse_i64(cfg_sval(n), &v))
		return cfg_fail(c, cfg_line_of(n),
				"'%s' %s must be a TC between 0 and 7 (got '%.32s')", key, role,
				cfg_sval(n));
	if (v < 0 || v >= RSW_N_TC)
		return cfg_fail(c, cfg_line_of(n),
				"'%s' %s must be a TC between 0 and 7 (got %lld)", key, role,
				(long long)v);
	*tc = (int)v;
	return 0;
}

/*
 * A list of distinct TCs: bit t of *bits set for each, in list order into list[] (when not
 * NULL, RSW_N_TC entries), lines[t] the line of TC t.
 */
int
cfg_parse_tc_list(struct ctx *c, yaml_node_t *n, const char *key, uint8_t *list, uint8_t *count,
		  uint8_t *bits, int lines[RSW_N_TC])
{
	int i, tc;

	if (cfg_is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return cfg_fail(c, cfg_line_of(n), "'%s' must be a list of TCs", key);
	for (i = 0; i < cfg_seq_len(n); i++) {
		yaml_node_t *item = cfg_seq_item(c, n, i);

		if (cfg_get_tc(c, item, key, "entry", &tc) < 0)
			return -EINVAL;
		if (*bits & (1u << tc))
			return cfg_fail(c, cfg_line_of(item),
					"duplicate TC %d in '%s' (first at line %d)", tc, key,
					lines[tc]);
		*bits |= (uint8_t)(1u << tc);
		lines[tc] = cfg_line_of(item);
		if (list != NULL)
			list[(*count)++] = (uint8_t)tc;
	}
	return 0;
}
