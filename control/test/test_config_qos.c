/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the configuration loader's qos section (control/config/parse_qos*.c):
 * ranges, the scheduler, lossless, buffer, ECN and PFC watchdog errors with their exact
 * "FILE:LINE: message", trim and CNP, then docs/config.md's qos block, defaults, good files and the
 * JSON view.
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

static void
test_qos_ranges(void **state)
{
	(void)state;
	expect_err(HEAD "qos:\n  dscp_to_tc: { 64: 1 }\n",
		   "t.yaml:7: 'dscp_to_tc' key must be a DSCP between 0 and 63 (got 64)");
	expect_err(HEAD "qos:\n  dscp_to_tc: { -1: 1 }\n",
		   "t.yaml:7: 'dscp_to_tc' key must be a DSCP between 0 and 63 (got -1)");
	expect_err(HEAD "qos:\n  dscp_to_tc:\n    10: 1\n    46: 8\n",
		   "t.yaml:9: 'dscp_to_tc' value must be a TC between 0 and 7 (got 8)");
	expect_err(HEAD "qos:\n  pcp_to_tc: { 8: 1 }\n",
		   "t.yaml:7: 'pcp_to_tc' key must be a PCP between 0 and 7 (got 8)");
	expect_err(HEAD "qos:\n  pcp_to_tc: { 7: 9 }\n",
		   "t.yaml:7: 'pcp_to_tc' value must be a TC between 0 and 7 (got 9)");
	expect_err(HEAD "qos:\n  default_tc: 8\n",
		   "t.yaml:7: 'default_tc' must be between 0 and 7 (got 8)");
	expect_err(HEAD "qos:\n  trust: cos\n", "t.yaml:7: 'trust' must be dscp | pcp (got 'cos')");
	expect_err(HEAD "load_balance:\n  per_tc: { 8: hash }\n",
		   "t.yaml:7: 'per_tc' key must be a TC between 0 and 7 (got 8)");
}

/* qos scheduler, lossless, buffer, ECN and PFC watchdog: bad input. HEAD has two ports. */

#define QOS HEAD "qos:\n"

static void
test_qos_scheduler_bad(void **state)
{
	(void)state;
	expect_err(QOS "  scheduler: [7]\n", "t.yaml:7: 'qos.scheduler' must be a mapping");
	expect_err(QOS "  scheduler: { strict: [7], wrr: {} }\n",
		   "t.yaml:7: unknown key 'wrr' in 'qos.scheduler'; did you mean 'dwrr'?");
	expect_err(QOS "  scheduler:\n    strict: [7]\n    strict: [6]\n",
		   "t.yaml:9: duplicate key 'strict' (first at line 8)");
	expect_err(QOS "  scheduler: { strict: 7 }\n",
		   "t.yaml:7: 'scheduler.strict' must be a list of TCs");
	expect_err(QOS "  scheduler: { strict: [7, 8] }\n",
		   "t.yaml:7: 'scheduler.strict' entry must be a TC between 0 and 7 (got 8)");
	expect_err(QOS "  scheduler: { strict: [-1] }\n",
		   "t.yaml:7: 'scheduler.strict' entry must be a TC between 0 and 7 (got -1)");
	expect_err(QOS "  scheduler: { strict: [high] }\n",
		   "t.yaml:7: 'scheduler.strict' entry must be a TC between 0 and 7 (got 'high')");
	expect_err(QOS "  scheduler: { strict: [[7]] }\n",
		   "t.yaml:7: 'scheduler.strict' entry must be a TC between 0 and 7");
	expect_err(QOS "  scheduler:\n    strict:\n      - 7\n      - 6\n      - 7\n",
		   "t.yaml:11: duplicate TC 7 in 'scheduler.strict' (first at line 9)");
	expect_err(QOS "  scheduler: { strict: [6, 06] }\n",
		   "t.yaml:7: duplicate TC 6 in 'scheduler.strict' (first at line 7)");
	expect_err(QOS "  scheduler: { dwrr: [1, 2] }\n",
		   "t.yaml:7: 'scheduler.dwrr' must be a mapping of TC to weight");
	expect_err(QOS "  scheduler: { dwrr: { 8: 1 } }\n",
		   "t.yaml:7: 'scheduler.dwrr' key must be a TC between 0 and 7 (got 8)");
	expect_err(QOS "  scheduler: { dwrr: { best: 1 } }\n",
		   "t.yaml:7: 'scheduler.dwrr' key must be a TC between 0 and 7 (got 'best')");
	expect_err(QOS "  scheduler:\n    dwrr:\n      0: 1\n      3: 0\n",
		   "t.yaml:10: 'scheduler.dwrr.3' must be between 1 and 100 (got 0)");
	expect_err(QOS "  scheduler: { dwrr: { 3: 101 } }\n",
		   "t.yaml:7: 'scheduler.dwrr.3' must be between 1 and 100 (got 101)");
	expect_err(QOS "  scheduler: { dwrr: { 3: heavy } }\n",
		   "t.yaml:7: 'scheduler.dwrr.3' must be an integer");
	expect_err(QOS "  scheduler: { dwrr: { 3: 4, 3: 4 } }\n", "t.yaml:7: duplicate key '3'");
	expect_err(QOS "  scheduler:\n    dwrr:\n      1: 1\n      01: 2\n",
		   "t.yaml:10: duplicate key '01'");
	/* A TC cannot be both strict and weighted, whatever the order of the keys. */
	expect_err(QOS "  scheduler:\n    strict: [7, 6]\n    dwrr:\n      0: 1\n      6: 4\n",
		   "t.yaml:11: TC 6 is in both 'scheduler.strict' (line 8) and 'scheduler.dwrr'");
	expect_err(QOS "  scheduler:\n    dwrr: { 7: 1 }\n    strict: [7]\n",
		   "t.yaml:8: TC 7 is in both 'scheduler.strict' (line 9) and 'scheduler.dwrr'");
}

static void
test_qos_lossless_bad(void **state)
{
	(void)state;
	expect_err(QOS "  lossless: 3\n", "t.yaml:7: 'lossless' must be a list of TCs");
	expect_err(QOS "  lossless: { 3: true }\n", "t.yaml:7: 'lossless' must be a list of TCs");
	expect_err(QOS "  lossless: [3, 8]\n",
		   "t.yaml:7: 'lossless' entry must be a TC between 0 and 7 (got 8)");
	expect_err(QOS "  lossless: [roce]\n",
		   "t.yaml:7: 'lossless' entry must be a TC between 0 and 7 (got 'roce')");
	expect_err(QOS "  lossless:\n    - 3\n    - 4\n    - 3\n",
		   "t.yaml:10: duplicate TC 3 in 'lossless' (first at line 8)");
	expect_err(QOS "  lossless: [3]\n  lossless: [4]\n",
		   "t.yaml:8: duplicate key 'lossless' (first at line 7)");
}

static void
test_qos_buffer_bad(void **state)
{
	(void)state;
	expect_err(QOS "  buffer: 16MB\n", "t.yaml:7: 'qos.buffer' must be a mapping");
	expect_err(QOS "  buffer: { totl: 16MB }\n",
		   "t.yaml:7: unknown key 'totl' in 'qos.buffer'; did you mean 'total'?");
	expect_err(QOS "  buffer:\n    total: 16MB\n    total: 8MB\n",
		   "t.yaml:9: duplicate key 'total' (first at line 8)");
	expect_err(QOS "  buffer: { total: 63KB }\n",
		   "t.yaml:7: 'buffer.total' must be between 64KB and 4096MB (got 63KB)");
	expect_err(QOS "  buffer: { total: 65535 }\n",
		   "t.yaml:7: 'buffer.total' must be between 64KB and 4096MB (got 65535)");
	expect_err(QOS "  buffer: { total: 4097MB }\n",
		   "t.yaml:7: 'buffer.total' must be between 64KB and 4096MB (got 4097MB)");
	expect_err(
		QOS "  buffer: { total: 16GB }\n",
		"t.yaml:7: 'buffer.total' must be a size like 512KB, 16MB or 65536 (got '16GB')");
	expect_err(
		QOS "  buffer: { total: -1MB }\n",
		"t.yaml:7: 'buffer.total' must be a size like 512KB, 16MB or 65536 (got '-1MB')");
	expect_err(QOS "  buffer: { total: [16MB] }\n",
		   "t.yaml:7: 'buffer.total' must be a size like 512KB");
	expect_err(QOS "  buffer: { total: }\n",
		   "t.yaml:7: 'buffer.total' must be a size like 512KB");
	expect_err(QOS "  buffer:\n    queue_limit: 0KB\n",
		   "t.yaml:8: 'buffer.queue_limit' must be between 1B and 4096MB (got 0KB)");

	/* pfc */
	expect_err(QOS "  buffer: { pfc: on }\n", "t.yaml:7: 'qos.buffer.pfc' must be a mapping");
	expect_err(QOS "  buffer:\n    pfc:\n      xoff: 96KB\n      xof: 96KB\n",
		   "t.yaml:10: unknown key 'xof' in 'qos.buffer.pfc'; did you mean 'xoff'?");
	expect_err(QOS "  buffer:\n    pfc:\n      xoff: 96KB\n      xoff: 64KB\n",
		   "t.yaml:10: duplicate key 'xoff' (first at line 9)");
	expect_err(QOS "  buffer: { pfc: { xoff: 0 } }\n",
		   "t.yaml:7: 'buffer.pfc.xoff' must be between 1B and 4096MB (got 0)");
	expect_err(QOS "  buffer: { pfc: { headroom: 0B } }\n",
		   "t.yaml:7: 'buffer.pfc.headroom' must be between 1B and 4096MB (got 0B)");
	expect_err(
		QOS "  buffer: { pfc: { xon: 1.5B } }\n",
		"t.yaml:7: 'buffer.pfc.xon' must be a size like 512KB, 16MB or 65536 (got '1.5B')");
	expect_err(
		QOS "  buffer:\n    pfc:\n      xoff: 48KB\n      xon: 64KB\n",
		"t.yaml:10: 'buffer.pfc.xon' must be below 'buffer.pfc.xoff' (got xon 64KB, xoff 48KB)");
	expect_err(
		QOS "  buffer:\n    pfc:\n      xon: 96KB\n",
		"t.yaml:9: 'buffer.pfc.xon' must be below 'buffer.pfc.xoff' (got xon 96KB, xoff 96KB)");
	/* The default xon (48KB) against a smaller xoff: reported on the xoff. */
	expect_err(
		QOS "  buffer:\n    pfc:\n      xoff: 32KB\n",
		"t.yaml:9: 'buffer.pfc.xon' must be below 'buffer.pfc.xoff' (got xon 48KB (the default), xoff 32KB)");
	expect_err(QOS "  buffer: { pfc: { quanta: 0 } }\n",
		   "t.yaml:7: 'buffer.pfc.quanta' must be between 1 and 65535 (got 0)");
	expect_err(QOS "  buffer: { pfc: { quanta: 65536 } }\n",
		   "t.yaml:7: 'buffer.pfc.quanta' must be between 1 and 65535 (got 65536)");
	expect_err(QOS "  buffer: { pfc: { quanta: max } }\n",
		   "t.yaml:7: 'buffer.pfc.quanta' must be an integer");

	/* Static and dynamic keys do not mix. */
	expect_err(QOS "  buffer: { pfc: { mode: adaptive } }\n",
		   "t.yaml:7: 'buffer.pfc.mode' must be static | dynamic (got 'adaptive')");
	expect_err(
		QOS
		"  buffer:\n    pfc:\n      mode: dynamic\n      alpha: 0.5\n      xoff: 96KB\n",
		"t.yaml:11: 'buffer.pfc.xoff' is a static threshold; 'mode: dynamic' uses alpha and xon_offset");
	expect_err(
		QOS "  buffer: { pfc: { xon: 48KB, mode: dynamic } }\n",
		"t.yaml:7: 'buffer.pfc.xon' is a static threshold; 'mode: dynamic' uses alpha and xon_offset");
	expect_err(
		QOS "  buffer:\n    pfc:\n      xoff: 96KB\n      alpha: 0.5\n",
		"t.yaml:10: 'buffer.pfc.alpha' needs 'mode: dynamic' (static mode uses xoff and xon)");
	expect_err(
		QOS "  buffer:\n    pfc:\n      mode: static\n      xon_offset: 3KB\n",
		"t.yaml:10: 'buffer.pfc.xon_offset' needs 'mode: dynamic' (static mode uses xoff and xon)");

	/* alpha: 0 < alpha <= 64, a number. */
	expect_err(QOS "  buffer: { pfc: { mode: dynamic, alpha: 0 } }\n",
		   "t.yaml:7: 'buffer.pfc.alpha' must be more than 0 and at most 64 (got 0)");
	expect_err(QOS "  buffer: { pfc: { mode: dynamic, alpha: 0.0 } }\n",
		   "t.yaml:7: 'buffer.pfc.alpha' must be more than 0 and at most 64 (got 0.0)");
	expect_err(QOS "  buffer: { pfc: { mode: dynamic, alpha: -0.5 } }\n",
		   "t.yaml:7: 'buffer.pfc.alpha' must be more than 0 and at most 64 (got -0.5)");
	expect_err(QOS "  buffer: { pfc: { mode: dynamic, alpha: 64.5 } }\n",
		   "t.yaml:7: 'buffer.pfc.alpha' must be more than 0 and at most 64 (got 64.5)");
	expect_err(QOS "  buffer: { pfc: { mode: dynamic, alpha: 1e999 } }\n",
		   "t.yaml:7: 'buffer.pfc.alpha' must be more than 0 and at most 64 (got 1e999)");
	expect_err(QOS "  buffer: { pfc: { mode: dynamic, alpha: 1e-999 } }\n",
		   "t.yaml:7: 'buffer.pfc.alpha' must be more than 0 and at most 64 (got 1e-999)");
	expect_err(QOS "  buffer: { pfc: { mode: dynamic, alpha: high } }\n",
		   "t.yaml:7: 'buffer.pfc.alpha' must be a number (got 'high')");
	expect_err(QOS "  buffer: { pfc: { mode: dynamic, alpha: inf } }\n",
		   "t.yaml:7: 'buffer.pfc.alpha' must be a number (got 'inf')");
	expect_err(QOS "  buffer: { pfc: { mode: dynamic, alpha: nan } }\n",
		   "t.yaml:7: 'buffer.pfc.alpha' must be a number (got 'nan')");
	expect_err(QOS "  buffer: { pfc: { mode: dynamic, alpha: 0x10 } }\n",
		   "t.yaml:7: 'buffer.pfc.alpha' must be a number (got '0x10')");
	expect_err(QOS "  buffer: { pfc: { mode: dynamic, alpha: 1.2.3 } }\n",
		   "t.yaml:7: 'buffer.pfc.alpha' must be a number (got '1.2.3')");
	expect_err(QOS "  buffer: { pfc: { mode: dynamic, alpha: [1] } }\n",
		   "t.yaml:7: 'buffer.pfc.alpha' must be a number");
	expect_err(QOS "  buffer: { pfc: { mode: dynamic, xon_offset: lots } }\n",
		   "t.yaml:7: 'buffer.pfc.xon_offset' must be a size like 512KB, 16MB or 65536 "
		   "(got 'lots')");
}

/* The lossless reservation (headroom, and xoff in static mode, per port and TC) fits total. */
static void
test_qos_buffer_reserve(void **state)
{
	char yaml[1024];

	(void)state;
	/* CONFIG-style message: 4 ports x 2 TCs x (128KB + 64KB) = 1.5MB > 1MB. */
	snprintf(yaml, sizeof(yaml),
		 "switch: { name: s }\n"
		 "ports:\n"
		 "  - { name: p0, devargs: a }\n"
		 "  - { name: p1, devargs: b }\n"
		 "  - { name: p2, devargs: c }\n"
		 "  - { name: p3, devargs: d }\n"
		 "qos:\n"
		 "  lossless: [3, 4]\n"
		 "  buffer:\n"
		 "    total: 1MB\n"
		 "    pfc: { xoff: 128KB, xon: 64KB, headroom: 64KB }\n");
	expect_err(
		yaml,
		"t.yaml:10: buffer.total 1MB is too small: the lossless TCs of 4 ports reserve 1.5MB (xoff + headroom per port and TC)");
	/* Defaults: 2 ports x 2 TCs x (96KB + 64KB) = 640KB. */
	expect_err(
		QOS "  lossless: [3, 4]\n  buffer: { total: 512KB }\n",
		"t.yaml:8: buffer.total 512KB is too small: the lossless TCs of 2 ports reserve 640KB (xoff + headroom per port and TC)");
	expect_err(
		"switch: { name: s }\nports: [{ name: p0, devargs: a }]\n"
		"qos: { lossless: [0], buffer: { total: 64KB, pfc: { xoff: 16KB, xon: 8KB, headroom: 49KB } } }\n",
		"t.yaml:3: buffer.total 64KB is too small: the lossless TCs of 1 port reserve 65KB (xoff + headroom per port and TC)");
	/* No total given: reported on 'lossless', against the default 16MB. */
	expect_err(
		QOS "  lossless: [0, 1]\n  buffer: { pfc: { headroom: 4MB } }\n",
		"t.yaml:7: buffer.total 16MB is too small: the lossless TCs of 2 ports reserve 16.375MB (xoff + headroom per port and TC)");
	/* Dynamic mode reserves the headroom only: 2 ports x 8 TCs x 64KB = 1MB. */
	expect_err(
		QOS "  lossless: [0, 1, 2, 3, 4, 5, 6, 7]\n"
		    "  buffer: { total: 1000KB, pfc: { mode: dynamic } }\n",
		"t.yaml:8: buffer.total 1000KB is too small: the lossless TCs of 2 ports reserve 1MB (headroom per port and TC)");
	rsw_config_free(expect_ok(QOS "  lossless: [0, 1, 2, 3, 4, 5, 6, 7]\n"
				      "  buffer: { total: 1MB, pfc: { mode: dynamic } }\n"));
	/* Exactly full fits; no lossless TC reserves nothing. */
	rsw_config_free(expect_ok(QOS "  lossless: [3, 4]\n  buffer: { total: 640KB }\n"));
	rsw_config_free(expect_ok(QOS "  buffer: { total: 64KB }\n"));
}

static void
test_qos_ecn_bad(void **state)
{
	(void)state;
	expect_err(QOS "  ecn: [3]\n",
		   "t.yaml:7: 'ecn' must be a mapping of TC to { kmin, kmax, pmax }");
	expect_err(QOS "  ecn: { 8: { kmin: 40KB, kmax: 160KB, pmax: 0.2 } }\n",
		   "t.yaml:7: 'ecn' key must be a TC between 0 and 7 (got 8)");
	expect_err(QOS "  ecn: { roce: { kmin: 40KB, kmax: 160KB, pmax: 0.2 } }\n",
		   "t.yaml:7: 'ecn' key must be a TC between 0 and 7 (got 'roce')");
	expect_err(QOS "  ecn: { 3: 40KB }\n", "t.yaml:7: 'qos.ecn.3' must be a mapping");
	expect_err(QOS "  ecn:\n    3:\n      kmin: 40KB\n      kmax: 160KB\n",
		   "t.yaml:8: missing required key 'pmax' in 'qos.ecn.3'");
	expect_err(QOS "  ecn:\n    3:\n", "t.yaml:8: missing required key 'kmin' in 'qos.ecn.3'");
	expect_err(QOS "  ecn:\n    3: { kmin: 40KB, kmax: 160KB, pmax: 0.2, kmid: 80KB }\n",
		   "t.yaml:8: unknown key 'kmid' in 'qos.ecn.3'; did you mean 'kmin'?");
	expect_err(QOS "  ecn:\n    3: { kmin: 40KB, kmax: 160KB, pmax: 0.2, kmin: 8KB }\n",
		   "t.yaml:8: duplicate key 'kmin' (first at line 8)");
	expect_err(QOS "  ecn:\n    3: { kmin: 40KB, kmax: 160KB, pmax: 0.2 }\n"
		       "    0: { kmin: 40KB, kmax: 160KB, pmax: 0.2 }\n"
		       "    3: { kmin: 40KB, kmax: 160KB, pmax: 0.2 }\n",
		   "t.yaml:10: duplicate key '3'");
	expect_err(QOS "  ecn:\n    3:\n      kmin: 160KB\n      kmax: 40KB\n      pmax: 0.2\n",
		   "t.yaml:9: 'ecn.3.kmin' must be below 'ecn.3.kmax' (got kmin 160KB, kmax 40KB)");
	expect_err(QOS "  ecn: { 5: { kmin: 64KB, kmax: 65536, pmax: 0.2 } }\n",
		   "t.yaml:7: 'ecn.5.kmin' must be below 'ecn.5.kmax' (got kmin 64KB, kmax 64KB)");
	expect_err(QOS "  ecn: { 3: { kmin: 0, kmax: 0, pmax: 0.2 } }\n",
		   "t.yaml:7: 'ecn.3.kmax' must be between 1B and 4096MB (got 0)");
	expect_err(QOS "  ecn: { 3: { kmin: some, kmax: 160KB, pmax: 0.2 } }\n",
		   "t.yaml:7: 'ecn.3.kmin' must be a size like 512KB, 16MB or 65536 (got 'some')");
	expect_err(QOS "  ecn:\n    3:\n      kmin: 40KB\n      kmax: 160KB\n      pmax: 0\n",
		   "t.yaml:11: 'ecn.3.pmax' must be more than 0 and at most 1 (got 0)");
	expect_err(QOS "  ecn: { 3: { kmin: 40KB, kmax: 160KB, pmax: 1.5 } }\n",
		   "t.yaml:7: 'ecn.3.pmax' must be more than 0 and at most 1 (got 1.5)");
	expect_err(QOS "  ecn: { 3: { kmin: 40KB, kmax: 160KB, pmax: -0.2 } }\n",
		   "t.yaml:7: 'ecn.3.pmax' must be more than 0 and at most 1 (got -0.2)");
	expect_err(QOS "  ecn: { 3: { kmin: 40KB, kmax: 160KB, pmax: 20% } }\n",
		   "t.yaml:7: 'ecn.3.pmax' must be a number (got '20%')");
	expect_err(QOS "  ecn_mark_point: middle\n",
		   "t.yaml:7: 'ecn_mark_point' must be dequeue | enqueue (got 'middle')");
	expect_err(QOS "  ecn_mark_point: [enqueue]\n",
		   "t.yaml:7: 'ecn_mark_point' must be a word");
}

static void
test_qos_pfcwd_bad(void **state)
{
	(void)state;
	expect_err(QOS "  pfc_watchdog: on\n", "t.yaml:7: 'qos.pfc_watchdog' must be a mapping");
	expect_err(QOS "  pfc_watchdog: { detect: 200 }\n",
		   "t.yaml:7: unknown key 'detect' in 'qos.pfc_watchdog'");
	expect_err(QOS "  pfc_watchdog:\n    action: drop\n    action: alert\n",
		   "t.yaml:9: duplicate key 'action' (first at line 8)");
	expect_err(QOS "  pfc_watchdog: { detect_ms: 9 }\n",
		   "t.yaml:7: 'pfc_watchdog.detect_ms' must be between 10 and 60000 (got 9)");
	expect_err(QOS "  pfc_watchdog: { detect_ms: 60001 }\n",
		   "t.yaml:7: 'pfc_watchdog.detect_ms' must be between 10 and 60000 (got 60001)");
	expect_err(QOS "  pfc_watchdog:\n    detect_ms: 200\n    restore_ms: 0\n",
		   "t.yaml:9: 'pfc_watchdog.restore_ms' must be between 10 and 60000 (got 0)");
	expect_err(QOS "  pfc_watchdog: { restore_ms: 1s }\n",
		   "t.yaml:7: 'pfc_watchdog.restore_ms' must be an integer");
	expect_err(
		QOS "  pfc_watchdog: { action: reboot }\n",
		"t.yaml:7: 'pfc_watchdog.action' must be drop | forward | alert | off (got 'reboot')");
}

static void
test_trim_cnp(void **state)
{
	struct rsw_config *cfg;

	(void)state;
	/* Bad input first. */
	expect_err(HEAD "qos:\n  trim: { threshold: 64KB }\n",
		   "t.yaml:7: missing required key 'tcs' in 'qos.trim'");
	expect_err(HEAD "qos:\n  trim: { tcs: [1], tc: 2 }\n",
		   "t.yaml:7: missing required key 'dscp' in 'qos.trim'");
	expect_err(HEAD "qos:\n  trim: { tcs: [1], dscp: 11 }\n",
		   "t.yaml:7: missing required key 'tc' in 'qos.trim'");
	expect_err(HEAD "qos:\n  trim: { tcs: [1], dscp: 11, tc: 2, size: 77 }\n",
		   "t.yaml:7: 'trim.size' must be between 78 and 9000 (got 77)");
	expect_err(HEAD "qos:\n  trim: { tcs: [1], dscp: 64, tc: 2 }\n",
		   "t.yaml:7: 'trim.dscp' must be between 0 and 63 (got 64)");
	expect_err(HEAD "qos:\n  trim: { tcs: [1], dscp: 11, dscp_lasthop: -1, tc: 2 }\n",
		   "t.yaml:7: 'trim.dscp_lasthop' must be between 0 and 63 (got -1)");
	expect_err(HEAD "qos:\n  trim: { tcs: [1], dscp: 11, tc: 2, colour: red }\n",
		   "t.yaml:7: unknown key 'colour' in 'qos.trim'");
	expect_err(HEAD "qos:\n  lossless: [3]\n  trim:\n    tcs: [1, 3]\n    dscp: 11\n"
			"    tc: 2\n",
		   "t.yaml:9: TC 3 cannot be both trim-eligible ('trim.tcs') and lossless");
	expect_err(HEAD "qos:\n  lossless: [2]\n  trim: { tcs: [1], dscp: 11, tc: 2 }\n",
		   "t.yaml:8: 'trim.tc' 2 is lossless: trimmed packets need a lossy class");
	expect_err(HEAD "qos:\n  scheduler: { strict: [7, 2] }\n"
			"  trim: { tcs: [1], dscp: 11, tc: 2 }\n",
		   "t.yaml:8: 'trim.tc' 2 is strict priority: trimmed packets need a DWRR class");
	expect_err(HEAD "qos:\n  cnp: { coalesce_us: 50 }\n",
		   "t.yaml:7: missing required key 'tc' in 'qos.cnp'");
	expect_err(HEAD "qos:\n  cnp: { tc: 8 }\n",
		   "t.yaml:7: 'cnp.tc' value must be a TC between 0 and 7 (got 8)");
	expect_err(HEAD "qos:\n  cnp: { tc: 6, coalesce_us: 1000001 }\n",
		   "t.yaml:7: 'cnp.coalesce_us' must be between 0 and 1000000 (got 1000001)");

	/* Defaults and values. */
	cfg = expect_ok(HEAD "qos:\n  trim: { tcs: [1], dscp: 11, tc: 2 }\n  cnp: { tc: 6 }\n");
	assert_true(cfg->qos.trim.enabled);
	assert_int_equal(cfg->qos.trim.tcs, 1u << 1);
	assert_int_equal(cfg->qos.trim.threshold, 256 * 1024);
	assert_int_equal(cfg->qos.trim.size, 128);
	assert_int_equal(cfg->qos.trim.dscp, 11);
	assert_false(cfg->qos.trim.has_dscp_lasthop);
	assert_int_equal(cfg->qos.trim.tc, 2);
	assert_true(cfg->qos.cnp.enabled);
	assert_int_equal(cfg->qos.cnp.tc, 6);
	assert_int_equal(cfg->qos.cnp.coalesce_us, 0);
	rsw_config_free(cfg);
	cfg = expect_ok(HEAD "qos:\n  trim: { tcs: [1, 4], threshold: 64KB, size: 200, dscp: 11,"
			     " dscp_lasthop: 21, tc: 2 }\n  cnp: { tc: 6, coalesce_us: 50 }\n");
	assert_int_equal(cfg->qos.trim.tcs, (1u << 1) | (1u << 4));
	assert_int_equal(cfg->qos.trim.threshold, 64 * 1024);
	assert_int_equal(cfg->qos.trim.size, 200);
	assert_true(cfg->qos.trim.has_dscp_lasthop);
	assert_int_equal(cfg->qos.trim.dscp_lasthop, 21);
	assert_int_equal(cfg->qos.cnp.coalesce_us, 50);
	{
		json_t *j = rsw_config_to_json(cfg);
		json_t *tr = json_object_get(json_object_get(j, "qos"), "trim");

		assert_non_null(tr);
		assert_int_equal(json_integer_value(json_object_get(tr, "size")), 200);
		assert_int_equal(json_integer_value(json_object_get(tr, "dscp_lasthop")), 21);
		assert_int_equal(json_integer_value(json_object_get(
					 json_object_get(json_object_get(j, "qos"), "cnp"), "tc")),
				 6);
		json_decref(j);
	}
	rsw_config_free(cfg);
	/* Not configured: null in show config. */
	cfg = expect_ok(HEAD);
	assert_false(cfg->qos.trim.enabled);
	assert_false(cfg->qos.cnp.enabled);
	rsw_config_free(cfg);
	/* topology: is built (control/test/test_topology.c); an incomplete one is an error. */
	expect_err(HEAD "topology:\n  design: rail-optimized\n",
		   "t.yaml:6: missing required key 'sus' in 'topology'");
}

/* docs/config.md's qos block verbatim, less trim and cnp (not built yet); qos: is line 6. */
static const char config_md_qos[] = HEAD
	"qos:\n"
	"  trust: dscp                 # dscp | pcp\n"
	"  dscp_to_tc: { 26: 3, 48: 6, 46: 7 }   # unlisted DSCP → default_tc\n"
	"  pcp_to_tc: { 3: 3, 6: 6 }\n"
	"  default_tc: 0\n"
	"  scheduler:\n"
	"    strict: [7, 6]            # strict-priority TCs, highest first\n"
	"    dwrr: { 0: 1, 1: 1, 2: 1, 3: 4 } # weights of the others (ETS)\n"
	"  lossless: [3]               # PFC-protected traffic classes\n"
	"  buffer:\n"
	"    total: 16MB               # shared buffer of the whole switch\n"
	"    queue_limit: 512KB        # lossy per-queue tail-drop limit\n"
	"    pfc: { xoff: 96KB, xon: 48KB, headroom: 64KB, quanta: 65535 }\n"
	"    # or dynamic thresholds (shared-buffer alpha, as ASICs and the HPCC/ns-3 MMU do):\n"
	"    # pfc: { mode: dynamic, alpha: 0.125, xon_offset: 3KB, headroom: 64KB, quanta: 65535 }\n"
	"  ecn:                        # per TC WRED/ECN (DCQCN curve)\n"
	"    3: { kmin: 40KB, kmax: 160KB, pmax: 0.2 }\n"
	"  ecn_mark_point: dequeue     # dequeue (fresher signal, what SONiC tests expect) | enqueue\n"
	"  pfc_watchdog: { detect_ms: 200, restore_ms: 200, action: drop }   # drop | forward | alert | off\n";

/*
 * The buffer's defaults that docs/config.md's example writes out too: the lossy queue limit, the
 * static PFC thresholds and quanta, ECN marked at dequeue and the PFC watchdog.
 */
static void
assert_buffer_defaults(const struct rsw_cfg_qos *q)
{
	assert_int_equal(q->buffer_total, 16ull << 20);
	assert_int_equal(q->queue_limit, 512 * 1024);
	assert_false(q->pfc.dynamic);
	assert_int_equal(q->pfc.xoff, 96 * 1024);
	assert_int_equal(q->pfc.xon, 48 * 1024);
	assert_int_equal(q->pfc.headroom, 64 * 1024);
	assert_int_equal(q->pfc.quanta, 65535);
	assert_false(q->ecn_mark_enqueue);
	assert_int_equal(q->pfcwd.detect_ms, 200);
	assert_int_equal(q->pfcwd.restore_ms, 200);
	assert_int_equal(q->pfcwd.action, RSW_PFCWD_DROP);
}

static void
test_qos_config_md(void **state)
{
	struct rsw_config *cfg = expect_ok(config_md_qos);
	const struct rsw_cfg_qos *q = &cfg->qos;
	static const uint32_t dwrr[RSW_N_TC] = {1, 1, 1, 4, 1, 1, 0, 0};
	int i;

	(void)state;
	assert_int_equal(q->line, 6);
	assert_int_equal(q->dscp_to_tc[26], 3);
	assert_int_equal(q->dscp_to_tc[48], 6);
	assert_int_equal(q->n_strict, 2);
	assert_int_equal(q->strict[0], 7);
	assert_int_equal(q->strict[1], 6);
	/* Strict TCs have no weight; unlisted DWRR TCs (4, 5) weigh 1. */
	for (i = 0; i < RSW_N_TC; i++)
		assert_int_equal(q->dwrr[i], dwrr[i]);
	assert_int_equal(q->lossless, 1u << 3);
	assert_buffer_defaults(q);
	for (i = 0; i < RSW_N_TC; i++)
		assert_int_equal(q->ecn[i].enabled, i == 3);
	assert_int_equal(q->ecn[3].kmin, 40 * 1024);
	assert_int_equal(q->ecn[3].kmax, 160 * 1024);
	assert_true(q->ecn[3].pmax == 0.2);
	rsw_config_free(cfg);
}

static void
test_qos_defaults(void **state)
{
	static const char *const yamls[] = {
		"switch: { name: s }\nports: [{ name: p0, devargs: x }]\n",
		QOS "  trust: dscp\n",
		/* Empty sections are the defaults too. */
		QOS "  scheduler:\n  lossless:\n  buffer: { pfc: }\n  ecn: {}\n  pfc_watchdog: ~\n",
		QOS "  scheduler: { strict: [], dwrr: {} }\n  lossless: []\n",
	};
	size_t k;
	int i;

	(void)state;
	for (k = 0; k < sizeof(yamls) / sizeof(yamls[0]); k++) {
		struct rsw_config *cfg = expect_ok(yamls[k]);
		const struct rsw_cfg_qos *q = &cfg->qos;

		assert_int_equal(q->line, k == 0 ? 0 : 6);
		assert_int_equal(q->n_strict, 0);
		for (i = 0; i < RSW_N_TC; i++) {
			assert_int_equal(q->dwrr[i], 1);
			assert_false(q->ecn[i].enabled);
		}
		assert_int_equal(q->lossless, 0);
		assert_buffer_defaults(q);
		assert_true(q->pfc.alpha == 0.125);
		assert_int_equal(q->pfc.xon_offset, 3 * 1024);
		rsw_config_free(cfg);
	}
}

static void
test_qos_good(void **state)
{
	struct rsw_config *cfg;
	const struct rsw_cfg_qos *q;

	(void)state;
	/* Dynamic thresholds, every key given; alpha and pmax as integers. */
	cfg = expect_ok(QOS
			"  lossless: [4, 3]\n"
			"  buffer:\n"
			"    total: 4096MB\n"
			"    queue_limit: 1 KB\n"
			"    pfc:\n"
			"      mode: dynamic\n"
			"      alpha: 2\n"
			"      xon_offset: 0\n"
			"      headroom: 1.5MB\n"
			"      quanta: 1\n"
			"  ecn:\n"
			"    0: { kmin: 0, kmax: 1, pmax: 1 }\n"
			"    07: { kmin: 16KB, kmax: 64KB, pmax: 0.05 }\n"
			"  ecn_mark_point: enqueue\n"
			"  pfc_watchdog: { detect_ms: 10, restore_ms: 60000, action: forward }\n");
	q = &cfg->qos;
	assert_int_equal(q->lossless, (1u << 3) | (1u << 4));
	assert_int_equal(q->buffer_total, 4096ull << 20);
	assert_int_equal(q->queue_limit, 1024);
	assert_true(q->pfc.dynamic);
	assert_true(q->pfc.alpha == 2.0);
	assert_int_equal(q->pfc.xon_offset, 0);
	assert_int_equal(q->pfc.headroom, 1536 * 1024);
	assert_int_equal(q->pfc.quanta, 1);
	assert_true(q->ecn[0].enabled);
	assert_int_equal(q->ecn[0].kmin, 0);
	assert_int_equal(q->ecn[0].kmax, 1);
	assert_true(q->ecn[0].pmax == 1.0);
	assert_true(q->ecn[7].enabled);
	assert_true(q->ecn[7].pmax == 0.05);
	assert_true(q->ecn_mark_enqueue);
	assert_int_equal(q->pfcwd.detect_ms, 10);
	assert_int_equal(q->pfcwd.restore_ms, 60000);
	assert_int_equal(q->pfcwd.action, RSW_PFCWD_FORWARD);
	rsw_config_free(cfg);

	/* Dynamic defaults; the bounds. */
	cfg = expect_ok(QOS "  buffer: { total: 64KB, pfc: { mode: dynamic, alpha: 64 } }\n"
			    "  scheduler: { strict: [0, 1, 2, 3, 4, 5, 6, 7] }\n"
			    "  pfc_watchdog: { detect_ms: 60000, action: alert }\n");
	q = &cfg->qos;
	assert_true(q->pfc.dynamic);
	assert_true(q->pfc.alpha == 64.0);
	assert_int_equal(q->pfc.xon_offset, 3072);
	assert_int_equal(q->pfc.headroom, 65536);
	assert_int_equal(q->n_strict, 8);
	assert_int_equal(q->strict[7], 7);
	assert_int_equal(q->dwrr[7], 0);
	assert_int_equal(q->pfcwd.restore_ms, 200);
	assert_int_equal(q->pfcwd.action, RSW_PFCWD_ALERT);
	rsw_config_free(cfg);

	/* Explicit static mode; xon 0; weights up to 100; small floats. */
	cfg = expect_ok(QOS "  buffer:\n    pfc: { mode: static, xoff: 1, xon: 0, quanta: 65535 }\n"
			    "  scheduler: { dwrr: { 0: 100, 5: 7 } }\n"
			    "  ecn: { 2: { kmin: 1KB, kmax: 2KB, pmax: 1e-3 } }\n"
			    "  pfc_watchdog: { action: off }\n");
	q = &cfg->qos;
	assert_false(q->pfc.dynamic);
	assert_int_equal(q->pfc.xoff, 1);
	assert_int_equal(q->pfc.xon, 0);
	assert_int_equal(q->dwrr[0], 100);
	assert_int_equal(q->dwrr[5], 7);
	assert_int_equal(q->dwrr[6], 1);
	assert_true(q->ecn[2].pmax == 0.001);
	assert_int_equal(q->pfcwd.action, RSW_PFCWD_OFF);
	rsw_config_free(cfg);
}

static void
test_qos_json(void **state)
{
	struct rsw_config *cfg = expect_ok(config_md_qos);
	json_t *j = rsw_config_to_json(cfg), *q, *o;

	(void)state;
	assert_non_null(j);
	q = json_object_get(j, "qos");
	o = json_object_get(json_object_get(q, "scheduler"), "strict");
	assert_int_equal(json_array_size(o), 2);
	assert_int_equal(json_integer_value(json_array_get(o, 0)), 7);
	assert_int_equal(json_integer_value(json_array_get(o, 1)), 6);
	/* dwrr: the non-strict TCs only, defaults included. */
	o = json_object_get(json_object_get(q, "scheduler"), "dwrr");
	assert_int_equal(json_object_size(o), 6);
	assert_int_equal(json_integer_value(json_object_get(o, "3")), 4);
	assert_int_equal(json_integer_value(json_object_get(o, "5")), 1);
	assert_null(json_object_get(o, "6"));
	o = json_object_get(q, "lossless");
	assert_int_equal(json_array_size(o), 1);
	assert_int_equal(json_integer_value(json_array_get(o, 0)), 3);
	o = json_object_get(q, "buffer");
	assert_int_equal(json_integer_value(json_object_get(o, "total")), 16777216);
	assert_int_equal(json_integer_value(json_object_get(o, "queue_limit")), 524288);
	o = json_object_get(o, "pfc");
	assert_string_equal(json_string_value(json_object_get(o, "mode")), "static");
	assert_int_equal(json_integer_value(json_object_get(o, "xoff")), 98304);
	assert_int_equal(json_integer_value(json_object_get(o, "xon")), 49152);
	assert_int_equal(json_integer_value(json_object_get(o, "headroom")), 65536);
	assert_int_equal(json_integer_value(json_object_get(o, "quanta")), 65535);
	assert_null(json_object_get(o, "alpha"));
	o = json_object_get(q, "ecn");
	assert_int_equal(json_object_size(o), 1);
	o = json_object_get(o, "3");
	assert_int_equal(json_integer_value(json_object_get(o, "kmin")), 40960);
	assert_int_equal(json_integer_value(json_object_get(o, "kmax")), 163840);
	assert_true(json_real_value(json_object_get(o, "pmax")) == 0.2);
	assert_string_equal(json_string_value(json_object_get(q, "ecn_mark_point")), "dequeue");
	o = json_object_get(q, "pfc_watchdog");
	assert_int_equal(json_integer_value(json_object_get(o, "detect_ms")), 200);
	assert_int_equal(json_integer_value(json_object_get(o, "restore_ms")), 200);
	assert_string_equal(json_string_value(json_object_get(o, "action")), "drop");
	json_decref(j);
	rsw_config_free(cfg);

	/* Dynamic mode shows its own keys; defaults elsewhere. */
	cfg = expect_ok(QOS "  buffer: { pfc: { mode: dynamic } }\n  ecn_mark_point: enqueue\n"
			    "  pfc_watchdog: { action: forward }\n");
	j = rsw_config_to_json(cfg);
	assert_non_null(j);
	q = json_object_get(j, "qos");
	o = json_object_get(json_object_get(q, "buffer"), "pfc");
	assert_string_equal(json_string_value(json_object_get(o, "mode")), "dynamic");
	assert_true(json_real_value(json_object_get(o, "alpha")) == 0.125);
	assert_int_equal(json_integer_value(json_object_get(o, "xon_offset")), 3072);
	assert_int_equal(json_integer_value(json_object_get(o, "headroom")), 65536);
	assert_null(json_object_get(o, "xoff"));
	assert_null(json_object_get(o, "xon"));
	assert_int_equal(
		json_array_size(json_object_get(json_object_get(q, "scheduler"), "strict")), 0);
	assert_int_equal(json_object_size(json_object_get(json_object_get(q, "scheduler"), "dwrr")),
			 8);
	assert_int_equal(json_array_size(json_object_get(q, "lossless")), 0);
	assert_int_equal(json_object_size(json_object_get(q, "ecn")), 0);
	assert_string_equal(json_string_value(json_object_get(q, "ecn_mark_point")), "enqueue");
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(q, "pfc_watchdog"), "action")),
		"forward");
	json_decref(j);
	rsw_config_free(cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qos_ranges),         cmocka_unit_test(test_qos_scheduler_bad),
		cmocka_unit_test(test_qos_lossless_bad),   cmocka_unit_test(test_qos_buffer_bad),
		cmocka_unit_test(test_qos_buffer_reserve), cmocka_unit_test(test_qos_ecn_bad),
		cmocka_unit_test(test_qos_pfcwd_bad),      cmocka_unit_test(test_trim_cnp),
		cmocka_unit_test(test_qos_config_md),      cmocka_unit_test(test_qos_defaults),
		cmocka_unit_test(test_qos_good),           cmocka_unit_test(test_qos_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
