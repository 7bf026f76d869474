/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * IPv4 and IPv6 addresses and prefixes: parsing, masking, comparing, and the text form used in
 * messages and JSON. A leaf of the loader: the topology derivation uses it too, and it calls
 * nothing but units.c and libc.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "config_priv.h"

bool
cfg_parse_ip(const char *s, struct rsw_ip *ip)
{
	memset(ip, 0, sizeof(*ip));
	if (strchr(s, ':') != NULL) {
		ip->family = RSW_AF_INET6;
		return inet_pton(AF_INET6, s, ip->addr) == 1;
	}
	ip->family = RSW_AF_INET;
	return inet_pton(AF_INET, s, ip->addr) == 1;
}

int
cfg_ip_bits(const struct rsw_ip *ip)
{
	return ip->family == RSW_AF_INET ? 32 : 128;
}

/* Unicast: not unspecified, not multicast, not the IPv4 limited broadcast. */
bool
cfg_ip_unicast(const struct rsw_ip *ip)
{
	static const uint8_t zero[16];

	if (memcmp(ip->addr, zero, ip->family == RSW_AF_INET ? 4 : 16) == 0)
		return false;
	if (ip->family == RSW_AF_INET)
		return (ip->addr[0] & 0xf0) != 0xe0 && !(ip->addr[0] == 255 && ip->addr[1] == 255 &&
							 ip->addr[2] == 255 && ip->addr[3] == 255);
	return ip->addr[0] != 0xff;
}

const char *
cfg_family_name(int family)
{
	return family == RSW_AF_INET ? "IPv4" : "IPv6";
}

bool
cfg_parse_prefix(const char *s, struct rsw_prefix *p)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash = strchr(s, '/');
	int64_t len;

	if (slash == NULL || (size_t)(slash - s) >= INET6_ADDRSTRLEN)
		return false;
	memcpy(buf, s, (size_t)(slash - s));
	buf[slash - s] = '\0';
	if (!cfg_parse_ip(buf, &p->ip))
		return false;
	if (strlen(slash + 1) > 3 || slash[1] == '+' || slash[1] == '-' ||
	    !cfg_parse_i64(slash + 1, &len) || len < 0 || len > cfg_ip_bits(&p->ip))
		return false;
	p->len = (uint8_t)len;
	return true;
}

void
cfg_prefix_mask(struct rsw_prefix *p)
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

bool
cfg_prefix_overlap(const struct rsw_prefix *a, const struct rsw_prefix *b)
{
	return a->ip.family == b->ip.family &&
	       bits_equal(a->ip.addr, b->ip.addr, a->len < b->len ? a->len : b->len);
}

int
cfg_ip_cmp(const struct rsw_ip *a, const struct rsw_ip *b)
{
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	return memcmp(a->addr, b->addr, sizeof(a->addr));
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
	if (p->ip.family != ip->family || p->len > cfg_ip_bits(ip))
		return false;
	return bits_equal(p->ip.addr, ip->addr, p->len);
}
