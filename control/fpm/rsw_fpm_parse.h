/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The FPM parser (fpm_parse.c): FRR zebra's dplane_fpm_nl stream, a 4-byte FPM header
 * (FRR fpm/fpm.h: version 1, type 1 = netlink, total length in network order) in front of
 * one or more rtnetlink messages (RTM_NEWROUTE, RTM_DELROUTE, RTM_NEWNEXTHOP,
 * RTM_DELNEXTHOP). It works on plain buffers: no socket, no DPDK, no allocation, so the
 * unit tests and the fuzzer drive it byte by byte. Every length is checked against the
 * buffer before it is read.
 *
 * Thread-safety: the functions keep no state; any thread may call them.
 */

#ifndef RSW_FPM_PARSE_H
#define RSW_FPM_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rsw_config.h"

#define RSW_FPM_HDR_LEN      4     /* version, type, length (2 bytes, network order) */
#define RSW_FPM_VERSION      1     /* FPM_PROTO_VERSION */
#define RSW_FPM_TYPE_NETLINK 1     /* FPM_MSG_TYPE_NETLINK */
#define RSW_FPM_MAX_FRAME    65535 /* the length field's limit, header included */
#define RSW_FPM_MAX_NH       RSW_MAX_NEXTHOPS
#define RSW_FPM_MAX_GROUP    RSW_MAX_NEXTHOPS /* members of a next-hop object group */
#define RSW_FPM_ERR_LEN      128

/* rtnetlink message types and attributes (linux/rtnetlink.h, linux/nexthop.h). */
#define RSW_RTM_NEWROUTE   24
#define RSW_RTM_DELROUTE   25
#define RSW_RTM_NEWNEXTHOP 104
#define RSW_RTM_DELNEXTHOP 105
#define RSW_NLM_F_REPLACE  0x100
#define RSW_RTNH_F_ONLINK  4
#define RSW_RTN_UNICAST    1

/* Routing protocols (rtm_protocol), as the kernel and FRR (zebra/rt_netlink.h) number them. */
#define RSW_RTPROT_KERNEL  2
#define RSW_RTPROT_STATIC  4
#define RSW_RTPROT_BGP     186
#define RSW_RTPROT_ISIS    187
#define RSW_RTPROT_OSPF    188
#define RSW_RTPROT_RIP     189
#define RSW_RTPROT_ZSTATIC 196

/* What one rtnetlink message is. */
enum rsw_fpm_op {
	RSW_FPM_OP_IGNORED = 0, /* a message type railsw does not take (counted, skipped) */
	RSW_FPM_OP_ROUTE_ADD,   /* RTM_NEWROUTE */
	RSW_FPM_OP_ROUTE_DEL,   /* RTM_DELROUTE */
	RSW_FPM_OP_NH_ADD,      /* RTM_NEWNEXTHOP */
	RSW_FPM_OP_NH_DEL,      /* RTM_DELNEXTHOP */
};

/* One next hop of a route: RTA_GATEWAY/RTA_VIA/RTA_OIF, or an RTA_MULTIPATH entry. */
struct rsw_fpm_nh {
	struct rsw_ip gw; /* family 0: no gateway (an interface route) */
	uint32_t oif;     /* kernel ifindex, 0 = none */
	uint32_t weight;  /* rtnh_hops + 1; 1 for a single path */
	bool onlink;      /* RTNH_F_ONLINK (RFC 8950: 169.254.0.1 on an interface) */
};

/* RTM_NEWROUTE / RTM_DELROUTE. */
struct rsw_fpm_route {
	struct rsw_prefix prefix; /* masked */
	uint8_t protocol;         /* rtm_protocol */
	uint8_t type;             /* rtm_type: RTN_UNICAST, RTN_BLACKHOLE, ... */
	bool replace;             /* NLM_F_REPLACE */
	uint32_t table;           /* RTA_TABLE, else rtm_table */
	uint32_t priority;        /* RTA_PRIORITY: the route's metric (not its distance) */
	uint32_t nh_id;           /* RTA_NH_ID: a next-hop object; 0 = inline next hops */
	uint16_t n_nh;            /* entries of nh */
	struct rsw_fpm_nh nh[RSW_FPM_MAX_NH];
};

/* RTM_NEWNEXTHOP / RTM_DELNEXTHOP. */
struct rsw_fpm_nhobj {
	uint32_t id;      /* NHA_ID, never 0 */
	uint8_t family;   /* nh_family (AF_INET, AF_INET6; AF_UNSPEC for groups) */
	struct rsw_ip gw; /* NHA_GATEWAY; family 0 = none */
	uint32_t oif;     /* NHA_OIF */
	bool onlink;      /* nh_flags RTNH_F_ONLINK */
	bool blackhole;   /* NHA_BLACKHOLE */
	uint16_t n_group; /* NHA_GROUP entries; 0 = a single next hop */
	struct {
		uint32_t id;     /* a next-hop object */
		uint32_t weight; /* nexthop_grp.weight + 1 */
	} group[RSW_FPM_MAX_GROUP];
};

/* One parsed rtnetlink message. */
struct rsw_fpm_msg {
	enum rsw_fpm_op op;
	uint16_t nl_type; /* nlmsg_type */
	union {
		struct rsw_fpm_route route;
		struct rsw_fpm_nhobj nh;
	};
};

/**
 * Check the FPM header at the front of buf.
 * @param buf, len  What has been received so far.
 * @param frame_len  Receives the frame's length, header included, when the header is good.
 * @return 0 (a good header: *frame_len bytes make the frame, maybe not all received yet),
 *   -EAGAIN (fewer than RSW_FPM_HDR_LEN bytes), -EPROTO (unknown version or message type),
 *   -EMSGSIZE (a length shorter than the header). Any error but -EAGAIN loses the stream.
 */
int rsw_fpm_frame_check(const uint8_t *buf, size_t len, size_t *frame_len);

/**
 * Parse one rtnetlink message at the front of buf.
 * @param buf, len  The message and what follows it in its frame.
 * @param m  Receives the message; m->op RSW_FPM_OP_IGNORED for a type railsw does not take.
 * @param msg_len  Receives the aligned length of the message (the offset of the next one).
 * @param err  Receives a reason on error (RSW_FPM_ERR_LEN is enough).
 * @return 0, -EMSGSIZE (nlmsg_len shorter than a header or longer than buf), -EINVAL (a bad
 *   attribute or family, a prefix longer than its family, too many next hops). On -EINVAL
 *   *msg_len is still set: the next message can be read.
 */
int rsw_fpm_parse_nlmsg(const uint8_t *buf, size_t len, struct rsw_fpm_msg *m, size_t *msg_len,
			char *err, size_t errlen);

/** Called for each message of a frame that parsed. @return 0 to go on, else stop. */
typedef int (*rsw_fpm_msg_cb)(const struct rsw_fpm_msg *m, void *arg);

/** Called for each message of a frame that did not parse (err says why). */
typedef void (*rsw_fpm_err_cb)(const char *err, void *arg);

/**
 * Parse every rtnetlink message of one whole frame (header included, as
 * rsw_fpm_frame_check measured it) and call cb for each good one and ecb (may be NULL) for
 * each bad one. A message that cannot be delimited ends the frame.
 * @return the number of messages that did not parse (0 = all good), or -EINVAL (frame_len
 *   does not match the header, or the frame is not one rsw_fpm_frame_check accepts).
 */
int rsw_fpm_parse_frame(const uint8_t *frame, size_t frame_len, rsw_fpm_msg_cb cb,
			rsw_fpm_err_cb ecb, void *arg);

/**
 * The route source zebra's rtm_protocol names ("bgp", "ospf", "isis", "frr-static", ...;
 * "proto-N" for another number, written into buf) and its administrative distance as FRR's
 * defaults have it: eBGP 20 (FPM does not carry the distance, and RTA_PRIORITY is the
 * metric; an iBGP route gets 20 too), OSPF 110, IS-IS 115, RIP 120, EIGRP 90, zebra's static
 * routes 1, kernel 0, other protocols 254.
 * @param buf  At least 16 bytes, for "proto-N".
 */
const char *rsw_fpm_source(uint8_t protocol, uint8_t *distance, char *buf, size_t len);

#endif /* RSW_FPM_PARSE_H */
