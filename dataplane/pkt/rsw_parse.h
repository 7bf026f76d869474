/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Step 2 of the packet path: parse Ethernet, up to two 802.1Q tags, MAC
 * Control, ARP, IPv4, IPv6 and UDP (RoCEv2 BTH on dport 4791, UET on 4793),
 * and decide what happens to the frame. Never reads past the frame's data.
 */

#ifndef RSW_PARSE_H
#define RSW_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "rsw_stats.h"

#define RSW_ETHER_TYPE_MAC_CTRL 0x8808 /* IEEE 802.3 MAC Control (PAUSE, PFC) */
#define RSW_UDP_PORT_ROCEV2     4791
#define RSW_UDP_PORT_UET        4793
#define RSW_BTH_OPCODE_CNP      0x81
#define RSW_BTH_LEN             12

/*
 * Network to host order for the fast path. DPDK 22.11's rte_be_to_cpu_16 on x86 is an xchgb in
 * asm volatile: a partial-register merge the compiler can neither schedule nor fold
 * (docs/perf.md, "Notes moved out of the code"). The builtins compile to rol/bswap/movbe.
 */
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#define rsw_ntohs(x) __builtin_bswap16(x)
#define rsw_ntohl(x) __builtin_bswap32(x)
#define rsw_htons(x) __builtin_bswap16(x)
#else
#define rsw_ntohs(x) ((uint16_t)(x))
#define rsw_ntohl(x) ((uint32_t)(x))
#define rsw_htons(x) ((uint16_t)(x))
#endif

/* What the parser decided. */
enum rsw_pkt_kind {
	RSW_PK_DROP = 0, /* drop; rsw_pkt_info.drop says why */
	RSW_PK_IPV4,     /* route it */
	RSW_PK_IPV6,     /* route it */
	RSW_PK_ARP,      /* punt to the control thread */
	RSW_PK_ND,       /* IPv6 ND multicast for the port: punt */
	RSW_PK_MAC_CTRL, /* PAUSE/PFC: consumed by the port */
	RSW_PK_LLDP,     /* LLDP to 01:80:c2:00:00:0e, with rsw_parse_lldp only: punt */
};

#define RSW_ETHER_TYPE_LLDP 0x88cc

/*
 * Whether LLDP frames (EtherType 0x88cc to 01:80:c2:00:00:0e) are RSW_PK_LLDP rather than
 * dropped as l2_control: set by the control thread before workers start, when the ports have
 * kernel interfaces (control.kernel_interfaces) for lldpd.
 */
extern bool rsw_parse_lldp;

/* Flags of rsw_pkt_info.flags. */
#define RSW_PF_L4    (1u << 0) /* sport/dport valid (first fragment or unfragmented UDP/TCP) */
#define RSW_PF_BTH   (1u << 1) /* RoCEv2: qp valid */
#define RSW_PF_UET   (1u << 2) /* UET: entropy = sport */
#define RSW_PF_CNP   (1u << 3) /* RoCEv2 CNP (BTH opcode 0x81) */
#define RSW_PF_FRAG  (1u << 4) /* IPv4 fragment */
#define RSW_PF_BCAST (1u << 5) /* broadcast destination */

/*
 * Per-packet parse result, kept in a burst-wide array (not in the mbuf).
 * Hot fields first.
 */
struct rsw_pkt_info {
	uint8_t kind;    /* enum rsw_pkt_kind */
	uint8_t drop;    /* enum rsw_port_ctr when kind == RSW_PK_DROP */
	uint8_t flags;   /* RSW_PF_* */
	uint8_t tc;      /* traffic class, set by classify */
	uint16_t l3_off; /* offset of the IP/ARP header from the frame start */
	uint16_t l3_len; /* IPv4 total length / IPv6 40 + payload length */
	uint8_t n_vlan;  /* 802.1Q tags seen (0..2) */
	uint8_t pcp;     /* PCP of the outer tag */
	uint8_t dscp;    /* DSCP of the IP header */
	uint8_t proto;   /* IPv4 protocol / IPv6 next header */
	uint8_t ttl;     /* TTL / hop limit */
	uint8_t pad;
	uint16_t sport; /* host order, when RSW_PF_L4 */
	uint16_t dport; /* host order, when RSW_PF_L4 */
	uint32_t qp;    /* BTH dest QP, when RSW_PF_BTH */
	uint32_t flow;  /* IPv6 flow label */
	uint32_t pad2;  /* 32 bytes: the burst's array is indexed with a shift, not a multiply */
};

/**
 * Whether a 20-byte IPv4 header (no options) sums to 0xffff in one's complement: the 16-bit
 * words' sum is a non-zero multiple of 0xffff (2^16 = 1 mod 0xffff, so wider words and their
 * carries add up to the same remainder). Two 8-byte words and a 4-byte one added with their
 * carries (on x86-64 one add-with-carry chain, the last carry added back, which keeps the sum
 * mod 2^64 - 1, a multiple of 0xffff), and `% 0xffff == 0`, which compilers turn into a
 * multiply and a compare. The header is non-zero (version 4), so the sum is too.
 */
static inline int
rsw_ipv4_cksum_ok20(const void *ip)
{
	const uint8_t *b = (const uint8_t *)ip;
	uint64_t q0, q1;
	uint32_t w4;

	/* Scalar loads straight from the frame: through an array on the stack, the words were
	 * stored wide and reloaded narrow, and stalled. */
	memcpy(&q0, b, 8);
	memcpy(&q1, b + 8, 8);
	memcpy(&w4, b + 16, 4);
#if defined(RTE_ARCH_X86_64)
	{
		uint64_t s = q0, w = w4;

		/* _addcarry_u64 made GCC 12 keep the sum on the stack and divide. */
		__asm__("add %[q1], %[s]\n\tadc %[w], %[s]\n\tadc $0, %[s]"
			: [s] "+r"(s)
			: [q1] "r"(q1), [w] "r"(w)
			: "cc");
		return s % 0xffff == 0;
	}
#else
	{
		uint64_t s;
		unsigned int c;

		c = __builtin_add_overflow(q0, q1, &s);
		c += __builtin_add_overflow(s, (uint64_t)w4, &s);
		s = (s & 0xffffffff) + (s >> 32) + c;
		return s % 0xffff == 0;
	}
#endif
}

/**
 * Whether the IPv4 header ip of m (ihl bytes, 20 or more, all in the frame) is to be taken
 * as correct. The port's word first (RFC 1812 §5.2.2 is then the NIC's): RX_IP_CKSUM_GOOD, or
 * NONE (the header was verified, the checksum field is not to be), passes; BAD fails. Only when
 * the port does not know (UNKNOWN, every vdev) is the checksum computed here.
 */
static __rte_always_inline int
rsw_ipv4_hdr_cksum_ok(const struct rte_mbuf *m, const void *ip, uint32_t ihl)
{
	uint64_t ck = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;

	/* UNKNOWN first: one test and a branch, as the GOOD test alone was. */
	if (ck == RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN)
		/* A valid header sums to 0xffff (its complement, rsw_cksum, is 0). */
		return ihl == sizeof(struct rte_ipv4_hdr) ? rsw_ipv4_cksum_ok20(ip)
							  : rte_raw_cksum(ip, ihl) == 0xffff;
	return ck != RTE_MBUF_F_RX_IP_CKSUM_BAD; /* GOOD, or NONE (GOOD | BAD) */
}

/**
 * Parse one frame received on a port whose MAC is port_mac.
 *
 * @return info->kind; for RSW_PK_DROP, info->drop is the counter to bump
 *   (parse_errors, not_for_us, l2_control, unknown_ethertype).
 */
enum rsw_pkt_kind rsw_parse(const struct rte_mbuf *m, const struct rte_ether_addr *port_mac,
			    struct rsw_pkt_info *info);

/** A port's MAC as the low 48 bits (in memory order) of an 8-byte load: rsw_parse_fast's key. */
static __rte_always_inline uint64_t
rsw_mac48(const struct rte_ether_addr *a)
{
	uint32_t lo;
	uint16_t hi;

	memcpy(&lo, a->addr_bytes, 4);
	memcpy(&hi, a->addr_bytes + 4, 2);
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return (uint64_t)hi << 32 | lo;
#else
	return (uint64_t)lo << 32 | (uint64_t)hi << 16;
#endif
}

/* Whether the first 6 bytes of an 8-byte load from a frame are the MAC of rsw_mac48. */
static __rte_always_inline int
rsw_mac48_eq(uint64_t frame8, uint64_t mac48)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return ((frame8 ^ mac48) << 16) == 0;
#else
	return ((frame8 ^ mac48) >> 16) == 0;
#endif
}

/*
 * Whether a frame's bytes 12-15, loaded as one word, are EtherType 0x0800 and version/IHL 0x45
 * (IPv4 without options): one masked compare.
 */
static __rte_always_inline int
rsw_ipv4_ihl5_word(uint32_t w)
{
	static const uint8_t v4_bytes[4] = {0x08, 0x00, 0x45, 0x00};
	static const uint8_t v4_mask_bytes[4] = {0xff, 0xff, 0xff, 0x00};
	uint32_t v4, v4_mask;

	memcpy(&v4, v4_bytes, 4);
	memcpy(&v4_mask, v4_mask_bytes, 4);
	return (w & v4_mask) == v4;
}

/* Whether UDP header udp gives a length of 8 or more: a bit of 0xfff8 set (network order). */
static __rte_always_inline bool
rsw_udp_len_ok(const struct rte_udp_hdr *udp)
{
	uint16_t dlen;

	memcpy(&dlen, &udp->dgram_len, sizeof(dlen));
	return (dlen & RTE_BE16(0xfff8)) != 0;
}

/*
 * The L4 step of the IP parsers (a fragment, IPv4, has none) for protocol proto: UDP ports,
 * RoCEv2 BTH (dest QP, CNP opcode) on dport 4791, UET (entropy in sport) on 4793; TCP and SCTP
 * ports. Flags go to *flags (|=): info->flags for rsw_parse, a register once inlined in the
 * fast path. @return 0, or -1 for a UDP header or BTH cut short.
 */
static __rte_always_inline int
rsw_parse_l4(const uint8_t *l4, uint32_t avail, uint8_t proto, struct rsw_pkt_info *info,
	     uint8_t *flags)
{
	if (likely(proto == IPPROTO_UDP)) {
		const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)l4;
		uint16_t dport;
		uint32_t w;

		if (unlikely(avail < sizeof(*udp)))
			return -1;
		dport = rsw_ntohs(udp->dst_port);
		info->sport = rsw_ntohs(udp->src_port);
		info->dport = dport;
		*flags |= RSW_PF_L4;
		if (unlikely(!rsw_udp_len_ok(udp)))
			return -1;
		if (dport == RSW_UDP_PORT_ROCEV2) {
			const uint8_t *bth = l4 + sizeof(*udp);

			if (unlikely(avail < sizeof(*udp) + RSW_BTH_LEN))
				return -1;
			memcpy(&w, bth + 4, 4); /* reserved byte, then the 24-bit dest QP */
			info->qp = rsw_ntohl(w) & 0xffffff;
			*flags |= (uint8_t)(RSW_PF_BTH |
					    (bth[0] == RSW_BTH_OPCODE_CNP ? RSW_PF_CNP : 0));
		} else if (dport == RSW_UDP_PORT_UET) {
			*flags |= RSW_PF_UET;
		}
		return 0;
	}
	if ((proto == IPPROTO_TCP || proto == IPPROTO_SCTP) && avail >= 4) {
		info->sport = (uint16_t)(l4[0] << 8 | l4[1]);
		info->dport = (uint16_t)(l4[2] << 8 | l4[3]);
		*flags |= RSW_PF_L4;
	}
	return 0;
}

/*
 * rsw_parse_l4's checks without the record, for the parse step's common case: a UDP header
 * (and, on dport 4791, a BTH) cut short, a UDP length below 8, or a RoCEv2 CNP (classify's
 * rules read its record) fail (false). has8 (a constant): the caller has checked that avail is
 * 8 or more (IPv4: one compare with the total length's lower bound).
 */
static __rte_always_inline bool
rsw_common_l4_ok(const uint8_t *l4, uint32_t avail, uint8_t proto, const bool has8)
{
	const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)l4;

	if (proto != IPPROTO_UDP)
		return true;
	if (!has8 && unlikely(avail < sizeof(*udp)))
		return false;
	if (unlikely(!rsw_udp_len_ok(udp)))
		return false;
	if (udp->dst_port == RTE_BE16(RSW_UDP_PORT_ROCEV2) &&
	    (unlikely(avail < sizeof(*udp) + RSW_BTH_LEN) ||
	     unlikely(l4[sizeof(*udp)] == RSW_BTH_OPCODE_CNP)))
		return false;
	return true;
}

/*
 * The parse step's common case, checked: an untagged IPv4 frame without options (28 bytes of IP
 * or more) or IPv6 frame (its header ip at RTE_ETHER_HDR_LEN, tot bytes of it in the frame, TTL /
 * hop limit above 1),
 * with rsw_common_l4_ok's checks passed (no CNP). The frames of the common case get no parse
 * record in pass 1: the steps after it read what they need from the burst's per-family arrays
 * (struct rsw_fam) or the header, and rsw_parse_fill makes the record of one that needs it.
 */

/**
 * The parse record of a frame whose common case rsw_parse_fast took (the family from its
 * EtherType, the header at RTE_ETHER_HDR_LEN): rsw_parse's, field for field (the fuzzer
 * checks). After the rewrite, the same but for the TTL / hop limit, one less.
 */
static inline void
rsw_parse_fill(const struct rte_mbuf *m, struct rsw_pkt_info *info)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t type;
	uint8_t flags = 0;

	memset(info, 0, sizeof(*info));
	memcpy(&type, p + 12, 2);
	info->l3_off = RTE_ETHER_HDR_LEN;
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		const struct rte_ipv4_hdr *ip =
			(const struct rte_ipv4_hdr *)(p + RTE_ETHER_HDR_LEN);
		uint32_t tot = rsw_ntohs(ip->total_length);

		info->kind = RSW_PK_IPV4;
		info->l3_len = (uint16_t)tot;
		info->dscp = ip->type_of_service >> 2;
		info->proto = ip->next_proto_id;
		info->ttl = ip->time_to_live;
		if (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK))
			flags = RSW_PF_FRAG;
		else
			(void)rsw_parse_l4((const uint8_t *)ip + sizeof(*ip),
					   tot - (uint32_t)sizeof(*ip), ip->next_proto_id, info,
					   &flags);
	} else {
		const struct rte_ipv6_hdr *ip =
			(const struct rte_ipv6_hdr *)(p + RTE_ETHER_HDR_LEN);
		uint32_t vtc = rsw_ntohl(ip->vtc_flow);
		uint32_t tot = sizeof(*ip) + rsw_ntohs(ip->payload_len);

		info->kind = RSW_PK_IPV6;
		info->l3_len = (uint16_t)tot;
		info->dscp = (vtc >> 22) & 0x3f;
		info->flow = vtc & 0xfffff;
		info->proto = ip->proto;
		info->ttl = ip->hop_limits;
		(void)rsw_parse_l4((const uint8_t *)ip + sizeof(*ip), tot - (uint32_t)sizeof(*ip),
				   ip->proto, info, &flags);
	}
	info->flags = flags;
}

/**
 * The parse step's common case (see above) for a frame to the port's MAC (mac48 =
 * rsw_mac48(port_mac)): @return its IP header, *kind its kind (RSW_PK_IPV4 or RSW_PK_IPV6),
 * writing no record; or NULL for any other frame, which is rsw_parse's (and *kind is not set).
 */
static __rte_always_inline const uint8_t *
rsw_parse_common(const struct rte_mbuf *m, uint64_t mac48, enum rsw_pkt_kind *kind)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	uint32_t avail, tot, w;
	uint64_t d8;
	uint16_t type;

	if (unlikely(len < RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr)))
		return NULL;
	memcpy(&d8, p, 8); /* the destination MAC and two bytes of the source */
	memcpy(&w, p + 12, 4);
	if (unlikely(!rsw_mac48_eq(d8, mac48)))
		return NULL;
	avail = len - RTE_ETHER_HDR_LEN;
	if (likely(rsw_ipv4_ihl5_word(w))) {
		const struct rte_ipv4_hdr *ip =
			(const struct rte_ipv4_hdr *)(p + RTE_ETHER_HDR_LEN);

		tot = rsw_ntohs(ip->total_length);
		/* Below 28 bytes (no room for a UDP header) is rare: rsw_parse takes it. */
		if (unlikely(tot < sizeof(*ip) + sizeof(struct rte_udp_hdr) || tot > avail ||
			     ip->time_to_live <= 1))
			return NULL;
		/* rsw_ipv4_hdr_cksum_ok for 20 bytes, in the shape that keeps the check inline
		 * (docs/perf.md, "Notes moved out of the code"). */
		if (!(m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_GOOD) &&
		    unlikely((m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_BAD) ||
			     !rsw_ipv4_cksum_ok20(ip)))
			return NULL;
		if (!(ip->fragment_offset &
		      RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) &&
		    unlikely(!rsw_common_l4_ok((const uint8_t *)ip + sizeof(*ip),
					       tot - (uint32_t)sizeof(*ip), ip->next_proto_id,
					       true)))
			return NULL; /* cut short, or a CNP */
		*kind = RSW_PK_IPV4;
		return (const uint8_t *)ip;
	}
	memcpy(&type, p + 12, 2);
	if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6) && avail >= sizeof(struct rte_ipv6_hdr)) {
		const struct rte_ipv6_hdr *ip =
			(const struct rte_ipv6_hdr *)(p + RTE_ETHER_HDR_LEN);
		uint32_t vtc = rsw_ntohl(ip->vtc_flow);

		tot = sizeof(*ip) + rsw_ntohs(ip->payload_len);
		if (unlikely((vtc >> 28) != 6 || tot > avail || ip->hop_limits <= 1))
			return NULL;
		if (unlikely(!rsw_common_l4_ok((const uint8_t *)ip + sizeof(*ip),
					       tot - (uint32_t)sizeof(*ip), ip->proto, false)))
			return NULL;
		*kind = RSW_PK_IPV6;
		return (const uint8_t *)ip;
	}
	return NULL;
}

/**
 * rsw_parse with its common case inline (rsw_parse_common): for a frame of the common case
 * *l3 is its IP header, the return its kind, and info is not written (rsw_parse_fill makes the
 * record); any other frame, including every frame to be dropped and every CNP, goes to
 * rsw_parse, which fills info (and *l3 is NULL).
 */
static __rte_always_inline enum rsw_pkt_kind
rsw_parse_fast(const struct rte_mbuf *m, uint64_t mac48, const struct rte_ether_addr *port_mac,
	       struct rsw_pkt_info *info, const uint8_t **l3)
{
	enum rsw_pkt_kind kind;

	*l3 = rsw_parse_common(m, mac48, &kind);
	if (likely(*l3 != NULL))
		return kind;
	return rsw_parse(m, port_mac, info);
}

/**
 * rsw_parse_fast with the port's MAC loaded here and the record of a common-case frame made
 * (rsw_parse_fill): rsw_parse's result and record (tests, the fuzzer).
 */
static __rte_always_inline enum rsw_pkt_kind
rsw_parse_inline(const struct rte_mbuf *m, const struct rte_ether_addr *port_mac,
		 struct rsw_pkt_info *info)
{
	const uint8_t *l3;
	enum rsw_pkt_kind k = rsw_parse_fast(m, rsw_mac48(port_mac), port_mac, info, &l3);

	if (l3 != NULL)
		rsw_parse_fill(m, info);
	return k;
}

/** RFC 1071 Internet checksum of a buffer (the returned value is ready to store). */
uint16_t rsw_cksum(const void *buf, size_t len);

/**
 * RFC 1624 eqn. 3 incremental update of a stored checksum when a 16-bit word of
 * the covered data changes from old to new (all in network order).
 */
static inline uint16_t
rsw_cksum_update16(uint16_t cksum, uint16_t old, uint16_t new_)
{
	uint32_t sum = (uint16_t)~cksum + (uint16_t)~old + (uint32_t)new_;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

#endif /* RSW_PARSE_H */
