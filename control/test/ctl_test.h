/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Helpers of the control unit tests that run the control modules on a real dataplane
 * state without ports (test_neigh, test_watchdog, test_reload, test_tables,
 * test_liveness): EAL started as the dataplane tests start it, a configuration written
 * as a YAML file and loaded, the stats, neighbour table, rings and queues of the
 * dataplane and a first generation of tables set up from it as main.c does, and the
 * frames the control thread sends (rsw_ctl_send: the egress queue of a port and TC, which
 * only the port's owner would drain) read back. Include after cmocka.h.
 */

#ifndef RSW_CTL_TEST_H
#define RSW_CTL_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_eal.h>
#include <rte_fib.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "rsw_ctl.h"
#include "rsw_liveness.h"
#include "rsw_neigh.h"
#include "rsw_tables_ctl.h"

#define CT_POOL_SIZE 8191

static struct rte_mempool *ct_pool;
static char ct_dir[64];        /* a temporary directory for the test's files */
static char ct_path[128];      /* the running configuration's file */
static unsigned int ct_in_use; /* mbufs in use after ct_start */
static uint64_t ct_now;        /* the neighbour state machine's clock (ms) */

static uint64_t
ct_clock(void)
{
	return ct_now;
}

/*
 * Start EAL for test binary name (file prefix ut-<name>), the per-lcore stats, the mbuf
 * pool and a temporary directory. @return 0 or -1.
 */
static inline int
ct_eal_init(const char *name)
{
	static char prefix[64];
	char *argv[] = {
		(char *)name,
		"--no-huge",
		"-m",
		"512",
		"--no-pci",
		"--file-prefix",
		prefix,
		"-l",
		"0",
		"--log-level=error",
		/* Liveness asks the link state of ports without a device: not an error here. */
		"--log-level=lib.ethdev:critical",
	};

	snprintf(prefix, sizeof(prefix), "ut-%s", name);
	if (rte_eal_init((int)RTE_DIM(argv), argv) < 0) {
		fprintf(stderr, "%s: cannot start EAL\n", name);
		return -1;
	}
	snprintf(ct_dir, sizeof(ct_dir), "/tmp/ut-%s-XXXXXX", name);
	ct_pool = rte_pktmbuf_pool_create("ut_ctl", CT_POOL_SIZE, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					  SOCKET_ID_ANY);
	if (ct_pool == NULL || rsw_stats_init() != 0 || mkdtemp(ct_dir) == NULL) {
		fprintf(stderr, "%s: cannot set up\n", name);
		return -1;
	}
	rsw_ctl.pool = ct_pool;
	rsw_dp.pool = ct_pool;
	rsw_ctl_neigh_set_clock(ct_clock);
	return 0;
}

/* Remove the temporary directory's files and stop EAL. */
static inline void
ct_eal_fini(void)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", ct_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", ct_dir);
	rsw_stats_fini();
	rte_mempool_free(ct_pool);
	rte_eal_cleanup();
}

/* Write text to file name in the temporary directory; its path in path[128]. */
static inline void
ct_write(const char *name, const char *text, char *path)
{
	FILE *f;

	snprintf(path, 128, "%s/%s", ct_dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Frames queued on port p over every TC. */
static inline unsigned int
ct_queued(uint16_t p)
{
	unsigned int n = 0;
	int tc;

	for (tc = 0; tc < RSW_N_TC; tc++)
		n += rte_ring_count(rsw_qos.port[p].ring[tc]);
	return n;
}

/*
 * Set up the control thread and dataplane state for the configuration yaml (written as
 * running.yaml) as main.c does: ports' MACs and MTUs, neighbours (static ones resolved),
 * the first generation of tables published, group liveness computed. The clock starts at
 * 1000 ms. Ports have no device (eth_port RTE_MAX_ETHPORTS): their link counts as up.
 */
/* Build a generation of tables from the running configuration and publish it. */
static inline void
ct_publish(void)
{
	char err[RSW_CFG_ERR_LEN];
	struct rsw_tables *t =
		rsw_ctl_tables_build(rsw_ctl.cfg, ++rsw_ctl.generation, err, sizeof(err));

	if (t == NULL)
		print_error("%s\n", err);
	assert_non_null(t);
	rsw_tables_publish(t);
}

static inline void
ct_start(const char *yaml)
{
	char err[RSW_CFG_ERR_LEN];
	struct rsw_config *cfg;
	uint16_t p;

	ct_write("running.yaml", yaml, ct_path);
	cfg = rsw_config_load(ct_path, err, sizeof(err));
	if (cfg == NULL)
		print_error("%s\n", err);
	assert_non_null(cfg);
	rsw_ctl.cfg = cfg;
	rsw_ctl.n_workers = 1;
	rsw_ctl.generation = 0;
	assert_int_equal(rsw_fib_init(1), 0);
	memset(rsw_dp.ports, 0, sizeof(rsw_dp.ports));
	for (p = 0; p < cfg->n_ports; p++) {
		struct rsw_port_rt *pr = &rsw_dp.ports[p];
		const uint8_t mac[6] = {0x02, 0, 0, 0, 0, (uint8_t)(p + 1)};

		memcpy(&pr->mac, cfg->ports[p].has_mac ? cfg->ports[p].mac : mac, 6);
		pr->mtu = (uint16_t)cfg->ports[p].mtu;
		pr->fwd_mtu = pr->mtu;
		pr->eth_port = RTE_MAX_ETHPORTS; /* no device: its link counts as up */
		pr->owner = (uint16_t)rte_lcore_id();
		pr->downlink = cfg->ports[p].role == RSW_PORT_ROLE_DOWNLINK;
	}
	assert_int_equal(rsw_dp_init(cfg->n_ports), 0);
	ct_now = 1000;
	assert_int_equal(rsw_ctl_neigh_init(cfg), 0);
	ct_publish();
	rsw_ctl_lb_poll();
	rsw_ctl.lb_base = calloc(RSW_MAX_GROUPS, sizeof(*rsw_ctl.lb_base));
	assert_non_null(rsw_ctl.lb_base);
	/* What the start sent (requests for next hops) is flushed before the pool is compared. */
	ct_in_use = rte_mempool_in_use_count(ct_pool);
	for (p = 0; p < cfg->n_ports; p++)
		ct_in_use -= ct_queued(p);
}

/* Undo ct_start: every frame left in a queue is freed; the pool must be back where it was. */
static inline int
ct_stop(void **state)
{
	(void)state;
	rsw_ctl_neigh_fini();
	rsw_dp_fini();
	rsw_fib_fini();
	rsw_config_free(rsw_ctl.cfg);
	rsw_ctl.cfg = NULL;
	free(rsw_ctl.lb_base);
	rsw_ctl.lb_base = NULL;
	memset(rsw_stats[rte_lcore_id()], 0, sizeof(struct rsw_lcore_stats));
	return 0;
}

/* The next frame the control thread queued on port p, TC tc, or NULL. */
static inline struct rte_mbuf *
ct_sent(uint16_t p, uint8_t tc)
{
	void *m;

	if (rte_ring_dequeue(rsw_qos.port[p].ring[tc], &m) != 0)
		return NULL;
	__atomic_fetch_sub(&rsw_qos.port[p].ctl_frames, 1, __ATOMIC_RELAXED);
	return m;
}

/* Free every frame queued on every port. */
static inline void
ct_flush(void)
{
	struct rte_mbuf *m;
	uint16_t p;
	int tc;

	for (p = 0; p < rsw_dp.n_ports; p++)
		for (tc = 0; tc < RSW_N_TC; tc++)
			while ((m = ct_sent(p, (uint8_t)tc)) != NULL)
				rte_pktmbuf_free(m);
}

/* A port counter of the control lcore. */
static inline uint64_t
ct_port_ctr(uint16_t p, int ctr)
{
	return rsw_stats[rte_lcore_id()]->port[p].c[ctr];
}

/* Hand m to the control thread as a worker would: on the punt ring, then one poll. */
static inline void
ct_punt(struct rte_mbuf *m, uint8_t reason, uint8_t in_port, uint8_t kind, uint16_t l3_off)
{
	struct rsw_mbuf_meta *meta = rsw_meta(m);

	meta->reason = reason;
	meta->in_port = in_port;
	meta->kind = kind;
	meta->l3_off = l3_off;
	assert_int_equal(rte_ring_enqueue(rsw_dp.punt, m), 0);
	assert_int_equal(rsw_ctl_punt_poll(), 1);
}

/* An mbuf holding a copy of len bytes of buf. */
static inline struct rte_mbuf *
ct_mbuf(const void *buf, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(ct_pool);
	char *p;

	assert_non_null(m);
	p = rte_pktmbuf_append(m, len);
	assert_non_null(p);
	memcpy(p, buf, len);
	memset(rsw_meta(m), 0, sizeof(struct rsw_mbuf_meta));
	return m;
}

/* src with the first occurrence of old replaced by new (rotating static buffers: nest freely). */
static inline const char *
ct_rep(const char *src, const char *old, const char *new)
{
	static char buf[4][8192];
	static int n;
	const char *at = strstr(src, old);
	char tmp[8192];

	assert_non_null(at);
	snprintf(tmp, sizeof(tmp), "%.*s%s%s", (int)(at - src), src, new, at + strlen(old));
	n = (n + 1) % 4;
	memcpy(buf[n], tmp, sizeof(tmp));
	return buf[n];
}

/* The published tables' result for IPv4 address a.b.c.d, or NULL when it has no route. */
static inline const struct rsw_result *
ct_route4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	const struct rsw_tables *t = rsw_fib_main.tables;
	uint32_t ip = (uint32_t)a << 24 | (uint32_t)b << 16 | (uint32_t)c << 8 | d;
	uint64_t nh = 0;

	assert_non_null(t);
	rte_fib_lookup_bulk(t->fib4, &ip, &nh, 1);
	assert_true(nh < t->n_results);
	return nh == RSW_FIB_NO_ROUTE ? NULL : &t->results[nh];
}

/* The index of IPv4 neighbour a.b.c.d, or -ENOENT. */
static inline int
ct_neigh4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	uint32_t ip = (uint32_t)a << 24 | (uint32_t)b << 16 | (uint32_t)c << 8 | d;

	return rsw_neigh_lookup4(rte_cpu_to_be_32(ip));
}

#endif /* RSW_CTL_TEST_H */
