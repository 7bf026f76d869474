/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the configuration loader (control/config/): good configurations (docs/config.md's
 * example, defaults, the JSON view), loading from files, the files shipped in config/, port
 * impairments and LLR, route distances. Runs from control/test (meson workdir).
 */

#include <errno.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include "cfg_test.h"
#include "rsw_config.h"

/* Good configurations. */

/* docs/config.md's example, less the keys of features not built yet. */
static const char full_yaml[] =
	"switch:\n"
	"  name: leaf-su0-r1\n"
	"  role: leaf                  # leaf | spine\n"
	"  idle_sleep_us: 100\n"
	"  router_id: 10.255.0.1\n"
	"  icmp_unreachable: { enable: true, rate_pps: 100 }\n"
	"\n"
	"ports:\n"
	"  - name: p0\n"
	"    devargs: net_tap0,iface=rsw-p0\n"
	"    mac: 02:00:00:00:00:01\n"
	"    speed: 10M\n"
	"    ipv4: 10.0.1.254/24\n"
	"    ipv6: fd00:0:1::fe/64\n"
	"    mtu: 9000\n"
	"    role: downlink\n"
	"  - name: p1\n"
	"    devargs: net_tap1,iface=rsw-p1\n"
	"    speed: 2.5G\n"
	"    ipv4: 10.0.2.254/24\n"
	"    role: uplink\n"
	"  - name: p2\n"
	"    devargs: 0000:3b:00.0\n"
	"    ipv4: 10.0.3.254/24\n"
	"    ipv6: fd00:0:3::fe/64\n"
	"\n"
	"neighbors:\n"
	"  - { ip: 10.0.1.1, mac: 02:00:00:00:01:01, port: p0 }\n"
	"  - { ip: 172.16.0.1, mac: 02:00:00:00:01:02, port: p2 }\n"
	"  - ip: fd00:0:1::1\n"
	"    mac: 02:00:00:00:01:03\n"
	"    port: p0\n"
	"\n"
	"routes:\n"
	"  - prefix: 10.9.0.0/16\n"
	"    nexthops: [10.0.2.1, 10.0.3.1]\n"
	"    weights: [1, 3]\n"
	"    lb: hash\n"
	"  - prefix: 10.8.7.6/16\n"
	"    nexthops: 172.16.0.1\n"
	"  - prefix: fd09::/48\n"
	"    nexthops: [fd00:0:1::1, fd00:0:3::7]\n"
	"  - prefix: 0.0.0.0/0\n"
	"    nexthops: [10.0.2.1]\n"
	"\n"
	"load_balance:\n"
	"  mode: hash\n"
	"  per_tc: { 3: hash }\n"
	"  hash_fields: [src_ip, dst_ip, proto, src_port, dst_port, roce_qp, uet_entropy, flow_label]\n"
	"  hash_algorithm: toeplitz\n"
	"  spray: random\n"
	"  flowlet_timeout_us: 75\n"
	"  hash_seed: 4294967295\n"
	"  hash_symmetric: true\n"
	"\n"
	"qos:\n"
	"  trust: dscp\n"
	"  dscp_to_tc: { 26: 3, 48: 6, 46: 7 }\n"
	"  pcp_to_tc: { 3: 3, 6: 6 }\n"
	"  default_tc: 1\n"
	"\n"
	"control:\n"
	"  socket: /tmp/railsw-test.sock\n"
	"  telemetry: false\n"
	"  metrics_listen: 127.0.0.1:9417\n";

/* ports[].rx_desc / tx_desc and switch.rss: the values and the lines (start refuses a count
 * the PMD cannot take with this line), and `show config`'s JSON. */
static void
test_desc_rss(void **state)
{
	struct rsw_config *cfg = expect_ok("switch:\n"
					   "  name: s\n"
					   "  rss: { symmetric: true }\n"
					   "ports:\n"
					   "  - name: p0\n"
					   "    devargs: net_tap0\n"
					   "    rx_desc: 2048\n"
					   "    tx_desc: 512\n"
					   "  - { name: p1, devargs: net_tap1 }\n"
					   "load_balance: { hash_algorithm: nic }\n");
	json_t *j = rsw_config_to_json(cfg), *p;

	(void)state;
	assert_true(cfg->sw.rss_symmetric);
	assert_int_equal(cfg->ports[0].rx_desc, 2048);
	assert_int_equal(cfg->ports[0].tx_desc, 512);
	assert_int_equal(cfg->ports[0].rx_desc_line, 7);
	assert_int_equal(cfg->ports[0].tx_desc_line, 8);
	assert_int_equal(cfg->ports[1].rx_desc, RSW_CFG_RX_DESC);
	assert_int_equal(cfg->ports[1].rx_desc_line, 0);
	assert_int_equal(cfg->lb.hash_algorithm, RSW_HASH_NIC);
	assert_non_null(j);
	p = json_array_get(json_object_get(j, "ports"), 0);
	assert_int_equal(json_integer_value(json_object_get(p, "rx_desc")), 2048);
	assert_int_equal(json_integer_value(json_object_get(p, "tx_desc")), 512);
	assert_true(json_is_true(json_object_get(
		json_object_get(json_object_get(j, "switch"), "rss"), "symmetric")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "load_balance"),
							      "hash_algorithm")),
			    "nic");
	json_decref(j);
	rsw_config_free(cfg);
}

static void
test_full_example(void **state)
{
	struct rsw_config *cfg = expect_ok(full_yaml);
	const struct rsw_cfg_port *p;
	const struct rsw_cfg_route *r;
	char buf[64];
	int i;

	(void)state;
	assert_string_equal(cfg->path, "t.yaml");
	assert_string_equal(cfg->sw.name, "leaf-su0-r1");
	assert_int_equal(cfg->sw.role, RSW_ROLE_LEAF);
	assert_int_equal(cfg->sw.idle_sleep_us, 100);
	assert_int_equal(cfg->sw.shaper_burst_us, 100);
	assert_true(cfg->sw.has_router_id);
	assert_string_equal(rsw_ip_str(&cfg->sw.router_id, buf, sizeof(buf)), "10.255.0.1");
	assert_true(cfg->sw.icmp_unreachable);
	assert_int_equal(cfg->sw.icmp_rate_pps, 100);
	assert_int_equal(cfg->sw.line, 1);

	assert_int_equal(cfg->n_ports, 3);
	p = &cfg->ports[0];
	assert_string_equal(p->name, "p0");
	assert_string_equal(p->devargs, "net_tap0,iface=rsw-p0");
	assert_true(p->has_mac);
	assert_memory_equal(p->mac, "\x02\x00\x00\x00\x00\x01", 6);
	assert_int_equal(p->speed_bps, 10000000ull);
	assert_true(p->has_ipv4);
	/* Host bits kept: the switch's own address. */
	assert_string_equal(rsw_prefix_str(&p->ipv4, buf, sizeof(buf)), "10.0.1.254/24");
	assert_string_equal(rsw_prefix_str(&p->ipv6, buf, sizeof(buf)), "fd00:0:1::fe/64");
	assert_int_equal(p->mtu, 9000);
	assert_int_equal(p->role, RSW_PORT_ROLE_DOWNLINK);
	assert_int_equal(p->line, 9);
	p = &cfg->ports[1];
	assert_false(p->has_mac);
	assert_int_equal(p->speed_bps, 2500000000ull);
	assert_false(p->has_ipv6);
	assert_int_equal(p->mtu, 1500);
	assert_int_equal(p->role, RSW_PORT_ROLE_UPLINK);
	assert_int_equal(cfg->ports[2].role, RSW_PORT_ROLE_NONE);
	assert_int_equal(cfg->ports[2].speed_bps, 0);
	assert_int_equal(rsw_config_port_index(cfg, "p2"), 2);
	assert_int_equal(rsw_config_port_index(cfg, "p3"), -1);

	assert_int_equal(cfg->n_neighbors, 3);
	assert_string_equal(rsw_ip_str(&cfg->neighbors[2].ip, buf, sizeof(buf)), "fd00:0:1::1");
	assert_int_equal(cfg->neighbors[1].port, 2);
	assert_int_equal(cfg->neighbors[2].line, 30);

	assert_int_equal(cfg->n_routes, 4);
	r = &cfg->routes[0];
	assert_string_equal(rsw_prefix_str(&r->prefix, buf, sizeof(buf)), "10.9.0.0/16");
	assert_int_equal(r->n_nexthops, 2);
	assert_string_equal(rsw_ip_str(&r->nexthops[1], buf, sizeof(buf)), "10.0.3.1");
	assert_int_equal(r->weights[0], 1);
	assert_int_equal(r->weights[1], 3);
	assert_int_equal(r->lb, RSW_LB_HASH);
	r = &cfg->routes[1];
	/* Route prefixes are masked. */
	assert_string_equal(rsw_prefix_str(&r->prefix, buf, sizeof(buf)), "10.8.0.0/16");
	assert_int_equal(r->n_nexthops, 1);
	assert_int_equal(r->weights[0], 1);
	assert_int_equal(r->lb, RSW_LB_UNSET);
	assert_int_equal(cfg->routes[2].prefix.ip.family, RSW_AF_INET6);
	assert_int_equal(cfg->routes[3].prefix.len, 0);

	assert_int_equal(cfg->lb.mode, RSW_LB_HASH);
	assert_int_equal(cfg->lb.per_tc[3], RSW_LB_HASH);
	assert_int_equal(cfg->lb.per_tc[0], RSW_LB_UNSET);
	assert_int_equal(cfg->lb.hash_fields, 0xff);
	assert_int_equal(cfg->lb.hash_algorithm, RSW_HASH_TOEPLITZ);
	assert_int_equal(cfg->lb.spray, RSW_SPRAY_RANDOM);
	assert_int_equal(cfg->lb.flowlet_timeout_us, 75);
	assert_int_equal(cfg->lb.hash_seed, 4294967295u);
	assert_true(cfg->lb.hash_symmetric);
	assert_false(cfg->sw.rss_symmetric);
	assert_int_equal(cfg->ports[1].rx_desc, RSW_CFG_RX_DESC);
	assert_int_equal(cfg->ports[1].tx_desc, RSW_CFG_TX_DESC);
	assert_int_equal(cfg->ports[1].rx_desc_line, 0);

	assert_int_equal(cfg->qos.trust, RSW_TRUST_DSCP);
	assert_int_equal(cfg->qos.default_tc, 1);
	for (i = 0; i < 64; i++)
		assert_int_equal(cfg->qos.dscp_to_tc[i], i == 26   ? 3
							 : i == 48 ? 6
							 : i == 46 ? 7
								   : 1);
	for (i = 0; i < 8; i++)
		assert_int_equal(cfg->qos.pcp_to_tc[i], i == 3 ? 3 : i == 6 ? 6 : 1);

	assert_string_equal(cfg->control.socket, "/tmp/railsw-test.sock");
	assert_false(cfg->control.telemetry);
	assert_true(cfg->control.has_metrics);
	assert_string_equal(cfg->control.metrics_listen, "127.0.0.1:9417");
	rsw_config_free(cfg);
}

static void
test_defaults(void **state)
{
	struct rsw_config *cfg =
		expect_ok("switch: { name: s }\nports: [{ name: p0, devargs: x }]\n");
	int i;

	(void)state;
	assert_int_equal(cfg->sw.role, RSW_ROLE_LEAF);
	assert_int_equal(cfg->sw.idle_sleep_us, 100);
	assert_false(cfg->sw.has_router_id);
	assert_true(cfg->sw.icmp_unreachable);
	assert_int_equal(cfg->sw.icmp_rate_pps, 100);
	assert_int_equal(cfg->n_ports, 1);
	assert_int_equal(cfg->ports[0].mtu, 1500);
	assert_false(cfg->ports[0].has_mac);
	assert_false(cfg->ports[0].has_ipv4);
	assert_false(cfg->ports[0].has_ipv6);
	assert_int_equal(cfg->ports[0].speed_bps, 0);
	assert_int_equal(cfg->ports[0].role, RSW_PORT_ROLE_NONE);
	assert_int_equal(cfg->n_neighbors, 0);
	assert_null(cfg->neighbors);
	assert_int_equal(cfg->n_routes, 0);
	assert_null(cfg->routes);
	assert_int_equal(cfg->lb.mode, RSW_LB_HASH);
	for (i = 0; i < RSW_N_TC; i++)
		assert_int_equal(cfg->lb.per_tc[i], RSW_LB_UNSET);
	assert_int_equal(cfg->lb.hash_fields, RSW_HF_DEFAULT);
	assert_int_equal(cfg->lb.hash_algorithm, RSW_HASH_CRC32);
	assert_int_equal(cfg->lb.spray, RSW_SPRAY_RR);
	assert_int_equal(cfg->lb.flowlet_timeout_us, 50);
	assert_int_equal(cfg->lb.hash_seed, 0);
	assert_false(cfg->lb.hash_symmetric);
	assert_int_equal(cfg->qos.trust, RSW_TRUST_DSCP);
	assert_int_equal(cfg->qos.default_tc, 0);
	for (i = 0; i < 64; i++)
		assert_int_equal(cfg->qos.dscp_to_tc[i], 0);
	assert_string_equal(cfg->control.socket, "/run/railsw/railsw.sock");
	assert_true(cfg->control.telemetry);
	assert_false(cfg->control.has_metrics);
	rsw_config_free(cfg);

	/* Empty sections are the defaults. */
	cfg = expect_ok(HEAD "neighbors:\nroutes: []\nload_balance:\nqos: {}\ncontrol: ~\n");
	assert_int_equal(cfg->n_ports, 2);
	assert_true(cfg->control.telemetry);
	rsw_config_free(cfg);
}

static void
test_misc_good(void **state)
{
	struct rsw_config *cfg;

	(void)state;
	cfg = expect_ok("switch:\n  name: a\n  role: spine\n  icmp_unreachable: false\n"
			"  idle_sleep_us: 0\n  shaper_burst_us: 5000\n"
			"ports:\n  - { name: p0, devargs: x, ipv4: 172.16.0.1/31, mtu: 68 }\n"
			"  - { name: p1, devargs: y, ipv4: 172.16.0.3/32 }\n"
			"  - { name: p2, devargs: z, ipv6: \"fd00::/64\", speed: 400G }\n"
			"routes:\n  - { prefix: 10.0.0.0/8, nexthops: [172.16.0.0] }\n"
			"qos:\n  trust: pcp\n  default_tc: 2\n  pcp_to_tc: { 0: 0 }\n"
			"control:\n  metrics_listen: \"[::1]:9417\"\n");
	assert_int_equal(cfg->sw.role, RSW_ROLE_SPINE);
	assert_false(cfg->sw.icmp_unreachable);
	assert_int_equal(cfg->sw.idle_sleep_us, 0);
	assert_int_equal(cfg->sw.shaper_burst_us, 5000);
	assert_int_equal(cfg->ports[0].mtu, 68);
	assert_int_equal(cfg->ports[2].speed_bps, 400000000000ull);
	assert_int_equal(cfg->qos.trust, RSW_TRUST_PCP);
	assert_int_equal(cfg->qos.pcp_to_tc[0], 0);
	assert_int_equal(cfg->qos.pcp_to_tc[1], 2);
	assert_int_equal(cfg->qos.dscp_to_tc[63], 2);
	assert_string_equal(cfg->control.metrics_listen, "[::1]:9417");
	rsw_config_free(cfg);

	/* Anchors and aliases are plain YAML and work. */
	cfg = expect_ok("switch: { name: a }\nports:\n  - &p { name: p0, devargs: x }\n"
			"routes: []\nneighbors: []\n");
	rsw_config_free(cfg);
	/* The same neighbour IP may not appear twice, but v4 and v6 neighbours coexist. */
	cfg = expect_ok(HEAD
			"neighbors:\n  - { ip: 10.0.9.9, mac: 02:00:00:00:01:01, port: p1 }\n"
			"  - { ip: \"fd00:9::9\", mac: 02:00:00:00:01:01, port: p1 }\n"
			"routes:\n  - { prefix: 10.9.0.0/16, nexthops: [10.0.9.9] }\n"
			"  - { prefix: 10.9.0.0/17, nexthops: [10.0.9.9] }\n"
			"  - { prefix: fd09::/32, nexthops: [\"fd00:9::9\", \"fd00:1::1\"] }\n");
	assert_int_equal(cfg->n_neighbors, 2);
	assert_int_equal(cfg->n_routes, 3);
	rsw_config_free(cfg);
}

static void
test_json(void **state)
{
	struct rsw_config *cfg = expect_ok(full_yaml);
	json_t *j = rsw_config_to_json(cfg), *p, *r;
	char *s;

	(void)state;
	assert_non_null(j);
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(j, "switch"), "name")),
		"leaf-su0-r1");
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(j, "switch"), "role")), "leaf");
	assert_true(json_is_true(json_object_get(
		json_object_get(json_object_get(j, "switch"), "icmp_unreachable"), "enable")));
	p = json_array_get(json_object_get(j, "ports"), 0);
	assert_string_equal(json_string_value(json_object_get(p, "name")), "p0");
	assert_string_equal(json_string_value(json_object_get(p, "mac")), "02:00:00:00:00:01");
	assert_int_equal(json_integer_value(json_object_get(p, "speed")), 10000000);
	assert_string_equal(json_string_value(json_object_get(p, "ipv4")), "10.0.1.254/24");
	assert_int_equal(json_integer_value(json_object_get(p, "mtu")), 9000);
	assert_string_equal(json_string_value(json_object_get(p, "role")), "downlink");
	assert_int_equal(json_integer_value(json_object_get(p, "rx_desc")), RSW_CFG_RX_DESC);
	assert_int_equal(json_integer_value(json_object_get(p, "tx_desc")), RSW_CFG_TX_DESC);
	p = json_array_get(json_object_get(j, "ports"), 2);
	assert_true(json_is_null(json_object_get(p, "mac")));
	assert_true(json_is_null(json_object_get(p, "speed")));
	assert_true(json_is_null(json_object_get(p, "role")));
	assert_int_equal(json_integer_value(json_object_get(p, "mtu")), 1500);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(j, "neighbors"), 1), "port")),
			    "p2");
	r = json_array_get(json_object_get(j, "routes"), 0);
	assert_string_equal(json_string_value(json_object_get(r, "prefix")), "10.9.0.0/16");
	assert_string_equal(json_string_value(json_array_get(json_object_get(r, "nexthops"), 1)),
			    "10.0.3.1");
	assert_int_equal(json_integer_value(json_array_get(json_object_get(r, "weights"), 1)), 3);
	assert_string_equal(json_string_value(json_object_get(r, "lb")), "hash");
	r = json_array_get(json_object_get(j, "routes"), 1);
	assert_true(json_is_null(json_object_get(r, "lb")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "load_balance"),
							      "hash_algorithm")),
			    "toeplitz");
	assert_int_equal(
		json_array_size(json_object_get(json_object_get(j, "load_balance"), "hash_fields")),
		8);
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(json_object_get(j, "qos"), "dscp_to_tc"), "46")),
			 7);
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(json_object_get(j, "qos"), "dscp_to_tc"), "0")),
			 1);
	assert_int_equal(json_object_size(json_object_get(json_object_get(j, "qos"), "dscp_to_tc")),
			 64);
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(j, "control"), "metrics_listen")),
		"127.0.0.1:9417");
	s = json_dumps(j, JSON_COMPACT);
	assert_non_null(s);
	free(s);
	json_decref(j);
	rsw_config_free(cfg);

	/* Defaults are filled in. */
	cfg = expect_ok("switch: { name: s }\nports: [{ name: p0, devargs: x }]\n");
	j = rsw_config_to_json(cfg);
	assert_non_null(j);
	assert_int_equal(
		json_integer_value(json_object_get(json_object_get(j, "switch"), "idle_sleep_us")),
		100);
	assert_true(json_is_null(json_object_get(json_object_get(j, "switch"), "router_id")));
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(j, "load_balance"), "mode")),
		"hash");
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(j, "load_balance"), "spray")),
		"round-robin");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "load_balance"),
							    "flowlet_timeout_us")),
			 50);
	assert_int_equal(
		json_array_size(json_object_get(json_object_get(j, "load_balance"), "hash_fields")),
		6);
	assert_int_equal(
		json_object_size(json_object_get(json_object_get(j, "load_balance"), "per_tc")), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "qos"), "trust")),
			    "dscp");
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(j, "control"), "socket")),
		"/run/railsw/railsw.sock");
	assert_true(json_is_true(json_object_get(json_object_get(j, "control"), "telemetry")));
	assert_true(json_is_null(json_object_get(json_object_get(j, "control"), "metrics_listen")));
	assert_int_equal(json_array_size(json_object_get(j, "routes")), 0);
	json_decref(j);
	rsw_config_free(cfg);
}

static void
test_load_file(void **state)
{
	char path[] = "/tmp/test_config_XXXXXX";
	struct rsw_config *cfg;
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(full_yaml, f);
	fclose(f);
	cfg = rsw_config_load(path, err, sizeof(err));
	assert_non_null(cfg);
	assert_string_equal(cfg->path, path);
	assert_int_equal(cfg->n_routes, 4);
	rsw_config_free(cfg);

	/* Errors name the file. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("switch:\n  name: a\n  bogus: 1\n", f);
	fclose(f);
	assert_null(rsw_config_load(path, err, sizeof(err)));
	assert_memory_equal(err, path, strlen(path));
	assert_string_equal(err + strlen(path), ":3: unknown key 'bogus' in 'switch'");

	/* An empty file. */
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_null(rsw_config_load(path, err, sizeof(err)));
	assert_string_equal(err + strlen(path), ": empty configuration");
	unlink(path);
}

/* Every configuration shipped in config/ loads. */
static void
test_shipped_configs(void **state)
{
	struct rsw_config *cfg;
	glob_t g;
	size_t i;

	(void)state;
	assert_int_equal(glob("../../config/*.yaml", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 3);
	for (i = 0; i < g.gl_pathc; i++) {
		cfg = rsw_config_load(g.gl_pathv[i], err, sizeof(err));
		if (cfg == NULL)
			print_error("%s\n", err);
		assert_non_null(cfg);
		if (strstr(g.gl_pathv[i], "/lab.yaml") != NULL) {
			assert_string_equal(cfg->sw.name, "lab");
			assert_int_equal(cfg->n_ports, 2);
			assert_int_equal(cfg->sw.idle_sleep_us, 100);
			assert_int_equal(cfg->qos.dscp_to_tc[46], 7);
			assert_string_equal(cfg->control.socket, "/run/railsw/railsw.sock");
		}
		if (strstr(g.gl_pathv[i], "/lossless-lab.yaml") != NULL) {
			const struct rsw_cfg_qos *q = &cfg->qos;

			assert_int_equal(cfg->n_ports, 3);
			assert_string_equal(cfg->ports[2].devargs, "net_tap2,iface=rsw-p2");
			assert_int_equal(cfg->ports[2].speed_bps, 10000000);
			assert_int_equal(q->dscp_to_tc[26], 3);
			assert_int_equal(q->dscp_to_tc[48], 6);
			assert_int_equal(q->n_strict, 2);
			assert_int_equal(q->dwrr[3], 4);
			assert_int_equal(q->lossless, 1u << 3);
			assert_int_equal(q->buffer_total, 4u << 20);
			assert_int_equal(q->queue_limit, 128u << 10);
			assert_int_equal(q->pfc.xoff, 32u << 10);
			assert_int_equal(q->pfc.xon, 16u << 10);
			assert_int_equal(q->pfc.headroom, 32u << 10);
			assert_true(q->ecn[0].enabled && q->ecn[3].enabled && !q->ecn[1].enabled);
			assert_int_equal(q->ecn[3].kmax, 64u << 10);
			assert_int_equal(q->pfcwd.action, RSW_PFCWD_DROP);
		}
		if (strstr(g.gl_pathv[i], "/leaf-ecmp.yaml") != NULL) {
			assert_true(cfg->n_routes >= 1);
			assert_int_equal(cfg->routes[0].n_nexthops, 4);
		}
		rsw_config_free(cfg);
	}
	globfree(&g);
}

/*
 * ports[].impair and ports[].llr: every value checked with its line; good ones load with the
 * values given and the defaults.
 */
static void
test_port_impair_llr(void **state)
{
#define PORT_WITH(x) "switch:\n  name: s1\nports:\n  - name: p0\n    devargs: net_tap0\n" x
	struct rsw_config *cfg;

	(void)state;
	expect_err(PORT_WITH("    impair: 3\n"), "t.yaml:6: 'impair' must be a mapping");
	expect_err(PORT_WITH("    impair: { lose: 0.1 }\n"),
		   "t.yaml:6: unknown key 'lose' in 'impair'; did you mean 'loss'?");
	expect_err(PORT_WITH("    impair:\n      loss: 1.5\n"),
		   "t.yaml:7: 'loss' must be a probability from 0 to 1 (got '1.5')");
	expect_err(PORT_WITH("    impair:\n      loss: -0.1\n"),
		   "t.yaml:7: 'loss' must be a probability from 0 to 1 (got '-0.1')");
	expect_err(PORT_WITH("    impair:\n      loss: nan\n"),
		   "t.yaml:7: 'loss' must be a probability from 0 to 1 (got 'nan')");
	expect_err(PORT_WITH("    impair:\n      corrupt: 0x1\n"),
		   "t.yaml:7: 'corrupt' must be a probability from 0 to 1 (got '0x1')");
	expect_err_prefix(PORT_WITH("    impair:\n      loss_burst: 0\n"),
			  "t.yaml:7: 'loss_burst' must be");
	expect_err_prefix(PORT_WITH("    impair:\n      delay_us: 1000001\n"),
			  "t.yaml:7: 'delay_us' must be");
	expect_err_prefix(PORT_WITH("    impair:\n      seed: -1\n"), "t.yaml:7: 'seed' must be");
	cfg = expect_ok(PORT_WITH("    impair:\n      loss: 0.001\n      loss_burst: 3\n"
				  "      corrupt: 1\n      delay_us: 10\n      seed: 7\n"));
	assert_true(cfg->ports[0].has_impair);
	assert_true(cfg->ports[0].impair.loss == 0.001);
	assert_int_equal(cfg->ports[0].impair.loss_burst, 3);
	assert_true(cfg->ports[0].impair.corrupt == 1.0);
	assert_int_equal(cfg->ports[0].impair.delay_us, 10);
	assert_int_equal(cfg->ports[0].impair.seed, 7);
	rsw_config_free(cfg);
	cfg = expect_ok(PORT_WITH("    impair: { loss: 0 }\n"));
	assert_true(cfg->ports[0].has_impair);
	assert_int_equal(cfg->ports[0].impair.loss_burst, 1);
	assert_int_equal(cfg->ports[0].impair.seed, 1);
	rsw_config_free(cfg);

	expect_err(PORT_WITH("    llr: yes\n"),
		   "t.yaml:6: 'llr' must be true or false (got 'yes')");
	expect_err(PORT_WITH("    llr: [true]\n"),
		   "t.yaml:6: 'llr' must be true, false or a mapping { enable, fallback }");
	expect_err(PORT_WITH("    llr: { enable: true, fallback: retry }\n"),
		   "t.yaml:6: 'fallback' must be best-effort | discard | block (got 'retry')");
	expect_err(PORT_WITH("    llr: { enabled: true }\n"),
		   "t.yaml:6: unknown key 'enabled' in 'llr'; did you mean 'enable'?");
	cfg = expect_ok(PORT_WITH("    llr: true\n"));
	assert_true(cfg->ports[0].llr);
	assert_int_equal(cfg->ports[0].llr_fallback, RSW_CFG_LLR_BEST_EFFORT);
	rsw_config_free(cfg);
	cfg = expect_ok(PORT_WITH("    llr: { fallback: block }\n"));
	assert_true(cfg->ports[0].llr);
	assert_int_equal(cfg->ports[0].llr_fallback, RSW_CFG_LLR_BLOCK);
	rsw_config_free(cfg);
	/* Off is what a port without the key does. */
	cfg = expect_ok(PORT_WITH("    llr: false\n"));
	assert_false(cfg->ports[0].llr);
	assert_false(cfg->ports[0].has_impair);
	rsw_config_free(cfg);
	cfg = expect_ok(PORT_WITH("    llr: { enable: false, fallback: discard }\n"));
	assert_false(cfg->ports[0].llr);
	assert_int_equal(cfg->ports[0].llr_fallback, RSW_CFG_LLR_DISCARD);
	rsw_config_free(cfg);
#undef PORT_WITH
}

/* Route distances: a static route equal to a connected subnet or a port's address is refused
 * unless it gives a distance (then the connected route wins and it waits as a backup). */
static void
test_route_distance(void **state)
{
	struct rsw_config *cfg;
	json_t *j;

	(void)state;
	expect_err(HEAD "routes:\n  - { prefix: 10.0.1.0/24, nexthops: [10.0.2.1] }\n",
		   "t.yaml:7: route 10.0.1.0/24 is a connected subnet of port 'p0': the connected "
		   "route wins; give it a 'distance:' to keep it as a backup");
	expect_err(HEAD "routes:\n  - { prefix: fd00:1::/64, nexthops: [fd00:1::1] }\n",
		   "t.yaml:7: route fd00:1::/64 is a connected subnet of port 'p0': the connected "
		   "route wins; give it a 'distance:' to keep it as a backup");
	expect_err(HEAD "routes:\n  - { prefix: 10.0.2.254/32, nexthops: [10.0.1.1] }\n",
		   "t.yaml:7: route 10.0.2.254/32 is the address of port 'p1': the connected "
		   "route wins; give it a 'distance:' to keep it as a backup");
	expect_err(HEAD
		   "routes:\n  - { prefix: 10.9.0.0/16, nexthops: [10.0.2.1], distance: 256 }\n",
		   "t.yaml:7: 'distance' must be between 0 and 255 (got 256)");
	expect_err(HEAD "routes:\n  - { prefix: 10.9.0.0/16, nexthops: [10.0.2.1], distance: x }\n",
		   "t.yaml:7: 'distance' must be an integer");
	cfg = expect_ok(HEAD "routes:\n"
			     "  - { prefix: 10.0.1.0/24, nexthops: [10.0.2.1], distance: 200 }\n"
			     "  - { prefix: 10.9.0.0/16, nexthops: [10.0.2.1] }\n"
			     "  - { prefix: 10.8.0.0/16, nexthops: [10.0.2.1], distance: 0 }\n");
	assert_true(cfg->routes[0].has_distance);
	assert_int_equal(cfg->routes[0].distance, 200);
	assert_false(cfg->routes[1].has_distance);
	assert_true(cfg->routes[2].has_distance);
	assert_int_equal(cfg->routes[2].distance, 0);
	j = rsw_config_to_json(cfg);
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(json_object_get(j, "routes"), 0), "distance")),
			 200);
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(json_object_get(j, "routes"), 1), "distance")),
			 1);
	json_decref(j);
	rsw_config_free(cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_example),
		cmocka_unit_test(test_desc_rss),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_misc_good),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_shipped_configs),
		cmocka_unit_test(test_port_impair_llr),
		cmocka_unit_test(test_route_distance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
