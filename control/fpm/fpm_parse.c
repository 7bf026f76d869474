/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The FPM parser: FPM framing (FRR fpm/fpm.h) and the rtnetlink messages zebra's
 * dplane_fpm_nl sends (FRR zebra/rt_netlink.c, linux/rtnetlink.h, linux/nexthop.h): routes
 * with inline next hops (RTA_GATEWAY, RTA_VIA, RTA_OIF, RTA_MULTIPATH) or a next-hop object
 * (RTA_NH_ID), and the next-hop objects themselves. Netlink is host byte order (zebra and
 * railsw run on one host); the FPM header and addresses are network order. Nothing is read
 * before its length has been checked against the buffer.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rsw_fpm_parse.h"

#define NLMSG_HDR_LEN 16 /* struct nlmsghdr */
#define RTMSG_LEN     12 /* struct rtmsg */
#define NHMSG_LEN     8  /* struct nhmsg */
#define RTA_HDR_LEN   4  /* struct rtattr */
#define RTNH_LEN      8  /* struct rtnexthop */
#define NHGRP_LEN     8  /* struct nexthop_grp */
#define ALIGN4(x)     (((x) + 3u) & ~(size_t)3u)

#define FAMILY_INET  2  /* AF_INET */
#define FAMILY_INET6 10 /* AF_INET6 */

/* Route attributes (enum rtattr_type_t). */
#define RTA_DST       1
#define RTA_OIF       4
#define RTA_GATEWAY   5
#define RTA_PRIORITY  6
#define RTA_MULTIPATH 9
#define RTA_TABLE     15
#define RTA_VIA       18
#define RTA_NH_ID     30

/* Next-hop object attributes (linux/nexthop.h). */
#define NHA_ID        1
#define NHA_GROUP     2
#define NHA_BLACKHOLE 4
#define NHA_OIF       5
#define NHA_GATEWAY   6

static int
fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static uint16_t
rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t
rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int
rsw_fpm_frame_check(const uint8_t *buf, size_t len, size_t *frame_len)
{
	size_t n;

	if (buf == NULL || len < RSW_FPM_HDR_LEN)
		return -EAGAIN;
	if (buf[0] != RSW_FPM_VERSION || buf[1] != RSW_FPM_TYPE_NETLINK)
		return -EPROTO;
	n = (size_t)buf[2] << 8 | buf[3];
	if (n < RSW_FPM_HDR_LEN)
		return -EMSGSIZE;
	if (frame_len != NULL)
		*frame_len = n;
	return 0;
}

/* An address attribute of family fam (AF_*) into ip. */
static int
get_addr(const uint8_t *p, size_t len, uint8_t fam, struct rsw_ip *ip)
{
	memset(ip, 0, sizeof(*ip));
	if (fam == FAMILY_INET && len == 4) {
		ip->family = RSW_AF_INET;
		memcpy(ip->addr, p, 4);
		return 0;
	}
	if (fam == FAMILY_INET6 && len == 16) {
		ip->family = RSW_AF_INET6;
		memcpy(ip->addr, p, 16);
		return 0;
	}
	return -EINVAL;
}

/* RTA_VIA: struct rtvia { __kernel_sa_family_t rtvia_family (2 bytes); rtvia_addr[] }. */
static int
get_via(const uint8_t *p, size_t len, struct rsw_ip *ip)
{
	if (len < 2)
		return -EINVAL;
	return get_addr(p + 2, len - 2, (uint8_t)rd16(p), ip);
}

/*
 * Walk the attributes in [p, p + len): for each, call fn. An attribute whose length is
 * shorter than its header or runs past the end is an error; unknown types are the caller's
 * to skip.
 */
typedef int (*attr_fn)(uint16_t type, const uint8_t *data, size_t dlen, void *arg, char *err,
		       size_t errlen);

static int
walk_attrs(const uint8_t *p, size_t len, attr_fn fn, void *arg, char *err, size_t errlen)
{
	size_t off = 0;
	int ret;

	while (len - off >= RTA_HDR_LEN) {
		uint16_t alen = rd16(p + off), type = rd16(p + off + 2);

		if (alen < RTA_HDR_LEN || alen > len - off)
			return fail(err, errlen, -EINVAL,
				    "attribute %u: length %u at offset %zu runs past %zu bytes",
				    type & 0x3fffu, alen, off, len);
		/* NLA_F_NESTED and NLA_F_NET_BYTEORDER live in the top bits. */
		ret = fn(type & 0x3fffu, p + off + RTA_HDR_LEN, alen - RTA_HDR_LEN, arg, err,
			 errlen);
		if (ret != 0)
			return ret;
		off += ALIGN4(alen);
		if (off > len)
			break;
	}
	/* Trailing bytes shorter than an attribute header: tolerated as padding. */
	return 0;
}

struct route_ctx {
	struct rsw_fpm_route *r;
	uint8_t family;  /* rtm_family */
	bool has_single; /* RTA_GATEWAY / RTA_OIF at the top level */
	bool has_multi;
	struct rsw_fpm_nh single;
};

struct nh_ctx {
	struct rsw_fpm_nh *nh;
	uint8_t family;
};

static int
multipath_attr(uint16_t type, const uint8_t *d, size_t dlen, void *arg, char *err, size_t errlen)
{
	struct nh_ctx *c = arg;

	if (type == RTA_GATEWAY) {
		if (get_addr(d, dlen, c->family, &c->nh->gw) != 0)
			return fail(err, errlen, -EINVAL, "multipath RTA_GATEWAY of %zu bytes",
				    dlen);
	} else if (type == RTA_VIA) {
		if (get_via(d, dlen, &c->nh->gw) != 0)
			return fail(err, errlen, -EINVAL, "multipath RTA_VIA of %zu bytes", dlen);
	}
	return 0;
}

/* RTA_MULTIPATH: a list of struct rtnexthop, each followed by its attributes. */
static int
parse_multipath(struct route_ctx *c, const uint8_t *p, size_t len, char *err, size_t errlen)
{
	struct rsw_fpm_route *r = c->r;
	size_t off = 0;
	int ret;

	while (len - off >= RTNH_LEN) {
		uint16_t nlen = rd16(p + off);
		struct rsw_fpm_nh *nh;
		struct nh_ctx nc;

		if (nlen < RTNH_LEN || nlen > len - off)
			return fail(err, errlen, -EINVAL,
				    "RTA_MULTIPATH: next hop length %u at offset %zu of %zu", nlen,
				    off, len);
		if (r->n_nh == RSW_FPM_MAX_NH)
			return fail(err, errlen, -EINVAL, "more than %u next hops", RSW_FPM_MAX_NH);
		nh = &r->nh[r->n_nh];
		memset(nh, 0, sizeof(*nh));
		nh->onlink = (p[off + 2] & RSW_RTNH_F_ONLINK) != 0;
		nh->weight = (uint32_t)p[off + 3] + 1;
		nh->oif = rd32(p + off + 4);
		nc.nh = nh;
		nc.family = c->family;
		ret = walk_attrs(p + off + RTNH_LEN, nlen - RTNH_LEN, multipath_attr, &nc, err,
				 errlen);
		if (ret != 0)
			return ret;
		r->n_nh++;
		off += ALIGN4(nlen);
		if (off > len)
			break;
	}
	return 0;
}

static int
route_attr(uint16_t type, const uint8_t *d, size_t dlen, void *arg, char *err, size_t errlen)
{
	struct route_ctx *c = arg;
	struct rsw_fpm_route *r = c->r;

	switch (type) {
	case RTA_DST:
		if (get_addr(d, dlen, c->family, &r->prefix.ip) != 0)
			return fail(err, errlen, -EINVAL, "RTA_DST of %zu bytes", dlen);
		return 0;
	case RTA_GATEWAY:
		if (get_addr(d, dlen, c->family, &c->single.gw) != 0)
			return fail(err, errlen, -EINVAL, "RTA_GATEWAY of %zu bytes", dlen);
		c->has_single = true;
		return 0;
	case RTA_VIA:
		if (get_via(d, dlen, &c->single.gw) != 0)
			return fail(err, errlen, -EINVAL, "RTA_VIA of %zu bytes", dlen);
		c->has_single = true;
		return 0;
	case RTA_OIF:
		if (dlen != 4)
			return fail(err, errlen, -EINVAL, "RTA_OIF of %zu bytes", dlen);
		c->single.oif = rd32(d);
		c->has_single = true;
		return 0;
	case RTA_PRIORITY:
		if (dlen != 4)
			return fail(err, errlen, -EINVAL, "RTA_PRIORITY of %zu bytes", dlen);
		r->priority = rd32(d);
		return 0;
	case RTA_TABLE:
		if (dlen != 4)
			return fail(err, errlen, -EINVAL, "RTA_TABLE of %zu bytes", dlen);
		r->table = rd32(d);
		return 0;
	case RTA_NH_ID:
		if (dlen != 4)
			return fail(err, errlen, -EINVAL, "RTA_NH_ID of %zu bytes", dlen);
		r->nh_id = rd32(d);
		return 0;
	case RTA_MULTIPATH:
		if (c->has_multi)
			return fail(err, errlen, -EINVAL, "two RTA_MULTIPATH attributes");
		c->has_multi = true;
		return parse_multipath(c, d, dlen, err, errlen);
	default:
		return 0; /* RTA_PREFSRC, RTA_METRICS, RTA_ENCAP, ...: not used */
	}
}

static int
parse_route(const uint8_t *b, size_t len, uint16_t flags, struct rsw_fpm_route *r, char *err,
	    size_t errlen)
{
	struct route_ctx c = {.r = r};
	uint8_t full;
	int ret, i;

	if (len < RTMSG_LEN)
		return fail(err, errlen, -EINVAL, "route message of %zu bytes, no rtmsg", len);
	c.family = b[0];
	if (c.family != FAMILY_INET && c.family != FAMILY_INET6)
		return fail(err, errlen, -EINVAL, "route of address family %u", c.family);
	full = c.family == FAMILY_INET ? 32 : 128;
	if (b[1] > full)
		return fail(err, errlen, -EINVAL, "prefix length %u for a family of %u bits", b[1],
			    full);
	r->prefix.ip.family = c.family == FAMILY_INET ? RSW_AF_INET : RSW_AF_INET6;
	r->prefix.len = b[1];
	r->table = b[4];
	r->protocol = b[5];
	r->type = b[7];
	r->replace = (flags & RSW_NLM_F_REPLACE) != 0;
	c.single.weight = 1;
	c.single.onlink = (rd32(b + 8) & RSW_RTNH_F_ONLINK) != 0;
	ret = walk_attrs(b + RTMSG_LEN, len - RTMSG_LEN, route_attr, &c, err, errlen);
	if (ret != 0)
		return ret;
	if (c.has_single && c.has_multi)
		return fail(err, errlen, -EINVAL, "both RTA_GATEWAY/RTA_OIF and RTA_MULTIPATH");
	if (c.has_single) {
		r->nh[0] = c.single;
		r->n_nh = 1;
	}
	/* RTA_DST absent: the default route (the address stays zero). Host bits cleared. */
	for (i = r->prefix.len; i < full; i++)
		r->prefix.ip.addr[i / 8] &= (uint8_t) ~(0x80 >> (i % 8));
	return 0;
}

struct nhobj_ctx {
	struct rsw_fpm_nhobj *o;
};

static int
nhobj_attr(uint16_t type, const uint8_t *d, size_t dlen, void *arg, char *err, size_t errlen)
{
	struct nhobj_ctx *c = arg;
	struct rsw_fpm_nhobj *o = c->o;
	size_t i;

	switch (type) {
	case NHA_ID:
		if (dlen != 4)
			return fail(err, errlen, -EINVAL, "NHA_ID of %zu bytes", dlen);
		o->id = rd32(d);
		return 0;
	case NHA_GATEWAY:
		if (get_addr(d, dlen, dlen == 4 ? FAMILY_INET : FAMILY_INET6, &o->gw) != 0)
			return fail(err, errlen, -EINVAL, "NHA_GATEWAY of %zu bytes", dlen);
		return 0;
	case NHA_OIF:
		if (dlen != 4)
			return fail(err, errlen, -EINVAL, "NHA_OIF of %zu bytes", dlen);
		o->oif = rd32(d);
		return 0;
	case NHA_BLACKHOLE:
		o->blackhole = true;
		return 0;
	case NHA_GROUP:
		if (dlen == 0 || dlen % NHGRP_LEN != 0)
			return fail(err, errlen, -EINVAL, "NHA_GROUP of %zu bytes", dlen);
		if (dlen / NHGRP_LEN > RSW_FPM_MAX_GROUP)
			return fail(err, errlen, -EINVAL,
				    "next-hop group of %zu members, at most %u", dlen / NHGRP_LEN,
				    RSW_FPM_MAX_GROUP);
		o->n_group = (uint16_t)(dlen / NHGRP_LEN);
		for (i = 0; i < o->n_group; i++) {
			o->group[i].id = rd32(d + i * NHGRP_LEN);
			o->group[i].weight = (uint32_t)d[i * NHGRP_LEN + 4] + 1;
		}
		return 0;
	default:
		return 0; /* NHA_GROUP_TYPE, NHA_ENCAP, NHA_FDB, ...: not used */
	}
}

static int
parse_nhobj(const uint8_t *b, size_t len, struct rsw_fpm_nhobj *o, char *err, size_t errlen)
{
	struct nhobj_ctx c = {.o = o};
	int ret;

	if (len < NHMSG_LEN)
		return fail(err, errlen, -EINVAL, "next-hop message of %zu bytes, no nhmsg", len);
	o->family = b[0];
	o->onlink = (rd32(b + 4) & RSW_RTNH_F_ONLINK) != 0;
	ret = walk_attrs(b + NHMSG_LEN, len - NHMSG_LEN, nhobj_attr, &c, err, errlen);
	if (ret != 0)
		return ret;
	if (o->id == 0)
		return fail(err, errlen, -EINVAL, "next-hop object without NHA_ID");
	return 0;
}

int
rsw_fpm_parse_nlmsg(const uint8_t *buf, size_t len, struct rsw_fpm_msg *m, size_t *msg_len,
		    char *err, size_t errlen)
{
	uint32_t nlen;
	uint16_t type, flags;

	if (msg_len != NULL)
		*msg_len = 0;
	if (buf == NULL || m == NULL || len < NLMSG_HDR_LEN)
		return fail(err, errlen, -EMSGSIZE, "netlink message of %zu bytes, no header", len);
	nlen = rd32(buf);
	if (nlen < NLMSG_HDR_LEN || nlen > len)
		return fail(err, errlen, -EMSGSIZE, "netlink length %u with %zu bytes left", nlen,
			    len);
	if (msg_len != NULL)
		*msg_len = ALIGN4(nlen) < len ? ALIGN4(nlen) : len;
	type = rd16(buf + 4);
	flags = rd16(buf + 6);
	memset(m, 0, sizeof(*m));
	m->nl_type = type;
	switch (type) {
	case RSW_RTM_NEWROUTE:
	case RSW_RTM_DELROUTE:
		m->op = type == RSW_RTM_NEWROUTE ? RSW_FPM_OP_ROUTE_ADD : RSW_FPM_OP_ROUTE_DEL;
		return parse_route(buf + NLMSG_HDR_LEN, nlen - NLMSG_HDR_LEN, flags, &m->route, err,
				   errlen);
	case RSW_RTM_NEWNEXTHOP:
	case RSW_RTM_DELNEXTHOP:
		m->op = type == RSW_RTM_NEWNEXTHOP ? RSW_FPM_OP_NH_ADD : RSW_FPM_OP_NH_DEL;
		return parse_nhobj(buf + NLMSG_HDR_LEN, nlen - NLMSG_HDR_LEN, &m->nh, err, errlen);
	default:
		m->op = RSW_FPM_OP_IGNORED;
		return 0;
	}
}

int
rsw_fpm_parse_frame(const uint8_t *frame, size_t frame_len, rsw_fpm_msg_cb cb, rsw_fpm_err_cb ecb,
		    void *arg)
{
	char err[RSW_FPM_ERR_LEN];
	struct rsw_fpm_msg m;
	size_t n, off, mlen;
	int bad = 0, ret;

	if (rsw_fpm_frame_check(frame, frame_len, &n) != 0 || n != frame_len)
		return -EINVAL;
	for (off = RSW_FPM_HDR_LEN; off < frame_len; off += mlen) {
		err[0] = '\0';
		ret = rsw_fpm_parse_nlmsg(frame + off, frame_len - off, &m, &mlen, err,
					  sizeof(err));
		if (ret != 0) {
			bad++;
			if (ecb != NULL)
				ecb(err, arg);
			if (mlen == 0)
				break; /* the next message cannot be found */
			continue;
		}
		if (cb != NULL && cb(&m, arg) != 0)
			break;
	}
	return bad;
}

const char *
rsw_fpm_source(uint8_t protocol, uint8_t *distance, char *buf, size_t len)
{
	static const struct {
		uint8_t proto;
		uint8_t distance;
		const char *name;
	} map[] = {
		{RSW_RTPROT_KERNEL, 0, "kernel"},
		{RSW_RTPROT_STATIC, 1, "kernel-static"},
		{RSW_RTPROT_BGP, 20, "bgp"},
		{RSW_RTPROT_ISIS, 115, "isis"},
		{RSW_RTPROT_OSPF, 110, "ospf"},
		{RSW_RTPROT_RIP, 120, "rip"},
		{42, 100, "babel"},
		{191, 10, "nhrp"},
		{192, 90, "eigrp"},
		{194, 150, "sharp"},
		{RSW_RTPROT_ZSTATIC, 1, "frr-static"},
		{197, 115, "openfabric"},
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].proto == protocol) {
			if (distance != NULL)
				*distance = map[i].distance;
			return map[i].name;
		}
	if (distance != NULL)
		*distance = 254;
	if (buf == NULL || len == 0)
		return "other";
	snprintf(buf, len, "proto-%u", protocol);
	return buf;
}
