/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the FPM parser (control/fpm/fpm_parse.c) and RIB (fpm_rib.c) on hand-built
 * frames, as zebra's dplane_fpm_nl writes them: bad input first (short and bad headers,
 * netlink lengths past the frame, attributes that overrun their message, bad families and
 * prefix lengths, too many next hops), then routes with one or many next hops, RFC 8950
 * next hops, next-hop objects, several messages in one frame, and the RIB's add, replace,
 * delete and stale drop. No EAL: the parser and RIB are plain C.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <arpa/inet.h>
#include <cmocka.h>

#include "fpm_priv.h"
#include "rsw_fpm_parse.h"

/* A message being built: netlink in host order, as on one host. */
struct mb {
	uint8_t b[4096];
	size_t len;
	size_t nl;   /* offset of the current netlink header */
	size_t nest; /* offset of an open RTA_MULTIPATH, 0 = none */
	size_t rtnh; /* offset of an open rtnexthop */
};

static void
put(struct mb *m, const void *p, size_t n)
{
	assert_true(m->len + n <= sizeof(m->b));
	memcpy(m->b + m->len, p, n);
	m->len += n;
}

static void
pad(struct mb *m)
{
	while (m->len % 4)
		m->b[m->len++] = 0;
}

static void
frame_begin(struct mb *m)
{
	memset(m, 0, sizeof(*m));
	m->b[0] = 1;
	m->b[1] = 1;
	m->len = 4;
}

static size_t
frame_end(struct mb *m)
{
	m->b[2] = (uint8_t)(m->len >> 8);
	m->b[3] = (uint8_t)m->len;
	return m->len;
}

static void
set16(struct mb *m, size_t off, uint16_t v)
{
	memcpy(m->b + off, &v, 2);
}

static void
set32(struct mb *m, size_t off, uint32_t v)
{
	memcpy(m->b + off, &v, 4);
}

/* nlmsghdr + rtmsg. */
static void
route_begin(struct mb *m, uint16_t type, uint16_t flags, uint8_t family, uint8_t dst_len,
	    uint8_t proto)
{
	uint8_t rtm[12] = {family, dst_len, 0, 0, 254, proto, 0, 1};
	uint32_t z = 0;

	m->nl = m->len;
	put(m, &z, 4);
	put(m, &type, 2);
	put(m, &flags, 2);
	put(m, &z, 4);
	put(m, &z, 4);
	put(m, rtm, sizeof(rtm));
}

static void
nh_begin(struct mb *m, uint16_t type, uint8_t family, uint32_t flags)
{
	uint8_t nhm[8] = {family, 0, 0, 0};
	uint16_t f = 0;
	uint32_t z = 0;

	memcpy(nhm + 4, &flags, 4);
	m->nl = m->len;
	put(m, &z, 4);
	put(m, &type, 2);
	put(m, &f, 2);
	put(m, &z, 4);
	put(m, &z, 4);
	put(m, nhm, sizeof(nhm));
}

static void
msg_end(struct mb *m)
{
	set32(m, m->nl, (uint32_t)(m->len - m->nl));
	pad(m);
}

static void
attr(struct mb *m, uint16_t type, const void *p, uint16_t n)
{
	uint16_t len = (uint16_t)(4 + n);

	put(m, &len, 2);
	put(m, &type, 2);
	put(m, p, n);
	pad(m);
}

static void
attr32(struct mb *m, uint16_t type, uint32_t v)
{
	attr(m, type, &v, 4);
}

static void
attr_ip4(struct mb *m, uint16_t type, const char *s)
{
	uint8_t a[4];

	assert_int_equal(inet_pton(AF_INET, s, a), 1);
	attr(m, type, a, 4);
}

static void
attr_ip6(struct mb *m, uint16_t type, const char *s)
{
	uint8_t a[16];

	assert_int_equal(inet_pton(AF_INET6, s, a), 1);
	attr(m, type, a, 16);
}

static void
mp_begin(struct mb *m)
{
	uint16_t z = 0, t = 9;

	m->nest = m->len;
	put(m, &z, 2);
	put(m, &t, 2);
}

static void
mp_nh(struct mb *m, const char *gw, uint8_t hops, uint8_t flags, uint32_t ifindex)
{
	uint8_t rtnh[8] = {0, 0, flags, hops};

	memcpy(rtnh + 4, &ifindex, 4);
	m->rtnh = m->len;
	put(m, rtnh, sizeof(rtnh));
	if (strchr(gw, ':') != NULL)
		attr_ip6(m, 5, gw);
	else
		attr_ip4(m, 5, gw);
	set16(m, m->rtnh, (uint16_t)(m->len - m->rtnh));
}

static void
mp_end(struct mb *m)
{
	set16(m, m->nest, (uint16_t)(m->len - m->nest));
	m->nest = 0;
}

/* What the callbacks saw. */
struct seen {
	int n, bad;
	struct rsw_fpm_msg m[8];
	char err[RSW_FPM_ERR_LEN];
};

static int
on_msg(const struct rsw_fpm_msg *m, void *arg)
{
	struct seen *s = arg;

	if (s->n < 8)
		s->m[s->n] = *m;
	s->n++;
	return 0;
}

static void
on_err(const char *err, void *arg)
{
	struct seen *s = arg;

	s->bad++;
	snprintf(s->err, sizeof(s->err), "%s", err);
}

static int
parse(struct mb *m, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	return rsw_fpm_parse_frame(m->b, m->len, on_msg, on_err, s);
}

static struct rsw_ip
ip4(const char *s)
{
	struct rsw_ip ip = {.family = RSW_AF_INET};

	assert_int_equal(inet_pton(AF_INET, s, ip.addr), 1);
	return ip;
}

/* --- bad input --- */

static void
test_frame_header(void **state)
{
	uint8_t b[8] = {1, 1, 0, 8};
	size_t n = 0;

	(void)state;
	assert_int_equal(rsw_fpm_frame_check(NULL, 0, &n), -EAGAIN);
	assert_int_equal(rsw_fpm_frame_check(b, 3, &n), -EAGAIN);
	assert_int_equal(rsw_fpm_frame_check(b, 4, &n), 0);
	assert_int_equal(n, 8);
	b[0] = 2;
	assert_int_equal(rsw_fpm_frame_check(b, 4, &n), -EPROTO);
	b[0] = 1;
	b[1] = 2; /* protobuf */
	assert_int_equal(rsw_fpm_frame_check(b, 4, &n), -EPROTO);
	b[1] = 1;
	b[3] = 3; /* shorter than the header */
	assert_int_equal(rsw_fpm_frame_check(b, 4, &n), -EMSGSIZE);
	b[3] = 4; /* an empty frame is fine */
	assert_int_equal(rsw_fpm_frame_check(b, 4, &n), 0);
	assert_int_equal(rsw_fpm_parse_frame(b, 4, NULL, NULL, NULL), 0);
	/* A frame length that does not match what is given. */
	assert_int_equal(rsw_fpm_parse_frame(b, 8, NULL, NULL, NULL), -EINVAL);
}

static void
test_netlink_lengths(void **state)
{
	struct rsw_fpm_msg msg;
	struct seen s;
	struct mb m;
	size_t ml;
	char err[RSW_FPM_ERR_LEN];

	(void)state;
	/* Fewer bytes than a netlink header. */
	memset(&m, 0, sizeof(m));
	assert_int_equal(rsw_fpm_parse_nlmsg(m.b, 15, &msg, &ml, err, sizeof(err)), -EMSGSIZE);
	assert_int_equal(ml, 0);
	/* nlmsg_len past the frame: the frame ends there, counted once. */
	frame_begin(&m);
	route_begin(&m, RSW_RTM_NEWROUTE, 0, 2, 24, RSW_RTPROT_BGP);
	attr_ip4(&m, 1, "10.9.0.0");
	msg_end(&m);
	set32(&m, 4, 4096);
	frame_end(&m);
	assert_int_equal(parse(&m, &s), 1);
	assert_int_equal(s.n, 0);
	assert_non_null(strstr(s.err, "netlink length 4096"));
	/* nlmsg_len shorter than its header. */
	set32(&m, 4, 8);
	assert_int_equal(parse(&m, &s), 1);
	/* A route message with no room for its rtmsg: bad, and so is what follows it. */
	set32(&m, 4, 20);
	assert_int_equal(parse(&m, &s), 2);
	assert_int_equal(s.n, 0);
}

static void
test_bad_attributes(void **state)
{
	struct seen s;
	struct mb m;

	(void)state;
	/* An attribute whose length runs past its message. */
	frame_begin(&m);
	route_begin(&m, RSW_RTM_NEWROUTE, 0, 2, 24, RSW_RTPROT_BGP);
	attr_ip4(&m, 1, "10.9.0.0");
	msg_end(&m);
	set16(&m, 4 + 16 + 12, 200);
	frame_end(&m);
	assert_int_equal(parse(&m, &s), 1);
	assert_non_null(strstr(s.err, "runs past"));
	/* An attribute length shorter than its header. */
	set16(&m, 4 + 16 + 12, 2);
	assert_int_equal(parse(&m, &s), 1);
	/* RTA_DST of the wrong size for the family. */
	frame_begin(&m);
	route_begin(&m, RSW_RTM_NEWROUTE, 0, 2, 24, RSW_RTPROT_BGP);
	attr_ip6(&m, 1, "fd00::");
	msg_end(&m);
	frame_end(&m);
	assert_int_equal(parse(&m, &s), 1);
	assert_non_null(strstr(s.err, "RTA_DST"));
	/* RTA_OIF of 2 bytes. */
	frame_begin(&m);
	route_begin(&m, RSW_RTM_NEWROUTE, 0, 2, 24, RSW_RTPROT_BGP);
	attr(&m, 4, "\1\0", 2);
	msg_end(&m);
	frame_end(&m);
	assert_int_equal(parse(&m, &s), 1);
	/* An unknown family, a prefix longer than its family. */
	frame_begin(&m);
	route_begin(&m, RSW_RTM_NEWROUTE, 0, 7, 24, RSW_RTPROT_BGP);
	msg_end(&m);
	route_begin(&m, RSW_RTM_NEWROUTE, 0, 2, 33, RSW_RTPROT_BGP);
	msg_end(&m);
	route_begin(&m, RSW_RTM_NEWROUTE, 0, 10, 129, RSW_RTPROT_BGP);
	msg_end(&m);
	frame_end(&m);
	assert_int_equal(parse(&m, &s), 3);
	/* Both a gateway and RTA_MULTIPATH; two RTA_MULTIPATH. */
	frame_begin(&m);
	route_begin(&m, RSW_RTM_NEWROUTE, 0, 2, 24, RSW_RTPROT_BGP);
	attr_ip4(&m, 5, "10.0.1.1");
	mp_begin(&m);
	mp_nh(&m, "10.0.1.2", 0, 0, 0);
	mp_end(&m);
	msg_end(&m);
	route_begin(&m, RSW_RTM_NEWROUTE, 0, 2, 24, RSW_RTPROT_BGP);
	mp_begin(&m);
	mp_nh(&m, "10.0.1.2", 0, 0, 0);
	mp_end(&m);
	mp_begin(&m);
	mp_nh(&m, "10.0.1.3", 0, 0, 0);
	mp_end(&m);
	msg_end(&m);
	frame_end(&m);
	assert_int_equal(parse(&m, &s), 2);
	/* A multipath entry whose length runs past the attribute. */
	frame_begin(&m);
	route_begin(&m, RSW_RTM_NEWROUTE, 0, 2, 24, RSW_RTPROT_BGP);
	mp_begin(&m);
	mp_nh(&m, "10.0.1.2", 0, 0, 0);
	set16(&m, m.rtnh, 100);
	mp_end(&m);
	msg_end(&m);
	frame_end(&m);
	assert_int_equal(parse(&m, &s), 1);
	assert_non_null(strstr(s.err, "RTA_MULTIPATH"));
}

static void
test_too_many_nexthops(void **state)
{
	char gw[16];
	struct seen s;
	struct mb m;
	int i;

	(void)state;
	frame_begin(&m);
	route_begin(&m, RSW_RTM_NEWROUTE, 0, 2, 24, RSW_RTPROT_BGP);
	mp_begin(&m);
	for (i = 0; i < RSW_FPM_MAX_NH + 1; i++) {
		snprintf(gw, sizeof(gw), "10.0.1.%d", i + 1);
		mp_nh(&m, gw, 0, 0, 0);
	}
	mp_end(&m);
	msg_end(&m);
	frame_end(&m);
	assert_int_equal(parse(&m, &s), 1);
	assert_non_null(strstr(s.err, "more than"));
}

static void
test_bad_nhobj(void **state)
{
	struct seen s;
	struct mb m;

	(void)state;
	/* No NHA_ID. */
	frame_begin(&m);
	nh_begin(&m, RSW_RTM_NEWNEXTHOP, 2, 0);
	attr_ip4(&m, 6, "10.0.1.1");
	msg_end(&m);
	frame_end(&m);
	assert_int_equal(parse(&m, &s), 1);
	assert_non_null(strstr(s.err, "NHA_ID"));
	/* A group of 7 bytes. */
	frame_begin(&m);
	nh_begin(&m, RSW_RTM_NEWNEXTHOP, 0, 0);
	attr32(&m, 1, 5);
	attr(&m, 2, "\1\0\0\0\0\0\0", 7);
	msg_end(&m);
	frame_end(&m);
	assert_int_equal(parse(&m, &s), 1);
	assert_non_null(strstr(s.err, "NHA_GROUP"));
}

/* --- good input --- */

static void
test_route_single(void **state)
{
	const struct rsw_fpm_route *r;
	struct seen s;
	struct mb m;

	(void)state;
	frame_begin(&m);
	route_begin(&m, RSW_RTM_NEWROUTE, RSW_NLM_F_REPLACE, 2, 24, RSW_RTPROT_BGP);
	attr_ip4(&m, 1, "10.9.0.77"); /* host bits are cleared */
	attr_ip4(&m, 5, "10.0.1.1");
	attr32(&m, 4, 7);
	attr32(&m, 6, 20);
	attr32(&m, 15, 254);
	attr(&m, 200, "xyz", 3); /* an unknown attribute is skipped */
	msg_end(&m);
	frame_end(&m);
	assert_int_equal(parse(&m, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.m[0].op, RSW_FPM_OP_ROUTE_ADD);
	r = &s.m[0].route;
	assert_int_equal(r->prefix.ip.family, RSW_AF_INET);
	assert_int_equal(r->prefix.len, 24);
	assert_memory_equal(r->prefix.ip.addr, "\x0a\x09\x00\x00", 4);
	assert_true(r->replace);
	assert_int_equal(r->protocol, RSW_RTPROT_BGP);
	assert_int_equal(r->table, 254);
	assert_int_equal(r->priority, 20);
	assert_int_equal(r->n_nh, 1);
	assert_int_equal(r->nh[0].oif, 7);
	assert_int_equal(r->nh[0].weight, 1);
	assert_memory_equal(r->nh[0].gw.addr, "\x0a\x00\x01\x01", 4);
}

static void
test_route_multipath_v6_and_rfc8950(void **state)
{
	const struct rsw_fpm_route *r;
	struct seen s;
	struct mb m;

	(void)state;
	frame_begin(&m);
	/* A delete followed by an add in one frame, as zebra sends a change of next hops. */
	route_begin(&m, RSW_RTM_DELROUTE, 0, 10, 48, RSW_RTPROT_BGP);
	attr_ip6(&m, 1, "fd00:9::");
	msg_end(&m);
	route_begin(&m, RSW_RTM_NEWROUTE, 0, 10, 48, RSW_RTPROT_BGP);
	attr_ip6(&m, 1, "fd00:9::");
	mp_begin(&m);
	mp_nh(&m, "fd00:2::1", 0, 0, 3);
	mp_nh(&m, "fd00:3::1", 2, 0, 4);
	mp_end(&m);
	msg_end(&m);
	/* RFC 8950: an IPv4 route over 169.254.0.1 on-link. */
	route_begin(&m, RSW_RTM_NEWROUTE, 0, 2, 16, RSW_RTPROT_BGP);
	attr_ip4(&m, 1, "10.8.0.0");
	attr_ip4(&m, 5, "169.254.0.1");
	attr32(&m, 4, 9);
	msg_end(&m);
	set32(&m, m.nl + 16 + 8, RSW_RTNH_F_ONLINK);
	/* A message type railsw does not take (RTM_NEWLINK). */
	route_begin(&m, 16, 0, 0, 0, 0);
	msg_end(&m);
	frame_end(&m);
	assert_int_equal(parse(&m, &s), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.m[0].op, RSW_FPM_OP_ROUTE_DEL);
	assert_int_equal(s.m[1].op, RSW_FPM_OP_ROUTE_ADD);
	r = &s.m[1].route;
	assert_int_equal(r->prefix.ip.family, RSW_AF_INET6);
	assert_int_equal(r->n_nh, 2);
	assert_int_equal(r->nh[0].weight, 1);
	assert_int_equal(r->nh[1].weight, 3);
	assert_int_equal(r->nh[1].oif, 4);
	r = &s.m[2].route;
	assert_int_equal(r->n_nh, 1);
	assert_true(r->nh[0].onlink);
	assert_int_equal(r->nh[0].oif, 9);
	assert_int_equal(s.m[3].op, RSW_FPM_OP_IGNORED);
}

static void
test_default_route_and_nhobj(void **state)
{
	struct seen s;
	struct mb m;
	uint8_t grp[16] = {0};
	uint32_t id;

	(void)state;
	frame_begin(&m);
	nh_begin(&m, RSW_RTM_NEWNEXTHOP, 2, 0);
	attr32(&m, 1, 11);
	attr_ip4(&m, 6, "10.0.1.1");
	attr32(&m, 5, 3);
	msg_end(&m);
	nh_begin(&m, RSW_RTM_NEWNEXTHOP, 0, 0);
	attr32(&m, 1, 12);
	id = 11;
	memcpy(grp, &id, 4);
	id = 13;
	memcpy(grp + 8, &id, 4);
	grp[12] = 4;
	attr(&m, 2, grp, sizeof(grp));
	msg_end(&m);
	route_begin(&m, RSW_RTM_NEWROUTE, 0, 2, 0, RSW_RTPROT_OSPF); /* no RTA_DST */
	attr32(&m, 30, 12);
	msg_end(&m);
	frame_end(&m);
	assert_int_equal(parse(&m, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.m[0].op, RSW_FPM_OP_NH_ADD);
	assert_int_equal(s.m[0].nh.id, 11);
	assert_int_equal(s.m[0].nh.oif, 3);
	assert_int_equal(s.m[1].nh.n_group, 2);
	assert_int_equal(s.m[1].nh.group[1].id, 13);
	assert_int_equal(s.m[1].nh.group[1].weight, 5);
	assert_int_equal(s.m[2].route.prefix.len, 0);
	assert_int_equal(s.m[2].route.nh_id, 12);
}

static void
test_source_names(void **state)
{
	char buf[16];
	uint8_t d = 0;

	(void)state;
	assert_string_equal(rsw_fpm_source(RSW_RTPROT_BGP, &d, buf, sizeof(buf)), "bgp");
	assert_int_equal(d, 20);
	assert_string_equal(rsw_fpm_source(RSW_RTPROT_OSPF, &d, buf, sizeof(buf)), "ospf");
	assert_int_equal(d, 110);
	assert_string_equal(rsw_fpm_source(RSW_RTPROT_ZSTATIC, &d, buf, sizeof(buf)), "frr-static");
	assert_int_equal(d, 1);
	assert_string_equal(rsw_fpm_source(77, &d, buf, sizeof(buf)), "proto-77");
	assert_int_equal(d, 254);
}

/* --- the RIB --- */

static struct rsw_fpm_msg
route_msg(enum rsw_fpm_op op, const char *prefix, uint8_t len, const char *gw1, const char *gw2)
{
	struct rsw_fpm_msg m = {.op = op};

	m.route.prefix.ip = ip4(prefix);
	m.route.prefix.len = len;
	m.route.protocol = RSW_RTPROT_BGP;
	m.route.type = RSW_RTN_UNICAST;
	m.route.table = 254;
	if (gw1 != NULL) {
		m.route.nh[m.route.n_nh].gw = ip4(gw1);
		m.route.nh[m.route.n_nh++].weight = 1;
	}
	if (gw2 != NULL) {
		m.route.nh[m.route.n_nh].gw = ip4(gw2);
		m.route.nh[m.route.n_nh++].weight = 2;
	}
	return m;
}

static void
test_rib_bad(void **state)
{
	struct fpm_rib *rib = fpm_rib_new(2);
	struct rsw_fpm_msg m;
	char err[RSW_FPM_ERR_LEN];

	(void)state;
	assert_non_null(rib);
	assert_int_equal(fpm_rib_apply(NULL, NULL, 1, err, sizeof(err)), -EINVAL);
	/* No next hop; another table; a blackhole (deletes the prefix's route). */
	m = route_msg(RSW_FPM_OP_ROUTE_ADD, "10.9.0.0", 16, NULL, NULL);
	assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), -EINVAL);
	m = route_msg(RSW_FPM_OP_ROUTE_ADD, "10.9.0.0", 16, "10.0.1.1", NULL);
	m.route.table = 10;
	assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), -ENOTSUP);
	m.route.table = 254;
	assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), FPM_APPLY_ADDED);
	m.route.type = 6;
	assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), -ENOTSUP);
	assert_non_null(strstr(err, "only unicast"));
	assert_int_equal(fpm_rib_count(rib), 0);
	/* Full. */
	m = route_msg(RSW_FPM_OP_ROUTE_ADD, "10.1.0.0", 16, "10.0.1.1", NULL);
	assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), FPM_APPLY_ADDED);
	m = route_msg(RSW_FPM_OP_ROUTE_ADD, "10.2.0.0", 16, "10.0.1.1", NULL);
	assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), FPM_APPLY_ADDED);
	m = route_msg(RSW_FPM_OP_ROUTE_ADD, "10.3.0.0", 16, "10.0.1.1", NULL);
	assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), -ENOSPC);
	assert_int_equal(fpm_rib_count(rib), 2);
	fpm_rib_free(rib);
	fpm_rib_free(NULL);
}

static void
test_rib_add_replace_delete_stale(void **state)
{
	struct fpm_rib *rib = fpm_rib_new(1024);
	const struct rsw_ctl_route *r;
	struct rsw_fpm_msg m;
	struct rsw_prefix p;
	char err[RSW_FPM_ERR_LEN], pfx[32];
	int i;

	(void)state;
	m = route_msg(RSW_FPM_OP_ROUTE_ADD, "10.9.0.0", 16, "10.0.1.1", "10.0.1.2");
	assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), FPM_APPLY_ADDED);
	p = m.route.prefix;
	r = fpm_rib_find(rib, &p);
	assert_non_null(r);
	assert_string_equal(r->source, "bgp");
	assert_int_equal(r->distance, 20);
	assert_int_equal(r->r.n_nexthops, 2);
	assert_int_equal(r->r.weights[1], 2);
	/* Replace: one next hop now. */
	m = route_msg(RSW_FPM_OP_ROUTE_ADD, "10.9.0.0", 16, "10.0.1.3", NULL);
	assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), FPM_APPLY_ADDED);
	assert_int_equal(fpm_rib_count(rib), 1);
	r = fpm_rib_find(rib, &p);
	assert_int_equal(r->r.n_nexthops, 1);
	assert_memory_equal(r->r.nexthops[0].addr, "\x0a\x00\x01\x03", 4);
	/* Many, then delete from the middle: the rest stay findable. */
	for (i = 0; i < 200; i++) {
		snprintf(pfx, sizeof(pfx), "10.%d.%d.0", 100 + i / 100, i % 100);
		m = route_msg(RSW_FPM_OP_ROUTE_ADD, pfx, 24, "10.0.1.1", NULL);
		assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), FPM_APPLY_ADDED);
	}
	assert_int_equal(fpm_rib_count(rib), 201);
	for (i = 0; i < 200; i += 2) {
		snprintf(pfx, sizeof(pfx), "10.%d.%d.0", 100 + i / 100, i % 100);
		m = route_msg(RSW_FPM_OP_ROUTE_DEL, pfx, 24, NULL, NULL);
		assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), FPM_APPLY_DELETED);
		assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), FPM_APPLY_NONE);
	}
	assert_int_equal(fpm_rib_count(rib), 101);
	for (i = 1; i < 200; i += 2) {
		snprintf(pfx, sizeof(pfx), "10.%d.%d.0", 100 + i / 100, i % 100);
		m = route_msg(RSW_FPM_OP_ROUTE_ADD, pfx, 24, "10.0.1.1", NULL);
		assert_non_null(fpm_rib_find(rib, &m.route.prefix));
	}
	/* The second connection sends 10.9.0.0/16 and 10.100.1.0/24 again; the stale rest goes. */
	m = route_msg(RSW_FPM_OP_ROUTE_ADD, "10.9.0.0", 16, "10.0.1.3", NULL);
	assert_int_equal(fpm_rib_apply(rib, &m, 2, err, sizeof(err)), FPM_APPLY_ADDED);
	m = route_msg(RSW_FPM_OP_ROUTE_ADD, "10.100.1.0", 24, "10.0.1.1", NULL);
	assert_int_equal(fpm_rib_apply(rib, &m, 2, err, sizeof(err)), FPM_APPLY_ADDED);
	assert_int_equal(fpm_rib_drop_stale(rib, 2), 99);
	assert_int_equal(fpm_rib_count(rib), 2);
	assert_non_null(fpm_rib_find(rib, &p));
	assert_non_null(fpm_rib_find(rib, &m.route.prefix));
	fpm_rib_clear(rib);
	assert_int_equal(fpm_rib_count(rib), 0);
	assert_null(fpm_rib_find(rib, &p));
	fpm_rib_free(rib);
}

static void
test_rib_nhobj(void **state)
{
	struct fpm_rib *rib = fpm_rib_new(16);
	const struct rsw_ctl_route *r;
	struct rsw_fpm_msg m = {.op = RSW_FPM_OP_NH_ADD}, rt;
	char err[RSW_FPM_ERR_LEN];

	(void)state;
	/* The route comes before its object: no next hop yet, then resolved. */
	rt = route_msg(RSW_FPM_OP_ROUTE_ADD, "10.9.0.0", 16, NULL, NULL);
	rt.route.nh_id = 30;
	assert_int_equal(fpm_rib_apply(rib, &rt, 1, err, sizeof(err)), FPM_APPLY_ADDED);
	r = fpm_rib_find(rib, &rt.route.prefix);
	assert_int_equal(r->r.n_nexthops, 0);
	m.nh.id = 10;
	m.nh.gw = ip4("10.0.1.1");
	assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), FPM_APPLY_NH);
	m.nh.id = 11;
	m.nh.gw = ip4("10.0.1.2");
	assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), FPM_APPLY_NH);
	memset(&m.nh, 0, sizeof(m.nh));
	m.nh.id = 30;
	m.nh.n_group = 2;
	m.nh.group[0].id = 10;
	m.nh.group[0].weight = 1;
	m.nh.group[1].id = 11;
	m.nh.group[1].weight = 3;
	assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), FPM_APPLY_NH);
	r = fpm_rib_find(rib, &rt.route.prefix);
	assert_int_equal(r->r.n_nexthops, 2);
	assert_int_equal(r->r.weights[1], 3);
	/* A member object deleted: one next hop left. */
	m.op = RSW_FPM_OP_NH_DEL;
	m.nh.id = 10;
	assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), FPM_APPLY_NH);
	assert_int_equal(fpm_rib_apply(rib, &m, 1, err, sizeof(err)), FPM_APPLY_NONE);
	r = fpm_rib_find(rib, &rt.route.prefix);
	assert_int_equal(r->r.n_nexthops, 1);
	assert_memory_equal(r->r.nexthops[0].addr, "\x0a\x00\x01\x02", 4);
	/* Stale objects go with a new session. */
	assert_int_equal(fpm_rib_drop_stale(rib, 2), 1);
	fpm_rib_free(rib);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_header),
		cmocka_unit_test(test_netlink_lengths),
		cmocka_unit_test(test_bad_attributes),
		cmocka_unit_test(test_too_many_nexthops),
		cmocka_unit_test(test_bad_nhobj),
		cmocka_unit_test(test_route_single),
		cmocka_unit_test(test_route_multipath_v6_and_rfc8950),
		cmocka_unit_test(test_default_route_and_nhobj),
		cmocka_unit_test(test_source_names),
		cmocka_unit_test(test_rib_bad),
		cmocka_unit_test(test_rib_add_replace_delete_stale),
		cmocka_unit_test(test_rib_nhobj),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
