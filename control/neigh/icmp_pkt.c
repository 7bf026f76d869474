/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Builders and validators of the packets the control thread sends and receives for
 * neighbour discovery and ICMP (docs/routing.md), on plain buffers: nd.c and icmp.c wrap them
 * in mbufs, and control/test/test_nd_icmp.c checks them without EAL.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "rsw_icmp_pkt.h"

#define TOKEN_U 1000000ull /* millionths in a token */

uint32_t
rsw_csum_add(uint32_t sum, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		sum += (uint32_t)p[i] << 8 | p[i + 1];
		sum = (sum & 0xffff) + (sum >> 16);
	}
	if (len & 1) {
		sum += (uint32_t)p[len - 1] << 8;
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return sum;
}

uint16_t
rsw_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

uint16_t
rsw_icmp6_cksum(const uint8_t *src, const uint8_t *dst, const void *icmp, size_t len)
{
	uint8_t tail[8] = {0};
	uint32_t sum;

	/* RFC 8200 §8.1: source, destination, upper-layer length (32 bits), zeros, next header. */
	tail[0] = (uint8_t)(len >> 24);
	tail[1] = (uint8_t)(len >> 16);
	tail[2] = (uint8_t)(len >> 8);
	tail[3] = (uint8_t)len;
	tail[7] = RSW_IPPROTO_ICMPV6;
	sum = rsw_csum_add(0, src, 16);
	sum = rsw_csum_add(sum, dst, 16);
	sum = rsw_csum_add(sum, tail, sizeof(tail));
	return rsw_csum_fold(rsw_csum_add(sum, icmp, len));
}

void
rsw_nd_solicited_node(const uint8_t *ip, uint8_t *group)
{
	static const uint8_t prefix[13] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff};

	memcpy(group, prefix, sizeof(prefix));
	memcpy(group + 13, ip + 13, 3);
}

bool
rsw_nd_is_solicited_node(const uint8_t *ip, const uint8_t *target)
{
	uint8_t group[16];

	rsw_nd_solicited_node(target, group);
	return memcmp(ip, group, 16) == 0;
}

void
rsw_ip6_mcast_mac(const uint8_t *group, uint8_t *mac)
{
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, group + 12, 4);
}

static bool
ip6_is_unspec(const uint8_t *a)
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

static bool
ip6_is_loopback(const uint8_t *a)
{
	static const uint8_t lo[16] = {[15] = 1};

	return memcmp(a, lo, 16) == 0;
}

int
rsw_nd_parse(const uint8_t *ip6, size_t len, struct rsw_nd_msg *msg)
{
	const uint8_t *icmp = ip6 + RSW_IP6_HDR_LEN;
	size_t plen, off;

	memset(msg, 0, sizeof(*msg));
	if (ip6 == NULL || len < RSW_IP6_HDR_LEN || (ip6[0] >> 4) != 6)
		return -EINVAL;
	plen = (size_t)ip6[4] << 8 | ip6[5];
	if (RSW_IP6_HDR_LEN + plen > len || ip6[6] != RSW_IPPROTO_ICMPV6)
		return -EINVAL;
	/* RFC 4861 §7.1: hop limit 255 (not forwarded), length, code, checksum. */
	if (ip6[7] != 255 || plen < RSW_ND_MIN_LEN)
		return -EINVAL;
	if ((icmp[0] != RSW_ND_NS && icmp[0] != RSW_ND_NA) || icmp[1] != 0)
		return -EINVAL;
	msg->src = ip6 + 8;
	msg->dst = ip6 + 24;
	if (rsw_icmp6_cksum(msg->src, msg->dst, icmp, plen) != 0)
		return -EINVAL;
	msg->type = icmp[0];
	msg->target = icmp + 8;
	if (msg->target[0] == 0xff)
		return -EINVAL;
	msg->src_unspec = ip6_is_unspec(msg->src);
	msg->dst_mcast = msg->dst[0] == 0xff;
	if (msg->type == RSW_ND_NA) {
		msg->flags = icmp[4] & (RSW_ND_NA_R | RSW_ND_NA_S | RSW_ND_NA_O);
		if (msg->dst_mcast && (msg->flags & RSW_ND_NA_S))
			return -EINVAL;
		if (msg->src_unspec)
			return -EINVAL; /* RFC 4861 §4.4: the source is an address of the sender */
	} else if (msg->src_unspec && !rsw_nd_is_solicited_node(msg->dst, msg->target)) {
		return -EINVAL;
	}

	/* Options: type, length in units of 8 bytes; length 0 is malformed (RFC 4861 §4.6). */
	for (off = RSW_ND_MIN_LEN; off < plen;) {
		const uint8_t *opt = icmp + off;
		size_t olen;

		if (plen - off < 2 || opt[1] == 0)
			return -EINVAL;
		olen = (size_t)opt[1] * 8;
		if (olen > plen - off)
			return -EINVAL;
		if (opt[1] == 1 && ((msg->type == RSW_ND_NS && opt[0] == RSW_ND_OPT_SLLA) ||
				    (msg->type == RSW_ND_NA && opt[0] == RSW_ND_OPT_TLLA)))
			msg->lladdr = opt + 2;
		off += olen;
	}
	if (msg->type == RSW_ND_NS && msg->src_unspec && msg->lladdr != NULL)
		return -EINVAL;
	return 0;
}

static void
ip6_header(uint8_t *out, uint16_t plen, uint8_t hlim, const uint8_t *src, const uint8_t *dst)
{
	out[0] = 0x60;
	out[1] = out[2] = out[3] = 0;
	out[4] = (uint8_t)(plen >> 8);
	out[5] = (uint8_t)plen;
	out[6] = RSW_IPPROTO_ICMPV6;
	out[7] = hlim;
	memcpy(out + 8, src, 16);
	memcpy(out + 24, dst, 16);
}

int
rsw_nd_build(uint8_t *out, size_t cap, uint8_t type, const uint8_t *src, const uint8_t *dst,
	     const uint8_t *target, uint8_t flags, const uint8_t *mac)
{
	uint8_t *icmp = out + RSW_IP6_HDR_LEN;
	uint16_t ck;

	if (type != RSW_ND_NS && type != RSW_ND_NA)
		return -EINVAL;
	if (cap < RSW_IP6_HDR_LEN + RSW_ND_LEN)
		return -ENOSPC;
	ip6_header(out, RSW_ND_LEN, 255, src, dst);
	memset(icmp, 0, RSW_ND_LEN);
	icmp[0] = type;
	icmp[4] = type == RSW_ND_NA ? flags : 0;
	memcpy(icmp + 8, target, 16);
	icmp[24] = type == RSW_ND_NS ? RSW_ND_OPT_SLLA : RSW_ND_OPT_TLLA;
	icmp[25] = 1;
	memcpy(icmp + 26, mac, 6);
	ck = rsw_icmp6_cksum(src, dst, icmp, RSW_ND_LEN);
	memcpy(icmp + 2, &ck, 2);
	return RSW_IP6_HDR_LEN + RSW_ND_LEN;
}

/* ICMP types that are not error messages (RFC 792, RFC 950, RFC 1256). */
static bool
icmp4_is_info(uint8_t type)
{
	switch (type) {
	case 0:  /* echo reply */
	case 8:  /* echo request */
	case 9:  /* router advertisement */
	case 10: /* router solicitation */
	case 13: /* timestamp */
	case 14: /* timestamp reply */
	case 15: /* information request */
	case 16: /* information reply */
	case 17: /* address mask request */
	case 18: /* address mask reply */
		return true;
	default:
		return false;
	}
}

static bool
ip4_bad_source(const uint8_t *a)
{
	return (a[0] == 0 && a[1] == 0 && a[2] == 0 && a[3] == 0) || a[0] == 127 || a[0] >= 224;
}

bool
rsw_icmp4_error_allowed(const uint8_t *ip, size_t len)
{
	size_t ihl;
	uint16_t frag;

	if (ip == NULL || len < RSW_IP4_HDR_LEN || (ip[0] >> 4) != 4)
		return false;
	ihl = (size_t)(ip[0] & 0xf) * 4;
	if (ihl < RSW_IP4_HDR_LEN || ihl > len)
		return false;
	frag = (uint16_t)((ip[6] & 0x1f) << 8 | ip[7]);
	if (frag != 0)
		return false; /* not the first fragment */
	if (ip4_bad_source(ip + 12))
		return false;
	if (ip[16] >= 224) /* multicast, class E and 255.255.255.255 */
		return false;
	if (ip[9] == RSW_IPPROTO_ICMP && (len < ihl + 1 || !icmp4_is_info(ip[ihl])))
		return false;
	return true;
}

bool
rsw_icmp6_error_allowed(const uint8_t *ip6, size_t len)
{
	if (ip6 == NULL || len < RSW_IP6_HDR_LEN || (ip6[0] >> 4) != 6)
		return false;
	if (ip6[8] == 0xff || ip6_is_unspec(ip6 + 8) || ip6_is_loopback(ip6 + 8))
		return false;
	if (ip6[24] == 0xff)
		return false;
	if (ip6[6] == RSW_IPPROTO_ICMPV6 &&
	    (len < RSW_IP6_HDR_LEN + 1 || ip6[RSW_IP6_HDR_LEN] < RSW_ICMP6_ECHO_REQUEST))
		return false;
	return true;
}

int
rsw_icmp4_error_build(uint8_t *out, size_t cap, const uint8_t *orig, size_t orig_len, uint8_t type,
		      uint8_t code, uint16_t mtu, const uint8_t *src, size_t max_len)
{
	const size_t hdrs = RSW_IP4_HDR_LEN + RSW_ICMP_HDR_LEN;
	uint8_t *icmp = out + RSW_IP4_HDR_LEN;
	size_t ihl, quote, tot;
	uint16_t ck;

	if (orig == NULL || orig_len < RSW_IP4_HDR_LEN || (orig[0] >> 4) != 4)
		return -EINVAL;
	ihl = (size_t)(orig[0] & 0xf) * 4;
	if (ihl < RSW_IP4_HDR_LEN || ihl > orig_len)
		return -EINVAL;
	/* As much as fits in max_len, at least the IP header and 8 bytes of data. */
	quote = max_len > hdrs ? max_len - hdrs : 0;
	if (quote < ihl + 8)
		quote = ihl + 8;
	if (quote > orig_len)
		quote = orig_len;
	tot = hdrs + quote;
	if (cap < tot)
		return -ENOSPC;

	memmove(icmp + RSW_ICMP_HDR_LEN, orig, quote);
	out[0] = 0x45;
	out[1] = 0xc0; /* precedence 6, internetwork control */
	out[2] = (uint8_t)(tot >> 8);
	out[3] = (uint8_t)tot;
	memset(out + 4, 0, 4); /* id 0, no fragmentation flags */
	out[8] = 64;
	out[9] = RSW_IPPROTO_ICMP;
	out[10] = out[11] = 0;
	memcpy(out + 12, src, 4);
	memcpy(out + 16, icmp + RSW_ICMP_HDR_LEN + 12, 4); /* to the offending packet's source */
	ck = rsw_csum_fold(rsw_csum_add(0, out, RSW_IP4_HDR_LEN));
	memcpy(out + 10, &ck, 2);

	icmp[0] = type;
	icmp[1] = code;
	icmp[2] = icmp[3] = 0;
	icmp[4] = icmp[5] = 0;
	icmp[6] = (uint8_t)(mtu >> 8); /* RFC 1191 §4: next-hop MTU in the low 16 bits */
	icmp[7] = (uint8_t)mtu;
	ck = rsw_csum_fold(rsw_csum_add(0, icmp, tot - RSW_IP4_HDR_LEN));
	memcpy(icmp + 2, &ck, 2);
	return (int)tot;
}

int
rsw_icmp6_error_build(uint8_t *out, size_t cap, const uint8_t *orig, size_t orig_len, uint8_t type,
		      uint8_t code, uint32_t param, const uint8_t *src, size_t max_len)
{
	const size_t hdrs = RSW_IP6_HDR_LEN + RSW_ICMP_HDR_LEN;
	uint8_t *icmp = out + RSW_IP6_HDR_LEN;
	uint8_t dst[16];
	size_t quote, tot;
	uint16_t ck;

	if (orig == NULL || orig_len < RSW_IP6_HDR_LEN || (orig[0] >> 4) != 6)
		return -EINVAL;
	quote = max_len > hdrs ? max_len - hdrs : 0;
	if (quote < RSW_IP6_HDR_LEN)
		quote = RSW_IP6_HDR_LEN;
	if (quote > orig_len)
		quote = orig_len;
	tot = hdrs + quote;
	if (cap < tot)
		return -ENOSPC;

	memcpy(dst, orig + 8, 16);
	memmove(icmp + RSW_ICMP_HDR_LEN, orig, quote);
	ip6_header(out, (uint16_t)(tot - RSW_IP6_HDR_LEN), 64, src, dst);
	icmp[0] = type;
	icmp[1] = code;
	icmp[2] = icmp[3] = 0;
	icmp[4] = (uint8_t)(param >> 24);
	icmp[5] = (uint8_t)(param >> 16);
	icmp[6] = (uint8_t)(param >> 8);
	icmp[7] = (uint8_t)param;
	ck = rsw_icmp6_cksum(src, dst, icmp, tot - RSW_IP6_HDR_LEN);
	memcpy(icmp + 2, &ck, 2);
	return (int)tot;
}

void
rsw_icmp_rl_init(struct rsw_icmp_rl *rl, uint32_t rate, uint32_t burst, uint64_t now_us)
{
	rl->rate = rate;
	rl->burst = burst ? burst : 1;
	rl->tokens_u = (uint64_t)rl->burst * TOKEN_U;
	rl->last_us = now_us;
}

bool
rsw_icmp_rl_take(struct rsw_icmp_rl *rl, uint64_t now_us)
{
	const uint64_t cap = (uint64_t)rl->burst * TOKEN_U;
	uint64_t elapsed = now_us > rl->last_us ? now_us - rl->last_us : 0;

	/* One microsecond at rate tokens per second adds rate millionths of a token. */
	if (rl->rate == 0 || elapsed >= cap / rl->rate)
		rl->tokens_u = rl->rate ? cap : rl->tokens_u;
	else if (rl->tokens_u + elapsed * rl->rate > cap)
		rl->tokens_u = cap;
	else
		rl->tokens_u += elapsed * rl->rate;
	rl->last_us = now_us;
	if (rl->tokens_u < TOKEN_U)
		return false;
	rl->tokens_u -= TOKEN_U;
	return true;
}
