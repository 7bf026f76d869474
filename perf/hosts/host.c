/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * rswhost: one DPDK process that plays many lab hosts, each on its own port toward a
 * railsw (memif recommended; any vdev string works). The hosts behave like RDMA NICs:
 * RoCEv2 RC with go-back-N and DCQCN (reaction and notification points), or a UET-like
 * transport that sprays entropy per packet, tolerates reordering and NACKs trimmed
 * packets at once for a selective retransmission. Every host honours PFC and 802.3x
 * PAUSE per priority. Sending is paced by the TSC at the host's link speed and, under
 * DCQCN, at each QP's current rate. One lcore runs every host in a loop that sleeps
 * when idle, so a lab of switches and hosts fits on two cores.
 *
 *   rswhost [EAL args] -- --config FILE.json --out STATS.json
 *
 * The configuration names the hosts (port devargs, MAC, IP, gateway MAC, speed), the
 * flows (src, dst, transport, bytes or a time window, QPs, entropy per flow or per
 * packet) and the DCQCN parameters; perf/experiments/ writes it. On exit the process
 * writes per-flow and per-host statistics as JSON (docs/experiments.md).
 *
 * This file holds the loop, the ports and main; host_io.c builds, sends and receives the
 * frames, host_config.c reads the configuration and writes the statistics (host.h).
 */

#include "host.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <rte_bus_vdev.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

struct rswhost g;

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* ---- the loop ----------------------------------------------------------- */

static int
qp_sendable(const struct qp *q)
{
	const struct flow *f = q->flow;

	if (f->tr == T_ROCE) {
		if (q->gtx.total != RSW_PSN_UNBOUNDED && q->gtx.nxt >= q->gtx.total)
			return 0;
		return q->gtx.nxt - q->gtx.una < q->gtx.window;
	}
	if (q->utx.rq_head != q->utx.rq_tail)
		return 1;
	if (q->utx.total != RSW_PSN_UNBOUNDED && q->utx.nxt >= q->utx.total)
		return 0;
	return uet_window_open(q);
}

/* Send what host @p h may send at @p now. @return packets built. */
static int
host_tx(struct host *h, uint64_t now)
{
	uint64_t slack = (uint64_t)(4 * 1100 * h->tsc_per_byte);
	int sent = 0, tried;

	/* A link with packets to send saves up no more than 4 packets, or catchup_us of line:
	 * the process catches up on what a descheduled NIC would have sent meanwhile (an idle
	 * link saves nothing up: below). */
	if (g.catchup_tsc > slack)
		slack = g.catchup_tsc;
	if (h->link_next + slack < now)
		h->link_next = now - slack;
	/* Data waits in the NIC, not in an unbounded queue: what is held unsent still goes
	 * out after a pause arrives, and PFC headroom must cover it. */
	while (h->link_next <= now && h->ntx < TXDATA && sent < BURST) {
		struct rte_mbuf *m = NULL;
		struct qp *q = NULL;
		uint32_t wire = 0;

		for (tried = 0; tried < h->nsend; tried++) {
			struct flow *f;

			q = h->send[h->rr];
			h->rr = (h->rr + 1) % h->nsend;
			f = q->flow;
			if (now < f->start_tsc || h->paused_until[f->prio] > now)
				continue;
			if (f->bytes == 0 && now >= f->stop_tsc && q->total == RSW_PSN_UNBOUNDED) {
				/* A time-bound flow's window is over: one more new packet, marked
				 * last so that the receiver ACKs it at once (it ACKs every
				 * ack_every packets and a message's last; without it the final
				 * partial group waits for the RTO), then nothing new. */
				if (f->tr == T_ROCE)
					q->gtx.total = q->gtx.max + 1;
				else
					q->utx.total = q->utx.nxt + 1;
				q->total = f->tr == T_ROCE ? q->gtx.total : q->utx.total;
			}
			if (q->next_tsc > now || !qp_sendable(q))
				continue;
			m = data_packet(h, q, now, &wire);
			if (m != NULL)
				break;
		}
		if (m == NULL) {
			/* Nothing may go now (no data, windows full, paused, rate-limited): the
			 * link idles, and a NIC does not save idle time up for later. */
			if (h->link_next < now)
				h->link_next = now;
			break;
		}
		tx_enqueue(h, m, 0);
		h->link_next += (uint64_t)(wire * h->tsc_per_byte);
		if (q->flow->dcqcn && q->rp.rc < h->speed_bps) {
			uint64_t base = q->next_tsc + slack < now ? now - slack : q->next_tsc;

			q->next_tsc = base + (uint64_t)(wire * 8.0 / q->rp.rc * (double)g.hz);
		}
		sent++;
	}
	return sent;
}

static void
timers(uint64_t tsc)
{
	uint64_t ns = now_ns(tsc), rto = (uint64_t)(g.rto_s * 1e9);
	int i, b = bin_of(tsc);

	for (i = 0; i < g.nqps; i++) {
		struct qp *q = &g.qps[i];
		struct flow *f = q->flow;

		uet_ack_due(q, tsc);
		if (tsc < f->start_tsc)
			continue;
		if (f->dcqcn)
			rsw_dcqcn_rp_tick(&q->rp, &g.dp[f->src], ns);
		if (f->tr == T_ROCE)
			rsw_gbn_tx_timeout(&q->gtx, ns, rto);
		else if (rsw_uet_tx_timeout(&q->utx, ns, rto, 64) > 0 && f->cc)
			rsw_nscc_timeout(&q->cc, &g.nscc);
	}
	for (i = 0; i < g.nflows; i++) {
		struct flow *f = &g.flows[i];
		double r = 0;
		int k;

		for (k = 0; k < f->nqp; k++)
			r += f->dcqcn ? f->qps[k]->rp.rc : g.hosts[f->src].speed_bps;
		f->rate_bins[b] = r;
	}
}

int
outstanding(void)
{
	int i, n = 0;

	for (i = 0; i < g.nqps; i++) {
		struct qp *q = &g.qps[i];

		if (q->flow->tr == T_ROCE)
			n += q->gtx.una < q->gtx.max;
		else
			n += q->utx.una < q->utx.nxt;
	}
	return n;
}

static int
finite_done(void)
{
	int i;

	for (i = 0; i < g.nflows; i++)
		if (g.flows[i].bytes != 0 && g.flows[i].done_tsc == 0)
			return 0;
	for (i = 0; i < g.npings; i++)
		if (g.pings[i].got < g.pings[i].count && g.pings[i].sent < 2 * g.pings[i].count)
			return 0;
	return 1;
}

static void
run(void)
{
	uint64_t last_timer = 0, end_tsc = 0, quiet_tsc = 0;
	uint64_t timer_tsc = g.hz / 10000; /* 100 µs */
	uint64_t hard = g.t0 + (uint64_t)(g.max_s * (double)g.hz);
	uint64_t dur = g.t0 + (uint64_t)(g.duration_s * (double)g.hz);
	struct timespec idle = {0, (long)(g.idle_us * 1000)};

	while (!stop) {
		uint64_t now = rte_rdtsc();
		int busy = 0, i;

		for (i = 0; i < g.nhosts; i++) {
			struct host *h = &g.hosts[i];
			struct rte_mbuf *rx[BURST];
			uint16_t n = rte_eth_rx_burst(h->port, 0, rx, BURST), k;

			for (k = 0; k < n; k++)
				rx_frame(h, rx[k], now);
			if (n)
				rte_pktmbuf_free_bulk(rx, n);
			busy += n;
			if (end_tsc == 0)
				busy += host_tx(h, now);
			else
				host_tx(h, now); /* retransmissions while draining */
			tx_flush(h);
		}
		if (g.npings)
			ping_tick(now);
		if (now - last_timer >= timer_tsc) {
			timers(now);
			last_timer = now;
		}
		if (now > hard)
			break;
		if (end_tsc == 0 && now >= dur && finite_done())
			end_tsc = now;
		if (end_tsc != 0) {
			/* Drain: wait for every outstanding packet's ACK, then 200 ms of quiet. */
			if (outstanding() == 0) {
				if (quiet_tsc == 0)
					quiet_tsc = now;
				if (now - quiet_tsc > g.hz / 5)
					break;
			} else {
				quiet_tsc = 0;
			}
			if (now - end_tsc > (uint64_t)(g.drain_s * (double)g.hz))
				break;
		}
		if (!busy)
			nanosleep(&idle, NULL);
	}
}

static int
ports_start(void)
{
	struct rte_eth_conf conf = {0};
	uint64_t deadline;
	int i, up;

	g.pool = rte_pktmbuf_pool_create("rswhost", 8192 + 3072 * g.nhosts, 256, 0,
					 RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (g.pool == NULL) {
		fprintf(stderr, "rswhost: mempool: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	for (i = 0; i < g.nhosts; i++) {
		uint16_t p = g.hosts[i].port;

		if (rte_eth_dev_configure(p, 1, 1, &conf) < 0 ||
		    rte_eth_rx_queue_setup(p, 0, 1024, rte_eth_dev_socket_id(p), NULL, g.pool) <
			    0 ||
		    rte_eth_tx_queue_setup(p, 0, 1024, rte_eth_dev_socket_id(p), NULL) < 0 ||
		    rte_eth_dev_start(p) < 0) {
			fprintf(stderr, "rswhost: cannot start port of %s\n", g.hosts[i].name);
			return -1;
		}
	}
	/* memif: wait for every link (the switch is the server). */
	deadline = rte_rdtsc() + 30 * g.hz;
	do {
		struct rte_eth_link l;

		up = 0;
		for (i = 0; i < g.nhosts; i++)
			if (rte_eth_link_get_nowait(g.hosts[i].port, &l) == 0 && l.link_status)
				up++;
		if (up == g.nhosts) {
			/* The switch's side came up first, but its next-hop groups learn that a
			 * link is up from a periodic poll: frames sent at once would find the
			 * route to a host still empty (group_empty drops). */
			rte_delay_us_sleep((unsigned int)(g.settle_ms * 1000));
			return 0;
		}
		rte_delay_ms(1);
	} while (rte_rdtsc() < deadline && !stop);
	fprintf(stderr, "rswhost: %d of %d links up after 30 s\n", up, g.nhosts);
	return -1;
}

int
main(int argc, char **argv)
{
	const char *cfg = NULL, *out = NULL;
	struct timespec c0, c1;
	uint64_t w0;
	int ret, opt, i;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "rswhost: EAL init failed\n");
		return 1;
	}
	argc -= ret;
	argv += ret;
	static const struct option lo[] = {
		{"config", required_argument, NULL, 'c'},
		{"out", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	optind = 1;
	while ((opt = getopt_long(argc, argv, "c:o:", lo, NULL)) != -1) {
		if (opt == 'c')
			cfg = optarg;
		else if (opt == 'o')
			out = optarg;
		else
			goto usage;
	}
	if (cfg == NULL || out == NULL)
		goto usage;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	prctl(PR_SET_TIMERSLACK, 1000UL); /* idle sleeps of tens of µs stay that short */
	g.hz = rte_get_tsc_hz();
	g.ns_per_tsc = 1e9 / (double)g.hz;
	if (load_config(cfg) < 0 || ports_start() < 0) {
		rte_eal_cleanup();
		return 1;
	}
	{
		const struct rsw_dcqcn_params *p = &g.dp[0];

		printf("rswhost: %d hosts, %d flows, %d QPs; link %.0f b/s; DCQCN g=%.5f "
		       "cnp_interval=%.0fus alpha=%.0fus T=%.0fus B=%lu F=%u R_AI=%.0f R_HAI=%.0f\n",
		       g.nhosts, g.nflows, g.nqps, p->line_bps, p->g, p->cnp_interval_ns / 1e3,
		       p->alpha_ns / 1e3, p->timer_ns / 1e3, (unsigned long)p->byte_counter, p->f,
		       p->rai_bps, p->rhai_bps);
		fflush(stdout);
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	w0 = rte_rdtsc();
	g.t0 = w0 + g.hz / 20;
	{
		struct timespec rt;

		/* The wall-clock time of t0: samplers outside the process (the experiments'
		 * queue sampler) put their times on this clock. */
		clock_gettime(CLOCK_REALTIME, &rt);
		g.t0_unix = (double)rt.tv_sec + (double)rt.tv_nsec / 1e9 + 0.05;
	}
	for (i = 0; i < g.nflows; i++) {
		struct flow *f = &g.flows[i];

		f->start_tsc = g.t0 + (uint64_t)(f->start_s * (double)g.hz);
		f->stop_tsc = g.t0 + (uint64_t)(f->stop_s * (double)g.hz);
		if (f->nafter > 0) /* waits for deliver() of its predecessors */
			f->start_tsc = f->stop_tsc = UINT64_MAX;
	}
	run();
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	ret = write_stats(out,
			  (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9,
			  secs(rte_rdtsc() - w0));
	for (i = 0; i < g.nhosts; i++) {
		rte_eth_dev_stop(g.hosts[i].port);
		rte_eth_dev_close(g.hosts[i].port);
	}
	rte_eal_cleanup();
	return ret < 0 ? 1 : 0;
usage:
	fprintf(stderr, "usage: rswhost [EAL args] -- --config FILE.json --out STATS.json\n");
	rte_eal_cleanup();
	return 2;
}
