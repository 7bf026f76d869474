/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of live reload (control/tables/reload.c, rsw_ctl_reload): a missing or bad file
 * is refused with the loader's "FILE:LINE: ..." and the old configuration and tables keep
 * running; a file that changes what needs a restart (ports, devargs, buffer.total, the
 * lossless set, ...) is refused with "requires restart: KEY"; a good file changes routes,
 * neighbours and QoS live: the generation goes up by one, the published tables are the new
 * file's, its static neighbours are installed and the ones it dropped are resolved anew; a
 * changed kernel_interfaces.punt map reaches the punt policers live; impairments switched on
 * keep the port to one sender while they run.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>
#include <jansson.h>

#include "ctl_test.h"
#include "rsw_link.h"
#include "rsw_link_ctl.h"
#include "rsw_punt_dp.h"
#include "rsw_reload.h"

#define CTL_TC 7

/* Lines as numbered. */
static const char base[] =
	"switch: { name: ut }\n"                                                 /* 1 */
	"ports:\n"                                                               /* 2 */
	"  - { name: p0, devargs: net_null0, ipv4: 10.0.1.254/24, mtu: 1500 }\n" /* 3 */
	"  - { name: p1, devargs: net_null1, ipv4: 10.0.2.254/24 }\n"            /* 4 */
	"neighbors:\n"                                                           /* 5 */
	"  - { ip: 10.0.2.5, mac: 02:aa:00:00:00:05, port: p1 }\n"               /* 6 */
	"routes:\n"                                                              /* 7 */
	"  - { prefix: 10.9.0.0/16, nexthops: [10.0.2.5] }\n"                    /* 8 */
	"qos:\n"                                                                 /* 9 */
	"  dscp_to_tc: { 26: 3 }\n"                                              /* 10 */
	"  lossless: [3]\n"                                                      /* 11 */
	"  buffer: { total: 4MB }\n";                                            /* 12 */

static const struct rsw_config *old_cfg;
static const struct rsw_tables *old_tables;

static int
setup(void **state)
{
	(void)state;
	ct_start(base);
	old_cfg = rsw_ctl.cfg;
	old_tables = rsw_fib_main.tables;
	return 0;
}

/* Write yaml as name and reload it; the reply. */
static json_t *
reload_text(const char *name, const char *yaml)
{
	char path[128];

	ct_write(name, yaml, path);
	return rsw_ctl_reload(path);
}

/* The reply is {"error": msg}. */
static void
expect_error(json_t *r, const char *msg)
{
	const char *e = json_string_value(json_object_get(r, "error"));

	assert_non_null(r);
	if (e == NULL || strcmp(e, msg) != 0)
		print_error("expected: %s\n     got: %s\n", msg, e ? e : "(no error)");
	assert_non_null(e);
	assert_string_equal(e, msg);
	json_decref(r);
}

/* Nothing changed: the same configuration, generation and tables. */
static void
expect_unchanged(void)
{
	const struct rsw_result *r;

	assert_ptr_equal(rsw_ctl.cfg, old_cfg);
	assert_string_equal(rsw_ctl.cfg->path, ct_path);
	assert_int_equal(rsw_ctl.generation, 1);
	assert_ptr_equal(rsw_fib_main.tables, old_tables);
	assert_int_equal(rsw_fib_main.tables->generation, 1);
	assert_int_equal(rsw_fib_main.tables->dscp_to_tc[26], 3);
	r = ct_route4(10, 9, 1, 1);
	assert_non_null(r);
	assert_int_equal(r->neigh, ct_neigh4(10, 0, 2, 5));
}

/* -- refused -- */

static void
test_missing_file(void **state)
{
	json_t *r = rsw_ctl_reload("/nonexistent/railsw.yaml");
	const char *e = json_string_value(json_object_get(r, "error"));

	(void)state;
	assert_non_null(e);
	assert_non_null(strstr(e, "/nonexistent/railsw.yaml"));
	json_decref(r);
	expect_unchanged();
}

static void
test_bad_file_keeps_old(void **state)
{
	char msg[256];

	(void)state;
	/* An unknown key on line 10. */
	snprintf(msg, sizeof(msg), "%s/bad.yaml:10: unknown key 'dscp_to_cos' in 'qos'", ct_dir);
	expect_error(reload_text("bad.yaml", ct_rep(base, "dscp_to_tc", "dscp_to_cos")), msg);
	expect_unchanged();
	/* A next hop no port reaches, on line 8. */
	snprintf(msg, sizeof(msg),
		 "%s/bad.yaml:8: next hop 10.0.9.1 is not resolvable: it is in no port's "
		 "subnet and is not a static neighbor",
		 ct_dir);
	expect_error(reload_text("bad.yaml", ct_rep(base, "[10.0.2.5]", "[10.0.9.1]")), msg);
	expect_unchanged();
}

static void
test_requires_restart(void **state)
{
	static const struct {
		const char *old, *new, *key;
	} cases[] = {
		{"name: ut", "name: ut2", "switch.name"},
		{"  - { name: p1, devargs: net_null1, ipv4: 10.0.2.254/24 }\n",
		 "  - { name: p1, devargs: net_null1, ipv4: 10.0.2.254/24 }\n"
		 "  - { name: p2, devargs: net_null2 }\n",
		 "ports"},
		{"net_null0", "net_null7", "ports.p0.devargs"},
		{"name: p0", "name: q0", "ports.p0.name"},
		{"mtu: 1500", "mtu: 9000", "ports.p0.mtu"},
		{"10.0.2.254/24", "10.0.2.253/24", "ports.p1.ipv4"},
		{"total: 4MB", "total: 8MB", "qos.buffer.total"},
		{"lossless: [3]", "lossless: [3, 4]", "qos.lossless"},
		{"mtu: 1500 }", "mtu: 1500, rx_desc: 2048 }", "ports.p0.rx_desc"},
		{"mtu: 1500 }", "mtu: 1500, tx_desc: 256 }", "ports.p0.tx_desc"},
		{"name: ut }", "name: ut, rss: { symmetric: true } }", "switch.rss"},
		{"mtu: 1500", "mtu: 1500, cbfc: true", "ports.p0.cbfc"},
	};
	char msg[128];
	size_t i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		const char *yaml = ct_rep(base, cases[i].old, cases[i].new);

		snprintf(msg, sizeof(msg), "requires restart: %s", cases[i].key);
		expect_error(reload_text("restart.yaml", yaml), msg);
		expect_unchanged();
	}
	assert_int_equal(ct_queued(0) + ct_queued(1), 0);
}

/* -- applied -- */

/* The targets of the ARP requests sent on port 1, in a bit set of their last byte. */
static uint64_t
requests_sent(void)
{
	struct rte_mbuf *m;
	uint64_t set = 0;

	while ((m = ct_sent(1, CTL_TC)) != NULL) {
		const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);

		assert_int_equal(b[21], 1);
		assert_int_equal(b[40], 2); /* 10.0.2.x */
		set |= 1ull << (b[41] & 63);
		rte_pktmbuf_free(m);
	}
	return set;
}

static void
test_partial_reload(void **state)
{
	const char *yaml = ct_rep(ct_rep(ct_rep(base, "ip: 10.0.2.5, mac: 02:aa:00:00:00:05",
						"ip: 10.0.2.6, mac: 02:aa:00:00:00:06"),
					 "  - { prefix: 10.9.0.0/16, nexthops: [10.0.2.5] }\n",
					 "  - { prefix: 10.9.0.0/16, nexthops: [10.0.2.6] }\n"
					 "  - { prefix: 10.7.0.0/16, nexthops: [10.0.2.1] }\n"),
				  "26: 3", "26: 4");
	const struct rsw_result *r;
	char path[128];
	json_t *reply;
	int n5, n6, n1;
	uint64_t mac;

	(void)state;
	ct_flush();
	reply = reload_text("new.yaml", yaml);
	assert_true(json_is_true(json_object_get(reply, "ok")));
	assert_int_equal(json_integer_value(json_object_get(reply, "generation")), 2);
	json_decref(reply);

	/* The new file runs; its tables are published. */
	snprintf(path, sizeof(path), "%s/new.yaml", ct_dir);
	assert_string_equal(rsw_ctl.cfg->path, path);
	assert_int_equal(rsw_ctl.generation, 2);
	assert_int_equal(rsw_fib_main.tables->generation, 2);
	assert_int_equal(rsw_fib_main.tables->dscp_to_tc[26], 4);
	n5 = ct_neigh4(10, 0, 2, 5);
	n6 = ct_neigh4(10, 0, 2, 6);
	n1 = ct_neigh4(10, 0, 2, 1);
	assert_true(n5 >= 0 && n6 >= 0 && n1 >= 0);
	r = ct_route4(10, 9, 1, 1);
	assert_non_null(r);
	assert_int_equal(r->type, RSW_RES_GROUP);
	assert_int_equal(r->neigh, n6);
	r = ct_route4(10, 7, 1, 1);
	assert_non_null(r);
	assert_int_equal(r->neigh, n1);
	assert_int_equal(r->port, 1);
	/* The new static neighbour is published; the dropped one resolves like any other. */
	mac = rsw_fib_main.neigh[n6].mac_valid;
	assert_true(mac & RSW_NEIGH_VALID);
	assert_memory_equal(&mac, "\x02\xaa\x00\x00\x00\x06", 6);
	assert_false(rsw_fib_main.neigh[n5].mac_valid & RSW_NEIGH_VALID);
	/*
	 * Requests for the new next hop and the dropped static one. (The new static one was
	 * wanted by the table build before the neighbours were installed: one request for it may
	 * have gone out too; its answer would not override it.)
	 */
	assert_int_equal(requests_sent() & ~(1ull << 6), 1ull << 1 | 1ull << 5);

	/* No file given: the running one, edited since, is loaded again. */
	ct_write("new.yaml", ct_rep(yaml, "26: 4", "26: 5"), path);
	reply = rsw_ctl_reload(NULL);
	assert_int_equal(json_integer_value(json_object_get(reply, "generation")), 3);
	json_decref(reply);
	assert_int_equal(rsw_fib_main.tables->generation, 3);
	assert_int_equal(rsw_fib_main.tables->dscp_to_tc[26], 5);
	assert_true(rsw_fib_main.neigh[n6].mac_valid & RSW_NEIGH_VALID);

	/* A refused reload after it keeps generation 3. */
	reply = reload_text("restart.yaml", ct_rep(yaml, "total: 4MB", "total: 2MB"));
	expect_error(reply, "requires restart: qos.buffer.total");
	assert_int_equal(rsw_ctl.generation, 3);
	assert_string_equal(rsw_ctl.cfg->path, path);
	ct_flush();
}

/* -- the punt policers' rates (control.kernel_interfaces.punt) -- */

#define PUNT_HZ 1000000000ull /* a TSC of 1 GHz for the policers */

/* base with kernel interfaces whose punt: key is punt (a flow mapping, or "{}"). */
static const char *
with_punt(const char *netns, const char *punt)
{
	static char buf[2][1024];
	static int i;

	i ^= 1;
	snprintf(buf[i], sizeof(buf[i]),
		 "%scontrol:\n  kernel_interfaces: { netns: %s, punt: %s }\n", base, netns, punt);
	return buf[i];
}

/*
 * Punt n TCP SYNs to port 22 of the switch (class other) as a worker at TSC time now;
 * the frames the policer let through are taken off the ring and freed. @return their number.
 */
static unsigned int
punt_other(unsigned int n, uint64_t now)
{
	static const uint8_t eth[14] = {0x02, 0, 0, 0, 0, 1, 0x02, 0xaa, 0, 0, 0, 5, 0x08, 0x00};
	static const uint8_t ip[20] = {0x45, 0, 0,  40, 0, 0, 0,  0, 64, 6,
				       0,    0, 10, 0,  2, 5, 10, 0, 2,  254}; /* 10.0.2.5 > .254 */
	static const uint8_t tcp[20] = {0x9c, 0x40, 0, 22, [12] = 0x50, 0x02, 0xff, 0xff};
	uint8_t syn[sizeof(eth) + sizeof(ip) + sizeof(tcp)];
	struct rte_mbuf *m[64];
	unsigned int i, got;

	assert_true(n <= RTE_DIM(m));
	memcpy(syn, eth, sizeof(eth));
	memcpy(syn + sizeof(eth), ip, sizeof(ip));
	memcpy(syn + sizeof(eth) + sizeof(ip), tcp, sizeof(tcp)); /* a SYN to port 22 */
	for (i = 0; i < n; i++) {
		m[i] = ct_mbuf(syn, sizeof(syn));
		*rsw_meta(m[i]) = (struct rsw_mbuf_meta){
			.reason = RSW_PUNT_LOCAL, .kind = RSW_PK_IPV4, .l3_off = 14, .in_port = 1};
	}
	rsw_punt_enqueue(rsw_stats[rte_lcore_id()], 1, m, (uint16_t)n, now);
	got = rte_ring_dequeue_burst(rsw_dp.punt, (void **)m, RTE_DIM(m), NULL);
	rte_pktmbuf_free_bulk(m, got);
	return got;
}

/*
 * Impairments switched on at run time (a reload, or `port NAME impair`, both through
 * rsw_ctl_link_impair_set): the port is marked one-sender (the other workers no longer send
 * straight to it) while the impairments run, and the mark goes once they are off.
 */
static void
test_impair_one_sender(void **state)
{
	struct rsw_cfg_impair cfg = {.loss = 0, .loss_burst = 1, .seed = 1};
	char err[128];

	(void)state;
	assert_int_equal(rsw_dp.ports[1].one_sender, 0);
	assert_int_equal(rsw_ctl_link_impair_set(1, &cfg, err, sizeof(err)), 0);
	assert_non_null(rsw_links[1].im);
	assert_int_equal(rsw_dp.ports[1].one_sender, 1);
	assert_int_equal(rsw_dp.ports[0].one_sender, 0);
	cfg.delay_us = 10; /* changed while on: still one sender */
	assert_int_equal(rsw_ctl_link_impair_set(1, &cfg, err, sizeof(err)), 0);
	assert_int_equal(rsw_dp.ports[1].one_sender, 1);
	assert_int_equal(rsw_ctl_link_impair_set(1, NULL, err, sizeof(err)), 0);
	assert_null(rsw_links[1].im);
	assert_int_equal(rsw_dp.ports[1].one_sender, 0);
}

/*
 * A reload with another punt: map publishes the new rates to the workers (a rate of 0 drops
 * the class, a new burst is there at once); a changed netns needs a restart and keeps them.
 */
static void
test_punt_rates(void **state)
{
	struct rsw_punt_rates r;
	json_t *reply;
	uint64_t t = 10 * PUNT_HZ;

	(void)state;
	ct_stop(NULL);
	ct_start(with_punt("ut-punt", "{ other: { rate: 1000, burst: 10 } }"));
	/* What kif.c does at start. */
	rsw_config_punt_rates(rsw_ctl.cfg, &r);
	rsw_punt_configure(r.pps, r.burst, PUNT_HZ, NULL, 0, true);
	assert_int_equal(punt_other(30, t), 10);
	assert_int_equal(rsw_punt_sum(RSW_PUNT_C_other, RSW_PUNT_policed), 20);

	reply = reload_text("punt.yaml", with_punt("ut-punt", "{ other: { rate: 0 } }"));
	assert_true(json_is_true(json_object_get(reply, "ok")));
	json_decref(reply);
	rsw_punt_rates_get(&r);
	assert_int_equal(r.pps[RSW_PUNT_C_other], 0);
	assert_int_equal(r.burst[RSW_PUNT_C_other], 200); /* the default again */
	assert_int_equal(r.pps[RSW_PUNT_C_arp], 2000);
	t += PUNT_HZ; /* a second later: nothing of the class passes */
	assert_int_equal(punt_other(20, t), 0);
	assert_int_equal(rsw_punt_sum(RSW_PUNT_C_other, RSW_PUNT_policed), 40);

	reply = reload_text(
		"punt.yaml",
		with_punt("ut-punt", "{ other: { rate: 1000, burst: 3 }, arp: { rate: 7 } }"));
	assert_true(json_is_true(json_object_get(reply, "ok")));
	json_decref(reply);
	assert_int_equal(punt_other(10, t), 3); /* at the same instant: the new burst */
	assert_int_equal(punt_other(10, t + 2 * PUNT_HZ / 1000), 2); /* then 1000/s */
	assert_int_equal(rsw_punt_sum(RSW_PUNT_C_other, RSW_PUNT_packets), 15);

	expect_error(reload_text("punt.yaml", with_punt("ut-punt2", "{ other: { rate: 5 } }")),
		     "requires restart: control.kernel_interfaces");
	rsw_punt_rates_get(&r);
	assert_int_equal(r.pps[RSW_PUNT_C_other], 1000);
	assert_int_equal(r.burst[RSW_PUNT_C_other], 3);
	assert_int_equal(r.pps[RSW_PUNT_C_arp], 7);
	/* No punt: key: the defaults, live too. */
	reply = reload_text("punt.yaml", with_punt("ut-punt", "{}"));
	assert_true(json_is_true(json_object_get(reply, "ok")));
	json_decref(reply);
	rsw_punt_rates_get(&r);
	assert_int_equal(r.pps[RSW_PUNT_C_other], 1000);
	assert_int_equal(r.burst[RSW_PUNT_C_other], 200);
	assert_int_equal(r.pps[RSW_PUNT_C_arp], 2000);
	ct_flush();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_missing_file, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_bad_file_keeps_old, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_requires_restart, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_partial_reload, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_punt_rates, setup, ct_stop),
		cmocka_unit_test_setup_teardown(test_impair_one_sender, setup, ct_stop),
	};
	int ret;

	if (ct_eal_init("reload") != 0)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	ct_eal_fini();
	return ret;
}
