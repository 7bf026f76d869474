/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the configuration loader's control section (control/config/parse_control.c):
 * the socket, telemetry and metrics keys, control.fpm, control.kernel_interfaces and its punt
 * rates, with their exact "FILE:LINE: message".
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
#include "rsw_punt_dp.h"

static void
test_control(void **state)
{
	char yaml[1024];

	(void)state;
	expect_err(
		HEAD "control:\n  metrics_listen: 9417\n",
		"t.yaml:7: 'metrics_listen' must be host:port like 127.0.0.1:9417 or [::1]:9417 (got '9417')");
	expect_err(
		HEAD "control:\n  metrics_listen: localhost:99999\n",
		"t.yaml:7: 'metrics_listen' must be host:port like 127.0.0.1:9417 or [::1]:9417 (got 'localhost:99999')");
	expect_err(
		HEAD "control:\n  metrics_listen: \"::1:9417\"\n",
		"t.yaml:7: 'metrics_listen' must be host:port like 127.0.0.1:9417 or [::1]:9417 (got '::1:9417')");
	snprintf(yaml, sizeof(yaml), HEAD "control:\n  socket: /%0120d\n", 0);
	expect_err(yaml, "t.yaml:7: 'socket' is too long (at most 107 characters)");
}

/* control.fpm: its keys, defaults and errors. */
static void
test_control_fpm(void **state)
{
	struct rsw_config *cfg;
	json_t *j, *f;

	(void)state;
	expect_err(HEAD "control:\n  fpm: { listen: 2620 }\n",
		   "t.yaml:7: 'listen' must be host:port like 127.0.0.1:2620 or [::1]:2620 (got "
		   "'2620')");
	expect_err(HEAD "control:\n  fpm: { stale_s: 0 }\n",
		   "t.yaml:7: 'stale_s' must be between 1 and 3600 (got 0)");
	expect_err(HEAD "control:\n  fpm: { port: 2620 }\n",
		   "t.yaml:7: unknown key 'port' in 'fpm'");
	expect_err(
		HEAD "control:\n  fpm: 2620\n",
		"t.yaml:7: 'fpm' must be a mapping like { listen: 127.0.0.1:2620, stale_s: 10 }");
	cfg = expect_ok(HEAD);
	assert_false(cfg->control.has_fpm);
	j = rsw_config_to_json(cfg);
	assert_true(json_is_null(json_object_get(json_object_get(j, "control"), "fpm")));
	json_decref(j);
	rsw_config_free(cfg);
	cfg = expect_ok(HEAD "control:\n  fpm: {}\n");
	assert_true(cfg->control.has_fpm);
	assert_string_equal(cfg->control.fpm_listen, "127.0.0.1:2620");
	assert_int_equal(cfg->control.fpm_stale_s, 10);
	rsw_config_free(cfg);
	cfg = expect_ok(HEAD "control:\n  fpm: { listen: \"[::1]:2621\", stale_s: 3 }\n");
	assert_string_equal(cfg->control.fpm_listen, "[::1]:2621");
	assert_int_equal(cfg->control.fpm_stale_s, 3);
	j = rsw_config_to_json(cfg);
	f = json_object_get(json_object_get(j, "control"), "fpm");
	assert_string_equal(json_string_value(json_object_get(f, "listen")), "[::1]:2621");
	assert_int_equal(json_integer_value(json_object_get(f, "stale_s")), 3);
	json_decref(j);
	rsw_config_free(cfg);
}

/* control.kernel_interfaces: its keys, defaults and errors. */
static void
test_control_kif(void **state)
{
	struct rsw_config *cfg;
	json_t *j, *k;

	(void)state;
	expect_err(HEAD "control:\n  kernel_interfaces: { tc: 7 }\n",
		   "t.yaml:7: 'kernel_interfaces' needs 'netns'");
	expect_err(
		HEAD "control:\n  kernel_interfaces: { netns: a/b }\n",
		"t.yaml:7: 'netns' must be a namespace name of letters, digits, '.', '_' and '-' "
		"(got 'a/b')");
	expect_err(HEAD "control:\n  kernel_interfaces: { netns: n, tc: 8 }\n",
		   "t.yaml:7: 'tc' of kernel_interfaces must be a TC between 0 and 7 (got 8)");
	expect_err(HEAD "control:\n  kernel_interfaces: { netns: n, bgp_peers: [10.0.0.300] }\n",
		   "t.yaml:7: 'bgp_peers' must be an IP address (got '10.0.0.300')");
	expect_err(
		HEAD "control:\n  kernel_interfaces: rsw\n",
		"t.yaml:7: 'kernel_interfaces' must be a mapping like { netns: rsw-ctl, tc: 7 }");
	expect_err("switch:\n  name: s1\nports:\n"
		   "  - { name: a-very-long-port0, devargs: net_tap0, ipv4: 10.0.1.254/24 }\n"
		   "control:\n  kernel_interfaces: { netns: n }\n",
		   "t.yaml:6: port 'a-very-long-port0': a kernel interface is named as its port, "
		   "in at most 15 characters");
	cfg = expect_ok(HEAD);
	assert_false(cfg->control.has_kif);
	rsw_config_free(cfg);
	cfg = expect_ok(HEAD
			"qos:\n  scheduler: { strict: [5, 6] }\n"
			"control:\n  kernel_interfaces: { netns: rsw-ctl, bgp_peers: [10.0.1.1, "
			"\"fd00:1::1\"] }\n");
	assert_true(cfg->control.has_kif);
	assert_string_equal(cfg->control.kif_netns, "rsw-ctl");
	assert_int_equal(rsw_config_kif_tc(cfg), 6); /* the highest strict TC */
	assert_int_equal(cfg->control.n_bgp_peers, 2);
	j = rsw_config_to_json(cfg);
	k = json_object_get(json_object_get(j, "control"), "kernel_interfaces");
	assert_string_equal(json_string_value(json_object_get(k, "netns")), "rsw-ctl");
	assert_int_equal(json_integer_value(json_object_get(k, "tc")), 6);
	assert_int_equal(json_array_size(json_object_get(k, "bgp_peers")), 2);
	json_decref(j);
	rsw_config_free(cfg);
}

/* control.kernel_interfaces.punt: the policers' rates by class, errors with their lines. */
#define KIF_PUNT HEAD "control:\n  kernel_interfaces:\n    netns: n\n    punt:\n"

static void
test_control_kif_punt(void **state)
{
	struct rsw_punt_rates r;
	struct rsw_config *cfg;
	json_t *j, *p;

	(void)state;
	expect_err(HEAD "control:\n  kernel_interfaces: { netns: n, punt: { ssh: { rate: 1 } } }\n",
		   "t.yaml:7: 'punt' has no class 'ssh' (classes: arp, nd, icmp, bgp, bfd, lldp, "
		   "other, unresolved)");
	expect_err(HEAD "control:\n  kernel_interfaces: { netns: n, punt: [other] }\n",
		   "t.yaml:7: 'punt' must be a mapping like { other: { rate: 1000, burst: 200 } }");
	expect_err(KIF_PUNT "      other: { rate: -1 }\n",
		   "t.yaml:10: 'punt.other.rate' must be between 0 and 1000000 (got -1)");
	expect_err(KIF_PUNT "      other: { rate: 1000001 }\n",
		   "t.yaml:10: 'punt.other.rate' must be between 0 and 1000000 (got 1000001)");
	expect_err(KIF_PUNT "      icmp: { rate: 99999999999999999999 }\n",
		   "t.yaml:10: 'punt.icmp.rate' must be between 0 and 1000000 "
		   "(got 99999999999999999999)");
	expect_err(KIF_PUNT "      bgp: { rate: 1.5 }\n",
		   "t.yaml:10: 'punt.bgp.rate' must be an integer");
	expect_err(KIF_PUNT "      arp: { burst: 0 }\n",
		   "t.yaml:10: 'punt.arp.burst' must be between 1 and 100000 (got 0)");
	expect_err(KIF_PUNT "      arp: { burst: 100001 }\n",
		   "t.yaml:10: 'punt.arp.burst' must be between 1 and 100000 (got 100001)");
	expect_err(KIF_PUNT "      nd: 100\n",
		   "t.yaml:10: 'punt.nd' must be a mapping like { rate: 1000, burst: 200 }");
	expect_err(KIF_PUNT "      nd: {}\n", "t.yaml:10: 'punt.nd' needs 'rate' or 'burst'");
	expect_err(KIF_PUNT "      nd: { pps: 5 }\n", "t.yaml:10: unknown key 'pps' in 'punt.nd'");
	expect_err(KIF_PUNT "      lldp: { rate: 5 }\n      lldp: { rate: 6 }\n",
		   "t.yaml:11: duplicate key 'lldp' (first at line 10)");
	/* Each class's mistake, in file order. */
	expect_err(KIF_PUNT "      arp: { rate: -5 }\n"
			    "      bfd: { rate: 10 }\n"
			    "      unknown: { rate: 1 }\n"
			    "      other: { burst: 0 }\n",
		   "t.yaml:10: 'punt.arp.rate' must be between 0 and 1000000 (got -5)\n"
		   "t.yaml:12: 'punt' has no class 'unknown' (classes: arp, nd, icmp, bgp, bfd, "
		   "lldp, other, unresolved)\n"
		   "t.yaml:13: 'punt.other.burst' must be between 1 and 100000 (got 0)");

	/* No punt: (nor kernel interfaces): the defaults of rsw_punt_dp.h. */
	cfg = expect_ok(HEAD);
	rsw_config_punt_rates(cfg, &r);
	assert_int_equal(r.pps[RSW_PUNT_C_other], 1000);
	assert_int_equal(r.burst[RSW_PUNT_C_other], 200);
	assert_int_equal(r.pps[RSW_PUNT_C_bgp], 10000);
	rsw_config_free(cfg);
	cfg = expect_ok(KIF_PUNT "      other: { rate: 10, burst: 5 }\n"
				 "      icmp: { rate: 0 }\n"
				 "      unresolved: { burst: 64 }\n");
	assert_int_equal(cfg->control.punt[RSW_PUNT_C_other].line, 10);
	rsw_config_punt_rates(cfg, &r);
	assert_int_equal(r.pps[RSW_PUNT_C_other], 10);
	assert_int_equal(r.burst[RSW_PUNT_C_other], 5);
	assert_int_equal(r.pps[RSW_PUNT_C_icmp], 0); /* drop all */
	assert_int_equal(r.burst[RSW_PUNT_C_icmp], 200);
	assert_int_equal(r.pps[RSW_PUNT_C_unresolved], 5000);
	assert_int_equal(r.burst[RSW_PUNT_C_unresolved], 64);
	assert_int_equal(r.pps[RSW_PUNT_C_arp], 2000);
	assert_int_equal(r.burst[RSW_PUNT_C_arp], 400);
	/* show config: every class with the rate and burst it runs with. */
	j = rsw_config_to_json(cfg);
	p = json_object_get(json_object_get(json_object_get(j, "control"), "kernel_interfaces"),
			    "punt");
	assert_int_equal(json_object_size(p), RSW_N_PUNT_CLASSES);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(p, "other"), "rate")),
			 10);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(p, "icmp"), "rate")),
			 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(p, "arp"), "burst")),
			 400);
	json_decref(j);
	rsw_config_free(cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_control),
		cmocka_unit_test(test_control_fpm),
		cmocka_unit_test(test_control_kif),
		cmocka_unit_test(test_control_kif_punt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
