/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `lookup DST ...` (docs/cli.md): what the workers would do now with a frame of the given
 * 5-tuple, DSCP and RoCEv2 dest QP, answered from the live tables (rsw_fib_main.tables) with
 * the dataplane's own functions: the FIB lookup, classify, the flow hash of the header
 * (rsw_lb_hash_fast4 / _hdr4 / _hdr6 under rsw_lb_sel_init, as rsw_lb_hash_burst), the live
 * members and rsw_lb_pick_live, the adjacency and neighbour lookups. The route's prefix,
 * source and distance come from the control side's route list (the longest active prefix
 * holding DST). Control thread: the tables cannot be freed under it.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_udp.h>

#include "rsw_classify.h"
#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_fib.h"
#include "rsw_lb.h"
#include "rsw_lookup.h"
#include "rsw_module.h"
#include "rsw_neigh.h"
#include "rsw_stats.h"
#include "rsw_tables_ctl.h"
#include "rsw_worker.h"

/* The route a lookup matched, as `show routes` names it. */
struct lookup_route {
	struct rsw_prefix prefix;
	const char *source;
	int distance;
};

static void
consider(struct lookup_route *best, const struct rsw_prefix *p, const struct rsw_ip *dst,
	 const char *source, int distance)
{
	struct rsw_prefix net = *p;
	int i, full = p->ip.family == RSW_AF_INET ? 32 : 128;

	if (p->ip.family != dst->family || !rsw_prefix_contains(p, dst))
		return;
	if (best->source != NULL && best->prefix.len >= p->len)
		return;
	for (i = net.len; i < full; i++)
		net.ip.addr[i / 8] &= (uint8_t) ~(0x80 >> (i % 8));
	best->prefix = net;
	best->source = source;
	best->distance = distance;
}

/* The longest active route holding dst: connected, local, configured or FPM. */
static bool
find_route(const struct rsw_config *cfg, const struct rsw_ip *dst, struct lookup_route *best)
{
	struct rsw_prefix host;
	uint32_t i, n;
	uint16_t p;

	memset(best, 0, sizeof(*best));
	for (p = 0; p < cfg->n_ports; p++) {
		const struct rsw_prefix *a[2] = {
			cfg->ports[p].has_ipv4 ? &cfg->ports[p].ipv4 : NULL,
			cfg->ports[p].has_ipv6 ? &cfg->ports[p].ipv6 : NULL,
		};

		for (i = 0; i < 2; i++) {
			if (a[i] == NULL)
				continue;
			consider(best, a[i], dst, "connected", RSW_DISTANCE_CONNECTED);
			host = *a[i];
			host.len = host.ip.family == RSW_AF_INET ? 32 : 128;
			consider(best, &host, dst, "local", RSW_DISTANCE_CONNECTED);
		}
	}
	for (i = 0; i < cfg->n_routes; i++)
		if (rsw_ctl_cfg_route_active(cfg, i))
			consider(best, &cfg->routes[i].prefix, dst,
				 cfg->routes[i].derived ? "topology" : "static",
				 rsw_ctl_cfg_route_distance(&cfg->routes[i]));
	n = rsw_ctl_tables_source_count();
	for (i = 0; i < n; i++) {
		const struct rsw_ctl_route *sr = rsw_ctl_tables_source_get(i);

		if (sr->active)
			consider(best, &sr->r.prefix, dst, sr->source, sr->distance);
	}
	return best->source != NULL;
}

/*
 * The flow hash of the frame, from a header built as the frame would carry it (IPv4 or IPv6,
 * then UDP with a BTH on the RoCEv2 port, or TCP's ports), by the workers' functions.
 */
static uint32_t
flow_hash(const struct rsw_tables *t, const struct rsw_lookup_req *q)
{
	union {
		struct rte_ipv4_hdr v4;
		struct rte_ipv6_hdr v6;
	} ip = {0};
	uint8_t frame[sizeof(struct rte_ipv6_hdr) + sizeof(struct rte_udp_hdr) + 12] = {0};
	uint16_t ports[2] = {htons(q->sport), htons(q->dport)};
	uint32_t qp = htonl(q->qp & 0xffffff), l4_len = sizeof(struct rte_udp_hdr) + 12;
	size_t l3_len = q->dst.family == RSW_AF_INET ? sizeof(ip.v4) : sizeof(ip.v6);
	uint8_t *l4 = frame + l3_len;
	struct rsw_lb_sel s;

	if (q->dst.family == RSW_AF_INET) {
		ip.v4.version_ihl = RTE_IPV4_VHL_DEF;
		ip.v4.type_of_service = (uint8_t)(q->dscp << 2);
		ip.v4.total_length = htons((uint16_t)(sizeof(ip.v4) + l4_len));
		ip.v4.time_to_live = 64;
		ip.v4.next_proto_id = q->proto;
		memcpy(&ip.v4.src_addr, q->src.addr, 4);
		memcpy(&ip.v4.dst_addr, q->dst.addr, 4);
	} else {
		ip.v6.vtc_flow = htonl(6u << 28 | (uint32_t)q->dscp << 22);
		ip.v6.payload_len = htons((uint16_t)l4_len);
		ip.v6.proto = q->proto;
		ip.v6.hop_limits = 64;
		memcpy(ip.v6.src_addr, q->src.addr, 16);
		memcpy(ip.v6.dst_addr, q->dst.addr, 16);
	}
	memcpy(frame, &ip, l3_len);
	if (q->proto == IPPROTO_UDP || q->proto == IPPROTO_TCP || q->proto == IPPROTO_SCTP)
		memcpy(l4, ports, sizeof(ports));
	if (q->proto == IPPROTO_UDP)
		memcpy(l4 + sizeof(struct rte_udp_hdr) + 4, &qp, 4); /* BTH: reserved, dest QP */
	rsw_lb_sel_init(&s, t);
	if (q->dst.family == RSW_AF_INET)
		return s.fast4 ? rsw_lb_hash_fast4(&s, (const struct rte_ipv4_hdr *)frame)
			       : rsw_lb_hash_hdr4(&s, (const struct rte_ipv4_hdr *)frame);
	return rsw_lb_hash_hdr6(&s, (const struct rte_ipv6_hdr *)frame);
}

/*
 * The neighbour entry neigh (RSW_NEIGH_NONE: none) for ip on port p, with its state as `show
 * neighbors` gives it ("none" without an entry); valid: the workers see its MAC, macbuf.
 */
static json_t *
neighbor_json(uint32_t neigh, const struct rsw_ip *ip, uint16_t p, bool *valid,
	      char macbuf[RSW_MAC_STR_LEN])
{
	const char *pname = rsw_ctl.cfg->ports[p].name, *state = "none", *mac = "";
	json_t *all = rsw_ctl_neigh_json(), *arr, *e;
	char buf[64];
	uint64_t mv =
		neigh == RSW_NEIGH_NONE
			? 0
			: __atomic_load_n(&rsw_fib_main.neigh[neigh].mac_valid, __ATOMIC_ACQUIRE);
	json_t *o;
	size_t i;

	*valid = (mv & RSW_NEIGH_VALID) != 0;
	rsw_ip_str(ip, buf, sizeof(buf));
	arr = json_object_get(all, "neighbors");
	json_array_foreach(arr, i, e)
	{
		if (strcmp(json_string_value(json_object_get(e, "ip")), buf) == 0 &&
		    strcmp(json_string_value(json_object_get(e, "port")), pname) == 0) {
			state = json_string_value(json_object_get(e, "state"));
			mac = json_string_value(json_object_get(e, "mac"));
			break;
		}
	}
	if (*valid) {
		uint8_t m[6];

		memcpy(m, &mv, 6);
		rsw_mac_str(m, macbuf);
		mac = macbuf;
	}
	o = json_pack("{s:s, s:s?, s:s}", "ip", buf, "mac", mac[0] != '\0' ? mac : NULL, "state",
		      state);
	json_decref(all);
	return o;
}

/* The answer being built. */
struct lookup_out {
	const char *action;
	const char *reason; /* NULL: none */
	int port;           /* egress port, -1: none */
	json_t *o;          /* the "lookup" object */
};

static void
set_action(struct lookup_out *r, const char *action, const char *reason)
{
	r->action = action;
	r->reason = reason;
}

/* A group result: its members, the one the flow hashes to, its neighbour and port. */
static void
lookup_group(const struct rsw_tables *t, uint32_t gid, uint8_t tc, const struct rsw_lookup_req *q,
	     struct lookup_out *r)
{
	const struct rsw_group *g = &t->groups[gid];
	const struct rsw_config *cfg = rsw_ctl.cfg;
	uint16_t live = rsw_lb_live(g, gid);
	int mode = rsw_lb_mode_for_tc(t, g->lb_mode, tc);
	json_t *members = json_array();
	const struct rsw_nexthop *nh;
	struct rsw_ip ip;
	char buf[64], mac[RSW_MAC_STR_LEN];
	uint32_t j, mi, h;
	bool valid;
	json_t *m;

	for (j = 0; j < g->n_members; j++) {
		if (rsw_ctl_group_nexthop(t, gid, j, &ip) != 0)
			memset(&ip, 0, sizeof(ip));
		json_array_append_new(members, json_pack("{s:s, s:s, s:b}", "nexthop",
							 rsw_ip_str(&ip, buf, sizeof(buf)), "port",
							 cfg->ports[t->nh[g->members[j]].port].name,
							 "up", (live >> j) & 1));
	}
	json_object_set_new(r->o, "group",
			    json_pack("{s:i, s:s, s:o}", "id", (int)gid, "mode",
				      rsw_lb_mode_name(mode), "members", members));
	if (live == 0) {
		set_action(r, "drop", rsw_port_ctr_name(RSW_PC_group_empty));
		return;
	}
	if (g->n_members == 1) {
		mi = 0;
	} else if (mode == RSW_LB_HASH) {
		h = flow_hash(t, q);
		json_object_set_new(r->o, "hash", json_integer(h));
		mi = rsw_lb_pick_live(g, live, h);
	} else if (mode == RSW_LB_SPRAY && !t->spray_random && rsw_ctl.n_workers == 1 &&
		   rsw_stats[rsw_ctl.workers[0].lcore] != NULL) {
		/* Round-robin with one worker: the member its next frame takes (a copy of its
		 * position, which only it moves). */
		uint32_t pos = __atomic_load_n(
			&rsw_stats[rsw_ctl.workers[0].lcore]->lb_state.rr[gid], __ATOMIC_RELAXED);

		mi = rsw_lb_spray_rr(g, live, &pos);
	} else {
		/* Per-frame modes: the choice is a worker's own state (or the queues' now). */
		set_action(r, "forward",
			   mode == RSW_LB_SPRAY
				   ? (t->spray_random ? "spray: a random member per frame"
						      : "spray: the next member of the receiving "
							"worker's round-robin (one per worker)")
			   : mode == RSW_LB_ADAPTIVE
				   ? "adaptive: the less loaded of two members per frame"
				   : "flowlet: the receiving worker's flowlet table");
		return;
	}
	nh = &t->nh[g->members[mi]];
	if (rsw_ctl_group_nexthop(t, gid, mi, &ip) != 0)
		memset(&ip, 0, sizeof(ip));
	json_object_set_new(r->o, "neighbor", neighbor_json(nh->neigh, &ip, nh->port, &valid, mac));
	m = json_pack("{s:i, s:s, s:s, s:s?}", "index", (int)mi, "nexthop",
		      rsw_ip_str(&ip, buf, sizeof(buf)), "port", cfg->ports[nh->port].name, "mac",
		      valid ? mac : NULL);
	json_object_set_new(r->o, "member", m);
	r->port = nh->port;
	if (!valid)
		set_action(r, "punt", rsw_port_ctr_name(RSW_PC_neigh_unresolved));
	else
		set_action(r, "forward", NULL);
}

/* A connected host: its neighbour, through the subnet's adjacency as the workers do. */
static void
lookup_connected(const struct rsw_tables *t, const struct rsw_result *res,
		 const struct rsw_lookup_req *q, struct lookup_out *r)
{
	char mac[RSW_MAC_STR_LEN];
	uint32_t neigh, a;
	bool valid;
	int ni;

	if (q->dst.family == RSW_AF_INET && res->adj_mask != 0) {
		memcpy(&a, q->dst.addr, 4);
		neigh = rsw_adj_lookup4(t, res, ntohl(a));
	} else {
		if (q->dst.family == RSW_AF_INET) {
			memcpy(&a, q->dst.addr, 4);
			ni = rsw_neigh_lookup4(a);
		} else {
			ni = rsw_neigh_lookup6(q->dst.addr);
		}
		neigh = ni < 0 ? RSW_NEIGH_NONE : (uint32_t)ni;
	}
	json_object_set_new(r->o, "neighbor",
			    neighbor_json(neigh, &q->dst, res->port, &valid, mac));
	r->port = res->port;
	set_action(r, valid ? "forward" : "punt",
		   valid ? NULL : rsw_port_ctr_name(RSW_PC_neigh_unresolved));
}

static json_t *
cmd_lookup(int argc, char **argv, void *ctx)
{
	const struct rsw_config *cfg = rsw_ctl.cfg;
	const struct rsw_tables *t = rsw_fib_main.tables;
	struct rsw_pkt_info info = {0};
	struct lookup_out r = {.port = -1};
	struct rsw_lookup_req q;
	struct lookup_route rt;
	const struct rsw_result *res;
	char err[160], buf[64];
	uint64_t nh = RSW_FIB_NO_ROUTE;
	uint32_t dst4;
	int in = -1;
	uint16_t p;
	uint8_t tc;

	(void)ctx;
	if (rsw_lookup_parse(argc, argv, &q, err, sizeof(err)) < 0)
		return rsw_cmd_error("%s; usage: lookup %s", err, RSW_LOOKUP_USAGE);
	if (t == NULL)
		return rsw_cmd_error("no forwarding tables yet");
	if (q.in[0] != '\0') {
		in = rsw_config_port_index(cfg, q.in);
		if (in < 0)
			return rsw_cmd_error("unknown port '%s'", q.in);
	} else if (q.has_src) {
		for (p = 0; p < cfg->n_ports && in < 0; p++)
			if ((cfg->ports[p].has_ipv4 &&
			     rsw_prefix_contains(&cfg->ports[p].ipv4, &q.src)) ||
			    (cfg->ports[p].has_ipv6 &&
			     rsw_prefix_contains(&cfg->ports[p].ipv6, &q.src)))
				in = p;
	}
	/* Step 3 and 4 as the workers take them: classify, then the FIB. */
	info.kind = q.dst.family == RSW_AF_INET ? RSW_PK_IPV4 : RSW_PK_IPV6;
	info.dscp = q.dscp;
	tc = rsw_classify(t, &info);
	if (q.dst.family == RSW_AF_INET) {
		memcpy(&dst4, q.dst.addr, 4);
		dst4 = ntohl(dst4);
		rte_fib_lookup_bulk(t->fib4, &dst4, &nh, 1);
	} else {
		rte_fib6_lookup_bulk(t->fib6, (uint8_t(*)[RTE_FIB6_IPV6_ADDR_SIZE])q.dst.addr, &nh,
				     1);
	}
	res = nh < t->n_results ? &t->results[nh] : &t->results[RSW_FIB_NO_ROUTE];
	r.o = json_pack("{s:s, s:s?, s:s?, s:i}", "dst", rsw_ip_str(&q.dst, buf, sizeof(buf)),
			"src", q.has_src ? rsw_ip_str(&q.src, err, sizeof(err)) : NULL, "in",
			in >= 0 ? cfg->ports[in].name : NULL, "tc", tc);
	if (r.o == NULL)
		return NULL;
	json_object_set_new(r.o, "route", json_null());
	json_object_set_new(r.o, "group", json_null());
	json_object_set_new(r.o, "member", json_null());
	json_object_set_new(r.o, "neighbor", json_null());
	if (res->type != RSW_RES_NONE && find_route(cfg, &q.dst, &rt))
		json_object_set_new(r.o, "route",
				    json_pack("{s:s, s:s, s:i}", "prefix",
					      rsw_prefix_str(&rt.prefix, buf, sizeof(buf)),
					      "source", rt.source, "distance", rt.distance));
	switch (res->type) {
	case RSW_RES_LOCAL:
		set_action(&r, "local", NULL);
		break;
	case RSW_RES_CONNECTED:
		lookup_connected(t, res, &q, &r);
		break;
	case RSW_RES_GROUP:
		lookup_group(t, res->id, tc, &q, &r);
		break;
	default:
		set_action(&r, "drop", rsw_port_ctr_name(RSW_PC_no_route));
		break;
	}
	/* A port shut down drops what is routed to it (rsw_resolve_mtu). */
	if (r.port >= 0 && strcmp(r.action, "forward") == 0 &&
	    __atomic_load_n(&rsw_dp.ports[r.port].admin_down, __ATOMIC_RELAXED))
		set_action(&r, "drop", rsw_port_ctr_name(RSW_PC_port_down));
	json_object_set_new(r.o, "action", json_string(r.action));
	json_object_set_new(r.o, "reason", r.reason ? json_string(r.reason) : json_null());
	json_object_set_new(r.o, "port",
			    r.port >= 0 ? json_string(cfg->ports[r.port].name) : json_null());
	return json_pack("{s:o}", "lookup", r.o);
}

static int
lookup_init(const struct rsw_config *cfg)
{
	(void)cfg;
	return rsw_cmd_register("lookup", 1, 15, RSW_LOOKUP_USAGE,
				"what the workers would do with a frame now: route, group, "
				"member, neighbour, port, TC",
				cmd_lookup, NULL)
		       ? -EINVAL
		       : 0;
}

static struct rsw_module lookup_cli_module = {
	.name = "cli.lookup",
	.order = RSW_CLI_MODULE_ORDER,
	.init = lookup_init,
};

RSW_MODULE_REGISTER(lookup_cli_module);
