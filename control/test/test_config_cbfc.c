/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The loader's ports[].cbfc (docs/config.md, docs/link.md "Credit-based flow control"):
 * bad values first, each with its line; the checks against qos: (a lossless TC, the
 * buffer's total); then good files and the effective configuration. Runs from control/test
 * (meson workdir).
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include "cfg_test.h"
#include "rsw_config.h"

/* A port with x on line 6, then qos: q from line 7 on. */
#define CBFC_WITH(x, q)                                                                            \
	"switch:\n  name: s1\nports:\n  - name: p0\n    devargs: net_tap0\n" x "qos:\n" q
#define LOSSLESS "  lossless: [3]\n"

static void
test_cbfc_bad(void **state)
{
	(void)state;
	expect_err(CBFC_WITH("    cbfc: yes\n", LOSSLESS),
		   "t.yaml:6: 'cbfc' must be true or false (got 'yes')");
	expect_err(CBFC_WITH("    cbfc: [true]\n", LOSSLESS),
		   "t.yaml:6: 'cbfc' must be true, false or a mapping { enable, bytes_per_credit, "
		   "buffer, fallback }");
	expect_err(CBFC_WITH("    cbfc: { bytes_per_credits: 64 }\n", LOSSLESS),
		   "t.yaml:6: unknown key 'bytes_per_credits' in 'cbfc'; did you mean "
		   "'bytes_per_credit'?");
	expect_err(CBFC_WITH("    cbfc:\n      bytes_per_credit: 16\n", LOSSLESS),
		   "t.yaml:7: 'bytes_per_credit' must be between 32 and 2048 (got 16)");
	expect_err(CBFC_WITH("    cbfc:\n      bytes_per_credit: 4096\n", LOSSLESS),
		   "t.yaml:7: 'bytes_per_credit' must be between 32 and 2048 (got 4096)");
	expect_err(CBFC_WITH("    cbfc: { fallback: pause }\n", LOSSLESS),
		   "t.yaml:6: 'fallback' must be pfc | none (got 'pause')");
	expect_err(CBFC_WITH("    cbfc: { buffer: lots }\n", LOSSLESS),
		   "t.yaml:6: 'buffer' must be a size like 512KB, 16MB or 65536 (got 'lots')");
}

static void
test_cbfc_against_qos(void **state)
{
	(void)state;
	/* No lossless TC: nothing to run credits on. */
	expect_err(CBFC_WITH("    cbfc: true\n", "  trust: dscp\n"),
		   "t.yaml:6: 'cbfc' on port 'p0' needs a lossless TC: list one in "
		   "'qos.lossless'");
	/* A buffer above the switch's. */
	expect_err(CBFC_WITH("    cbfc:\n      buffer: 32MB\n", LOSSLESS),
		   "t.yaml:7: 'cbfc.buffer' 32MB of port 'p0' is above the switch's buffer "
		   "('qos.buffer.total' 16MB)");
	expect_err(
		CBFC_WITH("    cbfc:\n      buffer: 2MB\n", LOSSLESS "  buffer: { total: 1MB }\n"),
		"t.yaml:7: 'cbfc.buffer' 2MB of port 'p0' is above the switch's buffer "
		"('qos.buffer.total' 1MB)");
	expect_err(CBFC_WITH("    cbfc: { bytes_per_credit: 256, buffer: 100 }\n", LOSSLESS),
		   "t.yaml:6: 'cbfc.buffer' 100B of port 'p0' is less than one credit "
		   "(bytes_per_credit 256)");
	/* Disabled: no check. */
	rsw_config_free(expect_ok(CBFC_WITH("    cbfc: false\n", "  trust: dscp\n")));
	rsw_config_free(
		expect_ok(CBFC_WITH("    cbfc: { enable: false, buffer: 64MB }\n", LOSSLESS)));
}

static void
test_cbfc_good(void **state)
{
	struct rsw_config *cfg;
	json_t *j, *cb;

	(void)state;
	cfg = expect_ok(CBFC_WITH("    cbfc: true\n", LOSSLESS));
	assert_true(cfg->ports[0].cbfc.enable);
	assert_int_equal(cfg->ports[0].cbfc.bytes_per_credit, 64);
	assert_int_equal(cfg->ports[0].cbfc.buffer, 0); /* the PG's xoff */
	assert_int_equal(cfg->ports[0].cbfc.fallback, RSW_CFG_CBFC_PFC);
	rsw_config_free(cfg);

	cfg = expect_ok(CBFC_WITH(
		"    cbfc: { bytes_per_credit: 128, buffer: 20KB, fallback: none }\n", LOSSLESS));
	assert_true(cfg->ports[0].cbfc.enable);
	assert_int_equal(cfg->ports[0].cbfc.bytes_per_credit, 128);
	assert_int_equal(cfg->ports[0].cbfc.buffer, 20 * 1024);
	assert_int_equal(cfg->ports[0].cbfc.fallback, RSW_CFG_CBFC_NONE);
	j = rsw_config_to_json(cfg);
	assert_non_null(j);
	cb = json_object_get(json_array_get(json_object_get(j, "ports"), 0), "cbfc");
	assert_non_null(cb);
	assert_int_equal(json_integer_value(json_object_get(cb, "bytes_per_credit")), 128);
	assert_int_equal(json_integer_value(json_object_get(cb, "buffer")), 20 * 1024);
	assert_string_equal(json_string_value(json_object_get(cb, "fallback")), "none");
	json_decref(j);
	rsw_config_free(cfg);

	/* Bounds are inclusive; a port without the key has it off. */
	cfg = expect_ok(CBFC_WITH("    cbfc: { bytes_per_credit: 32 }\n", LOSSLESS));
	assert_int_equal(cfg->ports[0].cbfc.bytes_per_credit, 32);
	rsw_config_free(cfg);
	cfg = expect_ok(
		CBFC_WITH("    cbfc: { bytes_per_credit: 2048, buffer: 16MB }\n", LOSSLESS));
	assert_int_equal(cfg->ports[0].cbfc.bytes_per_credit, 2048);
	rsw_config_free(cfg);
	cfg = expect_ok(CBFC_WITH("", LOSSLESS));
	assert_false(cfg->ports[0].cbfc.enable);
	rsw_config_free(cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cbfc_bad),
		cmocka_unit_test(test_cbfc_against_qos),
		cmocka_unit_test(test_cbfc_good),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
