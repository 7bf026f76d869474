/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of what railsw asks of a NIC (control/ports/ports.c, port_conf.c): the
 * rte_eth_conf, the offloads, the queue counts, the descriptors and the pool each queue gets,
 * and the link speed of the shaper and PFC timing. The PMD is stood in for (the linker's
 * --wrap of the ethdev calls ports.c makes): a "NIC" with RSS, a 40-byte key, the RSS hash
 * and MBUF_FAST_FREE offloads and descriptor limits 64..4096 in steps of 32, whose link the
 * tests set. No EAL, no device: what railsw would hand a real PMD is recorded and checked.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include <rte_ethdev.h>
#include <rte_thash.h>

#include "cfg_test.h"
#include "rsw_ctl.h"
#include "rsw_lb.h"
#include "rsw_ports.h"
#include "rsw_qos.h"

/* --- the stand-in PMD --- */

#define MAXQ 16

static struct rte_eth_dev_info nic;  /* what rte_eth_dev_info_get says */
static struct rte_eth_link nic_link; /* what rte_eth_link_get_nowait says */
static struct {
	uint16_t nrxq, ntxq;
	struct rte_eth_conf conf;
	uint8_t key[64];
	uint16_t rx_desc[MAXQ], tx_desc[MAXQ];
	struct rte_mempool *rx_pool[MAXQ];
	uint64_t tx_offloads[MAXQ];
	unsigned int n_rx_setup, n_tx_setup;
} got[2];

int __wrap_rte_eth_dev_get_port_by_name(const char *name, uint16_t *port_id);
int __wrap_rte_eth_dev_info_get(uint16_t port_id, struct rte_eth_dev_info *info);
int __wrap_rte_eth_dev_configure(uint16_t port_id, uint16_t nrxq, uint16_t ntxq,
				 const struct rte_eth_conf *conf);
int __wrap_rte_eth_dev_set_mtu(uint16_t port_id, uint16_t mtu);
int __wrap_rte_eth_rx_queue_setup(uint16_t port_id, uint16_t q, uint16_t nb_desc,
				  unsigned int socket, const struct rte_eth_rxconf *rxc,
				  struct rte_mempool *mp);
int __wrap_rte_eth_tx_queue_setup(uint16_t port_id, uint16_t q, uint16_t nb_desc,
				  unsigned int socket, const struct rte_eth_txconf *txc);
int __wrap_rte_eth_dev_default_mac_addr_set(uint16_t port_id, struct rte_ether_addr *mac);
int __wrap_rte_eth_macaddr_get(uint16_t port_id, struct rte_ether_addr *mac);
int __wrap_rte_eth_dev_flow_ctrl_get(uint16_t port_id, struct rte_eth_fc_conf *fc);
int __wrap_rte_eth_promiscuous_enable(uint16_t port_id);
int __wrap_rte_eth_allmulticast_enable(uint16_t port_id);
int __wrap_rte_eth_dev_start(uint16_t port_id);
int __wrap_rte_eth_dev_stop(uint16_t port_id);
int __wrap_rte_eth_dev_close(uint16_t port_id);
int __wrap_rte_eth_dev_socket_id(uint16_t port_id);
int __wrap_rte_eth_link_get_nowait(uint16_t port_id, struct rte_eth_link *link);

int
__wrap_rte_eth_dev_get_port_by_name(const char *name, uint16_t *port_id)
{
	*port_id = strcmp(name, "0000:3b:00.1") == 0 ? 1 : 0;
	return 0;
}

int
__wrap_rte_eth_dev_info_get(uint16_t port_id, struct rte_eth_dev_info *info)
{
	(void)port_id;
	*info = nic;
	return 0;
}

int
__wrap_rte_eth_dev_configure(uint16_t port_id, uint16_t nrxq, uint16_t ntxq,
			     const struct rte_eth_conf *conf)
{
	got[port_id].nrxq = nrxq;
	got[port_id].ntxq = ntxq;
	got[port_id].conf = *conf;
	if (conf->rx_adv_conf.rss_conf.rss_key != NULL)
		memcpy(got[port_id].key, conf->rx_adv_conf.rss_conf.rss_key,
		       conf->rx_adv_conf.rss_conf.rss_key_len);
	return 0;
}

int
__wrap_rte_eth_dev_set_mtu(uint16_t port_id, uint16_t mtu)
{
	(void)port_id;
	(void)mtu;
	return 0;
}

int
__wrap_rte_eth_rx_queue_setup(uint16_t port_id, uint16_t q, uint16_t nb_desc, unsigned int socket,
			      const struct rte_eth_rxconf *rxc, struct rte_mempool *mp)
{
	(void)socket;
	(void)rxc;
	assert_true(q < MAXQ);
	got[port_id].rx_desc[q] = nb_desc;
	got[port_id].rx_pool[q] = mp;
	got[port_id].n_rx_setup++;
	return 0;
}

int
__wrap_rte_eth_tx_queue_setup(uint16_t port_id, uint16_t q, uint16_t nb_desc, unsigned int socket,
			      const struct rte_eth_txconf *txc)
{
	(void)socket;
	assert_true(q < MAXQ);
	got[port_id].tx_desc[q] = nb_desc;
	got[port_id].tx_offloads[q] = txc != NULL ? txc->offloads : 0;
	got[port_id].n_tx_setup++;
	return 0;
}

int
__wrap_rte_eth_dev_default_mac_addr_set(uint16_t port_id, struct rte_ether_addr *mac)
{
	(void)port_id;
	(void)mac;
	return 0;
}

int
__wrap_rte_eth_macaddr_get(uint16_t port_id, struct rte_ether_addr *mac)
{
	memset(mac, 0, sizeof(*mac));
	mac->addr_bytes[5] = (uint8_t)port_id;
	return 0;
}

int
__wrap_rte_eth_dev_flow_ctrl_get(uint16_t port_id, struct rte_eth_fc_conf *fc)
{
	(void)port_id;
	(void)fc;
	return -ENOTSUP;
}

int
__wrap_rte_eth_promiscuous_enable(uint16_t port_id)
{
	(void)port_id;
	return 0;
}

int
__wrap_rte_eth_allmulticast_enable(uint16_t port_id)
{
	(void)port_id;
	return 0;
}

int
__wrap_rte_eth_dev_start(uint16_t port_id)
{
	(void)port_id;
	return 0;
}

int
__wrap_rte_eth_dev_stop(uint16_t port_id)
{
	(void)port_id;
	return 0;
}

int
__wrap_rte_eth_dev_close(uint16_t port_id)
{
	(void)port_id;
	return 0;
}

int
__wrap_rte_eth_dev_socket_id(uint16_t port_id)
{
	(void)port_id;
	return 0;
}

int
__wrap_rte_eth_link_get_nowait(uint16_t port_id, struct rte_eth_link *link)
{
	(void)port_id;
	*link = nic_link;
	return 0;
}

/* --- the set-up under test --- */

static struct rte_mempool *const pool = (struct rte_mempool *)&got; /* never dereferenced */
static struct rsw_config *cfg;

/* A 100G NIC with RSS over 16 queues, link down until a test brings it up. */
static int
setup(void **state)
{
	unsigned int i;

	(void)state;
	memset(&nic, 0, sizeof(nic));
	memset(got, 0, sizeof(got));
	nic.driver_name = "net_fake";
	nic.max_rx_queues = MAXQ;
	nic.max_tx_queues = MAXQ;
	nic.flow_type_rss_offloads = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP;
	nic.hash_key_size = 40;
	nic.rx_offload_capa = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_RSS_HASH;
	nic.tx_offload_capa = RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	nic.rx_desc_lim = (struct rte_eth_desc_lim){.nb_max = 4096, .nb_min = 64, .nb_align = 32};
	nic.tx_desc_lim = nic.rx_desc_lim;
	nic.min_mtu = 68;
	nic.max_mtu = 9600;
	memset(&nic_link, 0, sizeof(nic_link));
	nic_link.link_speed = RTE_ETH_SPEED_NUM_NONE;
	rsw_ctl.n_workers = 4;
	for (i = 0; i < 4; i++) {
		memset(&rsw_ctl.workers[i], 0, sizeof(rsw_ctl.workers[i]));
		rsw_ctl.workers[i].lcore = i + 1;
	}
	cfg = NULL;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	rsw_ports_close();
	rsw_config_free(cfg);
	cfg = NULL;
	return 0;
}

/* Load yaml and set its ports up on 4 workers: 0, or the error in err. */
static int
start(const char *yaml, char *msg, size_t len)
{
	int ret;

	cfg = expect_ok(yaml);
	rsw_ctl.cfg = cfg;
	rsw_dp.n_ports = cfg->n_ports;
	ret = rsw_ports_setup(cfg, pool, 4, msg, len);
	if (ret == 0) {
		uint16_t p;

		for (p = 0; p < cfg->n_ports; p++) /* as main.c does */
			rsw_qos.port[p].speed_bps = rsw_port_speed(p);
	}
	return ret;
}

#define NIC_PORTS                                                                                  \
	"ports:\n"                                                                                 \
	"  - name: p0\n"                                                                           \
	"    devargs: 0000:3b:00.0\n"

static void
test_rss_queues_desc_pool(void **state)
{
	char msg[512];
	uint8_t key[40];
	unsigned int q;

	(void)state;
	assert_int_equal(start("switch: { name: s }\n" NIC_PORTS "    rx_desc: 2048\n"
			       "    tx_desc: 512\n"
			       "  - { name: p1, devargs: 0000:3b:00.1 }\n",
			       msg, sizeof(msg)),
			 0);
	/* One rx queue per worker, RSS over IP/UDP/TCP with railsw's fixed key. */
	assert_int_equal(got[0].nrxq, 4);
	assert_int_equal(got[0].n_rx_setup, 4);
	assert_true(got[0].ntxq >= 1);
	assert_int_equal(got[0].n_tx_setup, got[0].ntxq);
	assert_int_equal(got[0].conf.rxmode.mq_mode, RTE_ETH_MQ_RX_RSS);
	assert_int_equal(got[0].conf.rx_adv_conf.rss_conf.rss_hf,
			 RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP);
	assert_int_equal(got[0].conf.rx_adv_conf.rss_conf.rss_key_len, 40);
	rsw_port_rss_key(false, key, sizeof(key));
	assert_memory_equal(got[0].key, key, 40);
	assert_memory_equal(got[0].key, rsw_lb_default_rss_key, 40);
	assert_true(got[0].conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_RSS_HASH);
	assert_true(got[0].conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM);
	assert_true(rsw_port_rss_hash(0));
	/* The configured descriptors, the default (1024) where not given; the pool given. */
	for (q = 0; q < 4; q++) {
		assert_int_equal(got[0].rx_desc[q], 2048);
		assert_int_equal(got[1].rx_desc[q], RSW_CFG_RX_DESC);
		assert_ptr_equal(got[0].rx_pool[q], pool);
	}
	for (q = 0; q < got[0].ntxq; q++) {
		assert_int_equal(got[0].tx_desc[q], 512);
		/* Neither port has LLR, one pool: the PMD may free sent mbufs fast. */
		assert_true(got[0].tx_offloads[q] & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE);
	}
	assert_true(got[0].conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE);
	/* The four queues of each port go to the four workers. */
	assert_int_equal(rsw_ctl.workers[0].n_rxq + rsw_ctl.workers[1].n_rxq +
				 rsw_ctl.workers[2].n_rxq + rsw_ctl.workers[3].n_rxq,
			 8);
}

/* With switch.rss.symmetric the key is the 0x6d5a pattern, and the Toeplitz hash of a flow's
 * two directions is the same: both meet one worker. */
static void
test_rss_symmetric(void **state)
{
	union rte_thash_tuple a, b;
	char msg[512];

	(void)state;
	assert_int_equal(start("switch: { name: s, rss: { symmetric: true } }\n" NIC_PORTS, msg,
			       sizeof(msg)),
			 0);
	assert_int_equal(got[0].conf.rx_adv_conf.rss_conf.rss_key_len, 40);
	assert_int_equal(got[0].key[0], 0x6d);
	assert_int_equal(got[0].key[1], 0x5a);
	assert_int_equal(got[0].key[38], 0x6d);
	assert_int_equal(got[0].key[39], 0x5a);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.v4.src_addr = 0x0a000001;
	a.v4.dst_addr = 0x0a640207;
	a.v4.sport = 4791;
	a.v4.dport = 50123;
	b.v4.src_addr = a.v4.dst_addr;
	b.v4.dst_addr = a.v4.src_addr;
	b.v4.sport = a.v4.dport;
	b.v4.dport = a.v4.sport;
	assert_int_equal(rte_softrss((uint32_t *)&a, RTE_THASH_V4_L4_LEN, got[0].key),
			 rte_softrss((uint32_t *)&b, RTE_THASH_V4_L4_LEN, got[0].key));
	/* The fixed (default) key does not have that property: the test can tell. */
	assert_int_not_equal(
		rte_softrss((uint32_t *)&a, RTE_THASH_V4_L4_LEN, rsw_lb_default_rss_key),
		rte_softrss((uint32_t *)&b, RTE_THASH_V4_L4_LEN, rsw_lb_default_rss_key));
}

/* LLR keeps a reference to every frame sent (its replay ring): the PMD must not free sent
 * mbufs without looking at their reference count. */
static void
test_llr_no_fast_free(void **state)
{
	char msg[512];
	unsigned int q;

	(void)state;
	assert_int_equal(start("switch: { name: s }\n" NIC_PORTS "    llr: true\n"
			       "  - { name: p1, devargs: 0000:3b:00.1 }\n",
			       msg, sizeof(msg)),
			 0);
	assert_int_equal(got[0].nrxq, 1); /* one ordered stream */
	assert_false(got[0].conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE);
	for (q = 0; q < got[0].ntxq; q++)
		assert_false(got[0].tx_offloads[q] & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE);
	/* The port without LLR keeps it. */
	assert_true(got[1].conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE);
}

/* A count the PMD cannot take is refused with the line it was given on; a default that does
 * not fit is brought within the PMD's limits. */
static void
test_desc_refused(void **state)
{
	char msg[512];

	(void)state;
	assert_int_not_equal(
		start("switch: { name: s }\n" NIC_PORTS "    rx_desc: 8192\n", msg, sizeof(msg)),
		0);
	assert_string_equal(msg, "t.yaml:5: port p0: rx_desc 8192: the net_fake PMD takes "
				 "64..4096 descriptors per queue, a multiple of 32");
	assert_int_equal(got[0].n_rx_setup, 0);
	teardown(state);
	setup(state);
	assert_int_not_equal(
		start("switch: { name: s }\n" NIC_PORTS "    tx_desc: 100\n", msg, sizeof(msg)), 0);
	assert_string_equal(msg, "t.yaml:5: port p0: tx_desc 100: the net_fake PMD takes "
				 "64..4096 descriptors per queue, a multiple of 32");
	teardown(state);
	setup(state);
	nic.rx_desc_lim.nb_max = 512;
	nic.tx_desc_lim.nb_max = 256;
	assert_int_equal(start("switch: { name: s }\n" NIC_PORTS, msg, sizeof(msg)), 0);
	assert_int_equal(got[0].rx_desc[0], 512);
	assert_int_equal(got[0].tx_desc[0], 256);
}

/* The link came up after start: the shaper and PFC timing take its speed, not the one read
 * at start (none); a port with `speed:` keeps its own. */
static void
test_speed_read_again(void **state)
{
	char msg[512];

	(void)state;
	assert_int_equal(start("switch: { name: s }\n" NIC_PORTS
			       "  - { name: p1, devargs: 0000:3b:00.1, speed: 10G }\n",
			       msg, sizeof(msg)),
			 0);
	assert_int_equal(rsw_qos.port[0].speed_bps, 0);
	assert_int_equal(rsw_qos.port[1].speed_bps, 10000000000ull);
	assert_int_equal(rsw_ports_speed_poll(), 0); /* still down */
	nic_link.link_speed = RTE_ETH_SPEED_NUM_100G;
	nic_link.link_status = RTE_ETH_LINK_UP;
	assert_int_equal(rsw_ports_speed_poll(), 1);
	assert_int_equal(rsw_qos.port[0].speed_bps, 100000000000ull);
	assert_int_equal(rsw_qos.port[1].speed_bps, 10000000000ull);
	assert_int_equal(rsw_ports_speed_poll(), 0); /* nothing new */
	nic_link.link_speed = RTE_ETH_SPEED_NUM_25G; /* renegotiated */
	assert_int_equal(rsw_ports_speed_poll(), 1);
	assert_int_equal(rsw_qos.port[0].speed_bps, 25000000000ull);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rss_queues_desc_pool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rss_symmetric, setup, teardown),
		cmocka_unit_test_setup_teardown(test_llr_no_fast_free, setup, teardown),
		cmocka_unit_test_setup_teardown(test_desc_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_speed_read_again, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
