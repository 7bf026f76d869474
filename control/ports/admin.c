/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `port NAME down|up` for the peer too (docs/ports.md, "Administrative state"). A port that
 * is administratively down takes no traffic (rsw_port_set_admin); where its kind allows it,
 * the link goes down for the peer as well, so the peer's next-hop groups drop it and its
 * routing daemon sees the failure:
 *
 * - net_memif: the port is stopped (rte_eth_dev_stop disconnects the memif: the peer reads
 *   the control channel's end and marks its port down). A server port also moves its
 *   socket file aside while down, so no client reconnects to it; `up` moves it back and
 *   starts the port. A client port whose link is down while it is administratively up
 *   reconnects by itself (stop and start, every second, later every 8 s at most), so a link
 *   heals when the server's end comes back, from `port up` or a restarted peer.
 *   The workers poll a memif port only while its link is up ("attached"): otherwise its
 *   rsw_dp.ports[p].eth_port names a spare ethdev id whose fast-path functions do nothing
 *   (the "parking slot"). A stop or start of the port happens only while it is detached
 *   and after the workers passed a quiescent state, so no worker is inside the PMD while
 *   it unmaps its rings, and none reads rte_eth_fp_ops[eth] while ethdev rewrites it (the
 *   reset in rte_eth_dev_stop is not atomic: a worker can read a NULL queue array there).
 *   The port is attached again once its link is up (the handshake is done, admin_poll).
 * - net_tap: the carrier of the TAP goes off (TUNSETCARRIER on the PMD's own descriptor,
 *   which works wherever the kernel side lives: a TAP moved into a host's namespace is out
 *   of reach of any ioctl by name); the host sees NO-CARRIER.
 * - every other kind: rte_eth_dev_set_link_down (a NIC turns its PHY off); a kind without
 *   it (net_vhost, net_af_xdp, net_pcap, net_null, net_ring) tells its peer nothing, which
 *   `show ports` says (peer_down false).
 *
 * Control thread only.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_log.h>
#include <rte_rcu_qsbr.h>

#include "rsw_ctl.h"
#include "rsw_fib.h"
#include "rsw_module.h"
#include "rsw_neigh.h"
#include "rsw_ports.h"

RTE_LOG_REGISTER(rsw_logtype_admin, rsw.ports.admin, INFO);
#define ADMIN_LOG(level, ...) rte_log(RTE_LOG_##level, rsw_logtype_admin, "railsw: " __VA_ARGS__)

/* A memif client retries its connection this long after its link went down, then backs off. */
#define RSW_MEMIF_RETRY_MS     1000
#define RSW_MEMIF_RETRY_MAX_MS 8000
/* Suffix of a memif server's socket file while its port is administratively down. */
#define RSW_MEMIF_ASIDE ".admin-down"

enum port_class {
	PORT_OTHER,
	PORT_MEMIF,
	PORT_TAP,
};

struct port_admin {
	enum port_class cls;
	enum rsw_peer_state peer; /* what the last `port down` did for the peer */
	bool client;              /* memif role=client (the default) */
	bool file_sock;           /* memif socket-abstract=no: a socket file to move aside */
	bool aside;               /* the socket file is moved aside now */
	char sock[RSW_DEVARGS_LEN];
	int tun_fd;             /* net_tap: one of the PMD's descriptors of the TAP, or -1 */
	uint64_t down_since_ms; /* memif client, admin up: link down since, 0 while up */
	uint64_t next_try_ms;   /* memif client: next reconnection attempt */
	uint32_t backoff_ms;    /* memif client: wait before the attempt after next */
	uint64_t reconnects;    /* memif client: attempts made */
};

static struct port_admin adm[RSW_MAX_PORTS];
static uint16_t adm_n;
/* The parking slot: an ethdev id no device has, its fast path parked_rx / parked_tx. */
static uint16_t park_eth = RTE_MAX_ETHPORTS;
static void *park_queues[RTE_MAX_QUEUES_PER_PORT];
/* The DPDK port id of each port; rsw_dp.ports[p].eth_port is park_eth while detached. */
static uint16_t real_eth[RSW_MAX_PORTS];
static bool detached[RSW_MAX_PORTS];
/* Without a parking slot: the PMD's burst functions, put back in place to attach. */
static eth_rx_burst_t pmd_rx[RSW_MAX_PORTS];
static eth_tx_burst_t pmd_tx[RSW_MAX_PORTS];

static uint16_t
parked_rx(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	(void)q;
	(void)pkts;
	(void)n;
	return 0;
}

static uint16_t
parked_tx(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	(void)q;
	(void)pkts;
	(void)n;
	return 0;
}

/*
 * Point the workers' rx and tx of ethdev eth at functions that do nothing. rte_eth_dev_start
 * puts the PMD's back. A stopped port otherwise gets ethdev's dummies, which some 22.11
 * releases log on every call.
 */
static void
park(uint16_t eth)
{
	__atomic_store_n(&rte_eth_fp_ops[eth].rx_pkt_burst, parked_rx, __ATOMIC_RELEASE);
	__atomic_store_n(&rte_eth_fp_ops[eth].tx_pkt_burst, parked_tx, __ATOMIC_RELEASE);
}

/*
 * Make the spare ethdev id the workers poll while a memif port is detached: the highest id
 * that has no device (railsw probes every device at start-up, none later). Before the
 * workers start.
 */
static void
park_slot_init(void)
{
	struct rte_eth_fp_ops *f;
	uint16_t id;

	for (id = RTE_MAX_ETHPORTS; id-- > 0;) {
		if (rte_eth_dev_is_valid_port(id))
			continue;
		f = &rte_eth_fp_ops[id];
		memset(f, 0, sizeof(*f));
		f->rx_pkt_burst = parked_rx;
		f->tx_pkt_burst = parked_tx;
		f->rxq.data = park_queues;
		f->rxq.clbk = park_queues;
		f->txq.data = park_queues;
		f->txq.clbk = park_queues;
		park_eth = id;
		return;
	}
	ADMIN_LOG(WARNING, "no spare ethdev id: memif ports are parked in place (less safe)\n");
}

/* The workers stop polling port p (they may still be inside its PMD: see quiesce). */
static void
detach(uint16_t p)
{
	uint16_t eth = real_eth[p];

	if (park_eth < RTE_MAX_ETHPORTS)
		__atomic_store_n(&rsw_dp.ports[p].eth_port, park_eth, __ATOMIC_RELEASE);
	else
		park(eth);
	detached[p] = true;
}

/* The workers poll port p's PMD again (its link is up). */
static void
attach(uint16_t p)
{
	uint16_t eth = real_eth[p];

	if (park_eth < RTE_MAX_ETHPORTS) {
		__atomic_store_n(&rsw_dp.ports[p].eth_port, eth, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&rte_eth_fp_ops[eth].rx_pkt_burst, pmd_rx[p], __ATOMIC_RELEASE);
		__atomic_store_n(&rte_eth_fp_ops[eth].tx_pkt_burst, pmd_tx[p], __ATOMIC_RELEASE);
	}
	detached[p] = false;
}

/* Wait until no worker is inside a burst begun before now. */
static void
quiesce(void)
{
	if (rsw_fib_main.qsbr != NULL)
		rte_rcu_qsbr_synchronize(rsw_fib_main.qsbr, RTE_QSBR_THRID_INVALID);
}

/*
 * munmap for the whole process: the executable exports it (railsw.dynlist), so the PMDs,
 * which DPDK loads as shared objects, call this one. In the EAL interrupt thread it first
 * waits for the workers to pass a quiescent state: that is where the memif PMD unmaps a
 * link's regions when the peer disconnects, while a worker may be inside a burst on it
 * that began before the link went down (and copies from those regions). A burst that
 * begins later sees the port disconnected and touches no region. Elsewhere, before the
 * workers run or once they are told to quit, it is munmap.
 */
int
munmap(void *addr, size_t len)
{
	if (rte_thread_is_intr() && !__atomic_load_n(&rsw_dp.quit, __ATOMIC_RELAXED))
		quiesce();
	return (int)syscall(SYS_munmap, addr, len);
}

/* A start or stop of a memif device that the EAL interrupt thread runs (in_intr_thread). */
struct intr_op {
	uint16_t eth;
	bool start;
	int ret;
	bool done;
};

static void
intr_op_run(void *arg)
{
	struct intr_op *op = arg;

	op->ret = op->start ? rte_eth_dev_start(op->eth) : rte_eth_dev_stop(op->eth);
	__atomic_store_n(&op->done, true, __ATOMIC_RELEASE);
}

/*
 * rte_eth_dev_start or rte_eth_dev_stop of ethdev eth, run by the EAL interrupt thread (an
 * alarm) and waited for. The memif PMD runs its handshake and a disconnect by the peer in
 * that thread: a stop from the control thread could free the regions the handshake is
 * mapping at that moment. Where no alarm can be set (or it does not run within 2 s and can
 * still be cancelled), the operation runs here.
 */
static int
in_intr_thread(uint16_t eth, bool start)
{
	static struct intr_op op; /* one at a time: the control thread waits for it */
	unsigned int waited_us = 0;

	op = (struct intr_op){.eth = eth, .start = start};
	if (rte_eal_alarm_set(1, intr_op_run, &op) != 0)
		goto inline_op;
	while (!__atomic_load_n(&op.done, __ATOMIC_ACQUIRE)) {
		if (waited_us >= 2000000) {
			/* Cancelling waits for a callback that is running: then it is done. */
			if (rte_eal_alarm_cancel(intr_op_run, &op) > 0)
				goto inline_op;
			break;
		}
		usleep(50);
		waited_us += 50;
	}
	return op.ret;
inline_op:
	return start ? rte_eth_dev_start(eth) : rte_eth_dev_stop(eth);
}

/* Stop a memif port without a worker inside its PMD or its fast-path ops: detach, wait, stop. */
static int
memif_stop(uint16_t p)
{
	uint16_t eth = real_eth[p];
	int ret;

	detach(p);
	quiesce();
	ret = in_intr_thread(eth, false);
	if (park_eth >= RTE_MAX_ETHPORTS)
		park(eth);
	return ret;
}

/* Start a memif port, detached: the workers come back to it once its link is up. */
static int
memif_start(uint16_t p)
{
	uint16_t eth = real_eth[p];
	int ret;

	detach(p);
	quiesce();
	ret = in_intr_thread(eth, true);
	if (park_eth >= RTE_MAX_ETHPORTS)
		park(eth);
	return ret;
}

uint16_t
rsw_port_eth(uint16_t p)
{
	return p < adm_n ? real_eth[p] : rsw_dp.ports[p].eth_port;
}

bool
rsw_port_detached(uint16_t p)
{
	return p < adm_n && detached[p];
}

/* Whether path names a unix socket that exists. */
static bool
sock_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* Whether another memif port of this switch uses the same socket file as port p. */
static bool
sock_shared(uint16_t p)
{
	uint16_t q;

	for (q = 0; q < adm_n; q++)
		if (q != p && adm[q].cls == PORT_MEMIF && strcmp(adm[q].sock, adm[p].sock) == 0)
			return true;
	return false;
}

static void
sock_aside(uint16_t p, bool aside)
{
	struct port_admin *a = &adm[p];
	char moved[RSW_DEVARGS_LEN + sizeof(RSW_MEMIF_ASIDE)];

	if (a->client || !a->file_sock || a->aside == aside || sock_shared(p))
		return;
	snprintf(moved, sizeof(moved), "%s%s", a->sock, RSW_MEMIF_ASIDE);
	if (aside ? rename(a->sock, moved) : rename(moved, a->sock)) {
		ADMIN_LOG(WARNING, "port %s: cannot move memif socket %s %s: %s\n",
			  rsw_ctl.cfg->ports[p].name, aside ? a->sock : moved,
			  aside ? "aside" : "back", strerror(errno));
		return;
	}
	a->aside = aside;
}

/* The PMD's descriptor of the TAP named ifname (TUNGETIFF on each /dev/net/tun), or -1. */
static int
tap_fd_of(const char *ifname)
{
	char path[sizeof("/proc/self/fd/") + 256], target[32];
	struct dirent *de;
	struct ifreq ifr;
	ssize_t n;
	DIR *d;
	int fd = -1;

	d = opendir("/proc/self/fd");
	if (d == NULL)
		return -1;
	while (fd < 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strcmp(target, "/dev/net/tun") != 0)
			continue;
		memset(&ifr, 0, sizeof(ifr));
		if (ioctl(atoi(de->d_name), TUNGETIFF, &ifr) == 0 &&
		    strncmp(ifr.ifr_name, ifname, IF_NAMESIZE) == 0)
			fd = atoi(de->d_name);
	}
	closedir(d);
	return fd;
}

void
rsw_ports_admin_init(const struct rsw_config *cfg)
{
	struct rte_eth_dev_info info;
	char ifname[IF_NAMESIZE + 8], val[16];
	const char *kind;
	uint16_t p;

	adm_n = cfg->n_ports;
	park_slot_init();
	for (p = 0; p < cfg->n_ports; p++) {
		struct port_admin *a = &adm[p];
		const char *devargs = cfg->ports[p].devargs;

		memset(a, 0, sizeof(*a));
		real_eth[p] = rsw_dp.ports[p].eth_port;
		detached[p] = false;
		pmd_rx[p] = rte_eth_fp_ops[real_eth[p]].rx_pkt_burst;
		pmd_tx[p] = rte_eth_fp_ops[real_eth[p]].tx_pkt_burst;
		a->tun_fd = -1;
		a->backoff_ms = RSW_MEMIF_RETRY_MS;
		/* The driver's own name (what port set-up recorded for rsw_port_kind_name). */
		kind = rte_eth_dev_info_get(real_eth[p], &info) == 0 && info.driver_name != NULL
			       ? info.driver_name
			       : "";
		if (strcmp(kind, "net_memif") == 0) {
			a->cls = PORT_MEMIF;
			a->client = !rsw_devargs_value(devargs, "role", val, sizeof(val)) ||
				    strstr(val, "client") != NULL || strstr(val, "slave") != NULL;
			if (!rsw_devargs_value(devargs, "socket", a->sock, sizeof(a->sock)))
				snprintf(a->sock, sizeof(a->sock), "/run/memif.sock");
			a->file_sock =
				rsw_devargs_value(devargs, "socket-abstract", val, sizeof(val)) &&
				strcmp(val, "no") == 0;
			/* Started, not connected yet: the workers wait for the link (admin_poll). */
			detach(p);
		} else if (strcmp(kind, "net_tap") == 0) {
			/* At set-up the kernel side is still here: its name is known either way. */
			a->cls = PORT_TAP;
			if (!rsw_devargs_value(devargs, "iface", ifname, IF_NAMESIZE) &&
			    (rte_eth_dev_info_get(rsw_dp.ports[p].eth_port, &info) != 0 ||
			     if_indextoname(info.if_index, ifname) == NULL))
				ifname[0] = '\0';
			if (ifname[0] != '\0')
				a->tun_fd = tap_fd_of(ifname);
			if (a->tun_fd < 0)
				ADMIN_LOG(WARNING,
					  "port %s: no descriptor of TAP '%s' found: `port down` "
					  "will not take its carrier down\n",
					  cfg->ports[p].name, ifname);
		}
	}
}

/* Take the link down (down true) or bring it back for the peer. @return the peer's state. */
static enum rsw_peer_state
peer_link(uint16_t p, bool down)
{
	struct port_admin *a = &adm[p];
	uint16_t eth = real_eth[p];
	int carrier = !down, ret;

	switch (a->cls) {
	case PORT_MEMIF:
		if (down) {
			sock_aside(p, true);
			ret = memif_stop(p);
			return ret == 0 ? RSW_PEER_TOLD : RSW_PEER_NOT_TOLD;
		}
		sock_aside(p, false);
		ret = memif_start(p);
		if (ret != 0 && a->client)
			ADMIN_LOG(INFO, "port %s: memif server not there yet (%s); retrying\n",
				  rsw_ctl.cfg->ports[p].name, strerror(-ret));
		a->down_since_ms = rsw_now_ms();
		a->next_try_ms = a->down_since_ms + RSW_MEMIF_RETRY_MS;
		a->backoff_ms = RSW_MEMIF_RETRY_MS;
		return RSW_PEER_UP;
	case PORT_TAP:
		if (a->tun_fd < 0 || ioctl(a->tun_fd, TUNSETCARRIER, &carrier) != 0)
			return down ? RSW_PEER_NOT_TOLD : RSW_PEER_UP;
		return down ? RSW_PEER_TOLD : RSW_PEER_UP;
	default:
		ret = down ? rte_eth_dev_set_link_down(eth) : rte_eth_dev_set_link_up(eth);
		if (down)
			return ret == 0 ? RSW_PEER_TOLD : RSW_PEER_NOT_TOLD;
		return RSW_PEER_UP;
	}
}

int
rsw_port_admin(uint16_t p, bool down)
{
	struct port_admin *a;

	if (p >= adm_n || p >= rsw_dp.n_ports)
		return -EINVAL;
	a = &adm[p];
	if (down == !!rsw_dp.ports[p].admin_down)
		return 0;
	if (down) {
		/* Workers stop forwarding to it first, then the peer hears. */
		rsw_port_set_admin(p, true);
		a->peer = peer_link(p, true);
		ADMIN_LOG(INFO, "port %s: administratively down; %s\n", rsw_ctl.cfg->ports[p].name,
			  a->peer == RSW_PEER_TOLD ? "link down for the peer"
						   : "the peer is not told (port kind)");
	} else {
		a->peer = peer_link(p, false);
		rsw_port_set_admin(p, false);
		ADMIN_LOG(INFO, "port %s: administratively up\n", rsw_ctl.cfg->ports[p].name);
	}
	return 0;
}

enum rsw_peer_state
rsw_port_peer_state(uint16_t p)
{
	return p < adm_n ? adm[p].peer : RSW_PEER_UP;
}

void
rsw_ports_admin_fini(void)
{
	uint16_t p;

	/* memif unlinks the socket file it made when it closes: put it back for that. */
	for (p = 0; p < adm_n; p++)
		if (adm[p].aside)
			sock_aside(p, false);
	/* The workers have stopped: rsw_ports_close stops and closes the real devices. */
	for (p = 0; p < adm_n && p < rsw_dp.n_ports; p++)
		rsw_dp.ports[p].eth_port = real_eth[p];
	adm_n = 0;
}

/* A memif client, administratively up, whose link is down: reconnect now and then. */
static void
memif_client_poll(uint16_t p, uint64_t now)
{
	struct port_admin *a = &adm[p];
	struct rte_eth_link link;
	int ret;

	if (rte_eth_link_get_nowait(real_eth[p], &link) == 0 &&
	    link.link_status == RTE_ETH_LINK_UP) {
		if (a->down_since_ms != 0)
			ADMIN_LOG(INFO, "port %s: memif link up\n", rsw_ctl.cfg->ports[p].name);
		a->down_since_ms = 0;
		a->backoff_ms = RSW_MEMIF_RETRY_MS;
		return;
	}
	if (a->down_since_ms == 0) {
		a->down_since_ms = now;
		a->next_try_ms = now + RSW_MEMIF_RETRY_MS;
		ADMIN_LOG(INFO, "port %s: memif link down; reconnecting to %s\n",
			  rsw_ctl.cfg->ports[p].name, a->sock);
		return;
	}
	if (now < a->next_try_ms)
		return;
	/* The server's socket file is aside or gone (its port is down, it stopped): wait. */
	if (a->file_sock && !sock_exists(a->sock)) {
		a->next_try_ms = now + RSW_MEMIF_RETRY_MS / 4;
		return;
	}
	a->reconnects++;
	memif_stop(p);
	ret = memif_start(p);
	a->next_try_ms = now + a->backoff_ms;
	a->backoff_ms = RTE_MIN(a->backoff_ms * 2, (uint32_t)RSW_MEMIF_RETRY_MAX_MS);
	if (ret != 0)
		ADMIN_LOG(DEBUG, "port %s: memif reconnection failed: %s\n",
			  rsw_ctl.cfg->ports[p].name, strerror(-ret));
}

static unsigned int
admin_poll(uint64_t now_ms)
{
	struct rte_eth_link link;
	uint16_t p;

	for (p = 0; p < adm_n && p < rsw_dp.n_ports; p++) {
		bool up;

		if (adm[p].cls != PORT_MEMIF)
			continue;
		up = rte_eth_link_get_nowait(real_eth[p], &link) == 0 &&
		     link.link_status == RTE_ETH_LINK_UP;
		if (!rsw_dp.ports[p].admin_down) {
			/*
			 * The workers poll the PMD only while the link is up: from the end of
			 * the handshake (memif_connect sets the link up last) to a disconnect
			 * (memif_disconnect sets it down first).
			 */
			if (up && detached[p])
				attach(p);
			else if (!up && !detached[p])
				detach(p);
			if (adm[p].client)
				memif_client_poll(p, now_ms);
			continue;
		}
		/* A server that is down but whose socket a client could still reach (abstract,
		 * or shared with another port) was connected again: disconnect it. */
		if (!adm[p].client && up)
			memif_stop(p);
	}
	return 0;
}

static struct rsw_module admin_module = {
	.name = "ports.admin",
	.order = RSW_MODULE_ORDER_LIVENESS - 1,
	.poll = admin_poll,
	.period_ms = 20, /* a memif link that came up carries traffic within 20 ms */
	.fini = rsw_ports_admin_fini,
};

RSW_MODULE_REGISTER(admin_module);
