/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * What `railsw --check` reports beyond one section's own checks: every independent error of
 * a file in one run (a bad top-level key hides nothing, every topology error, a neighbour's
 * unknown port whatever else failed), "did you mean" on unknown keys, and the devargs checks
 * the ports module registers with the loader (rsw_ports_check_config), errors and the
 * warning for `llr` on a port with no railsw peer.
 */

#include <errno.h>
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
#include "rsw_ports.h"

/* A file whose ports are `PORT0` and a second one given by the test, from line 3 on. */
#define SW "switch:\n  name: s1\nports:\n"

static void
test_did_you_mean(void **state)
{
	(void)state;
	/* One transposition, one letter missing, one too many; none when nothing is close. */
	expect_err(HEAD "qso:\n  trust: dscp\n",
		   "t.yaml:6: unknown key 'qso'; did you mean 'qos'?");
	expect_err(HEAD "qos:\n  lossles: [3]\n",
		   "t.yaml:7: unknown key 'lossles' in 'qos'; did you mean 'lossless'?");
	expect_err(HEAD "switch2: {}\n", "t.yaml:6: unknown key 'switch2'; did you mean 'switch'?");
	expect_err(HEAD "colour: red\n", "t.yaml:6: unknown key 'colour'");
	/* A short key is not "corrected" into a different short one. */
	expect_err(HEAD "neighbors:\n  - { ip: 10.0.1.1, xy: \"02:00:00:00:00:01\", port: p0 }\n",
		   "t.yaml:7: unknown key 'xy' in 'neighbors'");
	expect_err(HEAD "neighbors:\n  - { ip: 10.0.1.1, mc: \"02:00:00:00:00:01\", port: p0 }\n",
		   "t.yaml:7: unknown key 'mc' in 'neighbors'; did you mean 'mac'?");
}

static void
test_top_key_hides_nothing(void **state)
{
	(void)state;
	/* Every unknown key of a mapping, and the other sections' errors too. */
	expect_err(
		HEAD "qso:\n  trust: dscp\nload_balance:\n  mode: ecmp\nbogus: 1\n",
		"t.yaml:6: unknown key 'qso'; did you mean 'qos'?\n"
		"t.yaml:9: unknown load-balance mode 'ecmp' (hash | spray | adaptive | flowlet)\n"
		"t.yaml:10: unknown key 'bogus'");
	/* Two unknown keys in one section: both. */
	expect_err(HEAD "qos:\n  trsut: dscp\n  defualt_tc: 1\n",
		   "t.yaml:7: unknown key 'trsut' in 'qos'; did you mean 'trust'?\n"
		   "t.yaml:8: unknown key 'defualt_tc' in 'qos'; did you mean 'default_tc'?");
}

static void
test_neighbor_port_whatever_failed(void **state)
{
	(void)state;
	/* p1 has a bad MAC: the neighbour on p9 is still reported, the one on p1 is not. */
	expect_err(SW "  - { name: p0, devargs: net_tap0, ipv4: 10.0.1.254/24 }\n"
		      "  - { name: p1, devargs: net_tap1, mac: zz }\n"
		      "neighbors:\n"
		      "  - { ip: 10.0.1.1, mac: \"02:00:00:00:00:01\", port: p9 }\n"
		      "  - { ip: 10.0.1.2, mac: \"02:00:00:00:00:02\", port: p1 }\n",
		   "t.yaml:5: 'mac' must be a MAC address like 02:00:00:00:00:01 (got 'zz')\n"
		   "t.yaml:7: unknown port 'p9'");
	/* With no ports: section at all, only that is reported. */
	expect_err("switch:\n  name: s1\nneighbors:\n"
		   "  - { ip: 10.0.1.1, mac: \"02:00:00:00:00:01\", port: p9 }\n",
		   "t.yaml: missing required key 'ports'");
}

static void
test_topology_every_error(void **state)
{
	(void)state;
	/* The prefix, the radix and this: three independent mistakes, three lines. */
	expect_err(HEAD "topology:\n  sus: 2\n  servers_per_su: 4\n  rails: 4\n  spines: 2\n"
			"  radix: 4\n  gpu_prefix: 10.0.0.0/16\n  this: { su: 5, rail: 0 }\n",
		   "t.yaml:11: leaf 0 needs 6 ports: radix is 4 (4 server downlinks + 2 spine "
		   "uplinks)\n"
		   "t.yaml:12: 'gpu_prefix' must be a /8 (got 10.0.0.0/16): hosts are "
		   "<a>.<su>.<rail>.<server+1>\n"
		   "t.yaml:13: 'this' is outside the fabric: su 5, but there are 2 SUs (0..1)");
}

/* A plan (railctl plan) whose 'topology' is misspelt: one line, the suggestion. */
static void
test_plan_typo(void **state)
{
	char path[64];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/rsw-check-%d.yaml", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("topolgy: { sus: 2, servers_per_su: 4, rails: 4, spines: 2 }\n", f);
	fclose(f);
	assert_null(rsw_config_load_plan(path, err, sizeof(err)));
	unlink(path);
	assert_string_equal(strchr(err, ':'),
			    ":1: unknown key 'topolgy'; did you mean 'topology'?");
}

/* The devargs checks, registered as railsw registers them. */
static int
setup_ports_check(void **state)
{
	(void)state;
	return rsw_config_register_check(rsw_ports_check_config);
}

static int
teardown_ports_check(void **state)
{
	(void)state;
	rsw_config_unregister_check(rsw_ports_check_config);
	return 0;
}

static void
test_devargs_errors(void **state)
{
	(void)state;
	expect_err(SW "  - { name: p0, devargs: \"net_tap0,iface=rsw-a\" }\n"
		      "  - { name: p1, devargs: \"net_tap1,iface=rsw-a\" }\n",
		   "t.yaml:5: duplicate TAP interface 'rsw-a' (port 'p0' has it)");
	expect_err(SW "  - { name: p0, devargs: \"net_tap0,iface=rsw-a\" }\n"
		      "  - { name: p1, devargs: \"net_tap0,iface=rsw-b\" }\n",
		   "t.yaml:5: duplicate device 'net_tap0' (port 'p0' has it)");
	expect_err(SW "  - { name: p0, devargs: net_bogus0 }\n",
		   "t.yaml:4: 'devargs' 'net_bogus0': this DPDK has no driver of that name "
		   "(railsw --list-port-kinds)");
	expect_err(SW "  - { name: p0, devargs: \"0000:3b:00.8\" }\n",
		   "t.yaml:4: 'devargs' '0000:3b:00.8' is not a PCI address (DDDD:BB:DD.F or "
		   "BB:DD.F: device 00-1f, function 0-7)");
	expect_err(SW "  - { name: p0, devargs: \"3b:20.0\" }\n",
		   "t.yaml:4: 'devargs' '3b:20.0' is not a PCI address (DDDD:BB:DD.F or "
		   "BB:DD.F: device 00-1f, function 0-7)");
	expect_err(SW "  - { name: p0, devargs: \"0000:zz:00.0\" }\n",
		   "t.yaml:4: 'devargs' '0000:zz:00.0' is not a PCI address (DDDD:BB:DD.F or "
		   "BB:DD.F: device 00-1f, function 0-7)");
	expect_err(
		SW
		"  - { name: p0, devargs: \"net_memif0,role=server,socket=/nonexistent/m.sock\" }\n",
		"t.yaml:4: port p0: directory '/nonexistent' of socket= does not exist");
	expect_err(SW "  - { name: p0, devargs: \"net_vhost0,iface=/nonexistent/v.sock\" }\n",
		   "t.yaml:4: port p0: directory '/nonexistent' of iface= does not exist");
	expect_err_prefix(SW
			  "  - name: p0\n    devargs: \"net_af_xdp0,iface=veth0\"\n    mtu: 9000\n",
			  "t.yaml:6: 'mtu' 9000 is more than net_af_xdp takes (at most ");
	/* Every one in one run, among the loader's own errors. */
	expect_err(SW "  - { name: p0, devargs: \"net_tap0,iface=rsw-a\", mtu: 10 }\n"
		      "  - { name: p1, devargs: \"net_tap1,iface=rsw-b\" }\n"
		      "  - { name: p2, devargs: net_bogus0 }\n"
		      "  - { name: p3, devargs: \"net_tap3,iface=rsw-b\" }\n",
		   "t.yaml:4: 'mtu' must be between 68 and 9000 (got 10)\n"
		   "t.yaml:6: 'devargs' 'net_bogus0': this DPDK has no driver of that name "
		   "(railsw --list-port-kinds)\n"
		   "t.yaml:7: duplicate TAP interface 'rsw-b' (port 'p1' has it)");
}

static void
test_devargs_good(void **state)
{
	struct rsw_config *cfg;

	(void)state;
	/* PCI addresses with and without a domain, known vdevs, the old eth_ alias. */
	cfg = expect_ok(SW
			"  - { name: p0, devargs: \"0000:3b:00.0\" }\n"
			"  - { name: p1, devargs: \"3b:1f.7,txq_inline=0\" }\n"
			"  - { name: p2, devargs: \"net_memif0,role=server,socket=/tmp/m.sock\" }\n"
			"  - { name: p3, devargs: \"eth_null0\" }\n"
			"  - { name: p4, devargs: \"net_af_xdp0,iface=veth0\", mtu: 3000 }\n"
			"  - { name: p5, devargs: \"net_ring0\" }\n");
	assert_string_equal(err, "");
	rsw_config_free(cfg);
}

static void
test_llr_no_peer_warning(void **state)
{
	struct rsw_config *cfg;

	(void)state;
	/* A warning, and the load succeeds. */
	cfg = expect_ok(SW "  - { name: p0, devargs: net_null0 }\n"
			   "  - name: p1\n    devargs: \"net_pcap0,rx_pcap=/tmp/in.pcap\"\n"
			   "    llr: { enable: true }\n"
			   "  - { name: p2, devargs: net_tap2, llr: true }\n");
	assert_string_equal(err, "t.yaml:7: warning: port p1: 'llr' on a net_pcap port, which has "
				 "no railsw peer to answer it");
	rsw_config_free(cfg);
	/* With an error elsewhere: both, in line order. */
	expect_err(SW "  - { name: p0, devargs: net_null0, llr: true }\n"
		      "  - { name: p1, devargs: net_tap1, mtu: 10 }\n",
		   "t.yaml:4: warning: port p0: 'llr' on a net_null port, which has no railsw "
		   "peer to answer it\n"
		   "t.yaml:5: 'mtu' must be between 68 and 9000 (got 10)");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_did_you_mean),
		cmocka_unit_test(test_top_key_hides_nothing),
		cmocka_unit_test(test_neighbor_port_whatever_failed),
		cmocka_unit_test(test_topology_every_error),
		cmocka_unit_test(test_plan_typo),
		cmocka_unit_test_setup_teardown(test_devargs_errors, setup_ports_check,
						teardown_ports_check),
		cmocka_unit_test_setup_teardown(test_devargs_good, setup_ports_check,
						teardown_ports_check),
		cmocka_unit_test_setup_teardown(test_llr_no_peer_warning, setup_ports_check,
						teardown_ports_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
