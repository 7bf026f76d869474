/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * libFuzzer target: the whole per-packet path (docs/architecture.md) on arbitrary
 * frames, with no NIC: parse, classify, route, load-balance, rewrite, MMU
 * admission, ECN, trimming, CNP handling and PFC reception in
 * rsw_process_burst, then the scheduler (rsw_sched_port: PFC generation,
 * strict + DWRR, ECN at dequeue, watchdog flush) onto ring PMD ports.
 *
 * The configuration is fixed: four ports with connected IPv4/IPv6 subnets, a
 * 4-way weighted ECMP group per load-balance mode, a 2-way IPv6 group, one
 * unresolved next hop per family, QoS from a loaded YAML (lossless TC 3, ECN,
 * trimming, CNPs) with small buffers so that drops, trims and PFC happen.
 *
 * Input: byte 0 picks the ingress port (bits 0-1) and a connected host to learn or age
 * before the burst (bits 2-7, below), byte 1 the knobs (below), then frames,
 * each a 2-byte big-endian length and that many bytes (the last one may be
 * short), at most a burst of 32. Every frame is an mbuf whose data is an
 * exactly sized heap buffer, so AddressSanitizer sees a read past its end.
 * After each input everything is drained (egress queues, scheduler, PMD rings,
 * punt ring) and the invariants are checked: the mbuf pool is back where it
 * started and every buffer gauge is 0. A violation aborts.
 */

#include <dirent.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_random.h>
#include <rte_ring.h>

#include "rsw_config.h"
#include "rsw_fib.h"
#include "rsw_lb.h"
#include "rsw_qos.h"
#include "rsw_qos_cfg.h"
#include "rsw_stats.h"
#include "rsw_worker.h"
#include "test_common.h"

#define N_PORTS     4
#define POOL_SIZE   2047
#define TXRING_SIZE 4096

/* Knobs (byte 1 of the input). */
#define K_ECN_ENQUEUE (1u << 0) /* ECN at enqueue instead of dequeue */
#define K_TRUST_PCP   (1u << 1) /* classify by PCP */
#define K_PORT_DOWN   (1u << 2) /* port 2 administratively down */
#define K_MEMBER_DOWN (1u << 3) /* members 1 and 3 of every group down */
#define K_STORM       (1u << 4) /* PFC watchdog: TC 3 of port 1 in storm-drop */
#define K_ALL_DOWN    (1u << 5) /* every member of every group down */
#define K_CUT_THROUGH (1u << 6) /* idle ports are sent to directly (as a running switch does) */
#define K_HASH_BATCH  (1u << 7) /* flow hashes computed per burst (as the control plane sets) */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char qos_yaml[] =
	"switch: { name: fuzz, role: leaf }\n"
	"ports:\n"
	"  - { name: p0, devargs: net_tap0, ipv4: 10.0.0.254/24, ipv6: 'fd00:0:0::fe/64', "
	"role: downlink }\n"
	"  - { name: p1, devargs: net_tap1, ipv4: 10.0.1.254/24, ipv6: 'fd00:0:1::fe/64', "
	"role: downlink }\n"
	"  - { name: p2, devargs: net_tap2, ipv4: 10.0.2.254/24, ipv6: 'fd00:0:2::fe/64' }\n"
	"  - { name: p3, devargs: net_tap3, ipv4: 10.0.3.254/24, ipv6: 'fd00:0:3::fe/64' }\n"
	"qos:\n"
	"  trust: dscp\n"
	"  dscp_to_tc: { 10: 1, 11: 2, 21: 2, 26: 3, 46: 7, 48: 6 }\n"
	"  pcp_to_tc: { 3: 3, 1: 1, 6: 6 }\n"
	"  scheduler: { strict: [7, 6], dwrr: { 0: 1, 1: 3, 2: 1, 3: 4 } }\n"
	"  lossless: [3]\n"
	"  buffer:\n"
	"    total: 256KB\n"
	"    queue_limit: 16KB\n"
	"    pfc: { xoff: 8KB, xon: 4KB, headroom: 16KB, quanta: 65535 }\n"
	"  ecn:\n"
	"    1: { kmin: 2KB, kmax: 8KB, pmax: 0.5 }\n"
	"    3: { kmin: 2KB, kmax: 8KB, pmax: 0.5 }\n"
	"    0: { kmin: 1KB, kmax: 4KB, pmax: 1.0 }\n"
	"  trim: { tcs: [1], threshold: 8KB, size: 128, dscp: 11, dscp_lasthop: 21, tc: 2 }\n"
	"  cnp: { tc: 6, coalesce_us: 50 }\n"
	"load_balance: { mode: hash, flowlet_timeout_us: 10 }\n";

static struct rte_mempool *pool;
static struct rsw_lcore_stats *st;
static struct rsw_tables *tables;
static unsigned int pool_start;
static struct rte_ring *txr[N_PORTS];
static struct rte_ring *rxr[N_PORTS];

static void
die(const char *what)
{
	fprintf(stderr, "fuzz_packet: %s\n", what);
	abort();
}

static void
ip4(struct rsw_ip *ip, uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	memset(ip, 0, sizeof(*ip));
	ip->family = RSW_AF_INET;
	ip->addr[0] = a;
	ip->addr[1] = b;
	ip->addr[2] = c;
	ip->addr[3] = d;
}

/* fd00:0:<sub>::<host> */
static void
ip6(struct rsw_ip *ip, uint8_t sub, uint8_t host)
{
	memset(ip, 0, sizeof(*ip));
	ip->family = RSW_AF_INET6;
	ip->addr[0] = 0xfd;
	ip->addr[5] = sub;
	ip->addr[15] = host;
}

/* A neighbour on port, resolved (a MAC derived from its index) or not. @return its index. */
static uint32_t
neigh(const struct rsw_ip *ip, uint16_t port, int resolved)
{
	int idx = rsw_neigh_get(ip, port);
	uint8_t mac[6] = {0x0c, 0x42, 0xa1, 0x00, 0x00, 0x00};

	if (idx < 0)
		die("neighbour table");
	mac[4] = (uint8_t)(idx >> 8);
	mac[5] = (uint8_t)idx;
	if (resolved)
		rsw_neigh_set((uint32_t)idx, mac);
	return (uint32_t)idx;
}

static void
route(struct rsw_tables *t, const struct rsw_prefix *pf, const struct rsw_result *r)
{
	int nh = rsw_tables_add_result(t, r);

	if (nh < 0 || rsw_tables_add_route(t, pf, (uint32_t)nh) != 0)
		die("cannot add a route");
}

/* A next-hop group of n members (neighbour indices on ports) for prefix pf. */
static void
group(struct rsw_tables *t, const struct rsw_prefix *pf, int16_t mode, unsigned int n,
      const uint32_t *neighs, const uint16_t *ports, const uint32_t *weights)
{
	struct rsw_group *g = &t->groups[t->n_groups];
	const struct rsw_result r = {.type = RSW_RES_GROUP, .id = t->n_groups};
	unsigned int j;

	g->n_members = (uint16_t)n;
	g->lb_mode = mode;
	g->prefix = *pf;
	for (j = 0; j < n; j++) {
		t->nh[t->n_nh].port = ports[j];
		t->nh[t->n_nh].neigh = neighs[j];
		g->ports[j] = ports[j];
		g->members[j] = t->n_nh++;
	}
	rsw_group_fill_buckets(g, weights);
	t->n_groups++;
	route(t, pf, &r);
}

static void
build_tables(const struct rsw_config *cfg)
{
	struct rsw_tables *t = rsw_tables_alloc(1, 64, 32, 16);
	static const uint32_t w4[4] = {1, 2, 1, 3};
	static const int16_t modes[4] = {RSW_LB_UNSET, RSW_LB_SPRAY, RSW_LB_ADAPTIVE,
					 RSW_LB_FLOWLET};
	uint32_t ecmp[4], v6[2], unres4, unres6;
	const uint16_t ecmp_ports[4] = {1, 2, 3, 3}, v6_ports[2] = {1, 2};
	struct rsw_prefix pf;
	struct rsw_ip ip;
	uint16_t p;
	int i;

	if (t == NULL)
		die("cannot allocate tables");
	t->trust = (uint8_t)cfg->qos.trust;
	t->default_tc = cfg->qos.default_tc;
	t->icmp_unreachable = 1;
	memcpy(t->dscp_to_tc, cfg->qos.dscp_to_tc, sizeof(t->dscp_to_tc));
	memcpy(t->pcp_to_tc, cfg->qos.pcp_to_tc, sizeof(t->pcp_to_tc));
	t->hash_fields = cfg->lb.hash_fields;
	t->hash_seed = cfg->lb.hash_seed;
	t->hash_algorithm = (uint8_t)cfg->lb.hash_algorithm;
	t->lb_mode = (int8_t)cfg->lb.mode;
	t->flowlet_ticks = (uint64_t)cfg->lb.flowlet_timeout_us * rte_get_tsc_hz() / 1000000;
	for (i = 0; i < RSW_N_TC; i++)
		t->lb_per_tc[i] = (int8_t)cfg->lb.per_tc[i];
	memcpy(t->rss_key, rsw_lb_default_rss_key, sizeof(t->rss_key));
	rsw_qos_params_from_cfg(&t->qos, cfg, 1); /* one worker: the fuzzer is one thread */

	/* Connected subnets, local addresses, and one resolved host (.2 / ::2) per port. */
	for (p = 0; p < N_PORTS; p++) {
		const struct rsw_result conn = {.type = RSW_RES_CONNECTED, .port = p};
		const struct rsw_result local = {.type = RSW_RES_LOCAL, .port = p};

		ip4(&pf.ip, 10, 0, (uint8_t)p, 0);
		pf.len = 24;
		route(t, &pf, &conn);
		ip4(&pf.ip, 10, 0, (uint8_t)p, 254);
		pf.len = 32;
		route(t, &pf, &local);
		ip6(&pf.ip, (uint8_t)p, 0);
		pf.len = 64;
		route(t, &pf, &conn);
		ip6(&pf.ip, (uint8_t)p, 0xfe);
		pf.len = 128;
		route(t, &pf, &local);
		ip4(&ip, 10, 0, (uint8_t)p, 2);
		neigh(&ip, p, 1);
		ip6(&ip, (uint8_t)p, 2);
		neigh(&ip, p, 1);
	}

	/* 4-way weighted ECMP, once per load-balance mode: 192.168.0.0/16, 10.200-202.0.0/16. */
	for (i = 0; i < 4; i++) {
		ip4(&ip, 10, 0, (uint8_t)ecmp_ports[i], (uint8_t)(2 + i / 3));
		ecmp[i] = neigh(&ip, ecmp_ports[i], 1);
	}
	for (i = 0; i < 4; i++) {
		if (i == 0)
			ip4(&pf.ip, 192, 168, 0, 0);
		else
			ip4(&pf.ip, 10, (uint8_t)(199 + i), 0, 0);
		pf.len = 16;
		group(t, &pf, modes[i], 4, ecmp, ecmp_ports, w4);
	}
	/* One unresolved next hop: 172.16.0.0/12 via 10.0.2.99. */
	ip4(&ip, 10, 0, 2, 99);
	unres4 = neigh(&ip, 2, 0);
	ip4(&pf.ip, 172, 16, 0, 0);
	pf.len = 12;
	group(t, &pf, RSW_LB_UNSET, 1, &unres4, &ecmp_ports[1], NULL);

	/* IPv6: 2001:db8::/32 over two resolved next hops, 2001:db9::/32 unresolved. */
	ip6(&ip, 1, 2);
	v6[0] = neigh(&ip, 1, 1);
	ip6(&ip, 2, 2);
	v6[1] = neigh(&ip, 2, 1);
	memset(&pf, 0, sizeof(pf));
	pf.ip.family = RSW_AF_INET6;
	pf.ip.addr[0] = 0x20;
	pf.ip.addr[1] = 0x01;
	pf.ip.addr[2] = 0x0d;
	pf.ip.addr[3] = 0xb8;
	pf.len = 32;
	group(t, &pf, RSW_LB_UNSET, 2, v6, v6_ports, NULL);
	ip6(&ip, 3, 0x99);
	unres6 = neigh(&ip, 3, 0);
	pf.ip.addr[3] = 0xb9;
	group(t, &pf, RSW_LB_UNSET, 1, &unres6, &ecmp_ports[2], NULL);

	rsw_tables_publish(t);
	tables = t;
}

static void
ring_ports_start(void)
{
	struct rte_eth_conf conf = {0};
	char name[32];
	uint16_t p;
	int ret;

	for (p = 0; p < N_PORTS; p++) {
		struct rsw_port_rt *pr = &rsw_dp.ports[p];
		const uint8_t mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, (uint8_t)(p + 1)};

		snprintf(name, sizeof(name), "fz_rx%u", p);
		rxr[p] = rte_ring_create(name, 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "fz_tx%u", p);
		txr[p] = rte_ring_create(name, TXRING_SIZE, SOCKET_ID_ANY,
					 RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (rxr[p] == NULL || txr[p] == NULL)
			die("cannot create rings");
		snprintf(name, sizeof(name), "fz%u", p);
		ret = rte_eth_from_rings(name, &rxr[p], 1, &txr[p], 1, SOCKET_ID_ANY);
		if (ret < 0)
			die("cannot create a ring PMD port");
		if (rte_eth_dev_configure((uint16_t)ret, 1, 1, &conf) != 0 ||
		    rte_eth_rx_queue_setup((uint16_t)ret, 0, 64, SOCKET_ID_ANY, NULL, pool) != 0 ||
		    rte_eth_tx_queue_setup((uint16_t)ret, 0, 64, SOCKET_ID_ANY, NULL) != 0 ||
		    rte_eth_dev_start((uint16_t)ret) != 0)
			die("cannot start a ring PMD port");
		memcpy(&pr->mac, mac, 6);
		pr->mtu = 1500;
		pr->eth_port = (uint16_t)ret;
		pr->owner = (uint16_t)rte_lcore_id();
		pr->downlink = p < 2;
	}
}

/* The runtime directory EAL made for this process's file prefix. */
static void
cleanup(void)
{
	char path[512];
	const char *dir;
	struct dirent *e;
	DIR *d;

	rte_eal_cleanup();
	dir = rte_eal_get_runtime_dir();
	d = opendir(dir);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char prefix[64];
	char *eal[] = {
		(*argv)[0],      "--no-huge", "-m", "256", "--no-pci",
		"--file-prefix", prefix,      "-l", "0",   "--log-level=error",
	};
	char err[RSW_CFG_ERR_LEN] = "";
	struct rsw_config *cfg;

	(void)argc;
	snprintf(prefix, sizeof(prefix), "fuzz-packet-%d", (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0)
		die("cannot start EAL");
	atexit(cleanup);
	if (rsw_stats_init() != 0 || rsw_fib_init(1) != 0)
		die("cannot initialise the tables");
	st = rsw_stats[rte_lcore_id()];
	pool = rte_pktmbuf_pool_create("fz_pool", POOL_SIZE, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (st == NULL || pool == NULL)
		die("cannot create the mbuf pool");
	ring_ports_start();
	rsw_dp.pool = pool;
	if (rsw_dp_init(N_PORTS) != 0)
		die("cannot create the queues");
	cfg = rsw_config_load_buf("fuzz.yaml", qos_yaml, sizeof(qos_yaml) - 1, err, sizeof(err));
	if (cfg == NULL) {
		fprintf(stderr, "fuzz_packet: config: %s\n", err);
		abort();
	}
	build_tables(cfg);
	rsw_config_free(cfg);
	rsw_qos.tsc_hz = rte_get_tsc_hz();
	pool_start = rte_mempool_in_use_count(pool);
	return 0;
}

static unsigned int
ring_discard(struct rte_ring *r)
{
	struct rte_mbuf *m[64];
	unsigned int n, total = 0;

	while ((n = rte_ring_dequeue_burst(r, (void **)m, RTE_DIM(m), NULL)) > 0) {
		rte_pktmbuf_free_bulk(m, n);
		total += n;
	}
	return total;
}

/* Schedule every port until nothing is left anywhere; received pauses are lifted. */
static void
drain_all(void)
{
	unsigned int round, work;
	uint16_t p;
	int tc;

	for (p = 0; p < N_PORTS; p++) {
		for (tc = 0; tc < RSW_N_TC; tc++)
			rsw_qos.port[p].paused_until[tc] = 0;
		rsw_qos.port[p].paused_max = 0;
	}
	for (round = 0;; round++) {
		if (round == 10000)
			die("the scheduler never went idle");
		work = 0;
		for (p = 0; p < N_PORTS; p++) {
			work += rsw_sched_port(st, &tables->qos, p, rte_rdtsc());
			work += ring_discard(txr[p]);
			work += rsw_sched[p].n_pending;
		}
		if (work == 0)
			break;
	}
	ring_discard(rsw_dp.punt);
}

static void
check_idle(void)
{
	uint16_t p;
	int tc;

	for (p = 0; p < N_PORTS; p++) {
		for (tc = 0; tc < RSW_N_TC; tc++) {
			if (rte_ring_count(rsw_qos.port[p].ring[tc]) != 0 ||
			    rsw_sched[p].head_i[tc] != rsw_sched[p].head_n[tc])
				die("an egress queue is not empty");
			if (rsw_qos.port[p].q_bytes[tc] != 0)
				die("q_bytes is not back to 0");
			if (rsw_qos.port[p].ctl_frames != 0)
				die("ctl_frames is not back to 0");
			if (rsw_qos.port[p].pg_bytes[tc] != 0)
				die("pg_bytes is not back to 0");
		}
	}
	if (rsw_qos.used != 0)
		die("rsw_qos.used is not back to 0");
	if (rte_mempool_in_use_count(pool) != pool_start)
		die("mbufs leaked or freed twice");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_mbuf *pkts[RSW_BURST];
	uint16_t in_port, n = 0, len, p;
	uint8_t knobs;
	size_t off = 2;
	uint32_t g;

	if (size < 2)
		return 0;
	in_port = data[0] % N_PORTS;
	knobs = data[1];
	if (data[0] >> 3) {
		/* Host 10.0.<h & 3>.<100 + h / 4> of a connected subnet learned (bit 2) or aged:
		 * its entry and its adjacency slot change between bursts, as under traffic. */
		uint8_t h = data[0] >> 3;
		struct rsw_ip ip;
		uint32_t idx;

		uint64_t nhv = 0;
		uint32_t dst;

		ip4(&ip, 10, 0, h & 3, (uint8_t)(100 + (h >> 2)));
		idx = neigh(&ip, h & 3, data[0] & 4);
		if (!(data[0] & 4))
			rsw_neigh_set(idx, NULL);
		/* The subnet's slot for the host is its entry, as the hash says. */
		dst = (uint32_t)10 << 24 | (uint32_t)(h & 3) << 8 | (uint32_t)(100 + (h >> 2));
		if (rte_fib_lookup_bulk(tables->fib4, &dst, &nhv, 1) != 0 ||
		    tables->results[nhv].type != RSW_RES_CONNECTED ||
		    tables->results[nhv].adj_mask == 0 ||
		    rsw_adj_lookup4(tables, &tables->results[nhv], dst) != idx)
			die("a learned host's adjacency slot is not its neighbour entry");
	}
	while (off < size && n < RSW_BURST) {
		if (size - off < 2) {
			len = (uint16_t)(size - off);
		} else {
			len = (uint16_t)(data[off] << 8 | data[off + 1]);
			off += 2;
		}
		if (len > size - off)
			len = (uint16_t)(size - off);
		if (len > RTE_MBUF_DEFAULT_DATAROOM)
			len = RTE_MBUF_DEFAULT_DATAROOM;
		pkts[n] = ut_mbuf_ext(pool, data + off, len);
		if (pkts[n] == NULL)
			die("cannot allocate an mbuf");
		n++;
		off += len;
	}

	rte_srand(0x5eed);
	tables->qos.ecn_enqueue = !!(knobs & K_ECN_ENQUEUE);
	tables->trust = knobs & K_TRUST_PCP ? RSW_TRUST_PCP : RSW_TRUST_DSCP;
	rsw_dp.ports[2].admin_down = !!(knobs & K_PORT_DOWN);
	for (g = 0; g < tables->n_groups; g++)
		rsw_lb_down[g] = knobs & K_ALL_DOWN ? 0xffff : knobs & K_MEMBER_DOWN ? 0x000a : 0;
	rsw_qos.port[1].storm_drop[3] = !!(knobs & K_STORM);
	rsw_dp.cut_through = !!(knobs & K_CUT_THROUGH);
	rsw_dp.admit_burst = true; /* admission decided per burst, as railsw runs */
	tables->lb_hash_batch = !!(knobs & K_HASH_BATCH);

	/* The parse step's inline common case must agree with the full parser, field for field. */
	for (p = 0; p < n; p++) {
		struct rsw_pkt_info a, b;
		const struct rte_ether_addr *mac = &rsw_dp.ports[in_port].mac;

		const uint8_t *l3;

		if (rsw_parse_inline(pkts[p], mac, &a) != rsw_parse(pkts[p], mac, &b) ||
		    memcmp(&a, &b, sizeof(a)) != 0)
			die("rsw_parse_inline and rsw_parse disagree");
		/* The common case: no record, and the header hash is the record's. */
		if (rsw_parse_fast(pkts[p], rsw_mac48(mac), mac, &a, &l3) != b.kind)
			die("rsw_parse_fast and rsw_parse disagree");
		if (l3 != NULL && (b.flags & RSW_PF_CNP))
			die("rsw_parse_fast took a CNP");
		if (l3 != NULL) {
			struct rsw_lb_sel s;
			uint32_t h;

			rsw_lb_sel_init(&s, tables);
			h = b.kind == RSW_PK_IPV4
				    ? rsw_lb_hash_hdr4(&s, (const struct rte_ipv4_hdr *)l3)
				    : rsw_lb_hash_hdr6(&s, (const struct rte_ipv6_hdr *)l3);
			if (h != rsw_lb_hash(tables, pkts[p], &b))
				die("rsw_lb_hash_hdr and rsw_lb_hash disagree");
			if (b.kind == RSW_PK_IPV4 && s.fast4 &&
			    rsw_lb_hash_fast4(&s, (const struct rte_ipv4_hdr *)l3) != h)
				die("rsw_lb_hash_fast4 and rsw_lb_hash_hdr4 disagree");
		}
	}
	rsw_process_burst(st, in_port, pkts, n);
	drain_all();

	rsw_qos.port[1].storm_drop[3] = 0;
	rsw_dp.ports[2].admin_down = 0;
	for (g = 0; g < tables->n_groups; g++)
		rsw_lb_down[g] = 0;
	drain_all(); /* frames held back by a storm or a down port */
	for (p = 0; p < N_PORTS; p++)
		ring_discard(rxr[p]);
	check_idle();
	return 0;
}
