/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of next-hop group liveness (control/tables/liveness.c): out-of-range members
 * are never live; a member is not live while its port is administratively down, while its
 * link is down (ring PMD ports, whose link can be set down; a TAP port's link does not
 * count), or once its neighbour's resolution failed, and is live again when that ends; the
 * members down for their neighbour alone are the ones the workers may send to, to ask it
 * again (rsw_lb_ask); the masks the workers read (rsw_lb_down) follow, per group, and a
 * generation about to be published gets masks by its own group numbering; the module, on the
 * registry's schedule, sees a link go down or come up within 5 ms.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>

#include "ctl_test.h"
#include "rsw_lb.h"
#include "rsw_liveness.h"
#include "rsw_module.h"

static const char yaml[] = "switch: { name: ut }\n"
			   "ports:\n"
			   "  - { name: p0, devargs: net_null0, ipv4: 10.0.1.254/24 }\n"
			   "  - { name: p1, devargs: net_null1, ipv4: 10.0.2.254/24 }\n"
			   "  - { name: p2, devargs: 'net_tap2,iface=ut2', ipv4: 10.0.3.254/24 }\n"
			   "neighbors:\n"
			   "  - { ip: 10.0.2.5, mac: 02:aa:00:00:00:05, port: p1 }\n"
			   "  - { ip: 10.0.3.5, mac: 02:aa:00:00:00:06, port: p2 }\n"
			   "routes:\n"
			   "  - { prefix: 10.9.0.0/16, nexthops: [10.0.2.5, 10.0.3.5] }\n"
			   "  - { prefix: 10.8.0.0/16, nexthops: [10.0.2.1, 10.0.3.5] }\n";

static struct rte_ring *rx[2], *tx[2];
static uint16_t eth[2]; /* ring PMD ports behind p1 and p2 */

static int
setup(void **state)
{
	(void)state;
	ct_start(yaml);
	return 0;
}

/* Group of route prefix a.b.0.0/16. */
static uint32_t
group_of(uint8_t a, uint8_t b)
{
	const struct rsw_result *r = ct_route4(a, b, 0, 1);

	assert_non_null(r);
	assert_int_equal(r->type, RSW_RES_GROUP);
	return r->id;
}

/* Members of group g live now: a bit mask, from rsw_ctl_lb_member_up and rsw_lb_down. */
static uint16_t
live(uint32_t g)
{
	uint16_t mask = 0, down = __atomic_load_n(&rsw_lb_down[g], __ATOMIC_RELAXED);
	uint32_t j;

	for (j = 0; j < RSW_MAX_NEXTHOPS; j++)
		if (rsw_ctl_lb_member_up(g, j))
			mask |= (uint16_t)(1u << j);
	assert_int_equal(mask, (uint16_t)~down);
	return mask;
}

/* -- bad input -- */

static void
test_out_of_range(void **state)
{
	const uint32_t g = group_of(10, 9);

	(void)state;
	assert_false(rsw_ctl_lb_member_up(RSW_MAX_GROUPS, 0));
	assert_false(rsw_ctl_lb_member_up(UINT32_MAX, 0));
	assert_false(rsw_ctl_lb_member_up(g, RSW_MAX_NEXTHOPS));
	/* A group of two has no third member. */
	assert_false(rsw_ctl_lb_member_up(g, 2));
	assert_false(rsw_ctl_lb_member_up(g, 15));
	/* No tables: nothing is computed, nothing changes. */
	rsw_port_set_admin(1, true);
	rsw_ctl_lb_masks(NULL);
	assert_int_equal(live(g), 0x3);
	rsw_port_set_admin(1, false);
}

/* -- what makes a member not live -- */

static void
test_admin_down(void **state)
{
	const uint32_t a = group_of(10, 9), b = group_of(10, 8);

	(void)state;
	assert_int_not_equal(a, b);
	assert_int_equal(live(a), 0x3);
	assert_int_equal(live(b), 0x3);
	rsw_port_set_admin(1, true);
	/* Seen at the next poll, not before. */
	assert_int_equal(live(a), 0x3);
	rsw_ctl_lb_poll();
	assert_int_equal(live(a), 0x2); /* member 0, 10.0.2.5 on p1 */
	assert_int_equal(live(b), 0x2); /* member 0, 10.0.2.1 on p1 */
	rsw_port_set_admin(2, true);
	rsw_ctl_lb_poll();
	assert_int_equal(live(a), 0x0);
	rsw_port_set_admin(1, false);
	rsw_port_set_admin(2, false);
	rsw_ctl_lb_poll();
	assert_int_equal(live(a), 0x3);
	assert_int_equal(live(b), 0x3);
}

static void
test_link_down(void **state)
{
	const uint32_t a = group_of(10, 9);

	(void)state;
	rsw_dp.ports[1].eth_port = eth[0];
	rsw_dp.ports[2].eth_port = eth[1];
	rsw_ctl_lb_poll();
	assert_int_equal(live(a), 0x3);
	assert_int_equal(rte_eth_dev_set_link_down(eth[0]), 0);
	rsw_ctl_lb_poll();
	assert_int_equal(live(a), 0x2);
	/* p2 is a TAP port: its link state says nothing (down once moved to a namespace). */
	assert_int_equal(rte_eth_dev_set_link_down(eth[1]), 0);
	rsw_ctl_lb_poll();
	assert_int_equal(live(a), 0x2);
	assert_int_equal(rte_eth_dev_set_link_up(eth[0]), 0);
	assert_int_equal(rte_eth_dev_set_link_up(eth[1]), 0);
	rsw_ctl_lb_poll();
	assert_int_equal(live(a), 0x3);
}

static void
test_neighbour_failed(void **state)
{
	const uint32_t a = group_of(10, 9), b = group_of(10, 8);
	uint8_t f[60] = {0};
	uint32_t be;

	(void)state;
	/* 10.0.2.1 is being resolved: still live (its packets wait for it). */
	rsw_ctl_lb_poll();
	assert_int_equal(live(b), 0x3);
	rsw_ctl_neigh_timer(2000);
	rsw_ctl_neigh_timer(3000);
	rsw_ctl_lb_poll();
	assert_int_equal(live(b), 0x3);
	assert_int_equal(rsw_lb_ask[b], 0);
	/* No answer to the third request: failed, the member is down; the other group keeps both. */
	rsw_ctl_neigh_timer(4000);
	rsw_ctl_lb_poll();
	assert_int_equal(live(b), 0x2);
	assert_int_equal(live(a), 0x3);
	/* Down for its neighbour alone: a member to ask it again through. */
	assert_int_equal(rsw_lb_ask[b], 0x1);
	assert_int_equal(rsw_lb_ask[a], 0);
	/* Its port down too: not one to send to. */
	rsw_port_set_admin(1, true);
	rsw_ctl_lb_poll();
	assert_int_equal(live(b), 0x2);
	assert_int_equal(rsw_lb_ask[b], 0);
	rsw_port_set_admin(1, false);
	rsw_ctl_lb_poll();
	assert_int_equal(rsw_lb_ask[b], 0x1);

	/* It answers after all (an ARP reply to the switch): live again. */
	memcpy(f,
	       "\x02\x00\x00\x00\x00\x02\x02\xbb\x00\x00\x00\x01\x08\x06\x00\x01\x08\x00\x06\x04"
	       "\x00\x02\x02\xbb\x00\x00\x00\x01",
	       28);
	be = rte_cpu_to_be_32(0x0a000201); /* 10.0.2.1 */
	memcpy(f + 28, &be, 4);
	be = rte_cpu_to_be_32(0x0a0002fe); /* 10.0.2.254 */
	memcpy(f + 38, &be, 4);
	ct_now = 4500;
	ct_punt(ct_mbuf(f, sizeof(f)), RSW_PUNT_ARP, 1, RSW_PK_ARP, 14);
	rsw_ctl_lb_poll();
	assert_int_equal(live(b), 0x3);
	assert_int_equal(rsw_lb_ask[b], 0);
	ct_flush();
}

static void
test_masks_for_new_generation(void **state)
{
	char path[128], err[RSW_CFG_ERR_LEN];
	struct rsw_config *cfg;
	struct rsw_tables *t;

	(void)state;
	/* One group in the new generation, numbered 0, its member 1 on p1. */
	ct_write("next.yaml",
		 ct_rep(ct_rep(yaml,
			       "  - { prefix: 10.8.0.0/16, nexthops: [10.0.2.1, 10.0.3.5] }\n", ""),
			"[10.0.2.5, 10.0.3.5]", "[10.0.3.5, 10.0.2.5]"),
		 path);
	cfg = rsw_config_load(path, err, sizeof(err));
	assert_non_null(cfg);
	t = rsw_ctl_tables_build(cfg, 2, err, sizeof(err));
	assert_non_null(t);
	assert_int_equal(t->n_groups, 1);
	rsw_port_set_admin(1, true);
	rsw_ctl_lb_masks(t);
	assert_int_equal(live(0), 0x1);
	/* The running generation's masks again: its group 0 has member 0 on p1. */
	assert_int_equal(group_of(10, 9), 0);
	rsw_ctl_lb_poll();
	assert_int_equal(live(0), 0x2);
	rsw_port_set_admin(1, false);
	rsw_tables_free(t);
	rsw_config_free(cfg);
	ct_flush();
}

/*
 * The liveness module on the registry's schedule (poll once period_ms has passed since its
 * last poll): polled from t ms for up to ms milliseconds, 1 ms per turn.
 */
static void
module_turns(const struct rsw_module *lv, uint64_t *t, uint64_t *last, unsigned int ms)
{
	unsigned int i;

	for (i = 0; i < ms; i++, (*t)++)
		if (*t - *last >= lv->period_ms) {
			lv->poll(*t);
			*last = *t;
		}
}

static void
test_module_sees_link_soon(void **state)
{
	const uint32_t a = group_of(10, 9);
	const struct rsw_module *lv = rsw_modules_first();
	uint64_t t = 5000, last = 5000;

	(void)state;
	while (lv != NULL && strcmp(lv->name, "liveness") != 0)
		lv = lv->next;
	assert_non_null(lv);
	assert_non_null(lv->poll);
	rsw_dp.ports[1].eth_port = eth[0];
	lv->poll(t);
	assert_int_equal(live(a), 0x3);
	/* A link that goes down, then comes up (a memif peer that connects), is seen within
	 * 5 ms each time, not at the next full recomputation. */
	assert_int_equal(rte_eth_dev_set_link_down(eth[0]), 0);
	module_turns(lv, &t, &last, 6);
	assert_int_equal(live(a), 0x2);
	assert_int_equal(rte_eth_dev_set_link_up(eth[0]), 0);
	module_turns(lv, &t, &last, 6);
	assert_int_equal(live(a), 0x3);
	/* Nothing changed: the masks stay. */
	module_turns(lv, &t, &last, 200);
	assert_int_equal(live(a), 0x3);
}

/* Two ring PMD ports, started (link up). */
static int
rings_start(void)
{
	struct rte_eth_conf conf = {0};
	char name[32];
	int i, ret;

	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "ut_lv_rx%d", i);
		rx[i] = rte_ring_create(name, 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "ut_lv_tx%d", i);
		tx[i] = rte_ring_create(name, 64, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (rx[i] == NULL || tx[i] == NULL)
			return -1;
		snprintf(name, sizeof(name), "lv%d", i);
		ret = rte_eth_from_rings(name, &rx[i], 1, &tx[i], 1, SOCKET_ID_ANY);
		if (ret < 0)
			return -1;
		eth[i] = (uint16_t)ret;
		if (rte_eth_dev_configure(eth[i], 1, 1, &conf) != 0 ||
		    rte_eth_rx_queue_setup(eth[i], 0, 64, SOCKET_ID_ANY, NULL, ct_pool) != 0 ||
		    rte_eth_tx_queue_setup(eth[i], 0, 64, SOCKET_ID_ANY, NULL) != 0 ||
		    rte_eth_dev_start(eth[i]) != 0)
			return -1;
	}
	return 0;
}

static void
rings_stop(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		rte_eth_dev_stop(eth[i]);
		rte_eth_dev_close(eth[i]);
		rte_ring_free(rx[i]);
		rte_ring_free(tx[i]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_out_of_range, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_admin_down, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_link_down, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_neighbour_failed, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_masks_for_new_generation, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_module_sees_link_soon, setup, ct_stop),
	};
	int ret;

	if (ct_eal_init("liveness") != 0 || rings_start() != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	rings_stop();
	ct_eal_fini();
	return ret;
}
