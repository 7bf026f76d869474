/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The configuration loader. It reads one YAML file (../shared/CONFIG.md) with the libyaml
 * document API, checks every key, type, range and cross-reference, and fills a struct
 * rsw_config before rte_eal_init; nothing starts on any error. Every error is one line,
 * "FILE:LINE: message", so a typo never passes silently. Nothing here runs in a worker.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "rsw_config.h"
#include "rsw_topology.h"

#define CFG_MAX_FILE     (64u << 20) /* largest configuration file read */
#define CFG_MAX_WEIGHT   1000
#define CFG_MAX_IDLE_US  1000000
#define CFG_MAX_PPS      1000000
#define CFG_MAX_FLOWLET  1000000
#define CFG_MIN_MTU      68
#define CFG_MAX_MTU      9000
#define CFG_MIN_MTU_IPV6 1280 /* RFC 8200 §5 */
#define CFG_MAX_DEPTH    64   /* flow nesting ([ {) */
#define CFG_KB           1024ull
#define CFG_MB           (1024ull * 1024)
#define CFG_MAX_SIZE     (4096 * CFG_MB) /* 4GB: largest size of any qos.buffer / ecn key */
#define CFG_MIN_TOTAL    (64 * CFG_KB)   /* qos.buffer.total: 64KB.. */
#define CFG_MAX_DWRR     100             /* qos.scheduler.dwrr weights: 1.. */
#define CFG_MAX_QUANTA   65535           /* qos.buffer.pfc.quanta: 1.. */
#define CFG_MAX_ALPHA    64.0            /* qos.buffer.pfc.alpha: (0.. */
#define CFG_MIN_WD_MS    10              /* qos.pfc_watchdog.{detect,restore}_ms */
#define CFG_MAX_WD_MS    60000
#define CFG_KEY_LEN      64 /* "ecn.7.kmin" and the like, in messages */

/* Loader state for one file. */
struct ctx {
	const char *name;                  /* file name in messages */
	char *err;                         /* caller's error buffer, may be NULL */
	size_t errlen;                     /* size of err */
	yaml_document_t *doc;              /* the parsed document */
	struct rsw_config *cfg;            /* being filled */
	struct rsw_cfg_neighbor **nsorted; /* neighbours sorted by IP, for next-hop lookup */
	bool plan;                         /* rsw_config_load_plan: switch and ports optional */
};

/* A key found in a mapping: its value node and the key's line. */
struct kv {
	yaml_node_t *v;
	int line;
};

static int fail(struct ctx *c, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
fail(struct ctx *c, int line, const char *fmt, ...)
{
	char msg[RSW_CFG_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->err != NULL && c->errlen > 0) {
		if (line > 0)
			snprintf(c->err, c->errlen, "%s:%d: %s", c->name, line, msg);
		else
			snprintf(c->err, c->errlen, "%s: %s", c->name, msg);
	}
	return -EINVAL;
}

static int
line_of(const yaml_node_t *n)
{
	return n == NULL ? 0 : (int)n->start_mark.line + 1;
}

static yaml_node_t *
node_at(struct ctx *c, int idx)
{
	return yaml_document_get_node(c->doc, idx);
}

static const char *
sval(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* An absent value: `key:`, `key: ~`, `key: null`. Sections given so count as empty. */
static bool
is_null(const yaml_node_t *n)
{
	const char *s;

	if (n == NULL)
		return true;
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	s = sval(n);
	return strcmp(s, "") == 0 || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
	       strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

static int
seq_len(const yaml_node_t *n)
{
	return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
}

static yaml_node_t *
seq_item(struct ctx *c, const yaml_node_t *n, int i)
{
	return node_at(c, n->data.sequence.items.start[i]);
}

/*
 * Collect the keys of mapping n into out[] (indexed like keys[]). Unknown keys, duplicate
 * keys, non-scalar keys and keys of features not built yet (unsup, NULL-terminated) are
 * errors, reported in file order. what is the section for messages, NULL at top level.
 * A null value (`qos:`) is an empty mapping.
 */
static int
get_map(struct ctx *c, yaml_node_t *n, const char *what, const char *const *keys, size_t nk,
	const char *const *unsup, struct kv *out)
{
	yaml_node_pair_t *p;
	size_t i;

	memset(out, 0, nk * sizeof(*out));
	if (is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return fail(c, line_of(n), "'%s' must be a mapping", what);
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node_at(c, p->key);
		const char *name;

		if (k->type != YAML_SCALAR_NODE)
			return fail(c, line_of(k), "keys must be plain words");
		name = sval(k);
		for (i = 0; unsup != NULL && unsup[i] != NULL; i++) {
			if (strcmp(name, unsup[i]) == 0) {
				if (what == NULL)
					return fail(c, line_of(k), "not supported yet: %s", name);
				return fail(c, line_of(k), "not supported yet: %s.%s", what, name);
			}
		}
		for (i = 0; i < nk; i++)
			if (strcmp(name, keys[i]) == 0)
				break;
		if (i == nk) {
			if (what == NULL)
				return fail(c, line_of(k), "unknown key '%.64s'", name);
			return fail(c, line_of(k), "unknown key '%.64s' in '%s'", name, what);
		}
		if (out[i].v != NULL)
			return fail(c, line_of(k), "duplicate key '%s' (first at line %d)", name,
				    out[i].line);
		out[i].v = node_at(c, p->value);
		out[i].line = line_of(k);
	}
	return 0;
}

/* Keys of a mapping with data keys (dscp_to_tc: { 26: 3 }) must be scalars, no duplicates. */
static int
map_scalar_key(struct ctx *c, yaml_node_t *k, const char *what)
{
	if (k->type != YAML_SCALAR_NODE)
		return fail(c, line_of(k), "keys of '%s' must be plain values", what);
	return 0;
}

static int
get_scalar(struct ctx *c, yaml_node_t *n, const char *key, const char *kind, const char **out)
{
	if (n->type != YAML_SCALAR_NODE || is_null(n))
		return fail(c, line_of(n), "'%s' must be %s", key, kind);
	if (strlen(sval(n)) != n->data.scalar.length)
		return fail(c, line_of(n), "'%s' must not contain a NUL character", key);
	*out = sval(n);
	return 0;
}

/* Decimal integer with an optional sign; false on syntax error or overflow. */
static bool
parse_i64(const char *s, int64_t *v)
{
	uint64_t acc = 0;
	bool neg = false;

	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if (!isdigit((unsigned char)*s))
			return false;
		if (acc > ((uint64_t)INT64_MAX - 9) / 10)
			return false;
		acc = acc * 10 + (uint64_t)(*s - '0');
	}
	*v = neg ? -(int64_t)acc : (int64_t)acc;
	return true;
}

static int
get_int(struct ctx *c, yaml_node_t *n, const char *key, int64_t min, int64_t max, int64_t *out)
{
	const char *s;
	int64_t v;

	if (get_scalar(c, n, key, "an integer", &s) < 0)
		return -EINVAL;
	if (!parse_i64(s, &v)) {
		const char *d = s + (*s == '-' || *s == '+');

		/* All digits but too many: a range error, not a type error. */
		if (*d != '\0' && strspn(d, "0123456789") == strlen(d))
			return fail(c, line_of(n), "'%s' must be between %lld and %lld (got %.32s)",
				    key, (long long)min, (long long)max, s);
		return fail(c, line_of(n), "'%s' must be an integer", key);
	}
	if (v < min || v > max)
		return fail(c, line_of(n), "'%s' must be between %lld and %lld (got %lld)", key,
			    (long long)min, (long long)max, (long long)v);
	*out = v;
	return 0;
}

static int
get_u32(struct ctx *c, yaml_node_t *n, const char *key, int64_t min, int64_t max, uint32_t *out)
{
	int64_t v;

	if (get_int(c, n, key, min, max, &v) < 0)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int
get_bool(struct ctx *c, yaml_node_t *n, const char *key, bool *out)
{
	const char *s;

	if (get_scalar(c, n, key, "true or false", &s) < 0)
		return -EINVAL;
	if (strcasecmp(s, "true") == 0)
		*out = true;
	else if (strcasecmp(s, "false") == 0)
		*out = false;
	else
		return fail(c, line_of(n), "'%s' must be true or false (got '%.32s')", key, s);
	return 0;
}

/* One word of names[] (n of them, joined by ", " in the message); its index into *out. */
static int
get_enum(struct ctx *c, yaml_node_t *n, const char *key, const char *const *names, int nn, int *out)
{
	char list[256] = "";
	const char *s;
	int i;

	if (get_scalar(c, n, key, "a word", &s) < 0)
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
	return fail(c, line_of(n), "'%s' must be %s (got '%.32s')", key, list, s);
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

static int
get_name(struct ctx *c, yaml_node_t *n, const char *key, char out[RSW_NAME_LEN])
{
	const char *s;

	if (get_scalar(c, n, key, "a name", &s) < 0)
		return -EINVAL;
	if (!valid_name(s))
		return fail(c, line_of(n),
			    "'%s' must be 1 to %d characters of A-Z a-z 0-9 _ . - (got '%.40s')",
			    key, RSW_NAME_LEN - 1, s);
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

static int
get_text(struct ctx *c, yaml_node_t *n, const char *key, char *out, size_t size)
{
	const char *s;

	if (get_scalar(c, n, key, "a string", &s) < 0)
		return -EINVAL;
	if (*s == '\0')
		return fail(c, line_of(n), "'%s' must not be empty", key);
	if (strlen(s) >= size)
		return fail(c, line_of(n), "'%s' is too long (at most %zu characters)", key,
			    size - 1);
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

static int
hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static bool
parse_mac(const char *s, uint8_t mac[6])
{
	int i;

	for (i = 0; i < 6; i++) {
		int hi = hexval(s[0]), lo = hi < 0 ? -1 : hexval(s[1]);

		if (hi < 0 || lo < 0)
			return false;
		mac[i] = (uint8_t)(hi << 4 | lo);
		s += 2;
		if (i < 5 && *s++ != ':')
			return false;
	}
	return *s == '\0';
}

static int
get_mac(struct ctx *c, yaml_node_t *n, const char *key, uint8_t mac[6])
{
	static const uint8_t zero[6];
	const char *s;

	if (get_scalar(c, n, key, "a MAC address like 02:00:00:00:00:01", &s) < 0)
		return -EINVAL;
	if (!parse_mac(s, mac))
		return fail(c, line_of(n),
			    "'%s' must be a MAC address like 02:00:00:00:00:01 (got '%.32s')", key,
			    s);
	if (mac[0] & 1)
		return fail(c, line_of(n), "'%s' must be a unicast MAC address (got %s)", key, s);
	if (memcmp(mac, zero, 6) == 0)
		return fail(c, line_of(n), "'%s' must not be all zero", key);
	return 0;
}

static bool
parse_ip(const char *s, struct rsw_ip *ip)
{
	memset(ip, 0, sizeof(*ip));
	if (strchr(s, ':') != NULL) {
		ip->family = RSW_AF_INET6;
		return inet_pton(AF_INET6, s, ip->addr) == 1;
	}
	ip->family = RSW_AF_INET;
	return inet_pton(AF_INET, s, ip->addr) == 1;
}

static int
ip_bits(const struct rsw_ip *ip)
{
	return ip->family == RSW_AF_INET ? 32 : 128;
}

/* Unicast: not unspecified, not multicast, not the IPv4 limited broadcast. */
static bool
ip_unicast(const struct rsw_ip *ip)
{
	static const uint8_t zero[16];

	if (memcmp(ip->addr, zero, ip->family == RSW_AF_INET ? 4 : 16) == 0)
		return false;
	if (ip->family == RSW_AF_INET)
		return (ip->addr[0] & 0xf0) != 0xe0 && !(ip->addr[0] == 255 && ip->addr[1] == 255 &&
							 ip->addr[2] == 255 && ip->addr[3] == 255);
	return ip->addr[0] != 0xff;
}

static const char *
family_name(int family)
{
	return family == RSW_AF_INET ? "IPv4" : "IPv6";
}

/* family 0: either. */
static int
get_ip(struct ctx *c, yaml_node_t *n, const char *key, int family, struct rsw_ip *ip)
{
	const char *kind = family == RSW_AF_INET    ? "an IPv4 address"
			   : family == RSW_AF_INET6 ? "an IPv6 address"
						    : "an IP address";
	const char *s;

	if (get_scalar(c, n, key, kind, &s) < 0)
		return -EINVAL;
	if (!parse_ip(s, ip) || (family != 0 && ip->family != family))
		return fail(c, line_of(n), "'%s' must be %s (got '%.48s')", key, kind, s);
	if (!ip_unicast(ip))
		return fail(c, line_of(n), "'%s' must be a unicast address (got %s)", key, s);
	return 0;
}

static bool
parse_prefix(const char *s, struct rsw_prefix *p)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash = strchr(s, '/');
	int64_t len;

	if (slash == NULL || (size_t)(slash - s) >= INET6_ADDRSTRLEN)
		return false;
	memcpy(buf, s, (size_t)(slash - s));
	buf[slash - s] = '\0';
	if (!parse_ip(buf, &p->ip))
		return false;
	if (strlen(slash + 1) > 3 || slash[1] == '+' || slash[1] == '-' ||
	    !parse_i64(slash + 1, &len) || len < 0 || len > ip_bits(&p->ip))
		return false;
	p->len = (uint8_t)len;
	return true;
}

static void
prefix_mask(struct rsw_prefix *p)
{
	int i;

	for (i = 0; i < 16; i++) {
		int keep = p->len - i * 8;

		if (keep <= 0)
			p->ip.addr[i] = 0;
		else if (keep < 8)
			p->ip.addr[i] &= (uint8_t)(0xff << (8 - keep));
	}
}

/* Whether the first len bits of a and b are equal. */
static bool
bits_equal(const uint8_t *a, const uint8_t *b, int len)
{
	int whole = len / 8, rest = len % 8;

	if (memcmp(a, b, (size_t)whole) != 0)
		return false;
	if (rest == 0)
		return true;
	return ((a[whole] ^ b[whole]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

static bool
prefix_overlap(const struct rsw_prefix *a, const struct rsw_prefix *b)
{
	return a->ip.family == b->ip.family &&
	       bits_equal(a->ip.addr, b->ip.addr, a->len < b->len ? a->len : b->len);
}

/* A port address: host bits kept; v4 below /31 must not be the network or broadcast address. */
static int
get_port_addr(struct ctx *c, yaml_node_t *n, const char *key, int family, struct rsw_prefix *p)
{
	const char *eg = family == RSW_AF_INET ? "10.0.1.254/24" : "fd00:0:1::fe/64";
	char nbuf[INET6_ADDRSTRLEN + 4];
	struct rsw_prefix net;
	const char *s;

	if (get_scalar(c, n, key, "an address/length", &s) < 0)
		return -EINVAL;
	if (!parse_prefix(s, p) || p->ip.family != family)
		return fail(c, line_of(n),
			    "'%s' must be an %s address/length like %s (got '%.48s')", key,
			    family_name(family), eg, s);
	if (p->len == 0)
		return fail(c, line_of(n), "'%s' must have a prefix length of 1 or more (got %s)",
			    key, s);
	if (!ip_unicast(&p->ip))
		return fail(c, line_of(n), "'%s' must be a unicast address (got %s)", key, s);
	if (family == RSW_AF_INET && p->len < 31) {
		uint32_t a, host = ~0u >> p->len;

		memcpy(&a, p->ip.addr, 4);
		a = ntohl(a);
		net = *p;
		prefix_mask(&net);
		if ((a & host) == 0)
			return fail(
				c, line_of(n),
				"'%s' %s is the subnet's network address; give the switch's own address in %s",
				key, s, rsw_prefix_str(&net, nbuf, sizeof(nbuf)));
		if ((a & host) == host)
			return fail(
				c, line_of(n),
				"'%s' %s is the subnet's broadcast address; give the switch's own address in %s",
				key, s, rsw_prefix_str(&net, nbuf, sizeof(nbuf)));
	}
	return 0;
}

/* Decimal number with an optional fraction, times mult; false unless a whole result. */
static bool
scaled_number(const char *s, const char *end, uint64_t mult, uint64_t *out)
{
	uint64_t ip = 0, frac = 0, div = 1;
	const char *q = s;

	if (q == end || !isdigit((unsigned char)*q))
		return false;
	for (; q < end && isdigit((unsigned char)*q); q++) {
		if (ip > (UINT64_MAX - 9) / 10)
			return false;
		ip = ip * 10 + (uint64_t)(*q - '0');
	}
	if (q < end && *q == '.') {
		q++;
		if (q == end || !isdigit((unsigned char)*q))
			return false;
		for (; q < end && isdigit((unsigned char)*q); q++) {
			if (div > UINT64_MAX / 100)
				return false;
			frac = frac * 10 + (uint64_t)(*q - '0');
			div *= 10;
		}
	}
	if (q != end)
		return false;
	while (frac != 0 && frac % 10 == 0) {
		frac /= 10;
		div /= 10;
	}
	if (mult != 0 && ip > UINT64_MAX / mult)
		return false;
	/* frac / div < 1 and mult <= 2^30, so frac * mult fits when div fits in 2^33. */
	if (frac != 0 && (div > (1ull << 33) || (frac * mult) % div != 0))
		return false;
	if (ip * mult > UINT64_MAX - frac * mult / div)
		return false;
	*out = ip * mult + frac * mult / div;
	return true;
}

int
rsw_parse_rate(const char *s, uint64_t *bps)
{
	size_t len;
	uint64_t mult = 1;

	if (s == NULL || bps == NULL)
		return -EINVAL;
	len = strlen(s);
	if (len > 0) {
		switch (s[len - 1]) {
		case 'k':
		case 'K':
			mult = 1000;
			break;
		case 'm':
		case 'M':
			mult = 1000000;
			break;
		case 'g':
		case 'G':
			mult = 1000000000;
			break;
		default:
			break;
		}
	}
	if (mult != 1)
		len--;
	/* "2.5 G": one space before the unit is fine. */
	if (mult != 1 && len > 0 && s[len - 1] == ' ')
		len--;
	return scaled_number(s, s + len, mult, bps) ? 0 : -EINVAL;
}

int
rsw_parse_size(const char *s, uint64_t *bytes)
{
	size_t len;
	uint64_t mult = 1;

	if (s == NULL || bytes == NULL)
		return -EINVAL;
	len = strlen(s);
	if (len >= 2 && strcasecmp(s + len - 2, "KB") == 0) {
		mult = 1024;
		len -= 2;
	} else if (len >= 2 && strcasecmp(s + len - 2, "MB") == 0) {
		mult = 1024 * 1024;
		len -= 2;
	} else if (len >= 1 && (s[len - 1] == 'B' || s[len - 1] == 'b')) {
		len -= 1;
	}
	/* "512 KB": one space before the unit is fine. */
	if (mult != 1 && len > 0 && s[len - 1] == ' ')
		len--;
	return scaled_number(s, s + len, mult, bytes) ? 0 : -EINVAL;
}

static const char *const lb_mode_names[] = {
	[RSW_LB_HASH] = "hash",
	[RSW_LB_SPRAY] = "spray",
	[RSW_LB_ADAPTIVE] = "adaptive",
	[RSW_LB_FLOWLET] = "flowlet",
};

const char *
rsw_lb_mode_name(enum rsw_lb_mode m)
{
	if (m == RSW_LB_UNSET)
		return "unset";
	if ((int)m < 0 || (size_t)m >= sizeof(lb_mode_names) / sizeof(lb_mode_names[0]))
		return "unknown";
	return lb_mode_names[m];
}

static int
get_lb_mode(struct ctx *c, yaml_node_t *n, const char *key, enum rsw_lb_mode *out)
{
	const char *s;
	int i;

	if (get_scalar(c, n, key, "a load-balance mode", &s) < 0)
		return -EINVAL;
	for (i = 0; i < (int)(sizeof(lb_mode_names) / sizeof(lb_mode_names[0])); i++)
		if (strcmp(s, lb_mode_names[i]) == 0)
			break;
	if (i == (int)(sizeof(lb_mode_names) / sizeof(lb_mode_names[0])))
		return fail(c, line_of(n),
			    "unknown load-balance mode '%.32s' (hash | spray | adaptive | flowlet)",
			    s);
	*out = (enum rsw_lb_mode)i;
	return 0;
}

/* switch: */

enum {
	SW_NAME,
	SW_ROLE,
	SW_IDLE,
	SW_ROUTER_ID,
	SW_ICMP,
	SW_N,
};

static const char *const switch_keys[SW_N] = {
	[SW_NAME] = "name",
	[SW_ROLE] = "role",
	[SW_IDLE] = "idle_sleep_us",
	[SW_ROUTER_ID] = "router_id",
	[SW_ICMP] = "icmp_unreachable",
};

static const char *const switch_roles[] = {"leaf", "spine"};

static int
parse_icmp(struct ctx *c, yaml_node_t *n, struct rsw_cfg_switch *sw)
{
	static const char *const keys[] = {"enable", "rate_pps"};
	struct kv kv[2];

	/* Shorthand: icmp_unreachable: false. */
	if (n->type == YAML_SCALAR_NODE && !is_null(n))
		return get_bool(c, n, "icmp_unreachable", &sw->icmp_unreachable);
	if (get_map(c, n, "switch.icmp_unreachable", keys, 2, NULL, kv) < 0)
		return -EINVAL;
	if (kv[0].v != NULL && get_bool(c, kv[0].v, "enable", &sw->icmp_unreachable) < 0)
		return -EINVAL;
	if (kv[1].v != NULL &&
	    get_u32(c, kv[1].v, "rate_pps", 1, CFG_MAX_PPS, &sw->icmp_rate_pps) < 0)
		return -EINVAL;
	return 0;
}

static int
parse_switch(struct ctx *c, const struct kv *sec)
{
	struct rsw_cfg_switch *sw = &c->cfg->sw;
	struct kv kv[SW_N];
	int role;

	if (sec->v == NULL)
		return fail(c, 0, "missing required key 'switch'");
	sw->line = sec->line;
	if (get_map(c, sec->v, "switch", switch_keys, SW_N, NULL, kv) < 0)
		return -EINVAL;
	if (kv[SW_NAME].v == NULL)
		return fail(c, sec->line, "missing required key 'name' in 'switch'");
	if (get_name(c, kv[SW_NAME].v, "name", sw->name) < 0)
		return -EINVAL;
	if (kv[SW_ROLE].v != NULL) {
		if (get_enum(c, kv[SW_ROLE].v, "role", switch_roles, 2, &role) < 0)
			return -EINVAL;
		sw->role = (enum rsw_switch_role)role;
	}
	if (kv[SW_IDLE].v != NULL &&
	    get_u32(c, kv[SW_IDLE].v, "idle_sleep_us", 0, CFG_MAX_IDLE_US, &sw->idle_sleep_us) < 0)
		return -EINVAL;
	if (kv[SW_ROUTER_ID].v != NULL) {
		if (get_ip(c, kv[SW_ROUTER_ID].v, "router_id", RSW_AF_INET, &sw->router_id) < 0)
			return -EINVAL;
		sw->has_router_id = true;
	}
	if (kv[SW_ICMP].v != NULL && parse_icmp(c, kv[SW_ICMP].v, sw) < 0)
		return -EINVAL;
	return 0;
}

/* ports: */

enum {
	P_NAME,
	P_DEVARGS,
	P_MAC,
	P_SPEED,
	P_IPV4,
	P_IPV6,
	P_MTU,
	P_ROLE,
	P_N,
};

static const char *const port_keys[P_N] = {
	[P_NAME] = "name", [P_DEVARGS] = "devargs", [P_MAC] = "mac", [P_SPEED] = "speed",
	[P_IPV4] = "ipv4", [P_IPV6] = "ipv6",       [P_MTU] = "mtu", [P_ROLE] = "role",
};

static const char *const port_roles[] = {"downlink", "uplink"};

static int
check_port_subnet(struct ctx *c, yaml_node_t *n, const char *key, const struct rsw_prefix *p,
		  int self)
{
	char a[INET6_ADDRSTRLEN + 4], b[INET6_ADDRSTRLEN + 4];
	int j;

	for (j = 0; j < self; j++) {
		const struct rsw_cfg_port *o = &c->cfg->ports[j];
		const struct rsw_prefix *q = p->ip.family == RSW_AF_INET
						     ? (o->has_ipv4 ? &o->ipv4 : NULL)
						     : (o->has_ipv6 ? &o->ipv6 : NULL);

		if (q != NULL && prefix_overlap(p, q))
			return fail(c, line_of(n), "'%s' %s overlaps port '%s' (%s)", key,
				    rsw_prefix_str(p, a, sizeof(a)), o->name,
				    rsw_prefix_str(q, b, sizeof(b)));
	}
	return 0;
}

static int
parse_port(struct ctx *c, yaml_node_t *item, int idx)
{
	struct rsw_cfg_port *port = &c->cfg->ports[idx];
	struct kv kv[P_N];
	const char *s;
	int64_t mtu;
	int j, role;

	port->line = line_of(item);
	port->mtu = 1500;
	if (item->type != YAML_MAPPING_NODE)
		return fail(c, line_of(item), "each entry of 'ports' must be a mapping");
	if (get_map(c, item, "ports", port_keys, P_N, NULL, kv) < 0)
		return -EINVAL;
	if (kv[P_NAME].v == NULL)
		return fail(c, port->line, "missing required key 'name' in 'ports'");
	if (get_name(c, kv[P_NAME].v, "name", port->name) < 0)
		return -EINVAL;
	for (j = 0; j < idx; j++)
		if (strcmp(c->cfg->ports[j].name, port->name) == 0)
			return fail(c, line_of(kv[P_NAME].v),
				    "duplicate port name '%s' (first at line %d)", port->name,
				    c->cfg->ports[j].line);
	if (kv[P_DEVARGS].v == NULL)
		return fail(c, port->line, "missing required key 'devargs' in 'ports'");
	if (get_text(c, kv[P_DEVARGS].v, "devargs", port->devargs, sizeof(port->devargs)) < 0)
		return -EINVAL;
	for (j = 0; j < idx; j++)
		if (strcmp(c->cfg->ports[j].devargs, port->devargs) == 0)
			return fail(c, line_of(kv[P_DEVARGS].v),
				    "duplicate devargs '%.64s' (port '%s' has it)", port->devargs,
				    c->cfg->ports[j].name);
	if (kv[P_MAC].v != NULL) {
		if (get_mac(c, kv[P_MAC].v, "mac", port->mac) < 0)
			return -EINVAL;
		port->has_mac = true;
	}
	if (kv[P_SPEED].v != NULL) {
		if (get_scalar(c, kv[P_SPEED].v, "speed", "a rate like 10G or 2.5G", &s) < 0)
			return -EINVAL;
		if (rsw_parse_rate(s, &port->speed_bps) < 0)
			return fail(
				c, line_of(kv[P_SPEED].v),
				"'speed' must be a rate in bits/s like 100M, 2.5G or 10G (got '%.32s')",
				s);
		if (port->speed_bps < RSW_SPEED_MIN_BPS || port->speed_bps > RSW_SPEED_MAX_BPS)
			return fail(c, line_of(kv[P_SPEED].v),
				    "'speed' must be between 1M and 400G (got %s)", s);
	}
	if (kv[P_IPV4].v != NULL) {
		if (get_port_addr(c, kv[P_IPV4].v, "ipv4", RSW_AF_INET, &port->ipv4) < 0 ||
		    check_port_subnet(c, kv[P_IPV4].v, "ipv4", &port->ipv4, idx) < 0)
			return -EINVAL;
		port->has_ipv4 = true;
	}
	if (kv[P_IPV6].v != NULL) {
		if (get_port_addr(c, kv[P_IPV6].v, "ipv6", RSW_AF_INET6, &port->ipv6) < 0 ||
		    check_port_subnet(c, kv[P_IPV6].v, "ipv6", &port->ipv6, idx) < 0)
			return -EINVAL;
		port->has_ipv6 = true;
	}
	if (kv[P_MTU].v != NULL) {
		if (get_int(c, kv[P_MTU].v, "mtu", CFG_MIN_MTU, CFG_MAX_MTU, &mtu) < 0)
			return -EINVAL;
		port->mtu = (uint16_t)mtu;
	}
	if (port->has_ipv6 && port->mtu < CFG_MIN_MTU_IPV6)
		return fail(c, kv[P_MTU].v != NULL ? line_of(kv[P_MTU].v) : port->line,
			    "'mtu' must be at least %d on a port with an IPv6 address (got %u)",
			    CFG_MIN_MTU_IPV6, port->mtu);
	if (kv[P_ROLE].v != NULL) {
		if (get_enum(c, kv[P_ROLE].v, "role", port_roles, 2, &role) < 0)
			return -EINVAL;
		port->role = (enum rsw_port_role)(role + 1);
	}
	return 0;
}

static int
parse_ports(struct ctx *c, const struct kv *sec)
{
	int i, n;

	if (sec->v == NULL)
		return fail(c, 0, "missing required key 'ports'");
	if (is_null(sec->v))
		return fail(c, sec->line, "'ports' must list at least one port");
	if (sec->v->type != YAML_SEQUENCE_NODE)
		return fail(c, line_of(sec->v), "'ports' must be a list");
	n = seq_len(sec->v);
	if (n == 0)
		return fail(c, sec->line, "'ports' must list at least one port");
	for (i = 0; i < n; i++) {
		yaml_node_t *item = seq_item(c, sec->v, i);

		if (i == RSW_MAX_PORTS)
			return fail(c, line_of(item), "too many ports (at most %d)", RSW_MAX_PORTS);
		if (parse_port(c, item, i) < 0)
			return -EINVAL;
		c->cfg->n_ports = (uint16_t)(i + 1);
	}
	return 0;
}

/* The port whose own address is ip, or -1. */
static int
own_address(const struct rsw_config *cfg, const struct rsw_ip *ip)
{
	int i;

	for (i = 0; i < cfg->n_ports; i++) {
		const struct rsw_cfg_port *p = &cfg->ports[i];

		if (p->has_ipv4 && memcmp(&p->ipv4.ip, ip, sizeof(*ip)) == 0)
			return i;
		if (p->has_ipv6 && memcmp(&p->ipv6.ip, ip, sizeof(*ip)) == 0)
			return i;
	}
	return -1;
}

/* neighbors: */

enum {
	N_IP,
	N_MAC,
	N_PORT,
	N_N,
};

static const char *const neigh_keys[N_N] = {[N_IP] = "ip", [N_MAC] = "mac", [N_PORT] = "port"};

static int
ip_cmp(const struct rsw_ip *a, const struct rsw_ip *b)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	return memcmp(a->addr, b->addr, sizeof(a->addr));
}

static int
neigh_ptr_cmp(const void *a, const void *b)
{
	const struct rsw_cfg_neighbor *x = *(const struct rsw_cfg_neighbor *const *)a;
	const struct rsw_cfg_neighbor *y = *(const struct rsw_cfg_neighbor *const *)b;
	int r = ip_cmp(&x->ip, &y->ip);

	if (r != 0)
		return r;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int
parse_neighbor(struct ctx *c, yaml_node_t *item, struct rsw_cfg_neighbor *nb)
{
	char ipbuf[INET6_ADDRSTRLEN];
	struct kv kv[N_N];
	const char *s;
	int port;

	nb->line = line_of(item);
	if (item->type != YAML_MAPPING_NODE)
		return fail(c, nb->line, "each entry of 'neighbors' must be a mapping");
	if (get_map(c, item, "neighbors", neigh_keys, N_N, NULL, kv) < 0)
		return -EINVAL;
	if (kv[N_IP].v == NULL)
		return fail(c, nb->line, "missing required key 'ip' in 'neighbors'");
	if (kv[N_MAC].v == NULL)
		return fail(c, nb->line, "missing required key 'mac' in 'neighbors'");
	if (kv[N_PORT].v == NULL)
		return fail(c, nb->line, "missing required key 'port' in 'neighbors'");
	if (get_ip(c, kv[N_IP].v, "ip", 0, &nb->ip) < 0)
		return -EINVAL;
	port = own_address(c->cfg, &nb->ip);
	if (port >= 0)
		return fail(c, line_of(kv[N_IP].v), "neighbor %s is the address of port '%s'",
			    rsw_ip_str(&nb->ip, ipbuf, sizeof(ipbuf)), c->cfg->ports[port].name);
	if (get_mac(c, kv[N_MAC].v, "mac", nb->mac) < 0)
		return -EINVAL;
	if (get_scalar(c, kv[N_PORT].v, "port", "a port name", &s) < 0)
		return -EINVAL;
	port = rsw_config_port_index(c->cfg, s);
	if (port < 0)
		return fail(c, line_of(kv[N_PORT].v), "unknown port '%.40s'", s);
	nb->port = (uint16_t)port;
	return 0;
}

static int
parse_neighbors(struct ctx *c, const struct kv *sec)
{
	struct rsw_config *cfg = c->cfg;
	char ipbuf[INET6_ADDRSTRLEN];
	int i, n;

	if (is_null(sec->v))
		return 0;
	if (sec->v->type != YAML_SEQUENCE_NODE)
		return fail(c, line_of(sec->v), "'neighbors' must be a list");
	n = seq_len(sec->v);
	if (n == 0)
		return 0;
	if (n > RSW_MAX_NEIGHBORS)
		return fail(c, line_of(seq_item(c, sec->v, RSW_MAX_NEIGHBORS)),
			    "too many neighbors (at most %d)", RSW_MAX_NEIGHBORS);
	cfg->neighbors = calloc((size_t)n, sizeof(*cfg->neighbors));
	c->nsorted = calloc((size_t)n, sizeof(*c->nsorted));
	if (cfg->neighbors == NULL || c->nsorted == NULL)
		return fail(c, 0, "out of memory");
	for (i = 0; i < n; i++) {
		if (parse_neighbor(c, seq_item(c, sec->v, i), &cfg->neighbors[i]) < 0)
			return -EINVAL;
		cfg->n_neighbors = (uint32_t)(i + 1);
		c->nsorted[i] = &cfg->neighbors[i];
	}
	qsort(c->nsorted, (size_t)n, sizeof(*c->nsorted), neigh_ptr_cmp);
	for (i = 1; i < n; i++)
		if (ip_cmp(&c->nsorted[i - 1]->ip, &c->nsorted[i]->ip) == 0)
			return fail(c, c->nsorted[i]->line,
				    "duplicate neighbor %s (first at line %d)",
				    rsw_ip_str(&c->nsorted[i]->ip, ipbuf, sizeof(ipbuf)),
				    c->nsorted[i - 1]->line);
	return 0;
}

static bool
neighbor_known(struct ctx *c, const struct rsw_ip *ip)
{
	size_t lo = 0, hi = c->cfg->n_neighbors;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = ip_cmp(&c->nsorted[mid]->ip, ip);

		if (r == 0)
			return true;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* routes: */

enum {
	R_PREFIX,
	R_NEXTHOPS,
	R_WEIGHTS,
	R_LB,
	R_N,
};

static const char *const route_keys[R_N] = {
	[R_PREFIX] = "prefix",
	[R_NEXTHOPS] = "nexthops",
	[R_WEIGHTS] = "weights",
	[R_LB] = "lb",
};

static bool
connected(const struct rsw_config *cfg, const struct rsw_ip *ip)
{
	int i;

	for (i = 0; i < cfg->n_ports; i++) {
		const struct rsw_cfg_port *p = &cfg->ports[i];

		if (p->has_ipv4 && rsw_prefix_contains(&p->ipv4, ip))
			return true;
		if (p->has_ipv6 && rsw_prefix_contains(&p->ipv6, ip))
			return true;
	}
	return false;
}

static int
parse_nexthop(struct ctx *c, yaml_node_t *n, struct rsw_cfg_route *r, int k)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN + 4];
	struct rsw_ip *ip = &r->nexthops[k];
	int j;

	if (get_ip(c, n, "nexthops", 0, ip) < 0)
		return -EINVAL;
	rsw_ip_str(ip, a, sizeof(a));
	if (ip->family != r->prefix.ip.family)
		return fail(c, line_of(n), "next hop %s is %s but prefix %s is %s", a,
			    family_name(ip->family), rsw_prefix_str(&r->prefix, b, sizeof(b)),
			    family_name(r->prefix.ip.family));
	for (j = 0; j < k; j++)
		if (ip_cmp(&r->nexthops[j], ip) == 0)
			return fail(c, line_of(n), "duplicate next hop %s", a);
	j = own_address(c->cfg, ip);
	if (j >= 0)
		return fail(c, line_of(n), "next hop %s is the address of port '%s'", a,
			    c->cfg->ports[j].name);
	if (!connected(c->cfg, ip) && !neighbor_known(c, ip))
		return fail(
			c, line_of(n),
			"next hop %s is not resolvable: it is in no port's subnet and is not a static neighbor",
			a);
	return 0;
}

static int
parse_route(struct ctx *c, yaml_node_t *item, struct rsw_cfg_route *r)
{
	struct kv kv[R_N];
	yaml_node_t *nh;
	const char *s;
	int i, n;

	r->line = line_of(item);
	r->lb = RSW_LB_UNSET;
	if (item->type != YAML_MAPPING_NODE)
		return fail(c, r->line, "each entry of 'routes' must be a mapping");
	if (get_map(c, item, "routes", route_keys, R_N, NULL, kv) < 0)
		return -EINVAL;
	if (kv[R_PREFIX].v == NULL)
		return fail(c, r->line, "missing required key 'prefix' in 'routes'");
	if (kv[R_NEXTHOPS].v == NULL)
		return fail(c, r->line, "missing required key 'nexthops' in 'routes'");
	if (get_scalar(c, kv[R_PREFIX].v, "prefix", "an address/length", &s) < 0)
		return -EINVAL;
	if (!parse_prefix(s, &r->prefix))
		return fail(
			c, line_of(kv[R_PREFIX].v),
			"'prefix' must be an address/length like 10.9.0.0/16 or fd00:9::/48 (got '%.48s')",
			s);
	prefix_mask(&r->prefix);

	nh = kv[R_NEXTHOPS].v;
	if (nh->type == YAML_SCALAR_NODE && !is_null(nh)) {
		/* nexthops: 10.0.2.1 is a list of one. */
		r->n_nexthops = 1;
		if (parse_nexthop(c, nh, r, 0) < 0)
			return -EINVAL;
	} else {
		if (nh->type != YAML_SEQUENCE_NODE)
			return fail(c, line_of(nh), "'nexthops' must be a list of addresses");
		n = seq_len(nh);
		if (n < 1 || n > RSW_MAX_NEXTHOPS)
			return fail(c, line_of(nh),
				    "'nexthops' must list 1 to %d next hops (got %d)",
				    RSW_MAX_NEXTHOPS, n);
		for (i = 0; i < n; i++)
			if (parse_nexthop(c, seq_item(c, nh, i), r, i) < 0)
				return -EINVAL;
		r->n_nexthops = (uint16_t)n;
	}
	for (i = 0; i < RSW_MAX_NEXTHOPS; i++)
		r->weights[i] = i < r->n_nexthops ? 1 : 0;

	if (kv[R_WEIGHTS].v != NULL) {
		yaml_node_t *w = kv[R_WEIGHTS].v;

		if (w->type != YAML_SEQUENCE_NODE)
			return fail(c, line_of(w), "'weights' must be a list of integers");
		n = seq_len(w);
		if (n != r->n_nexthops)
			return fail(
				c, line_of(w),
				"'weights' has %d entries but 'nexthops' has %u; give one weight per next hop",
				n, r->n_nexthops);
		for (i = 0; i < n; i++)
			if (get_u32(c, seq_item(c, w, i), "weights", 1, CFG_MAX_WEIGHT,
				    &r->weights[i]) < 0)
				return -EINVAL;
	}
	if (kv[R_LB].v != NULL && get_lb_mode(c, kv[R_LB].v, "lb", &r->lb) < 0)
		return -EINVAL;
	return 0;
}

static int
route_ptr_cmp(const void *a, const void *b)
{
	const struct rsw_cfg_route *x = *(const struct rsw_cfg_route *const *)a;
	const struct rsw_cfg_route *y = *(const struct rsw_cfg_route *const *)b;
	int r = ip_cmp(&x->prefix.ip, &y->prefix.ip);

	if (r != 0)
		return r;
	if (x->prefix.len != y->prefix.len)
		return x->prefix.len < y->prefix.len ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int
parse_routes(struct ctx *c, const struct kv *sec)
{
	struct rsw_config *cfg = c->cfg;
	struct rsw_cfg_route **sorted;
	char pbuf[INET6_ADDRSTRLEN + 4];
	int i, n, n4 = 0, n6 = 0, rc = 0;

	if (is_null(sec->v))
		return 0;
	if (sec->v->type != YAML_SEQUENCE_NODE)
		return fail(c, line_of(sec->v), "'routes' must be a list");
	n = seq_len(sec->v);
	if (n == 0)
		return 0;
	if (n > 2 * RSW_MAX_ROUTES)
		return fail(c, line_of(seq_item(c, sec->v, 2 * RSW_MAX_ROUTES)),
			    "too many routes (at most %d per family)", RSW_MAX_ROUTES);
	cfg->routes = calloc((size_t)n, sizeof(*cfg->routes));
	if (cfg->routes == NULL)
		return fail(c, 0, "out of memory");
	for (i = 0; i < n; i++) {
		struct rsw_cfg_route *r = &cfg->routes[i];

		if (parse_route(c, seq_item(c, sec->v, i), r) < 0)
			return -EINVAL;
		cfg->n_routes = (uint32_t)(i + 1);
		if ((r->prefix.ip.family == RSW_AF_INET ? ++n4 : ++n6) > RSW_MAX_ROUTES)
			return fail(c, r->line, "too many %s routes (at most %d)",
				    family_name(r->prefix.ip.family), RSW_MAX_ROUTES);
	}
	sorted = malloc((size_t)n * sizeof(*sorted));
	if (sorted == NULL)
		return fail(c, 0, "out of memory");
	for (i = 0; i < n; i++)
		sorted[i] = &cfg->routes[i];
	qsort(sorted, (size_t)n, sizeof(*sorted), route_ptr_cmp);
	for (i = 1; i < n; i++) {
		if (ip_cmp(&sorted[i - 1]->prefix.ip, &sorted[i]->prefix.ip) == 0 &&
		    sorted[i - 1]->prefix.len == sorted[i]->prefix.len) {
			rc = fail(c, sorted[i]->line, "duplicate route %s (first at line %d)",
				  rsw_prefix_str(&sorted[i]->prefix, pbuf, sizeof(pbuf)),
				  sorted[i - 1]->line);
			break;
		}
	}
	free(sorted);
	return rc;
}

bool
rsw_cfg_route_same_group(const struct rsw_cfg_route *a, const struct rsw_cfg_route *b)
{
	return a->n_nexthops == b->n_nexthops && a->lb == b->lb && a->has_port == b->has_port &&
	       (!a->has_port || a->port == b->port) &&
	       memcmp(a->nexthops, b->nexthops, a->n_nexthops * sizeof(a->nexthops[0])) == 0 &&
	       memcmp(a->weights, b->weights, a->n_nexthops * sizeof(a->weights[0])) == 0;
}

/* FNV-1a, 32 bits. */
static uint32_t
fnv1a(uint32_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

uint32_t
rsw_cfg_route_group_hash(const struct rsw_cfg_route *r)
{
	uint32_t h = 2166136261u;
	int32_t lb = r->lb;
	uint16_t port = r->has_port ? r->port : UINT16_MAX;

	h = fnv1a(h, &r->n_nexthops, sizeof(r->n_nexthops));
	h = fnv1a(h, &lb, sizeof(lb));
	h = fnv1a(h, &port, sizeof(port));
	h = fnv1a(h, r->nexthops, r->n_nexthops * sizeof(r->nexthops[0]));
	return fnv1a(h, r->weights, r->n_nexthops * sizeof(r->weights[0]));
}

/* The smallest power of two >= 2n (an open-addressing table at most half full). */
static uint32_t
set_size(uint32_t n)
{
	uint32_t sz = 64;

	while (sz < 2 * n)
		sz <<= 1;
	return sz;
}

/* Insert ip into the set of neighbour addresses; @return 1 if it was new, 0 if not. */
static int
ip_set_add(const struct rsw_ip **set, uint32_t mask, const struct rsw_ip *ip)
{
	uint32_t h = fnv1a(2166136261u, ip, sizeof(*ip)) & mask;

	while (set[h] != NULL) {
		if (memcmp(set[h], ip, sizeof(*ip)) == 0)
			return 0;
		h = (h + 1) & mask;
	}
	set[h] = ip;
	return 1;
}

/* Insert a /24 block (key + 1, so 0 means empty); @return 1 if it was new. */
static int
block_set_add(uint32_t *set, uint32_t mask, uint32_t block)
{
	uint32_t h = (block * 2654435761u) & mask;

	while (set[h] != 0) {
		if (set[h] == block + 1)
			return 0;
		h = (h + 1) & mask;
	}
	set[h] = block + 1;
	return 1;
}

/* The /24 block of an IPv4 prefix longer than /24 (it needs a DIR-24-8 tbl8), else -1. */
static int64_t
tbl8_block(const struct rsw_prefix *p)
{
	if (p->ip.family != RSW_AF_INET || p->len <= 24)
		return -1;
	return (int64_t)p->ip.addr[0] << 16 | p->ip.addr[1] << 8 | p->ip.addr[2];
}

/*
 * What the forwarding tables can hold (docs/config.md "Limits"), checked here so that a
 * configuration that does not fit is refused with its line, never when tables are built:
 * distinct next-hop groups (routes with the same next hops share one), neighbour addresses
 * per family (static neighbours and route next hops), and the IPv4 FIB's tbl8 groups (one
 * per /24 block that holds a prefix longer than /24, port addresses included).
 */
static int
check_table_limits(struct ctx *c)
{
	const struct rsw_config *cfg = c->cfg;
	uint32_t gsz = set_size(cfg->n_routes), nsz = set_size(2 * RSW_MAX_NEIGHBORS + 2);
	uint32_t bsz = set_size(RSW_MAX_FIB4_TBL8 + 1), n_groups = 0, n_blocks = 0, i, j;
	uint32_t n_neigh[2] = {0, 0}, *gset, *bset;
	const struct rsw_ip **nset;
	int line_groups = 0, rc = 0;
	int64_t b;

	if (cfg->n_routes == 0 && cfg->n_neighbors == 0 && cfg->n_ports == 0)
		return 0;
	gset = calloc(gsz, sizeof(*gset));
	nset = calloc(nsz, sizeof(*nset));
	bset = calloc(bsz, sizeof(*bset));
	if (gset == NULL || nset == NULL || bset == NULL) {
		rc = fail(c, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < cfg->n_neighbors; i++)
		n_neigh[cfg->neighbors[i].ip.family == RSW_AF_INET6] +=
			(uint32_t)ip_set_add(nset, nsz - 1, &cfg->neighbors[i].ip);
	for (i = 0; i < cfg->n_ports; i++) {
		const struct rsw_cfg_port *cp = &cfg->ports[i];
		struct rsw_prefix host;

		if (!cp->has_ipv4)
			continue;
		host = cp->ipv4;
		host.len = 32;
		n_blocks += (uint32_t)block_set_add(bset, bsz - 1, (uint32_t)tbl8_block(&host));
	}
	for (i = 0; i < cfg->n_routes; i++) {
		const struct rsw_cfg_route *r = &cfg->routes[i];
		uint32_t h = rsw_cfg_route_group_hash(r) & (gsz - 1);
		int fam = r->prefix.ip.family == RSW_AF_INET6;
		char pbuf[INET6_ADDRSTRLEN + 4];

		while (gset[h] != 0 && !rsw_cfg_route_same_group(&cfg->routes[gset[h] - 1], r))
			h = (h + 1) & (gsz - 1);
		if (gset[h] == 0) {
			gset[h] = i + 1;
			if (++n_groups == RSW_MAX_GROUPS + 1)
				line_groups = r->line;
		}
		for (j = 0; j < r->n_nexthops; j++) {
			n_neigh[fam] += (uint32_t)ip_set_add(nset, nsz - 1, &r->nexthops[j]);
			if (n_neigh[fam] > RSW_MAX_NEIGHBORS) {
				rc = fail(c, r->line,
					  "too many neighbours: route %s brings the %s addresses "
					  "(static neighbours and next hops) to more than %d",
					  rsw_prefix_str(&r->prefix, pbuf, sizeof(pbuf)),
					  family_name(r->prefix.ip.family), RSW_MAX_NEIGHBORS);
				goto out;
			}
		}
		b = tbl8_block(&r->prefix);
		if (b >= 0 && block_set_add(bset, bsz - 1, (uint32_t)b) &&
		    ++n_blocks > RSW_MAX_FIB4_TBL8) {
			rc = fail(
				c, r->line,
				"too many IPv4 routes longer than /24: route %s is in the %uth /24 "
				"block holding such routes, at most %d",
				rsw_prefix_str(&r->prefix, pbuf, sizeof(pbuf)), n_blocks,
				RSW_MAX_FIB4_TBL8);
			goto out;
		}
	}
	if (n_groups > RSW_MAX_GROUPS)
		rc = fail(c, line_groups,
			  "too many distinct next-hop groups: %u, at most %d (routes with the "
			  "same next hops, weights and lb share one)",
			  n_groups, RSW_MAX_GROUPS);
out:
	free(gset);
	free(nset);
	free(bset);
	return rc;
}

/* load_balance: */

enum {
	LB_MODE,
	LB_PER_TC,
	LB_FIELDS,
	LB_ALG,
	LB_SPRAY,
	LB_FLOWLET,
	LB_SEED,
	LB_SYMMETRIC,
	LB_N,
};

static const char *const lb_keys[LB_N] = {
	[LB_MODE] = "mode",          [LB_PER_TC] = "per_tc",
	[LB_FIELDS] = "hash_fields", [LB_ALG] = "hash_algorithm",
	[LB_SPRAY] = "spray",        [LB_FLOWLET] = "flowlet_timeout_us",
	[LB_SEED] = "hash_seed",     [LB_SYMMETRIC] = "hash_symmetric",
};

/* Index i is bit i of RSW_HF_*. */
static const char *const hash_field_names[] = {
	"src_ip", "dst_ip", "proto", "src_port", "dst_port", "roce_qp", "uet_entropy", "flow_label",
};

#define N_HASH_FIELDS ((int)(sizeof(hash_field_names) / sizeof(hash_field_names[0])))

static const char *const hash_alg_names[] = {
	[RSW_HASH_CRC32] = "crc32", [RSW_HASH_TOEPLITZ] = "toeplitz"};
static const char *const spray_names[] = {
	[RSW_SPRAY_RR] = "round-robin", [RSW_SPRAY_RANDOM] = "random"};
static const char *const trust_names[] = {[RSW_TRUST_DSCP] = "dscp", [RSW_TRUST_PCP] = "pcp"};
static const char *const switch_role_names[] = {
	[RSW_ROLE_LEAF] = "leaf", [RSW_ROLE_SPINE] = "spine"};

static int
parse_per_tc(struct ctx *c, yaml_node_t *n, struct rsw_cfg_lb *lb)
{
	yaml_node_pair_t *p;
	int64_t tc;

	if (is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return fail(c, line_of(n), "'per_tc' must be a mapping of TC to mode");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node_at(c, p->key);

		if (map_scalar_key(c, k, "per_tc") < 0)
			return -EINVAL;
		if (!parse_i64(sval(k), &tc))
			return fail(c, line_of(k), "'per_tc' keys must be TCs 0-7 (got '%.32s')",
				    sval(k));
		if (tc < 0 || tc >= RSW_N_TC)
			return fail(c, line_of(k),
				    "'per_tc' key must be a TC between 0 and 7 (got %lld)",
				    (long long)tc);
		if (lb->per_tc[tc] != RSW_LB_UNSET)
			return fail(c, line_of(k), "duplicate key '%s'", sval(k));
		if (get_lb_mode(c, node_at(c, p->value), "per_tc", &lb->per_tc[tc]) < 0)
			return -EINVAL;
	}
	return 0;
}

static int
parse_hash_fields(struct ctx *c, yaml_node_t *n, struct rsw_cfg_lb *lb)
{
	int i, j, cnt;

	if (n->type != YAML_SEQUENCE_NODE)
		return fail(c, line_of(n), "'hash_fields' must be a list");
	cnt = seq_len(n);
	if (cnt == 0)
		return fail(c, line_of(n), "'hash_fields' must list at least one field");
	lb->hash_fields = 0;
	for (i = 0; i < cnt; i++) {
		yaml_node_t *f = seq_item(c, n, i);
		const char *s;

		if (get_scalar(c, f, "hash_fields", "a list of field names", &s) < 0)
			return -EINVAL;
		for (j = 0; j < N_HASH_FIELDS; j++)
			if (strcmp(s, hash_field_names[j]) == 0)
				break;
		if (j == N_HASH_FIELDS)
			return fail(
				c, line_of(f),
				"unknown hash field '%.32s' (src_ip, dst_ip, proto, src_port, dst_port, roce_qp, uet_entropy, flow_label)",
				s);
		if (lb->hash_fields & (1u << j))
			return fail(c, line_of(f), "duplicate hash field '%s'", s);
		lb->hash_fields |= 1u << j;
	}
	return 0;
}

static int
parse_lb(struct ctx *c, const struct kv *sec)
{
	struct rsw_cfg_lb *lb = &c->cfg->lb;
	struct kv kv[LB_N];
	int v;

	if (get_map(c, sec->v, "load_balance", lb_keys, LB_N, NULL, kv) < 0)
		return -EINVAL;
	if (kv[LB_MODE].v != NULL && get_lb_mode(c, kv[LB_MODE].v, "mode", &lb->mode) < 0)
		return -EINVAL;
	if (kv[LB_PER_TC].v != NULL && parse_per_tc(c, kv[LB_PER_TC].v, lb) < 0)
		return -EINVAL;
	if (kv[LB_FIELDS].v != NULL && parse_hash_fields(c, kv[LB_FIELDS].v, lb) < 0)
		return -EINVAL;
	if (kv[LB_ALG].v != NULL) {
		if (get_enum(c, kv[LB_ALG].v, "hash_algorithm", hash_alg_names, 2, &v) < 0)
			return -EINVAL;
		lb->hash_algorithm = (enum rsw_hash_alg)v;
	}
	if (kv[LB_SPRAY].v != NULL) {
		if (get_enum(c, kv[LB_SPRAY].v, "spray", spray_names, 2, &v) < 0)
			return -EINVAL;
		lb->spray = (enum rsw_spray_mode)v;
	}
	if (kv[LB_FLOWLET].v != NULL && get_u32(c, kv[LB_FLOWLET].v, "flowlet_timeout_us", 1,
						CFG_MAX_FLOWLET, &lb->flowlet_timeout_us) < 0)
		return -EINVAL;
	if (kv[LB_SEED].v != NULL &&
	    get_u32(c, kv[LB_SEED].v, "hash_seed", 0, UINT32_MAX, &lb->hash_seed) < 0)
		return -EINVAL;
	if (kv[LB_SYMMETRIC].v != NULL &&
	    get_bool(c, kv[LB_SYMMETRIC].v, "hash_symmetric", &lb->hash_symmetric) < 0)
		return -EINVAL;
	return 0;
}

/* qos: */

enum {
	Q_TRUST,
	Q_DSCP,
	Q_PCP,
	Q_DEFAULT_TC,
	Q_SCHEDULER,
	Q_LOSSLESS,
	Q_BUFFER,
	Q_ECN,
	Q_ECN_MARK,
	Q_PFCWD,
	Q_TRIM,
	Q_CNP,
	Q_N,
};

static const char *const qos_keys[Q_N] = {
	[Q_TRUST] = "trust",
	[Q_DSCP] = "dscp_to_tc",
	[Q_PCP] = "pcp_to_tc",
	[Q_DEFAULT_TC] = "default_tc",
	[Q_SCHEDULER] = "scheduler",
	[Q_LOSSLESS] = "lossless",
	[Q_BUFFER] = "buffer",
	[Q_ECN] = "ecn",
	[Q_ECN_MARK] = "ecn_mark_point",
	[Q_PFCWD] = "pfc_watchdog",
	[Q_TRIM] = "trim",
	[Q_CNP] = "cnp",
};

enum {
	TRIM_TCS,
	TRIM_THRESHOLD,
	TRIM_SIZE,
	TRIM_DSCP,
	TRIM_DSCP_LASTHOP,
	TRIM_TC,
	TRIM_N,
};

static const char *const trim_keys[TRIM_N] = {
	[TRIM_TCS] = "tcs",   [TRIM_THRESHOLD] = "threshold",       [TRIM_SIZE] = "size",
	[TRIM_DSCP] = "dscp", [TRIM_DSCP_LASTHOP] = "dscp_lasthop", [TRIM_TC] = "tc",
};

enum {
	CNP_TC,
	CNP_COALESCE,
	CNP_N,
};

static const char *const cnp_keys[CNP_N] = {[CNP_TC] = "tc", [CNP_COALESCE] = "coalesce_us"};

#define CFG_MIN_TRIM_SIZE 78 /* untagged IPv6 + UDP + UET PDS (24) */
#define CFG_MAX_COALESCE  1000000

enum {
	SCH_STRICT,
	SCH_DWRR,
	SCH_N,
};

static const char *const sched_keys[SCH_N] = {[SCH_STRICT] = "strict", [SCH_DWRR] = "dwrr"};

enum {
	BUF_TOTAL,
	BUF_QUEUE_LIMIT,
	BUF_PFC,
	BUF_N,
};

static const char *const buffer_keys[BUF_N] = {
	[BUF_TOTAL] = "total",
	[BUF_QUEUE_LIMIT] = "queue_limit",
	[BUF_PFC] = "pfc",
};

enum {
	PFC_MODE,
	PFC_XOFF,
	PFC_XON,
	PFC_ALPHA,
	PFC_XON_OFFSET,
	PFC_HEADROOM,
	PFC_QUANTA,
	PFC_N,
};

static const char *const pfc_keys[PFC_N] = {
	[PFC_MODE] = "mode",
	[PFC_XOFF] = "xoff",
	[PFC_XON] = "xon",
	[PFC_ALPHA] = "alpha",
	[PFC_XON_OFFSET] = "xon_offset",
	[PFC_HEADROOM] = "headroom",
	[PFC_QUANTA] = "quanta",
};

enum {
	ECN_KMIN,
	ECN_KMAX,
	ECN_PMAX,
	ECN_N,
};

static const char *const ecn_keys[ECN_N] = {
	[ECN_KMIN] = "kmin", [ECN_KMAX] = "kmax", [ECN_PMAX] = "pmax"};

enum {
	WD_DETECT,
	WD_RESTORE,
	WD_ACTION,
	WD_N,
};

static const char *const pfcwd_keys[WD_N] = {
	[WD_DETECT] = "detect_ms", [WD_RESTORE] = "restore_ms", [WD_ACTION] = "action"};

static const char *const pfc_mode_names[] = {"static", "dynamic"};
static const char *const ecn_mark_names[] = {"dequeue", "enqueue"};
static const char *const pfcwd_action_names[] = {
	[RSW_PFCWD_DROP] = "drop",
	[RSW_PFCWD_FORWARD] = "forward",
	[RSW_PFCWD_ALERT] = "alert",
	[RSW_PFCWD_OFF] = "off",
};

/* Bytes as a user writes them: "1.5MB", "96KB", "1000B" (exact, at most three decimals). */
static const char *
size_str(uint64_t b, char *buf, size_t len)
{
	static const struct {
		uint64_t unit;
		const char *name;
	} units[] = {{CFG_MB, "MB"}, {CFG_KB, "KB"}};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t u = units[i].unit, rest = b % u, milli;
		char frac[24] = ""; /* ".375" */
		int digits = 3;

		if (b < u || rest * 1000 % u != 0)
			continue;
		milli = rest * 1000 / u;
		while (milli != 0 && milli % 10 == 0) {
			milli /= 10;
			digits--;
		}
		if (milli != 0)
			snprintf(frac, sizeof(frac), ".%0*llu", digits, (unsigned long long)milli);
		snprintf(buf, len, "%llu%s%s", (unsigned long long)(b / u), frac, units[i].name);
		return buf;
	}
	snprintf(buf, len, "%lluB", (unsigned long long)b);
	return buf;
}

/* A size (rsw_parse_size) between min and max bytes. */
static int
get_size(struct ctx *c, yaml_node_t *n, const char *key, uint64_t min, uint64_t max, uint64_t *out)
{
	char lo[32], hi[32];
	const char *s;
	uint64_t v;

	if (get_scalar(c, n, key, "a size like 512KB", &s) < 0)
		return -EINVAL;
	if (rsw_parse_size(s, &v) < 0)
		return fail(c, line_of(n),
			    "'%s' must be a size like 512KB, 16MB or 65536 (got '%.32s')", key, s);
	if (v < min || v > max)
		return fail(c, line_of(n), "'%s' must be between %s and %s (got %.32s)", key,
			    size_str(min, lo, sizeof(lo)), size_str(max, hi, sizeof(hi)), s);
	*out = v;
	return 0;
}

/* A decimal number (YAML float or integer) with 0 < v <= max. */
static int
get_fraction(struct ctx *c, yaml_node_t *n, const char *key, double max, double *out)
{
	const char *s;
	char *end;
	double v;

	if (get_scalar(c, n, key, "a number", &s) < 0)
		return -EINVAL;
	/* Decimal only: no hex, inf or nan, which strtod would take. */
	if (strspn(s, "0123456789.eE+-") != strlen(s))
		return fail(c, line_of(n), "'%s' must be a number (got '%.32s')", key, s);
	v = strtod(s, &end);
	if (end == s || *end != '\0')
		return fail(c, line_of(n), "'%s' must be a number (got '%.32s')", key, s);
	if (!(v > 0) || v > max)
		return fail(c, line_of(n), "'%s' must be more than 0 and at most %g (got %.32s)",
			    key, max, s);
	*out = v;
	return 0;
}

/* A TC 0-7 written as a scalar: role is "entry" (of a list) or "key" (of a mapping). */
static int
get_tc(struct ctx *c, yaml_node_t *n, const char *key, const char *role, int *tc)
{
	int64_t v;

	if (n->type != YAML_SCALAR_NODE || is_null(n))
		return fail(c, line_of(n), "'%s' %s must be a TC between 0 and 7", key, role);
	if (strlen(sval(n)) != n->data.scalar.length || !parse_i64(sval(n), &v))
		return fail(c, line_of(n), "'%s' %s must be a TC between 0 and 7 (got '%.32s')",
			    key, role, sval(n));
	if (v < 0 || v >= RSW_N_TC)
		return fail(c, line_of(n), "'%s' %s must be a TC between 0 and 7 (got %lld)", key,
			    role, (long long)v);
	*tc = (int)v;
	return 0;
}

/*
 * A list of distinct TCs: bit t of *bits set for each, in list order into list[] (when not
 * NULL, RSW_N_TC entries), lines[t] the line of TC t.
 */
static int
parse_tc_list(struct ctx *c, yaml_node_t *n, const char *key, uint8_t *list, uint8_t *count,
	      uint8_t *bits, int lines[RSW_N_TC])
{
	int i, tc;

	if (is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return fail(c, line_of(n), "'%s' must be a list of TCs", key);
	for (i = 0; i < seq_len(n); i++) {
		yaml_node_t *item = seq_item(c, n, i);

		if (get_tc(c, item, key, "entry", &tc) < 0)
			return -EINVAL;
		if (*bits & (1u << tc))
			return fail(c, line_of(item), "duplicate TC %d in '%s' (first at line %d)",
				    tc, key, lines[tc]);
		*bits |= (uint8_t)(1u << tc);
		lines[tc] = line_of(item);
		if (list != NULL)
			list[(*count)++] = (uint8_t)tc;
	}
	return 0;
}

/* scheduler: { strict: [TC...], dwrr: { TC: weight } }. */
static int
parse_scheduler(struct ctx *c, yaml_node_t *n, struct rsw_cfg_qos *q)
{
	int strict_lines[RSW_N_TC] = {0};
	uint8_t strict = 0, dwrr_listed = 0;
	struct kv kv[SCH_N];
	yaml_node_pair_t *p;
	int tc;

	if (get_map(c, n, "qos.scheduler", sched_keys, SCH_N, NULL, kv) < 0)
		return -EINVAL;
	if (kv[SCH_STRICT].v != NULL &&
	    parse_tc_list(c, kv[SCH_STRICT].v, "scheduler.strict", q->strict, &q->n_strict, &strict,
			  strict_lines) < 0)
		return -EINVAL;
	if (kv[SCH_DWRR].v != NULL && !is_null(kv[SCH_DWRR].v)) {
		n = kv[SCH_DWRR].v;
		if (n->type != YAML_MAPPING_NODE)
			return fail(c, line_of(n),
				    "'scheduler.dwrr' must be a mapping of TC to weight");
		for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *kn = node_at(c, p->key);
			char key[CFG_KEY_LEN];

			if (get_tc(c, kn, "scheduler.dwrr", "key", &tc) < 0)
				return -EINVAL;
			if (dwrr_listed & (1u << tc))
				return fail(c, line_of(kn), "duplicate key '%s'", sval(kn));
			if (strict & (1u << tc))
				return fail(
					c, line_of(kn),
					"TC %d is in both 'scheduler.strict' (line %d) and 'scheduler.dwrr'",
					tc, strict_lines[tc]);
			dwrr_listed |= (uint8_t)(1u << tc);
			snprintf(key, sizeof(key), "scheduler.dwrr.%d", tc);
			if (get_u32(c, node_at(c, p->value), key, 1, CFG_MAX_DWRR, &q->dwrr[tc]) <
			    0)
				return -EINVAL;
		}
	}
	/* A strict TC has no DWRR weight; an unlisted other TC weighs 1 (set_defaults). */
	for (tc = 0; tc < RSW_N_TC; tc++)
		if (strict & (1u << tc))
			q->dwrr[tc] = 0;
	return 0;
}

/* Static keys (xoff, xon) and dynamic ones (alpha, xon_offset) do not mix. */
static int
check_pfc_mode(struct ctx *c, const struct kv *kv, bool dynamic)
{
	static const int stat[] = {PFC_XOFF, PFC_XON}, dyn[] = {PFC_ALPHA, PFC_XON_OFFSET};
	size_t i;

	for (i = 0; i < 2; i++) {
		if (dynamic && kv[stat[i]].v != NULL)
			return fail(
				c, kv[stat[i]].line,
				"'buffer.pfc.%s' is a static threshold; 'mode: dynamic' uses alpha and xon_offset",
				pfc_keys[stat[i]]);
		if (!dynamic && kv[dyn[i]].v != NULL)
			return fail(
				c, kv[dyn[i]].line,
				"'buffer.pfc.%s' needs 'mode: dynamic' (static mode uses xoff and xon)",
				pfc_keys[dyn[i]]);
	}
	return 0;
}

static int
parse_pfc(struct ctx *c, yaml_node_t *n, struct rsw_cfg_pfc *pfc)
{
	struct kv kv[PFC_N];
	char a[32], b[32];
	int64_t v;
	int mode;

	if (get_map(c, n, "qos.buffer.pfc", pfc_keys, PFC_N, NULL, kv) < 0)
		return -EINVAL;
	if (kv[PFC_MODE].v != NULL) {
		if (get_enum(c, kv[PFC_MODE].v, "buffer.pfc.mode", pfc_mode_names, 2, &mode) < 0)
			return -EINVAL;
		pfc->dynamic = mode == 1;
	}
	if (check_pfc_mode(c, kv, pfc->dynamic) < 0)
		return -EINVAL;
	if (kv[PFC_XOFF].v != NULL &&
	    get_size(c, kv[PFC_XOFF].v, "buffer.pfc.xoff", 1, CFG_MAX_SIZE, &pfc->xoff) < 0)
		return -EINVAL;
	if (kv[PFC_XON].v != NULL &&
	    get_size(c, kv[PFC_XON].v, "buffer.pfc.xon", 0, CFG_MAX_SIZE, &pfc->xon) < 0)
		return -EINVAL;
	if (kv[PFC_ALPHA].v != NULL &&
	    get_fraction(c, kv[PFC_ALPHA].v, "buffer.pfc.alpha", CFG_MAX_ALPHA, &pfc->alpha) < 0)
		return -EINVAL;
	if (kv[PFC_XON_OFFSET].v != NULL &&
	    get_size(c, kv[PFC_XON_OFFSET].v, "buffer.pfc.xon_offset", 0, CFG_MAX_SIZE,
		     &pfc->xon_offset) < 0)
		return -EINVAL;
	if (kv[PFC_HEADROOM].v != NULL && get_size(c, kv[PFC_HEADROOM].v, "buffer.pfc.headroom", 1,
						   CFG_MAX_SIZE, &pfc->headroom) < 0)
		return -EINVAL;
	if (kv[PFC_QUANTA].v != NULL) {
		if (get_int(c, kv[PFC_QUANTA].v, "buffer.pfc.quanta", 1, CFG_MAX_QUANTA, &v) < 0)
			return -EINVAL;
		pfc->quanta = (uint16_t)v;
	}
	if (!pfc->dynamic && pfc->xon >= pfc->xoff)
		return fail(
			c, kv[PFC_XON].v != NULL ? line_of(kv[PFC_XON].v) : line_of(kv[PFC_XOFF].v),
			"'buffer.pfc.xon' must be below 'buffer.pfc.xoff' (got xon %s%s, xoff %s)",
			size_str(pfc->xon, a, sizeof(a)),
			kv[PFC_XON].v != NULL ? "" : " (the default)",
			size_str(pfc->xoff, b, sizeof(b)));
	return 0;
}

static int
parse_buffer(struct ctx *c, yaml_node_t *n, struct rsw_cfg_qos *q, int *total_line)
{
	struct kv kv[BUF_N];

	if (get_map(c, n, "qos.buffer", buffer_keys, BUF_N, NULL, kv) < 0)
		return -EINVAL;
	if (kv[BUF_TOTAL].v != NULL) {
		if (get_size(c, kv[BUF_TOTAL].v, "buffer.total", CFG_MIN_TOTAL, CFG_MAX_SIZE,
			     &q->buffer_total) < 0)
			return -EINVAL;
		*total_line = line_of(kv[BUF_TOTAL].v);
	}
	if (kv[BUF_QUEUE_LIMIT].v != NULL &&
	    get_size(c, kv[BUF_QUEUE_LIMIT].v, "buffer.queue_limit", 1, CFG_MAX_SIZE,
		     &q->queue_limit) < 0)
		return -EINVAL;
	if (kv[BUF_PFC].v != NULL && parse_pfc(c, kv[BUF_PFC].v, &q->pfc) < 0)
		return -EINVAL;
	return 0;
}

/* ecn: { TC: { kmin, kmax, pmax } }, all three required. */
static int
parse_ecn(struct ctx *c, yaml_node_t *n, struct rsw_cfg_qos *q)
{
	yaml_node_pair_t *p;
	int tc, i;

	if (is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return fail(c, line_of(n), "'ecn' must be a mapping of TC to { kmin, kmax, pmax }");
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = node_at(c, p->key);
		char what[CFG_KEY_LEN], key[CFG_KEY_LEN], a[32], b[32];
		struct rsw_cfg_ecn *e;
		struct kv kv[ECN_N];

		if (get_tc(c, kn, "ecn", "key", &tc) < 0)
			return -EINVAL;
		e = &q->ecn[tc];
		if (e->enabled)
			return fail(c, line_of(kn), "duplicate key '%s'", sval(kn));
		snprintf(what, sizeof(what), "qos.ecn.%d", tc);
		if (get_map(c, node_at(c, p->value), what, ecn_keys, ECN_N, NULL, kv) < 0)
			return -EINVAL;
		for (i = 0; i < ECN_N; i++)
			if (kv[i].v == NULL)
				return fail(c, line_of(kn), "missing required key '%s' in '%s'",
					    ecn_keys[i], what);
		snprintf(key, sizeof(key), "ecn.%d.kmin", tc);
		if (get_size(c, kv[ECN_KMIN].v, key, 0, CFG_MAX_SIZE, &e->kmin) < 0)
			return -EINVAL;
		snprintf(key, sizeof(key), "ecn.%d.kmax", tc);
		if (get_size(c, kv[ECN_KMAX].v, key, 1, CFG_MAX_SIZE, &e->kmax) < 0)
			return -EINVAL;
		snprintf(key, sizeof(key), "ecn.%d.pmax", tc);
		if (get_fraction(c, kv[ECN_PMAX].v, key, 1.0, &e->pmax) < 0)
			return -EINVAL;
		if (e->kmin >= e->kmax)
			return fail(
				c, line_of(kv[ECN_KMIN].v),
				"'ecn.%d.kmin' must be below 'ecn.%d.kmax' (got kmin %s, kmax %s)",
				tc, tc, size_str(e->kmin, a, sizeof(a)),
				size_str(e->kmax, b, sizeof(b)));
		e->enabled = true;
	}
	return 0;
}

static int
parse_pfcwd(struct ctx *c, yaml_node_t *n, struct rsw_cfg_qos *q)
{
	struct kv kv[WD_N];
	int action;

	if (get_map(c, n, "qos.pfc_watchdog", pfcwd_keys, WD_N, NULL, kv) < 0)
		return -EINVAL;
	if (kv[WD_DETECT].v != NULL &&
	    get_u32(c, kv[WD_DETECT].v, "pfc_watchdog.detect_ms", CFG_MIN_WD_MS, CFG_MAX_WD_MS,
		    &q->pfcwd.detect_ms) < 0)
		return -EINVAL;
	if (kv[WD_RESTORE].v != NULL &&
	    get_u32(c, kv[WD_RESTORE].v, "pfc_watchdog.restore_ms", CFG_MIN_WD_MS, CFG_MAX_WD_MS,
		    &q->pfcwd.restore_ms) < 0)
		return -EINVAL;
	if (kv[WD_ACTION].v != NULL) {
		if (get_enum(c, kv[WD_ACTION].v, "pfc_watchdog.action", pfcwd_action_names, 4,
			     &action) < 0)
			return -EINVAL;
		q->pfcwd.action = (enum rsw_pfcwd_action)action;
	}
	return 0;
}

/*
 * qos.trim: UEC packet trimming. tcs, dscp and tc are required; a TC cannot be both
 * trim-eligible and lossless, and the trim class must be lossy and not strict.
 */
static int
parse_trim(struct ctx *c, yaml_node_t *n, struct rsw_cfg_qos *q, int line)
{
	static const int required[] = {TRIM_TCS, TRIM_DSCP, TRIM_TC};
	int tcs_lines[RSW_N_TC] = {0};
	struct kv kv[TRIM_N];
	int64_t v;
	unsigned int i;
	int t;

	if (get_map(c, n, "qos.trim", trim_keys, TRIM_N, NULL, kv) < 0)
		return -EINVAL;
	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (kv[required[i]].v == NULL)
			return fail(c, line, "missing required key '%s' in 'qos.trim'",
				    trim_keys[required[i]]);
	if (parse_tc_list(c, kv[TRIM_TCS].v, "trim.tcs", NULL, NULL, &q->trim.tcs, tcs_lines) < 0)
		return -EINVAL;
	if (q->trim.tcs == 0)
		return fail(c, kv[TRIM_TCS].line, "'trim.tcs' must list at least one TC");
	q->trim.threshold = 256 * CFG_KB;
	if (kv[TRIM_THRESHOLD].v != NULL && get_size(c, kv[TRIM_THRESHOLD].v, "trim.threshold", 1,
						     CFG_MAX_SIZE, &q->trim.threshold) < 0)
		return -EINVAL;
	q->trim.size = 128;
	if (kv[TRIM_SIZE].v != NULL) {
		if (get_int(c, kv[TRIM_SIZE].v, "trim.size", CFG_MIN_TRIM_SIZE, CFG_MAX_MTU, &v) <
		    0)
			return -EINVAL;
		q->trim.size = (uint16_t)v;
	}
	if (get_int(c, kv[TRIM_DSCP].v, "trim.dscp", 0, 63, &v) < 0)
		return -EINVAL;
	q->trim.dscp = (uint8_t)v;
	if (kv[TRIM_DSCP_LASTHOP].v != NULL) {
		if (get_int(c, kv[TRIM_DSCP_LASTHOP].v, "trim.dscp_lasthop", 0, 63, &v) < 0)
			return -EINVAL;
		q->trim.dscp_lasthop = (uint8_t)v;
		q->trim.has_dscp_lasthop = true;
	}
	if (get_tc(c, kv[TRIM_TC].v, "trim.tc", "value", &t) < 0)
		return -EINVAL;
	q->trim.tc = (uint8_t)t;
	for (t = 0; t < RSW_N_TC; t++)
		if ((q->trim.tcs & q->lossless) & (1u << t))
			return fail(c, tcs_lines[t],
				    "TC %d cannot be both trim-eligible ('trim.tcs') and lossless",
				    t);
	if (q->lossless & (1u << q->trim.tc))
		return fail(c, kv[TRIM_TC].line,
			    "'trim.tc' %u is lossless: trimmed packets need a lossy class",
			    q->trim.tc);
	for (i = 0; i < q->n_strict; i++)
		if (q->strict[i] == q->trim.tc)
			return fail(
				c, kv[TRIM_TC].line,
				"'trim.tc' %u is strict priority: trimmed packets need a DWRR class",
				q->trim.tc);
	q->trim.enabled = true;
	return 0;
}

/* qos.cnp: the class RoCEv2 CNPs travel in, and optional coalescing. */
static int
parse_cnp(struct ctx *c, yaml_node_t *n, struct rsw_cfg_qos *q, int line)
{
	struct kv kv[CNP_N];
	int t;

	if (get_map(c, n, "qos.cnp", cnp_keys, CNP_N, NULL, kv) < 0)
		return -EINVAL;
	if (kv[CNP_TC].v == NULL)
		return fail(c, line, "missing required key 'tc' in 'qos.cnp'");
	if (get_tc(c, kv[CNP_TC].v, "cnp.tc", "value", &t) < 0)
		return -EINVAL;
	q->cnp.tc = (uint8_t)t;
	if (kv[CNP_COALESCE].v != NULL && get_u32(c, kv[CNP_COALESCE].v, "cnp.coalesce_us", 0,
						  CFG_MAX_COALESCE, &q->cnp.coalesce_us) < 0)
		return -EINVAL;
	q->cnp.enabled = true;
	return 0;
}

/*
 * Every (port, lossless TC) reserves its headroom out of buffer.total, and in static mode its
 * xoff too (the bytes it may hold before PFC stops the sender): the sum must fit.
 */
static int
check_reserve(struct ctx *c, const struct rsw_cfg_qos *q, int line)
{
	uint64_t per = q->pfc.headroom + (q->pfc.dynamic ? 0 : q->pfc.xoff);
	uint64_t reserve = per * c->cfg->n_ports * (uint64_t)__builtin_popcount(q->lossless);
	char a[32], b[32];

	if (reserve <= q->buffer_total)
		return 0;
	return fail(
		c, line,
		"buffer.total %s is too small: the lossless TCs of %u port%s reserve %s (%s per port and TC)",
		size_str(q->buffer_total, a, sizeof(a)), c->cfg->n_ports,
		c->cfg->n_ports == 1 ? "" : "s", size_str(reserve, b, sizeof(b)),
		q->pfc.dynamic ? "headroom" : "xoff + headroom");
}

/* dscp_to_tc / pcp_to_tc: { code: tc }; listed[] marks the codes given. */
static int
parse_tc_map(struct ctx *c, yaml_node_t *n, const char *key, const char *code, int max,
	     uint8_t *map, bool *listed)
{
	yaml_node_pair_t *p;
	int64_t k, tc;

	if (is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return fail(c, line_of(n), "'%s' must be a mapping of %s to TC", key, code);
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = node_at(c, p->key), *vn = node_at(c, p->value);
		const char *s;

		if (map_scalar_key(c, kn, key) < 0)
			return -EINVAL;
		if (!parse_i64(sval(kn), &k))
			return fail(c, line_of(kn),
				    "'%s' keys must be %s values 0-%d (got '%.32s')", key, code,
				    max, sval(kn));
		if (k < 0 || k > max)
			return fail(c, line_of(kn),
				    "'%s' key must be a %s between 0 and %d (got %lld)", key, code,
				    max, (long long)k);
		if (listed[k])
			return fail(c, line_of(kn), "duplicate key '%s'", sval(kn));
		if (get_scalar(c, vn, key, "a mapping of code to TC", &s) < 0)
			return -EINVAL;
		if (!parse_i64(s, &tc))
			return fail(c, line_of(vn),
				    "'%s' value must be an integer TC (got '%.32s')", key, s);
		if (tc < 0 || tc >= RSW_N_TC)
			return fail(c, line_of(vn),
				    "'%s' value must be a TC between 0 and 7 (got %lld)", key,
				    (long long)tc);
		listed[k] = true;
		map[k] = (uint8_t)tc;
	}
	return 0;
}

static int
parse_qos(struct ctx *c, const struct kv *sec)
{
	struct rsw_cfg_qos *q = &c->cfg->qos;
	bool dscp_listed[64] = {false}, pcp_listed[8] = {false};
	int lossless_lines[RSW_N_TC] = {0};
	int total_line = 0;
	struct kv kv[Q_N];
	int64_t tc;
	int i, v;

	q->line = sec->line;
	if (get_map(c, sec->v, "qos", qos_keys, Q_N, NULL, kv) < 0)
		return -EINVAL;
	if (kv[Q_TRUST].v != NULL) {
		if (get_enum(c, kv[Q_TRUST].v, "trust", trust_names, 2, &v) < 0)
			return -EINVAL;
		q->trust = (enum rsw_trust)v;
	}
	if (kv[Q_DEFAULT_TC].v != NULL) {
		if (get_int(c, kv[Q_DEFAULT_TC].v, "default_tc", 0, RSW_N_TC - 1, &tc) < 0)
			return -EINVAL;
		q->default_tc = (uint8_t)tc;
	}
	if (kv[Q_DSCP].v != NULL &&
	    parse_tc_map(c, kv[Q_DSCP].v, "dscp_to_tc", "DSCP", 63, q->dscp_to_tc, dscp_listed) < 0)
		return -EINVAL;
	if (kv[Q_PCP].v != NULL &&
	    parse_tc_map(c, kv[Q_PCP].v, "pcp_to_tc", "PCP", 7, q->pcp_to_tc, pcp_listed) < 0)
		return -EINVAL;
	for (i = 0; i < 64; i++)
		if (!dscp_listed[i])
			q->dscp_to_tc[i] = q->default_tc;
	for (i = 0; i < 8; i++)
		if (!pcp_listed[i])
			q->pcp_to_tc[i] = q->default_tc;
	if (parse_scheduler(c, kv[Q_SCHEDULER].v, q) < 0)
		return -EINVAL;
	if (kv[Q_LOSSLESS].v != NULL && parse_tc_list(c, kv[Q_LOSSLESS].v, "lossless", NULL, NULL,
						      &q->lossless, lossless_lines) < 0)
		return -EINVAL;
	if (kv[Q_BUFFER].v != NULL && parse_buffer(c, kv[Q_BUFFER].v, q, &total_line) < 0)
		return -EINVAL;
	if (kv[Q_ECN].v != NULL && parse_ecn(c, kv[Q_ECN].v, q) < 0)
		return -EINVAL;
	if (kv[Q_ECN_MARK].v != NULL) {
		if (get_enum(c, kv[Q_ECN_MARK].v, "ecn_mark_point", ecn_mark_names, 2, &v) < 0)
			return -EINVAL;
		q->ecn_mark_enqueue = v == 1;
	}
	if (kv[Q_PFCWD].v != NULL && parse_pfcwd(c, kv[Q_PFCWD].v, q) < 0)
		return -EINVAL;
	if (kv[Q_TRIM].v != NULL && !is_null(kv[Q_TRIM].v) &&
	    parse_trim(c, kv[Q_TRIM].v, q, kv[Q_TRIM].line) < 0)
		return -EINVAL;
	if (kv[Q_CNP].v != NULL && !is_null(kv[Q_CNP].v) &&
	    parse_cnp(c, kv[Q_CNP].v, q, kv[Q_CNP].line) < 0)
		return -EINVAL;
	return check_reserve(c, q, total_line > 0 ? total_line : kv[Q_LOSSLESS].line);
}

/* control: */

enum {
	C_SOCKET,
	C_TELEMETRY,
	C_METRICS,
	C_N,
};

static const char *const control_keys[C_N] = {
	[C_SOCKET] = "socket",
	[C_TELEMETRY] = "telemetry",
	[C_METRICS] = "metrics_listen",
};

/* "host:port" or "[v6]:port"; port 1..65535. */
static bool
valid_listen(const char *s)
{
	const char *colon = strrchr(s, ':');
	int64_t port;

	if (colon == NULL || colon == s)
		return false;
	if (!parse_i64(colon + 1, &port) || colon[1] == '+' || colon[1] == '-' || port < 1 ||
	    port > 65535)
		return false;
	if (s[0] == '[') {
		char buf[INET6_ADDRSTRLEN];
		size_t len = (size_t)(colon - s);
		uint8_t a[16];

		if (len < 3 || s[len - 1] != ']' || len - 2 >= sizeof(buf))
			return false;
		memcpy(buf, s + 1, len - 2);
		buf[len - 2] = '\0';
		return inet_pton(AF_INET6, buf, a) == 1;
	}
	/* A host name or IPv4 address; a bare IPv6 address needs brackets. */
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-") ==
	       (size_t)(colon - s);
}

static int
parse_control(struct ctx *c, const struct kv *sec)
{
	struct rsw_cfg_control *ctl = &c->cfg->control;
	struct kv kv[C_N];

	if (get_map(c, sec->v, "control", control_keys, C_N, NULL, kv) < 0)
		return -EINVAL;
	if (kv[C_SOCKET].v != NULL &&
	    get_text(c, kv[C_SOCKET].v, "socket", ctl->socket, sizeof(ctl->socket)) < 0)
		return -EINVAL;
	if (kv[C_TELEMETRY].v != NULL &&
	    get_bool(c, kv[C_TELEMETRY].v, "telemetry", &ctl->telemetry) < 0)
		return -EINVAL;
	if (kv[C_METRICS].v != NULL) {
		if (get_text(c, kv[C_METRICS].v, "metrics_listen", ctl->metrics_listen,
			     sizeof(ctl->metrics_listen)) < 0)
			return -EINVAL;
		if (!valid_listen(ctl->metrics_listen))
			return fail(
				c, line_of(kv[C_METRICS].v),
				"'metrics_listen' must be host:port like 127.0.0.1:9417 or [::1]:9417 (got '%s')",
				ctl->metrics_listen);
		ctl->has_metrics = true;
	}
	return 0;
}

/* topology: (parsed here; checked and derived by topology.c) */

static const char *const topo_keys[RSW_N_TK] = {
	[RSW_TK_DESIGN] = "design",
	[RSW_TK_SUS] = "sus",
	[RSW_TK_SERVERS] = "servers_per_su",
	[RSW_TK_RAILS] = "rails",
	[RSW_TK_SPINES] = "spines",
	[RSW_TK_RADIX] = "radix",
	[RSW_TK_THIS] = "this",
	[RSW_TK_GPU_PREFIX] = "gpu_prefix",
	[RSW_TK_FABRIC_PREFIX] = "fabric_prefix",
};

static const char *const topo_designs[] = {
	[RSW_TOPO_RAIL_OPTIMIZED] = "rail-optimized",
	[RSW_TOPO_RAIL_ONLY] = "rail-only",
};

enum {
	TH_SU,
	TH_RAIL,
	TH_SPINE,
	TH_N,
};

static const char *const this_keys[TH_N] = {
	[TH_SU] = "su", [TH_RAIL] = "rail", [TH_SPINE] = "spine"};

/* this: { su, rail } (a leaf), { spine } (a spine), rail-only { rail, spine } (a spine). */
static int
parse_this(struct ctx *c, yaml_node_t *n, struct rsw_cfg_topology *t)
{
	bool rail_only = t->design == RSW_TOPO_RAIL_ONLY;
	struct kv kv[TH_N];
	int64_t v;

	if (is_null(n) || n->type != YAML_MAPPING_NODE)
		return fail(c, line_of(n), "'this' must be a mapping like { su: 0, rail: 1 }");
	if (get_map(c, n, "topology.this", this_keys, TH_N, NULL, kv) < 0)
		return -EINVAL;
	if (kv[TH_SPINE].v == NULL && kv[TH_SU].v != NULL && kv[TH_RAIL].v != NULL) {
		t->this_spine = false;
	} else if (kv[TH_SPINE].v != NULL && kv[TH_SU].v == NULL &&
		   (kv[TH_RAIL].v != NULL) == rail_only) {
		t->this_spine = true;
	} else {
		return fail(c, line_of(n),
			    "'this' must be { su, rail } for a leaf or %s for a spine",
			    rail_only ? "{ rail, spine } (rail-only)" : "{ spine }");
	}
	if (kv[TH_SU].v != NULL) {
		if (get_int(c, kv[TH_SU].v, "this.su", 0, RSW_TOPO_MAX_SUS - 1, &v) < 0)
			return -EINVAL;
		t->this_su = (uint32_t)v;
	}
	if (kv[TH_RAIL].v != NULL) {
		if (get_int(c, kv[TH_RAIL].v, "this.rail", 0, RSW_TOPO_MAX_RAILS - 1, &v) < 0)
			return -EINVAL;
		t->this_rail = (uint32_t)v;
	}
	if (kv[TH_SPINE].v != NULL) {
		if (get_int(c, kv[TH_SPINE].v, "this.spine", 0, RSW_TOPO_MAX_SPINES - 1, &v) < 0)
			return -EINVAL;
		t->this_spine_idx = (uint32_t)v;
	}
	t->has_this = true;
	return 0;
}

/* An IPv4 network prefix: host bits must be zero. */
static int
get_topo_prefix(struct ctx *c, yaml_node_t *n, const char *key, struct rsw_prefix *p)
{
	char buf[INET6_ADDRSTRLEN + 4];
	struct rsw_prefix net;
	const char *s;

	if (get_scalar(c, n, key, "an IPv4 prefix", &s) < 0)
		return -EINVAL;
	if (!parse_prefix(s, p) || p->ip.family != RSW_AF_INET)
		return fail(c, line_of(n),
			    "'%s' must be an IPv4 prefix like 10.0.0.0/8 (got '%.48s')", key, s);
	net = *p;
	prefix_mask(&net);
	if (memcmp(&net, p, sizeof(net)) != 0)
		return fail(c, line_of(n), "'%s' %s has host bits set; did you mean %s?", key, s,
			    rsw_prefix_str(&net, buf, sizeof(buf)));
	return 0;
}

static int
parse_topology(struct ctx *c, const struct kv *sec)
{
	static const struct {
		int key;
		int64_t max;
	} counts[] = {
		{RSW_TK_SUS, RSW_TOPO_MAX_SUS},     {RSW_TK_SERVERS, RSW_TOPO_MAX_SERVERS},
		{RSW_TK_RAILS, RSW_TOPO_MAX_RAILS}, {RSW_TK_SPINES, RSW_TOPO_MAX_SPINES},
		{RSW_TK_RADIX, RSW_TOPO_MAX_RADIX},
	};
	struct rsw_cfg_topology *t = &c->cfg->topology;
	uint32_t *val[RSW_N_TK] = {
		[RSW_TK_SUS] = &t->sus,     [RSW_TK_SERVERS] = &t->servers_per_su,
		[RSW_TK_RAILS] = &t->rails, [RSW_TK_SPINES] = &t->spines,
		[RSW_TK_RADIX] = &t->radix,
	};
	struct kv kv[RSW_N_TK];
	int design;
	size_t i;

	t->line = sec->line;
	if (get_map(c, sec->v, "topology", topo_keys, RSW_N_TK, NULL, kv) < 0)
		return -EINVAL;
	t->present = true;
	for (i = 0; i < RSW_N_TK; i++)
		t->lines[i] = kv[i].line;
	if (kv[RSW_TK_DESIGN].v != NULL) {
		if (get_enum(c, kv[RSW_TK_DESIGN].v, "design", topo_designs, 2, &design) < 0)
			return -EINVAL;
		t->design = (enum rsw_topo_design)design;
	}
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		int k = counts[i].key;

		if (kv[k].v == NULL) {
			if (k == RSW_TK_RADIX)
				continue;
			return fail(c, sec->line, "missing required key '%s' in 'topology'",
				    topo_keys[k]);
		}
		if (get_u32(c, kv[k].v, topo_keys[k], 1, counts[i].max, val[k]) < 0)
			return -EINVAL;
	}
	if (kv[RSW_TK_GPU_PREFIX].v != NULL &&
	    get_topo_prefix(c, kv[RSW_TK_GPU_PREFIX].v, "gpu_prefix", &t->gpu_prefix) < 0)
		return -EINVAL;
	if (kv[RSW_TK_FABRIC_PREFIX].v != NULL &&
	    get_topo_prefix(c, kv[RSW_TK_FABRIC_PREFIX].v, "fabric_prefix", &t->fabric_prefix) < 0)
		return -EINVAL;
	if (kv[RSW_TK_THIS].v != NULL && parse_this(c, kv[RSW_TK_THIS].v, t) < 0)
		return -EINVAL;
	return 0;
}

/* A topology.c error as FILE:LINE: message. */
static int
topo_fail(struct ctx *c, const struct rsw_topo_error *e)
{
	return fail(c, e->line, "%s", e->msg);
}

/* The document. */

enum {
	T_SWITCH,
	T_PORTS,
	T_NEIGHBORS,
	T_ROUTES,
	T_LB,
	T_QOS,
	T_CONTROL,
	T_TOPOLOGY,
	T_N,
};

static const char *const top_keys[T_N] = {
	[T_SWITCH] = "switch",   [T_PORTS] = "ports",       [T_NEIGHBORS] = "neighbors",
	[T_ROUTES] = "routes",   [T_LB] = "load_balance",   [T_QOS] = "qos",
	[T_CONTROL] = "control", [T_TOPOLOGY] = "topology",
};

static void
set_defaults(struct rsw_config *cfg)
{
	int i;

	cfg->sw.role = RSW_ROLE_LEAF;
	cfg->sw.idle_sleep_us = 100;
	cfg->sw.icmp_unreachable = true;
	cfg->sw.icmp_rate_pps = 100;
	cfg->lb.mode = RSW_LB_HASH;
	for (i = 0; i < RSW_N_TC; i++)
		cfg->lb.per_tc[i] = RSW_LB_UNSET;
	cfg->lb.hash_fields = RSW_HF_DEFAULT;
	cfg->lb.hash_algorithm = RSW_HASH_CRC32;
	cfg->lb.spray = RSW_SPRAY_RR;
	cfg->lb.flowlet_timeout_us = 50;
	cfg->lb.hash_seed = 0;
	cfg->lb.hash_symmetric = false;
	cfg->qos.trust = RSW_TRUST_DSCP;
	cfg->qos.default_tc = 0;
	for (i = 0; i < RSW_N_TC; i++)
		cfg->qos.dwrr[i] = 1;
	cfg->qos.buffer_total = 16 * CFG_MB;
	cfg->qos.queue_limit = 512 * CFG_KB;
	cfg->qos.pfc.dynamic = false;
	cfg->qos.pfc.xoff = 96 * CFG_KB;
	cfg->qos.pfc.xon = 48 * CFG_KB;
	cfg->qos.pfc.alpha = 0.125;
	cfg->qos.pfc.xon_offset = 3 * CFG_KB;
	cfg->qos.pfc.headroom = 64 * CFG_KB;
	cfg->qos.pfc.quanta = CFG_MAX_QUANTA;
	cfg->qos.ecn_mark_enqueue = false;
	cfg->qos.pfcwd.detect_ms = 200;
	cfg->qos.pfcwd.restore_ms = 200;
	cfg->qos.pfcwd.action = RSW_PFCWD_DROP;
	snprintf(cfg->control.socket, sizeof(cfg->control.socket), "%s", "/run/railsw/railsw.sock");
	cfg->control.telemetry = true;
	cfg->topology.design = RSW_TOPO_RAIL_OPTIMIZED;
	cfg->topology.radix = RSW_TOPO_RADIX;
	cfg->topology.gpu_prefix.ip.family = RSW_AF_INET;
	cfg->topology.gpu_prefix.ip.addr[0] = 10;
	cfg->topology.gpu_prefix.len = 8;
	cfg->topology.fabric_prefix.ip.family = RSW_AF_INET;
	cfg->topology.fabric_prefix.ip.addr[0] = 172;
	cfg->topology.fabric_prefix.ip.addr[1] = 16;
	cfg->topology.fabric_prefix.len = 12;
}

static int
parse_root(struct ctx *c, yaml_node_t *root)
{
	struct kv kv[T_N];

	if (root->type != YAML_MAPPING_NODE)
		return fail(c, line_of(root),
			    "the top level must be a mapping of sections (switch:, ports:, ...)");
	struct rsw_topo_error terr = {0};
	bool one_switch;

	if (get_map(c, root, NULL, top_keys, T_N, NULL, kv) < 0)
		return -EINVAL;
	/* A plan needs only topology:; a switch's file (or a plan with switch: or ports:) all. */
	one_switch = !c->plan || kv[T_SWITCH].v != NULL || kv[T_PORTS].v != NULL;
	if (c->plan && kv[T_TOPOLOGY].v == NULL)
		return fail(c, 0, "missing required key 'topology'");
	if (one_switch && (parse_switch(c, &kv[T_SWITCH]) < 0 || parse_ports(c, &kv[T_PORTS]) < 0))
		return -EINVAL;
	/* Derived port addresses first: neighbours and static routes may use them. */
	if (kv[T_TOPOLOGY].v != NULL) {
		if (parse_topology(c, &kv[T_TOPOLOGY]) < 0)
			return -EINVAL;
		if (rsw_topology_check(&c->cfg->topology, one_switch, &terr) < 0)
			return topo_fail(c, &terr);
		if (one_switch && rsw_topology_apply_ports(c->cfg, &terr) < 0)
			return topo_fail(c, &terr);
	}
	/* Dependency order: routes need ports and neighbours. */
	if (parse_neighbors(c, &kv[T_NEIGHBORS]) < 0 || parse_routes(c, &kv[T_ROUTES]) < 0)
		return -EINVAL;
	if (one_switch && rsw_topology_apply_routes(c->cfg, &terr) < 0)
		return topo_fail(c, &terr);
	if (one_switch && check_table_limits(c) < 0)
		return -EINVAL;
	if (parse_lb(c, &kv[T_LB]) < 0 || parse_qos(c, &kv[T_QOS]) < 0 ||
	    parse_control(c, &kv[T_CONTROL]) < 0)
		return -EINVAL;
	return 0;
}

/* libyaml's own message, with the line it happened on. */
static int
yaml_fail(struct ctx *c, const yaml_parser_t *p, const char *buf, size_t len)
{
	int line;
	size_t i;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return fail(c, 0, "out of memory");
	case YAML_READER_ERROR:
		line = 1;
		for (i = 0; i < p->problem_offset && i < len; i++)
			line += buf[i] == '\n';
		if (p->problem_value != -1)
			return fail(c, line, "invalid YAML: %s (byte 0x%02x)", p->problem,
				    (unsigned)p->problem_value & 0xff);
		return fail(c, line, "invalid YAML: %s", p->problem);
	case YAML_SCANNER_ERROR:
	case YAML_PARSER_ERROR:
	case YAML_COMPOSER_ERROR:
		line = (int)p->problem_mark.line + 1;
		if (p->context != NULL)
			return fail(c, line, "invalid YAML: %s (%s at line %d)",
				    p->problem ? p->problem : "syntax error", p->context,
				    (int)p->context_mark.line + 1);
		return fail(c, line, "invalid YAML: %s", p->problem ? p->problem : "syntax error");
	default:
		return fail(c, 0, "invalid YAML");
	}
}

/*
 * libyaml takes time quadratic in flow nesting depth ("[[[[..." of 200k levels: a minute), so
 * deep flow nesting is refused before parsing. Quoted scalars and comments are skipped; a
 * bracket inside a plain scalar may be miscounted, which only matters past CFG_MAX_DEPTH.
 * Returns the line where the depth is exceeded, or 0.
 */
static int
too_deep(const char *buf, size_t len)
{
	int depth = 0, line = 1;
	char prev = '\n';
	size_t i;

	for (i = 0; i < len; i++) {
		char ch = buf[i];
		bool token_start = prev == '\n' || prev == ' ' || prev == '\t' || prev == '[' ||
				   prev == '{' || prev == ',' || prev == ':';

		if (ch == '\n') {
			line++;
		} else if (token_start && ch == '#') {
			while (i + 1 < len && buf[i + 1] != '\n')
				i++;
		} else if (token_start && (ch == '"' || ch == '\'')) {
			for (i++; i < len && buf[i] != ch; i++) {
				if (ch == '"' && buf[i] == '\\' && i + 1 < len)
					i++;
				if (i < len && buf[i] == '\n')
					line++;
			}
		} else if (ch == '[' || ch == '{') {
			if (++depth > CFG_MAX_DEPTH)
				return line;
		} else if ((ch == ']' || ch == '}') && depth > 0) {
			depth--;
		}
		prev = i < len ? buf[i] : '\n';
	}
	return 0;
}

static struct rsw_config *
load_buf(const char *name, const char *buf, size_t len, char *err, size_t errlen, bool plan)
{
	struct ctx c = {
		.name = name != NULL ? name : "<config>",
		.err = err,
		.errlen = errlen,
		.plan = plan,
	};
	yaml_document_t doc, extra;
	struct rsw_config *cfg;
	yaml_parser_t parser;
	yaml_node_t *root;
	int rc = -EINVAL;
	int line;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (buf == NULL)
		len = 0;
	cfg = calloc(1, sizeof(*cfg));
	if (cfg == NULL) {
		fail(&c, 0, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	snprintf(cfg->path, sizeof(cfg->path), "%s", c.name);
	set_defaults(cfg);
	c.cfg = cfg;
	c.doc = &doc;

	if (!yaml_parser_initialize(&parser)) {
		fail(&c, 0, "out of memory");
		free(cfg);
		errno = ENOMEM;
		return NULL;
	}
	line = too_deep(buf, len);
	if (line > 0) {
		fail(&c, line, "nesting deeper than %d levels", CFG_MAX_DEPTH);
		goto out_parser;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)(buf != NULL ? buf : ""), len);
	if (!yaml_parser_load(&parser, &doc)) {
		yaml_fail(&c, &parser, buf, len);
		goto out_parser;
	}
	root = yaml_document_get_root_node(&doc);
	if (root == NULL || is_null(root)) {
		fail(&c, 0, "empty configuration");
		goto out_doc;
	}
	/* One document per file: a second `---` is an error, not silently ignored. */
	if (!yaml_parser_load(&parser, &extra)) {
		yaml_fail(&c, &parser, buf, len);
		goto out_doc;
	}
	if (yaml_document_get_root_node(&extra) != NULL) {
		fail(&c, (int)extra.start_mark.line + 1, "only one YAML document is allowed");
		yaml_document_delete(&extra);
		goto out_doc;
	}
	yaml_document_delete(&extra);
	rc = parse_root(&c, root);
out_doc:
	yaml_document_delete(&doc);
out_parser:
	yaml_parser_delete(&parser);
	free(c.nsorted);
	if (rc < 0) {
		rsw_config_free(cfg);
		errno = EINVAL;
		return NULL;
	}
	return cfg;
}

struct rsw_config *
rsw_config_load_buf(const char *name, const char *buf, size_t len, char *err, size_t errlen)
{
	return load_buf(name, buf, len, err, errlen, false);
}

static struct rsw_config *
load_file(const char *path, char *err, size_t errlen, bool plan)
{
	struct ctx c = {.name = path != NULL ? path : "<config>", .err = err, .errlen = errlen};
	struct rsw_config *cfg;
	struct stat st;
	size_t got = 0;
	char *buf;
	FILE *f;
	int e;

	if (path == NULL) {
		fail(&c, 0, "no configuration file given");
		errno = EINVAL;
		return NULL;
	}
	f = fopen(path, "rb");
	if (f == NULL) {
		e = errno;
		fail(&c, 0, "%s", strerror(e));
		errno = e;
		return NULL;
	}
	if (fstat(fileno(f), &st) < 0)
		st.st_mode = 0;
	if (!S_ISREG(st.st_mode)) {
		e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		fail(&c, 0, "%s", e == EISDIR ? strerror(e) : "not a regular file");
		fclose(f);
		errno = e;
		return NULL;
	}
	if ((uint64_t)st.st_size > CFG_MAX_FILE) {
		fail(&c, 0, "file too large (at most %u MB)", CFG_MAX_FILE >> 20);
		fclose(f);
		errno = EFBIG;
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL) {
		fail(&c, 0, "out of memory");
		fclose(f);
		errno = ENOMEM;
		return NULL;
	}
	got = fread(buf, 1, (size_t)st.st_size, f);
	if (ferror(f)) {
		e = errno != 0 ? errno : EIO;
		fail(&c, 0, "%s", strerror(e));
		fclose(f);
		free(buf);
		errno = e;
		return NULL;
	}
	fclose(f);
	buf[got] = '\0';
	cfg = load_buf(path, buf, got, err, errlen, plan);
	free(buf);
	return cfg;
}

struct rsw_config *
rsw_config_load(const char *path, char *err, size_t errlen)
{
	return load_file(path, err, errlen, false);
}

struct rsw_config *
rsw_config_load_plan(const char *path, char *err, size_t errlen)
{
	return load_file(path, err, errlen, true);
}

void
rsw_config_free(struct rsw_config *cfg)
{
	if (cfg == NULL)
		return;
	free(cfg->neighbors);
	free(cfg->routes);
	free(cfg);
}

int
rsw_config_port_index(const struct rsw_config *cfg, const char *name)
{
	int i;

	if (cfg == NULL || name == NULL)
		return -1;
	for (i = 0; i < cfg->n_ports; i++)
		if (strcmp(cfg->ports[i].name, name) == 0)
			return i;
	return -1;
}

const char *
rsw_ip_str(const struct rsw_ip *ip, char *buf, size_t len)
{
	if (len == 0)
		return buf;
	if (inet_ntop(ip->family == RSW_AF_INET ? AF_INET : AF_INET6, ip->addr, buf,
		      (socklen_t)len) == NULL)
		buf[0] = '\0';
	return buf;
}

const char *
rsw_prefix_str(const struct rsw_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (len == 0)
		return buf;
	snprintf(buf, len, "%s/%u", rsw_ip_str(&p->ip, a, sizeof(a)), p->len);
	return buf;
}

bool
rsw_prefix_contains(const struct rsw_prefix *p, const struct rsw_ip *ip)
{
	if (p->ip.family != ip->family || p->len > ip_bits(ip))
		return false;
	return bits_equal(p->ip.addr, ip->addr, p->len);
}

/* JSON (`show config`): every key, defaults filled in. */

/* Set o[k] = v, remembering any failure (v NULL from a failed allocation included). */
static void
jset(json_t *o, const char *k, json_t *v, bool *bad)
{
	if (v == NULL || json_object_set_new(o, k, v) < 0)
		*bad = true;
}

static void
jappend(json_t *a, json_t *v, bool *bad)
{
	if (v == NULL || json_array_append_new(a, v) < 0)
		*bad = true;
}

static json_t *
jmac(const uint8_t m[6])
{
	char buf[18];

	snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4],
		 m[5]);
	return json_string(buf);
}

static json_t *
jip(const struct rsw_ip *ip)
{
	char buf[INET6_ADDRSTRLEN];

	return json_string(rsw_ip_str(ip, buf, sizeof(buf)));
}

static json_t *
jprefix(const struct rsw_prefix *p)
{
	char buf[INET6_ADDRSTRLEN + 4];

	return json_string(rsw_prefix_str(p, buf, sizeof(buf)));
}

static json_t *
json_switch(const struct rsw_config *cfg, bool *bad)
{
	const struct rsw_cfg_switch *sw = &cfg->sw;
	json_t *o = json_object(), *icmp = json_object();

	if (o == NULL || icmp == NULL) {
		json_decref(o);
		json_decref(icmp);
		*bad = true;
		return NULL;
	}
	jset(o, "name", json_string(sw->name), bad);
	jset(o, "role", json_string(switch_role_names[sw->role]), bad);
	jset(o, "idle_sleep_us", json_integer(sw->idle_sleep_us), bad);
	jset(o, "router_id", sw->has_router_id ? jip(&sw->router_id) : json_null(), bad);
	jset(icmp, "enable", json_boolean(sw->icmp_unreachable), bad);
	jset(icmp, "rate_pps", json_integer(sw->icmp_rate_pps), bad);
	jset(o, "icmp_unreachable", icmp, bad);
	return o;
}

static json_t *
json_ports(const struct rsw_config *cfg, bool *bad)
{
	json_t *a = json_array();
	int i;

	for (i = 0; a != NULL && i < cfg->n_ports; i++) {
		const struct rsw_cfg_port *p = &cfg->ports[i];
		json_t *o = json_object();

		if (o == NULL) {
			*bad = true;
			break;
		}
		jset(o, "name", json_string(p->name), bad);
		jset(o, "devargs", json_string(p->devargs), bad);
		jset(o, "mac", p->has_mac ? jmac(p->mac) : json_null(), bad);
		jset(o, "speed",
		     p->speed_bps ? json_integer((json_int_t)p->speed_bps) : json_null(), bad);
		jset(o, "ipv4", p->has_ipv4 ? jprefix(&p->ipv4) : json_null(), bad);
		jset(o, "ipv6", p->has_ipv6 ? jprefix(&p->ipv6) : json_null(), bad);
		jset(o, "mtu", json_integer(p->mtu), bad);
		jset(o, "role",
		     p->role == RSW_PORT_ROLE_NONE ? json_null()
						   : json_string(port_roles[p->role - 1]),
		     bad);
		jappend(a, o, bad);
	}
	return a;
}

static json_t *
json_neighbors(const struct rsw_config *cfg, bool *bad)
{
	json_t *a = json_array();
	uint32_t i;

	for (i = 0; a != NULL && i < cfg->n_neighbors; i++) {
		const struct rsw_cfg_neighbor *n = &cfg->neighbors[i];
		json_t *o = json_object();

		if (o == NULL) {
			*bad = true;
			break;
		}
		jset(o, "ip", jip(&n->ip), bad);
		jset(o, "mac", jmac(n->mac), bad);
		jset(o, "port", json_string(cfg->ports[n->port].name), bad);
		jappend(a, o, bad);
	}
	return a;
}

static json_t *
json_routes(const struct rsw_config *cfg, bool *bad)
{
	json_t *a = json_array();
	uint32_t i;
	int k;

	for (i = 0; a != NULL && i < cfg->n_routes; i++) {
		const struct rsw_cfg_route *r = &cfg->routes[i];
		json_t *o = json_object(), *nh = json_array(), *w = json_array();

		if (o == NULL || nh == NULL || w == NULL) {
			json_decref(o);
			json_decref(nh);
			json_decref(w);
			*bad = true;
			break;
		}
		for (k = 0; k < r->n_nexthops; k++) {
			jappend(nh, jip(&r->nexthops[k]), bad);
			jappend(w, json_integer(r->weights[k]), bad);
		}
		jset(o, "prefix", jprefix(&r->prefix), bad);
		jset(o, "nexthops", nh, bad);
		jset(o, "weights", w, bad);
		jset(o, "lb",
		     r->lb == RSW_LB_UNSET ? json_null() : json_string(rsw_lb_mode_name(r->lb)),
		     bad);
		jappend(a, o, bad);
	}
	return a;
}

static json_t *
json_lb(const struct rsw_config *cfg, bool *bad)
{
	const struct rsw_cfg_lb *lb = &cfg->lb;
	json_t *o = json_object(), *per_tc = json_object(), *fields = json_array();
	int i;

	if (o == NULL || per_tc == NULL || fields == NULL) {
		json_decref(o);
		json_decref(per_tc);
		json_decref(fields);
		*bad = true;
		return NULL;
	}
	for (i = 0; i < RSW_N_TC; i++) {
		char k[12];

		if (lb->per_tc[i] == RSW_LB_UNSET)
			continue;
		snprintf(k, sizeof(k), "%d", i);
		jset(per_tc, k, json_string(rsw_lb_mode_name(lb->per_tc[i])), bad);
	}
	for (i = 0; i < N_HASH_FIELDS; i++)
		if (lb->hash_fields & (1u << i))
			jappend(fields, json_string(hash_field_names[i]), bad);
	jset(o, "mode", json_string(rsw_lb_mode_name(lb->mode)), bad);
	jset(o, "per_tc", per_tc, bad);
	jset(o, "hash_fields", fields, bad);
	jset(o, "hash_algorithm", json_string(hash_alg_names[lb->hash_algorithm]), bad);
	jset(o, "spray", json_string(spray_names[lb->spray]), bad);
	jset(o, "flowlet_timeout_us", json_integer(lb->flowlet_timeout_us), bad);
	jset(o, "hash_seed", json_integer(lb->hash_seed), bad);
	jset(o, "hash_symmetric", json_boolean(lb->hash_symmetric), bad);
	return o;
}

static json_t *
json_tc_map(const uint8_t *map, int n, bool *bad)
{
	json_t *o = json_object();
	int i;

	for (i = 0; o != NULL && i < n; i++) {
		char k[12];

		snprintf(k, sizeof(k), "%d", i);
		jset(o, k, json_integer(map[i]), bad);
	}
	return o;
}

/* A JSON object, or NULL with *bad set. */
static json_t *
jobject(bool *bad)
{
	json_t *o = json_object();

	if (o == NULL)
		*bad = true;
	return o;
}

/* The TCs of a bitmask, ascending. */
static json_t *
json_tc_bits(uint8_t bits, bool *bad)
{
	json_t *a = json_array();
	int i;

	for (i = 0; a != NULL && i < RSW_N_TC; i++)
		if (bits & (1u << i))
			jappend(a, json_integer(i), bad);
	return a;
}

static json_t *
json_scheduler(const struct rsw_cfg_qos *q, bool *bad)
{
	json_t *o = jobject(bad), *strict = json_array(), *dwrr = json_object();
	int i;

	if (o == NULL || strict == NULL || dwrr == NULL) {
		json_decref(o);
		json_decref(strict);
		json_decref(dwrr);
		*bad = true;
		return NULL;
	}
	for (i = 0; i < q->n_strict; i++)
		jappend(strict, json_integer(q->strict[i]), bad);
	for (i = 0; i < RSW_N_TC; i++) {
		char k[12];

		if (q->dwrr[i] == 0) /* strict */
			continue;
		snprintf(k, sizeof(k), "%d", i);
		jset(dwrr, k, json_integer(q->dwrr[i]), bad);
	}
	jset(o, "strict", strict, bad);
	jset(o, "dwrr", dwrr, bad);
	return o;
}

/* Sizes in bytes; pfc shows the keys of its mode only. */
static json_t *
json_buffer(const struct rsw_cfg_qos *q, bool *bad)
{
	const struct rsw_cfg_pfc *pfc = &q->pfc;
	json_t *o = jobject(bad), *p = jobject(bad);

	if (o == NULL || p == NULL) {
		json_decref(o);
		json_decref(p);
		return NULL;
	}
	jset(p, "mode", json_string(pfc_mode_names[pfc->dynamic]), bad);
	if (pfc->dynamic) {
		jset(p, "alpha", json_real(pfc->alpha), bad);
		jset(p, "xon_offset", json_integer((json_int_t)pfc->xon_offset), bad);
	} else {
		jset(p, "xoff", json_integer((json_int_t)pfc->xoff), bad);
		jset(p, "xon", json_integer((json_int_t)pfc->xon), bad);
	}
	jset(p, "headroom", json_integer((json_int_t)pfc->headroom), bad);
	jset(p, "quanta", json_integer(pfc->quanta), bad);
	jset(o, "total", json_integer((json_int_t)q->buffer_total), bad);
	jset(o, "queue_limit", json_integer((json_int_t)q->queue_limit), bad);
	jset(o, "pfc", p, bad);
	return o;
}

static json_t *
json_ecn(const struct rsw_cfg_qos *q, bool *bad)
{
	json_t *o = jobject(bad);
	int i;

	for (i = 0; o != NULL && i < RSW_N_TC; i++) {
		const struct rsw_cfg_ecn *e = &q->ecn[i];
		json_t *t;
		char k[12];

		if (!e->enabled)
			continue;
		t = jobject(bad);
		if (t == NULL)
			break;
		jset(t, "kmin", json_integer((json_int_t)e->kmin), bad);
		jset(t, "kmax", json_integer((json_int_t)e->kmax), bad);
		jset(t, "pmax", json_real(e->pmax), bad);
		snprintf(k, sizeof(k), "%d", i);
		jset(o, k, t, bad);
	}
	return o;
}

static json_t *
json_pfcwd(const struct rsw_cfg_qos *q, bool *bad)
{
	json_t *o = jobject(bad);

	if (o == NULL)
		return NULL;
	jset(o, "detect_ms", json_integer(q->pfcwd.detect_ms), bad);
	jset(o, "restore_ms", json_integer(q->pfcwd.restore_ms), bad);
	jset(o, "action", json_string(pfcwd_action_names[q->pfcwd.action]), bad);
	return o;
}

/* qos.trim, or null when not configured. */
static json_t *
json_trim(const struct rsw_cfg_qos *q, bool *bad)
{
	json_t *o;

	if (!q->trim.enabled)
		return json_null();
	o = jobject(bad);
	if (o == NULL)
		return NULL;
	jset(o, "tcs", json_tc_bits(q->trim.tcs, bad), bad);
	jset(o, "threshold", json_integer((json_int_t)q->trim.threshold), bad);
	jset(o, "size", json_integer(q->trim.size), bad);
	jset(o, "dscp", json_integer(q->trim.dscp), bad);
	jset(o, "dscp_lasthop",
	     q->trim.has_dscp_lasthop ? json_integer(q->trim.dscp_lasthop) : json_null(), bad);
	jset(o, "tc", json_integer(q->trim.tc), bad);
	return o;
}

/* qos.cnp, or null when not configured. */
static json_t *
json_cnp(const struct rsw_cfg_qos *q, bool *bad)
{
	json_t *o;

	if (!q->cnp.enabled)
		return json_null();
	o = jobject(bad);
	if (o == NULL)
		return NULL;
	jset(o, "tc", json_integer(q->cnp.tc), bad);
	jset(o, "coalesce_us", json_integer(q->cnp.coalesce_us), bad);
	return o;
}

static json_t *
json_qos(const struct rsw_config *cfg, bool *bad)
{
	const struct rsw_cfg_qos *q = &cfg->qos;
	json_t *o = json_object();

	if (o == NULL) {
		*bad = true;
		return NULL;
	}
	jset(o, "trust", json_string(trust_names[q->trust]), bad);
	jset(o, "dscp_to_tc", json_tc_map(q->dscp_to_tc, 64, bad), bad);
	jset(o, "pcp_to_tc", json_tc_map(q->pcp_to_tc, 8, bad), bad);
	jset(o, "default_tc", json_integer(q->default_tc), bad);
	jset(o, "scheduler", json_scheduler(q, bad), bad);
	jset(o, "lossless", json_tc_bits(q->lossless, bad), bad);
	jset(o, "buffer", json_buffer(q, bad), bad);
	jset(o, "ecn", json_ecn(q, bad), bad);
	jset(o, "ecn_mark_point", json_string(ecn_mark_names[q->ecn_mark_enqueue]), bad);
	jset(o, "pfc_watchdog", json_pfcwd(q, bad), bad);
	jset(o, "trim", json_trim(q, bad), bad);
	jset(o, "cnp", json_cnp(q, bad), bad);
	return o;
}

static json_t *
json_control(const struct rsw_config *cfg, bool *bad)
{
	const struct rsw_cfg_control *ctl = &cfg->control;
	json_t *o = json_object();

	if (o == NULL) {
		*bad = true;
		return NULL;
	}
	jset(o, "socket", json_string(ctl->socket), bad);
	jset(o, "telemetry", json_boolean(ctl->telemetry), bad);
	jset(o, "metrics_listen", ctl->has_metrics ? json_string(ctl->metrics_listen) : json_null(),
	     bad);
	return o;
}

json_t *
rsw_config_to_json(const struct rsw_config *cfg)
{
	bool bad = false;
	json_t *o;

	if (cfg == NULL)
		return NULL;
	o = json_object();
	if (o == NULL)
		return NULL;
	jset(o, "switch", json_switch(cfg, &bad), &bad);
	jset(o, "ports", json_ports(cfg, &bad), &bad);
	jset(o, "neighbors", json_neighbors(cfg, &bad), &bad);
	jset(o, "routes", json_routes(cfg, &bad), &bad);
	jset(o, "load_balance", json_lb(cfg, &bad), &bad);
	jset(o, "qos", json_qos(cfg, &bad), &bad);
	jset(o, "control", json_control(cfg, &bad), &bad);
	if (cfg->topology.present)
		jset(o, "topology", rsw_topology_to_json(&cfg->topology), &bad);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}
