/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the configuration loader (control/config/): every rule of CONFIG.md with its
 * exact "FILE:LINE: message", bad input first, then good configurations, the JSON view and the
 * files shipped in config/. Runs from control/test (meson workdir).
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

/* The load fails and the message starts with prefix. */
static void
expect_err_prefix(const char *yaml, const char *prefix)
{
	struct rsw_config *cfg = load(yaml);

	if (cfg != NULL || strncmp(err, prefix, strlen(prefix)) != 0)
		print_error("yaml:\n%s\nexpected prefix: %s\n            got: %s\n", yaml, prefix,
			    cfg ? "(success)" : err);
	assert_null(cfg);
	assert_memory_equal(err, prefix, strlen(prefix));
}

static struct rsw_config *
expect_ok(const char *yaml)
{
	struct rsw_config *cfg = load(yaml);

	if (cfg == NULL)
		print_error("yaml:\n%s\nunexpected error: %s\n", yaml, err);
	assert_non_null(cfg);
	return cfg;
}

/* A valid head: lines 1-5. Tests append sections from line 6 on. */
#define HEAD                                                                                       \
	"switch:\n"                                                                                \
	"  name: s1\n"                                                                             \
	"ports:\n"                                                                                 \
	"  - { name: p0, devargs: net_tap0, ipv4: 10.0.1.254/24, ipv6: fd00:1::fe/64 }\n"          \
	"  - { name: p1, devargs: net_tap1, ipv4: 10.0.2.254/24 }\n"

/* Bad input: files and YAML. */

static void
test_empty(void **state)
{
	(void)state;
	expect_err("", "t.yaml: empty configuration");
	expect_err("\n\n# only a comment\n", "t.yaml: empty configuration");
	expect_err("---\n", "t.yaml: empty configuration");
	expect_err("~\n", "t.yaml: empty configuration");
	assert_null(rsw_config_load_buf("t.yaml", NULL, 0, err, sizeof(err)));
	assert_string_equal(err, "t.yaml: empty configuration");
}

static void
test_binary_garbage(void **state)
{
	static const char bin[] = "\x7f"
				  "ELF\x02\x01\x01\x00\x00\x00\xff\xfe\x00\x01";
	struct rsw_config *cfg;
	char buf[512];
	unsigned seed = 1;
	int i, j;

	(void)state;
	cfg = rsw_config_load_buf("t.yaml", bin, sizeof(bin) - 1, err, sizeof(err));
	assert_null(cfg);
	assert_memory_equal(err, "t.yaml:1: invalid YAML: ", 24);

	/* An invalid UTF-8 byte on line 3 is reported on line 3. */
	cfg = load("switch:\n  name: a\n  role: \xff\xfe\n");
	assert_null(cfg);
	assert_memory_equal(err, "t.yaml:3: invalid YAML: ", 24);

	/* Deep nesting is refused quickly (libyaml is quadratic in depth). */
	memset(buf, '[', sizeof(buf));
	memcpy(buf, "a:\n  ", 5);
	cfg = rsw_config_load_buf("t.yaml", buf, sizeof(buf), err, sizeof(err));
	assert_null(cfg);
	assert_string_equal(err, "t.yaml:2: nesting deeper than 64 levels");
	/* Brackets in quoted scalars and comments do not count. */
	cfg = load(
		"switch: { name: a } # [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n"
		"ports: [{ name: p0, devargs: \"x[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\" }]\n");
	assert_non_null(cfg);
	rsw_config_free(cfg);

	/* Random bytes never crash and never load. */
	for (i = 0; i < 200; i++) {
		for (j = 0; j < (int)sizeof(buf); j++)
			buf[j] = (char)(rand_r(&seed) & 0xff);
		cfg = rsw_config_load_buf("t.yaml", buf, sizeof(buf), err, sizeof(err));
		assert_null(cfg);
		assert_memory_equal(err, "t.yaml", 6);
	}
}

static void
test_invalid_yaml(void **state)
{
	(void)state;
	expect_err(
		"switch:\n  name: a\n ports: x\n",
		"t.yaml:3: invalid YAML: did not find expected key (while parsing a block mapping at line 1)");
	expect_err(
		"switch: { name: a\nports: []\n",
		"t.yaml:2: invalid YAML: did not find expected ',' or '}' (while parsing a flow mapping at line 1)");
	expect_err(
		"switch:\n  name: \"a\n",
		"t.yaml:3: invalid YAML: found unexpected end of stream (while scanning a quoted scalar at line 2)");
	expect_err_prefix("switch: [a, b\n", "t.yaml:2: invalid YAML: ");
	expect_err("switch: *nope\n", "t.yaml:1: invalid YAML: found undefined alias");
	expect_err(
		"switch:\n\tname: a\n",
		"t.yaml:2: invalid YAML: found character that cannot start any token (while scanning for the next token at line 2)");
	expect_err(HEAD "---\n" HEAD, "t.yaml:6: only one YAML document is allowed");
	expect_err("- a\n- b\n",
		   "t.yaml:1: the top level must be a mapping of sections (switch:, ports:, ...)");
	expect_err("just words\n",
		   "t.yaml:1: the top level must be a mapping of sections (switch:, ports:, ...)");
	expect_err("switch:\n  name: \"a\\0b\"\n",
		   "t.yaml:2: 'name' must not contain a NUL character");
	expect_err("? [a, b]\n: c\n", "t.yaml:1: keys must be plain words");
}

static void
test_duplicate_keys(void **state)
{
	(void)state;
	expect_err("switch:\n  name: a\n  name: b\n",
		   "t.yaml:3: duplicate key 'name' (first at line 2)");
	expect_err(HEAD "switch:\n  name: b\n",
		   "t.yaml:6: duplicate key 'switch' (first at line 1)");
	expect_err("switch: { name: a, role: leaf, role: spine }\n",
		   "t.yaml:1: duplicate key 'role' (first at line 1)");
	expect_err(HEAD "ports2: x\n", "t.yaml:6: unknown key 'ports2'");
	expect_err("switch:\n  name: a\nports:\n  - name: p0\n    devargs: x\n    mtu: 1500\n"
		   "    mtu: 9000\n",
		   "t.yaml:7: duplicate key 'mtu' (first at line 6)");
	expect_err(HEAD "qos:\n  dscp_to_tc: { 26: 3, 26: 4 }\n", "t.yaml:7: duplicate key '26'");
	expect_err(HEAD "qos:\n  dscp_to_tc: { 26: 3, 026: 4 }\n", "t.yaml:7: duplicate key '026'");
	expect_err(HEAD "qos:\n  pcp_to_tc:\n    3: 3\n    3: 4\n", "t.yaml:9: duplicate key '3'");
	expect_err(HEAD "load_balance:\n  per_tc: { 3: hash, 3: hash }\n",
		   "t.yaml:7: duplicate key '3'");
}

static void
test_wrong_types(void **state)
{
	(void)state;
	expect_err("switch:\n  name: a\nports:\n  - name: p0\n    devargs: x\n    mtu: big\n",
		   "t.yaml:6: 'mtu' must be an integer");
	expect_err("switch:\n  name: a\nports:\n  - name: p0\n    devargs: x\n    mtu: [1500]\n",
		   "t.yaml:6: 'mtu' must be an integer");
	expect_err("switch:\n  name: a\nports:\n  - name: p0\n    devargs: x\n    mtu: 1500.5\n",
		   "t.yaml:6: 'mtu' must be an integer");
	expect_err("switch: [a]\n", "t.yaml:1: 'switch' must be a mapping");
	expect_err("switch:\n  name: a\nports: p0\n", "t.yaml:3: 'ports' must be a list");
	expect_err("switch:\n  name: a\nports:\n  - p0\n",
		   "t.yaml:4: each entry of 'ports' must be a mapping");
	expect_err("switch:\n  name: { a: b }\n", "t.yaml:2: 'name' must be a name");
	expect_err(HEAD "control:\n  telemetry: maybe\n",
		   "t.yaml:7: 'telemetry' must be true or false (got 'maybe')");
	expect_err(HEAD "control:\n  telemetry:\n", "t.yaml:7: 'telemetry' must be true or false");
	expect_err(HEAD "neighbors: { ip: 10.0.1.1 }\n", "t.yaml:6: 'neighbors' must be a list");
	expect_err(HEAD "neighbors:\n  - 10.0.1.1\n",
		   "t.yaml:7: each entry of 'neighbors' must be a mapping");
	expect_err(HEAD "routes: 10.9.0.0/16\n", "t.yaml:6: 'routes' must be a list");
	expect_err(HEAD "routes:\n  - { prefix: 10.9.0.0/16, nexthops: { a: b } }\n",
		   "t.yaml:7: 'nexthops' must be a list of addresses");
	expect_err(HEAD "routes:\n  - { prefix: 10.9.0.0/16, nexthops: [10.0.1.1], weights: 1 }\n",
		   "t.yaml:7: 'weights' must be a list of integers");
	expect_err(HEAD
		   "routes:\n  - { prefix: 10.9.0.0/16, nexthops: [10.0.1.1], weights: [x] }\n",
		   "t.yaml:7: 'weights' must be an integer");
	expect_err(HEAD "qos: [trust]\n", "t.yaml:6: 'qos' must be a mapping");
	expect_err(HEAD "qos:\n  dscp_to_tc: [1, 2]\n",
		   "t.yaml:7: 'dscp_to_tc' must be a mapping of DSCP to TC");
	expect_err(HEAD "qos:\n  dscp_to_tc: { ef: 5 }\n",
		   "t.yaml:7: 'dscp_to_tc' keys must be DSCP values 0-63 (got 'ef')");
	expect_err(HEAD "qos:\n  dscp_to_tc: { 46: high }\n",
		   "t.yaml:7: 'dscp_to_tc' value must be an integer TC (got 'high')");
	expect_err(HEAD "load_balance:\n  hash_fields: src_ip\n",
		   "t.yaml:7: 'hash_fields' must be a list");
	expect_err(HEAD "load_balance:\n  hash_symmetric: 1\n",
		   "t.yaml:7: 'hash_symmetric' must be true or false (got '1')");
	expect_err(HEAD "control: /run/x.sock\n", "t.yaml:6: 'control' must be a mapping");
	expect_err("switch:\n  name: a\n  icmp_unreachable: sometimes\n",
		   "t.yaml:3: 'icmp_unreachable' must be true or false (got 'sometimes')");
}

static void
test_unknown_keys(void **state)
{
	(void)state;
	expect_err(HEAD "bogus: 1\n", "t.yaml:6: unknown key 'bogus'");
	expect_err("switch:\n  name: a\n  colour: red\n",
		   "t.yaml:3: unknown key 'colour' in 'switch'");
	expect_err(HEAD "qos:\n  trust: dscp\n  trsut: pcp\n",
		   "t.yaml:8: unknown key 'trsut' in 'qos'");
	expect_err("switch:\n  name: a\nports:\n  - name: p0\n    devargs: x\n    speeed: 10G\n",
		   "t.yaml:6: unknown key 'speeed' in 'ports'");
	expect_err(HEAD "neighbors:\n  - { ip: 10.0.1.1, mac: 02:00:00:00:01:01, prot: p0 }\n",
		   "t.yaml:7: unknown key 'prot' in 'neighbors'");
	expect_err(HEAD "routes:\n  - { prefix: 10.9.0.0/16, nexthop: 10.0.1.1 }\n",
		   "t.yaml:7: unknown key 'nexthop' in 'routes'");
	expect_err(HEAD "load_balance:\n  hash: crc32\n",
		   "t.yaml:7: unknown key 'hash' in 'load_balance'");
	expect_err(HEAD "control:\n  sock: /x\n", "t.yaml:7: unknown key 'sock' in 'control'");
	expect_err("switch:\n  name: a\n  icmp_unreachable: { enable: true, rate: 5 }\n",
		   "t.yaml:3: unknown key 'rate' in 'switch.icmp_unreachable'");
}

static void
test_missing_required(void **state)
{
	(void)state;
	expect_err("ports:\n  - { name: p0, devargs: x }\n",
		   "t.yaml: missing required key 'switch'");
	expect_err("switch:\n  role: leaf\nports:\n  - { name: p0, devargs: x }\n",
		   "t.yaml:1: missing required key 'name' in 'switch'");
	expect_err("switch:\nports:\n  - { name: p0, devargs: x }\n",
		   "t.yaml:1: missing required key 'name' in 'switch'");
	expect_err("switch:\n  name: a\n", "t.yaml: missing required key 'ports'");
	expect_err("switch:\n  name: a\nports: []\n",
		   "t.yaml:3: 'ports' must list at least one port");
	expect_err("switch:\n  name: a\nports:\n", "t.yaml:3: 'ports' must list at least one port");
	expect_err("switch:\n  name: a\nports:\n  - devargs: x\n",
		   "t.yaml:4: missing required key 'name' in 'ports'");
	expect_err("switch:\n  name: a\nports:\n  - name: p0\n    mtu: 1500\n",
		   "t.yaml:4: missing required key 'devargs' in 'ports'");
	expect_err("switch:\n  name: a\nports:\n  - { name: p0, devargs: \"\" }\n",
		   "t.yaml:4: 'devargs' must not be empty");
	expect_err(HEAD "neighbors:\n  - { ip: 10.0.1.1, port: p0 }\n",
		   "t.yaml:7: missing required key 'mac' in 'neighbors'");
	expect_err(HEAD "neighbors:\n  - { mac: 02:00:00:00:01:01, port: p0 }\n",
		   "t.yaml:7: missing required key 'ip' in 'neighbors'");
	expect_err(HEAD "neighbors:\n  - { ip: 10.0.1.1, mac: 02:00:00:00:01:01 }\n",
		   "t.yaml:7: missing required key 'port' in 'neighbors'");
	expect_err(HEAD "routes:\n  - { nexthops: [10.0.1.1] }\n",
		   "t.yaml:7: missing required key 'prefix' in 'routes'");
	expect_err(HEAD "routes:\n  - { prefix: 10.9.0.0/16 }\n",
		   "t.yaml:7: missing required key 'nexthops' in 'routes'");
}

/* Bad input: values. */

static void
test_names(void **state)
{
	(void)state;
	expect_err(
		"switch:\n  name: \"has space\"\n",
		"t.yaml:2: 'name' must be 1 to 31 characters of A-Z a-z 0-9 _ . - (got 'has space')");
	expect_err(
		"switch:\n  name: abcdefghijabcdefghijabcdefghij12\n",
		"t.yaml:2: 'name' must be 1 to 31 characters of A-Z a-z 0-9 _ . - (got 'abcdefghijabcdefghijabcdefghij12')");
	expect_err("switch:\n  name: \"\"\n",
		   "t.yaml:2: 'name' must be 1 to 31 characters of A-Z a-z 0-9 _ . - (got '')");
	expect_err("switch:\n  name: a\nports:\n  - { name: p/0, devargs: x }\n",
		   "t.yaml:4: 'name' must be 1 to 31 characters of A-Z a-z 0-9 _ . - (got 'p/0')");
	expect_err("switch:\n  name: a\n  role: core\n",
		   "t.yaml:3: 'role' must be leaf | spine (got 'core')");
	expect_err("switch:\n  name: a\nports:\n  - { name: p0, devargs: x, role: side }\n",
		   "t.yaml:4: 'role' must be downlink | uplink (got 'side')");
}

static void
test_ports(void **state)
{
	char yaml[8192];
	int i, off;

	(void)state;
	expect_err("switch:\n  name: a\nports:\n  - { name: p0, devargs: x }\n"
		   "  - { name: p1, devargs: y }\n  - { name: p0, devargs: z }\n",
		   "t.yaml:6: duplicate port name 'p0' (first at line 4)");
	expect_err("switch:\n  name: a\nports:\n  - { name: p0, devargs: x }\n"
		   "  - { name: p1, devargs: x }\n",
		   "t.yaml:5: duplicate devargs 'x' (port 'p0' has it)");

	/* 32 ports load; the 33rd is refused on its own line. */
	off = snprintf(yaml, sizeof(yaml), "switch:\n  name: a\nports:\n");
	for (i = 0; i < 32; i++)
		off += snprintf(yaml + off, sizeof(yaml) - (size_t)off,
				"  - { name: p%d, devargs: net_tap%d }\n", i, i);
	rsw_config_free(expect_ok(yaml));
	snprintf(yaml + off, sizeof(yaml) - (size_t)off, "  - { name: p32, devargs: net_tap32 }\n");
	expect_err(yaml, "t.yaml:36: too many ports (at most 32)");

	expect_err("switch:\n  name: a\nports:\n  - { name: p0, devargs: x, mtu: 67 }\n",
		   "t.yaml:4: 'mtu' must be between 68 and 9000 (got 67)");
	expect_err("switch:\n  name: a\nports:\n  - { name: p0, devargs: x, mtu: 9001 }\n",
		   "t.yaml:4: 'mtu' must be between 68 and 9000 (got 9001)");
	expect_err("switch:\n  name: a\nports:\n  - { name: p0, devargs: x, mtu: -1 }\n",
		   "t.yaml:4: 'mtu' must be between 68 and 9000 (got -1)");
	expect_err(
		"switch:\n  name: a\nports:\n  - { name: p0, devargs: x, mtu: 99999999999999999999 }\n",
		"t.yaml:4: 'mtu' must be between 68 and 9000 (got 99999999999999999999)");
	expect_err(
		"switch:\n  name: a\nports:\n  - name: p0\n    devargs: x\n"
		"    ipv6: fd00::1/64\n    mtu: 1000\n",
		"t.yaml:7: 'mtu' must be at least 1280 on a port with an IPv6 address (got 1000)");

	/* MAC */
	expect_err(
		"switch:\n  name: a\nports:\n  - { name: p0, devargs: x, mac: 01:00:5e:00:00:01 }\n",
		"t.yaml:4: 'mac' must be a unicast MAC address (got 01:00:5e:00:00:01)");
	expect_err(
		"switch:\n  name: a\nports:\n  - { name: p0, devargs: x, mac: 00:00:00:00:00:00 }\n",
		"t.yaml:4: 'mac' must not be all zero");
	expect_err(
		"switch:\n  name: a\nports:\n  - { name: p0, devargs: x, mac: 02:00:00:00:00 }\n",
		"t.yaml:4: 'mac' must be a MAC address like 02:00:00:00:00:01 (got '02:00:00:00:00')");
	expect_err(
		"switch:\n  name: a\nports:\n  - { name: p0, devargs: x, mac: 02-00-00-00-00-01 }\n",
		"t.yaml:4: 'mac' must be a MAC address like 02:00:00:00:00:01 (got '02-00-00-00-00-01')");
	expect_err(
		"switch:\n  name: a\nports:\n  - { name: p0, devargs: x, mac: 02:00:00:00:00:0g }\n",
		"t.yaml:4: 'mac' must be a MAC address like 02:00:00:00:00:01 (got '02:00:00:00:00:0g')");

	/* speed */
	expect_err("switch:\n  name: a\nports:\n  - { name: p0, devargs: x, speed: 999K }\n",
		   "t.yaml:4: 'speed' must be between 1M and 400G (got 999K)");
	expect_err("switch:\n  name: a\nports:\n  - { name: p0, devargs: x, speed: 401G }\n",
		   "t.yaml:4: 'speed' must be between 1M and 400G (got 401G)");
	expect_err(
		"switch:\n  name: a\nports:\n  - { name: p0, devargs: x, speed: fast }\n",
		"t.yaml:4: 'speed' must be a rate in bits/s like 100M, 2.5G or 10G (got 'fast')");
	expect_err("switch:\n  name: a\nports:\n  - { name: p0, devargs: x, speed: 10T }\n",
		   "t.yaml:4: 'speed' must be a rate in bits/s like 100M, 2.5G or 10G (got '10T')");

	/* addresses */
	expect_err(
		"switch:\n  name: a\nports:\n  - { name: p0, devargs: x, ipv4: 10.0.1.0/24 }\n",
		"t.yaml:4: 'ipv4' 10.0.1.0/24 is the subnet's network address; give the switch's own address in 10.0.1.0/24");
	expect_err(
		"switch:\n  name: a\nports:\n  - { name: p0, devargs: x, ipv4: 10.0.1.255/24 }\n",
		"t.yaml:4: 'ipv4' 10.0.1.255/24 is the subnet's broadcast address; give the switch's own address in 10.0.1.0/24");
	expect_err(
		"switch:\n  name: a\nports:\n  - { name: p0, devargs: x, ipv4: 10.0.1.1 }\n",
		"t.yaml:4: 'ipv4' must be an IPv4 address/length like 10.0.1.254/24 (got '10.0.1.1')");
	expect_err(
		"switch:\n  name: a\nports:\n  - { name: p0, devargs: x, ipv4: 10.0.1.1/33 }\n",
		"t.yaml:4: 'ipv4' must be an IPv4 address/length like 10.0.1.254/24 (got '10.0.1.1/33')");
	expect_err(
		"switch:\n  name: a\nports:\n  - { name: p0, devargs: x, ipv4: 10.0.1.300/24 }\n",
		"t.yaml:4: 'ipv4' must be an IPv4 address/length like 10.0.1.254/24 (got '10.0.1.300/24')");
	expect_err(
		"switch:\n  name: a\nports:\n  - { name: p0, devargs: x, ipv4: fd00::1/64 }\n",
		"t.yaml:4: 'ipv4' must be an IPv4 address/length like 10.0.1.254/24 (got 'fd00::1/64')");
	expect_err(
		"switch:\n  name: a\nports:\n  - { name: p0, devargs: x, ipv6: 10.0.0.1/24 }\n",
		"t.yaml:4: 'ipv6' must be an IPv6 address/length like fd00:0:1::fe/64 (got '10.0.0.1/24')");
	expect_err("switch:\n  name: a\nports:\n  - { name: p0, devargs: x, ipv4: 10.0.1.1/0 }\n",
		   "t.yaml:4: 'ipv4' must have a prefix length of 1 or more (got 10.0.1.1/0)");
	expect_err("switch:\n  name: a\nports:\n  - { name: p0, devargs: x, ipv4: 224.0.0.1/24 }\n",
		   "t.yaml:4: 'ipv4' must be a unicast address (got 224.0.0.1/24)");
	expect_err("switch:\n  name: a\nports:\n  - { name: p0, devargs: x, ipv4: 10.0.1.1/24 }\n"
		   "  - { name: p1, devargs: y, ipv4: 10.0.0.1/16 }\n",
		   "t.yaml:5: 'ipv4' 10.0.0.1/16 overlaps port 'p0' (10.0.1.1/24)");
	expect_err("switch:\n  name: a\nports:\n  - { name: p0, devargs: x, ipv6: fd00::1/64 }\n"
		   "  - { name: p1, devargs: y, ipv6: fd00::2/64 }\n",
		   "t.yaml:5: 'ipv6' fd00::2/64 overlaps port 'p0' (fd00::1/64)");
}

static void
test_switch_ranges(void **state)
{
	(void)state;
	expect_err("switch:\n  name: a\n  idle_sleep_us: 1000001\n",
		   "t.yaml:3: 'idle_sleep_us' must be between 0 and 1000000 (got 1000001)");
	expect_err("switch:\n  name: a\n  idle_sleep_us: -5\n",
		   "t.yaml:3: 'idle_sleep_us' must be between 0 and 1000000 (got -5)");
	expect_err("switch:\n  name: a\n  router_id: fd00::1\n",
		   "t.yaml:3: 'router_id' must be an IPv4 address (got 'fd00::1')");
	expect_err("switch:\n  name: a\n  router_id: 10.0.0\n",
		   "t.yaml:3: 'router_id' must be an IPv4 address (got '10.0.0')");
	expect_err("switch:\n  name: a\n  icmp_unreachable: { rate_pps: 0 }\n",
		   "t.yaml:3: 'rate_pps' must be between 1 and 1000000 (got 0)");
}

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

static void
test_lb(void **state)
{
	(void)state;
	expect_err(
		HEAD "load_balance:\n  mode: ecmp\n",
		"t.yaml:7: unknown load-balance mode 'ecmp' (hash | spray | adaptive | flowlet)");
	/* Every mode is accepted by default, per TC and per route. */
	{
		struct rsw_config *cfg;

		cfg = expect_ok(HEAD "load_balance:\n  mode: spray\n");
		assert_int_equal(cfg->lb.mode, RSW_LB_SPRAY);
		rsw_config_free(cfg);
		cfg = expect_ok(HEAD "load_balance:\n  mode: adaptive\n");
		assert_int_equal(cfg->lb.mode, RSW_LB_ADAPTIVE);
		rsw_config_free(cfg);
		cfg = expect_ok(HEAD "load_balance:\n  mode: flowlet\n");
		assert_int_equal(cfg->lb.mode, RSW_LB_FLOWLET);
		rsw_config_free(cfg);
		cfg = expect_ok(HEAD "load_balance:\n  per_tc: { 3: spray, 0: hash }\n");
		assert_int_equal(cfg->lb.mode, RSW_LB_HASH);
		assert_int_equal(cfg->lb.per_tc[3], RSW_LB_SPRAY);
		assert_int_equal(cfg->lb.per_tc[0], RSW_LB_HASH);
		assert_int_equal(cfg->lb.per_tc[1], RSW_LB_UNSET);
		rsw_config_free(cfg);
		cfg = expect_ok(
			HEAD
			"routes:\n  - { prefix: 10.9.0.0/16, nexthops: [10.0.1.1], lb: flowlet }\n");
		assert_int_equal(cfg->routes[0].lb, RSW_LB_FLOWLET);
		rsw_config_free(cfg);
	}
	expect_err(
		HEAD "load_balance:\n  per_tc: { 3: random }\n",
		"t.yaml:7: unknown load-balance mode 'random' (hash | spray | adaptive | flowlet)");
	expect_err(
		HEAD "load_balance:\n  hash_fields: [src_ip, mac]\n",
		"t.yaml:7: unknown hash field 'mac' (src_ip, dst_ip, proto, src_port, dst_port, roce_qp, uet_entropy, flow_label)");
	expect_err(HEAD "load_balance:\n  hash_fields: [src_ip, src_ip]\n",
		   "t.yaml:7: duplicate hash field 'src_ip'");
	expect_err(HEAD "load_balance:\n  hash_fields: []\n",
		   "t.yaml:7: 'hash_fields' must list at least one field");
	expect_err(HEAD "load_balance:\n  hash_algorithm: md5\n",
		   "t.yaml:7: 'hash_algorithm' must be crc32 | toeplitz (got 'md5')");
	expect_err(HEAD "load_balance:\n  spray: rr\n",
		   "t.yaml:7: 'spray' must be round-robin | random (got 'rr')");
	expect_err(HEAD "load_balance:\n  flowlet_timeout_us: 0\n",
		   "t.yaml:7: 'flowlet_timeout_us' must be between 1 and 1000000 (got 0)");
	expect_err(HEAD "load_balance:\n  hash_seed: 4294967296\n",
		   "t.yaml:7: 'hash_seed' must be between 0 and 4294967295 (got 4294967296)");
}

static void
test_neighbors(void **state)
{
	(void)state;
	expect_err(HEAD "neighbors:\n  - { ip: 10.0.1.1, mac: 02:00:00:00:01:01, port: p9 }\n",
		   "t.yaml:7: unknown port 'p9'");
	expect_err(HEAD "neighbors:\n  - { ip: 10.0.1.1, mac: 02:00:00:00:01:01, port: p0 }\n"
			"  - { ip: 10.0.1.2, mac: 02:00:00:00:01:02, port: p0 }\n"
			"  - { ip: 10.0.1.1, mac: 02:00:00:00:01:03, port: p1 }\n",
		   "t.yaml:9: duplicate neighbor 10.0.1.1 (first at line 7)");
	expect_err(HEAD "neighbors:\n  - { ip: 10.0.1.254, mac: 02:00:00:00:01:01, port: p0 }\n",
		   "t.yaml:7: neighbor 10.0.1.254 is the address of port 'p0'");
	expect_err(HEAD "neighbors:\n  - { ip: 10.0.1.1.1, mac: 02:00:00:00:01:01, port: p0 }\n",
		   "t.yaml:7: 'ip' must be an IP address (got '10.0.1.1.1')");
	expect_err(HEAD "neighbors:\n  - { ip: 224.0.0.5, mac: 02:00:00:00:01:01, port: p0 }\n",
		   "t.yaml:7: 'ip' must be a unicast address (got 224.0.0.5)");
	expect_err(HEAD "neighbors:\n  - { ip: 10.0.1.1, mac: ff:ff:ff:ff:ff:ff, port: p0 }\n",
		   "t.yaml:7: 'mac' must be a unicast MAC address (got ff:ff:ff:ff:ff:ff)");
}

static void
test_routes(void **state)
{
	char yaml[4096];
	int i, off;

	(void)state;
	expect_err(
		HEAD "routes:\n  - prefix: 10.9.0.0/16\n    nexthops: [10.0.1.1, 10.0.9.1]\n",
		"t.yaml:8: next hop 10.0.9.1 is not resolvable: it is in no port's subnet and is not a static neighbor");
	expect_err(
		HEAD "routes:\n  - prefix: fd09::/48\n    nexthops: [fd00:2::1]\n",
		"t.yaml:8: next hop fd00:2::1 is not resolvable: it is in no port's subnet and is not a static neighbor");
	expect_err(HEAD "routes:\n  - prefix: 10.9.0.0/16\n    nexthops: [fd00:1::1]\n",
		   "t.yaml:8: next hop fd00:1::1 is IPv6 but prefix 10.9.0.0/16 is IPv4");
	expect_err(HEAD "routes:\n  - prefix: fd09::/48\n    nexthops: [10.0.1.1]\n",
		   "t.yaml:8: next hop 10.0.1.1 is IPv4 but prefix fd09::/48 is IPv6");
	expect_err(HEAD "routes:\n  - prefix: 10.9.0.0/16\n    nexthops: [10.0.1.254]\n",
		   "t.yaml:8: next hop 10.0.1.254 is the address of port 'p0'");
	expect_err(HEAD "routes:\n  - prefix: 10.9.0.0/16\n    nexthops: [10.0.1.1, 10.0.1.1]\n",
		   "t.yaml:8: duplicate next hop 10.0.1.1");
	expect_err(HEAD "routes:\n  - prefix: 10.9.0.0/16\n    nexthops: []\n",
		   "t.yaml:8: 'nexthops' must list 1 to 16 next hops (got 0)");
	expect_err(
		HEAD "routes:\n  - prefix: 10.9.0.0/16\n    nexthops: [10.0.1.1, 10.0.2.1]\n"
		     "    weights: [1]\n",
		"t.yaml:9: 'weights' has 1 entries but 'nexthops' has 2; give one weight per next hop");
	expect_err(HEAD "routes:\n  - prefix: 10.9.0.0/16\n    nexthops: [10.0.1.1, 10.0.2.1]\n"
			"    weights: [1, 0]\n",
		   "t.yaml:9: 'weights' must be between 1 and 1000 (got 0)");
	expect_err(HEAD "routes:\n  - prefix: 10.9.0.0/16\n    nexthops: [10.0.1.1]\n"
			"    weights: [1001]\n",
		   "t.yaml:9: 'weights' must be between 1 and 1000 (got 1001)");
	expect_err(
		HEAD "routes:\n  - { prefix: 10.9.0.0, nexthops: [10.0.1.1] }\n",
		"t.yaml:7: 'prefix' must be an address/length like 10.9.0.0/16 or fd00:9::/48 (got '10.9.0.0')");
	expect_err(HEAD "routes:\n  - { prefix: 10.9.0.0/16, nexthops: [10.0.1.1] }\n"
			"  - { prefix: 10.8.0.0/16, nexthops: [10.0.1.1] }\n"
			"  - { prefix: 10.9.1.0/16, nexthops: [10.0.2.1] }\n",
		   "t.yaml:9: duplicate route 10.9.0.0/16 (first at line 7)");

	/* 16 next hops load, 17 do not. */
	off = snprintf(yaml, sizeof(yaml),
		       HEAD "routes:\n  - prefix: 10.9.0.0/16\n    nexthops: [");
	for (i = 1; i <= 16; i++)
		off += snprintf(yaml + off, sizeof(yaml) - (size_t)off, "%s10.0.1.%d",
				i > 1 ? ", " : "", i);
	snprintf(yaml + off, sizeof(yaml) - (size_t)off, "]\n");
	rsw_config_free(expect_ok(yaml));
	snprintf(yaml + off, sizeof(yaml) - (size_t)off, ", 10.0.1.17]\n");
	expect_err(yaml, "t.yaml:8: 'nexthops' must list 1 to 16 next hops (got 17)");
}

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

/* qos scheduler, lossless, buffer, ECN and PFC watchdog: bad input. HEAD has two ports. */

#define QOS HEAD "qos:\n"

static void
test_qos_scheduler_bad(void **state)
{
	(void)state;
	expect_err(QOS "  scheduler: [7]\n", "t.yaml:7: 'qos.scheduler' must be a mapping");
	expect_err(QOS "  scheduler: { strict: [7], wrr: {} }\n",
		   "t.yaml:7: unknown key 'wrr' in 'qos.scheduler'");
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
		   "t.yaml:7: unknown key 'totl' in 'qos.buffer'");
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
		   "t.yaml:10: unknown key 'xof' in 'qos.buffer.pfc'");
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
		   "t.yaml:8: unknown key 'kmid' in 'qos.ecn.3'");
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

/* Every independent error of a file, one line each, in file order (not section order). */
static void
test_every_error(void **state)
{
	const char *first;
	char yaml[4096];
	size_t len = 0;
	int i;

	(void)state;
	expect_err(
		"qos:\n"
		"  default_tc: 9\n"
		"switch:\n"
		"  name: s1\n"
		"  idle_sleep_us: -1\n"
		"ports:\n"
		"  - { name: p0, devargs: net_tap0, ipv4: 10.0.1.254/24 }\n"
		"  - { name: p1, devargs: net_tap1, mtu: 10 }\n"
		"load_balance:\n"
		"  mode: random\n"
		"control:\n"
		"  telemetry: maybe\n",
		"t.yaml:2: 'default_tc' must be between 0 and 7 (got 9)\n"
		"t.yaml:5: 'idle_sleep_us' must be between 0 and 1000000 (got -1)\n"
		"t.yaml:8: 'mtu' must be between 68 and 9000 (got 10)\n"
		"t.yaml:10: unknown load-balance mode 'random' (hash | spray | adaptive | flowlet)\n"
		"t.yaml:12: 'telemetry' must be true or false (got 'maybe')");
	/* Routes: each one's error, and the duplicate among the good ones. */
	expect_err(
		HEAD "routes:\n"
		     "  - { prefix: 10.9.0.0/16, nexthops: [10.0.1.1] }\n"
		     "  - { prefix: 10.8.0.0/33, nexthops: [10.0.1.1] }\n"
		     "  - { prefix: 10.7.0.0/16, nexthops: [10.0.9.1] }\n"
		     "  - { prefix: 10.9.0.0/16, nexthops: [10.0.1.2] }\n",
		"t.yaml:8: 'prefix' must be an address/length like 10.9.0.0/16 or fd00:9::/48 "
		"(got '10.8.0.0/33')\n"
		"t.yaml:9: next hop 10.0.9.1 is not resolvable: it is in no port's subnet and is "
		"not a static neighbor\n"
		"t.yaml:10: duplicate route 10.9.0.0/16 (first at line 7)");
	/* A bad port: neighbours and routes, which refer to ports, are not checked. */
	expect_err(
		"switch:\n  name: s1\nports:\n  - { name: p0, devargs: net_tap0, ipv4: 10.0.1.0/24 }\n"
		"neighbors:\n  - { ip: 10.0.1.1, mac: \"02:00:00:00:00:01\", port: p0 }\n"
		"routes:\n  - { prefix: 10.9.0.0/16, nexthops: [10.0.1.1] }\n",
		"t.yaml:4: 'ipv4' 10.0.1.0/24 is the subnet's network address; give the "
		"switch's own address in 10.0.1.0/24");
	/* A port that failed is not compared with: p0 again is one error, not two. */
	expect_err("switch:\n  name: s1\nports:\n  - { name: p0 }\n"
		   "  - { name: p0, devargs: net_tap0 }\n",
		   "t.yaml:4: missing required key 'devargs' in 'ports'");
	/* A missing section is reported when nothing else is wrong. */
	expect_err("switch:\n  name: s1\nqos:\n  trust: none\n",
		   "t.yaml:4: 'trust' must be dscp | pcp (got 'none')");
	/* At most RSW_CFG_MAX_ERRS lines, then how many more. */
	len = (size_t)snprintf(yaml, sizeof(yaml), HEAD "routes:\n");
	for (i = 0; i < RSW_CFG_MAX_ERRS + 3; i++)
		len += (size_t)snprintf(yaml + len, sizeof(yaml) - len,
					"  - { prefix: 10.%d.0.0/16, nexthops: [10.0.1.1], "
					"weights: [0] }\n",
					i + 10);
	assert_null(load(yaml));
	for (i = 0, len = 0; err[len] != '\0'; len++)
		i += err[len] == '\n';
	assert_int_equal(i, RSW_CFG_MAX_ERRS);
	first = "t.yaml:7: 'weights' must be between 1 and 1000 (got 0)\n";
	assert_memory_equal(err, first, strlen(first));
	assert_string_equal(strrchr(err, '\n') + 1, "t.yaml: 3 more errors not shown");
}

static void
test_load_file_errors(void **state)
{
	(void)state;
	assert_null(rsw_config_load("/nonexistent/railsw.yaml", err, sizeof(err)));
	assert_string_equal(err, "/nonexistent/railsw.yaml: No such file or directory");
	assert_int_equal(errno, ENOENT);
	assert_null(rsw_config_load("/tmp", err, sizeof(err)));
	assert_string_equal(err, "/tmp: Is a directory");
	assert_null(rsw_config_load(NULL, err, sizeof(err)));
	/* No error buffer is fine too. */
	assert_null(rsw_config_load("/nonexistent/railsw.yaml", NULL, 0));
	assert_null(rsw_config_load_buf("t.yaml", "x: 1\n", 5, NULL, 0));
}

/* Helpers. */

static void
test_parse_rate(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(rsw_parse_rate("2.5G", &v), 0);
	assert_int_equal(v, 2500000000ull);
	assert_int_equal(rsw_parse_rate("10M", &v), 0);
	assert_int_equal(v, 10000000ull);
	assert_int_equal(rsw_parse_rate("10m", &v), 0);
	assert_int_equal(v, 10000000ull);
	assert_int_equal(rsw_parse_rate("100k", &v), 0);
	assert_int_equal(v, 100000ull);
	assert_int_equal(rsw_parse_rate("400G", &v), 0);
	assert_int_equal(v, 400000000000ull);
	assert_int_equal(rsw_parse_rate("25000000000", &v), 0);
	assert_int_equal(v, 25000000000ull);
	assert_int_equal(rsw_parse_rate("1.5 M", &v), 0);
	assert_int_equal(v, 1500000ull);
	assert_int_equal(rsw_parse_rate("0.001G", &v), 0);
	assert_int_equal(v, 1000000ull);
	assert_int_equal(rsw_parse_rate("2.50000000000000G", &v), 0);
	assert_int_equal(v, 2500000000ull);
	assert_int_equal(rsw_parse_rate("", &v), -EINVAL);
	assert_int_equal(rsw_parse_rate("G", &v), -EINVAL);
	assert_int_equal(rsw_parse_rate("2.G", &v), -EINVAL);
	assert_int_equal(rsw_parse_rate(".5G", &v), -EINVAL);
	assert_int_equal(rsw_parse_rate("-1G", &v), -EINVAL);
	assert_int_equal(rsw_parse_rate("10Gb", &v), -EINVAL);
	assert_int_equal(rsw_parse_rate("1.5", &v), -EINVAL);
	assert_int_equal(rsw_parse_rate("1.0001K", &v), -EINVAL);
	assert_int_equal(rsw_parse_rate("99999999999999999999", &v), -EINVAL);
	assert_int_equal(rsw_parse_rate("99999999999G", &v), -EINVAL);
	assert_int_equal(rsw_parse_rate(NULL, &v), -EINVAL);
}

static void
test_parse_size(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(rsw_parse_size("512KB", &v), 0);
	assert_int_equal(v, 524288);
	assert_int_equal(rsw_parse_size("16MB", &v), 0);
	assert_int_equal(v, 16u << 20);
	assert_int_equal(rsw_parse_size("96kb", &v), 0);
	assert_int_equal(v, 96 * 1024);
	assert_int_equal(rsw_parse_size("128", &v), 0);
	assert_int_equal(v, 128);
	assert_int_equal(rsw_parse_size("128B", &v), 0);
	assert_int_equal(v, 128);
	assert_int_equal(rsw_parse_size("1.5MB", &v), 0);
	assert_int_equal(v, 1536 * 1024);
	assert_int_equal(rsw_parse_size("3 KB", &v), 0);
	assert_int_equal(v, 3072);
	assert_int_equal(rsw_parse_size("", &v), -EINVAL);
	assert_int_equal(rsw_parse_size("KB", &v), -EINVAL);
	assert_int_equal(rsw_parse_size("1GB", &v), -EINVAL);
	assert_int_equal(rsw_parse_size("1.5B", &v), -EINVAL);
	assert_int_equal(rsw_parse_size("-1KB", &v), -EINVAL);
	assert_int_equal(rsw_parse_size("12 ", &v), -EINVAL);
	assert_int_equal(rsw_parse_size(NULL, &v), -EINVAL);
}

static void
test_prefix_helpers(void **state)
{
	struct rsw_prefix p = {.ip = {.family = RSW_AF_INET, .addr = {10, 0, 1, 0}}, .len = 24};
	struct rsw_ip in = {.family = RSW_AF_INET, .addr = {10, 0, 1, 77}};
	struct rsw_ip out = {.family = RSW_AF_INET, .addr = {10, 0, 2, 1}};
	struct rsw_ip v6 = {.family = RSW_AF_INET6, .addr = {0xfd}};
	char buf[64];

	(void)state;
	assert_true(rsw_prefix_contains(&p, &in));
	assert_false(rsw_prefix_contains(&p, &out));
	assert_false(rsw_prefix_contains(&p, &v6));
	p.len = 0;
	assert_true(rsw_prefix_contains(&p, &out));
	p.len = 23;
	assert_false(rsw_prefix_contains(&p, &out));
	p.len = 22;
	assert_true(rsw_prefix_contains(&p, &out));
	p.len = 24;
	assert_string_equal(rsw_prefix_str(&p, buf, sizeof(buf)), "10.0.1.0/24");
	assert_string_equal(rsw_ip_str(&in, buf, sizeof(buf)), "10.0.1.77");
	assert_string_equal(rsw_ip_str(&v6, buf, sizeof(buf)), "fd00::");
	assert_string_equal(rsw_lb_mode_name(RSW_LB_HASH), "hash");
	assert_string_equal(rsw_lb_mode_name(RSW_LB_SPRAY), "spray");
	assert_string_equal(rsw_lb_mode_name(RSW_LB_ADAPTIVE), "adaptive");
	assert_string_equal(rsw_lb_mode_name(RSW_LB_FLOWLET), "flowlet");
	assert_string_equal(rsw_lb_mode_name(RSW_LB_UNSET), "unset");
	rsw_config_free(NULL);
	assert_null(rsw_config_to_json(NULL));
	assert_int_equal(rsw_config_port_index(NULL, "p0"), -1);
}

/* Good configurations. */

/* CONFIG.md's example, less the keys of features not built yet. */
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
			"  idle_sleep_us: 0\n"
			"ports:\n  - { name: p0, devargs: x, ipv4: 172.16.0.1/31, mtu: 68 }\n"
			"  - { name: p1, devargs: y, ipv4: 172.16.0.3/32 }\n"
			"  - { name: p2, devargs: z, ipv6: \"fd00::/64\", speed: 400G }\n"
			"routes:\n  - { prefix: 10.0.0.0/8, nexthops: [172.16.0.0] }\n"
			"qos:\n  trust: pcp\n  default_tc: 2\n  pcp_to_tc: { 0: 0 }\n"
			"control:\n  metrics_listen: \"[::1]:9417\"\n");
	assert_int_equal(cfg->sw.role, RSW_ROLE_SPINE);
	assert_false(cfg->sw.icmp_unreachable);
	assert_int_equal(cfg->sw.idle_sleep_us, 0);
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

/* CONFIG.md's qos block verbatim, less trim and cnp (not built yet); qos: is line 6. */
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
	assert_int_equal(q->buffer_total, 16ull << 20);
	assert_int_equal(q->queue_limit, 512ull << 10);
	assert_false(q->pfc.dynamic);
	assert_int_equal(q->pfc.xoff, 96 * 1024);
	assert_int_equal(q->pfc.xon, 48 * 1024);
	assert_int_equal(q->pfc.headroom, 64 * 1024);
	assert_int_equal(q->pfc.quanta, 65535);
	for (i = 0; i < RSW_N_TC; i++)
		assert_int_equal(q->ecn[i].enabled, i == 3);
	assert_int_equal(q->ecn[3].kmin, 40 * 1024);
	assert_int_equal(q->ecn[3].kmax, 160 * 1024);
	assert_true(q->ecn[3].pmax == 0.2);
	assert_false(q->ecn_mark_enqueue);
	assert_int_equal(q->pfcwd.detect_ms, 200);
	assert_int_equal(q->pfcwd.restore_ms, 200);
	assert_int_equal(q->pfcwd.action, RSW_PFCWD_DROP);
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
		assert_int_equal(q->buffer_total, 16ull << 20);
		assert_int_equal(q->queue_limit, 512 * 1024);
		assert_false(q->pfc.dynamic);
		assert_int_equal(q->pfc.xoff, 96 * 1024);
		assert_int_equal(q->pfc.xon, 48 * 1024);
		assert_int_equal(q->pfc.headroom, 64 * 1024);
		assert_int_equal(q->pfc.quanta, 65535);
		assert_true(q->pfc.alpha == 0.125);
		assert_int_equal(q->pfc.xon_offset, 3 * 1024);
		assert_false(q->ecn_mark_enqueue);
		assert_int_equal(q->pfcwd.detect_ms, 200);
		assert_int_equal(q->pfcwd.restore_ms, 200);
		assert_int_equal(q->pfcwd.action, RSW_PFCWD_DROP);
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
		   "t.yaml:6: unknown key 'lose' in 'impair'");
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
		   "t.yaml:6: unknown key 'enabled' in 'llr'");
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
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_binary_garbage),
		cmocka_unit_test(test_invalid_yaml),
		cmocka_unit_test(test_duplicate_keys),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_unknown_keys),
		cmocka_unit_test(test_missing_required),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_switch_ranges),
		cmocka_unit_test(test_qos_ranges),
		cmocka_unit_test(test_lb),
		cmocka_unit_test(test_neighbors),
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_control),
		cmocka_unit_test(test_qos_scheduler_bad),
		cmocka_unit_test(test_qos_lossless_bad),
		cmocka_unit_test(test_qos_buffer_bad),
		cmocka_unit_test(test_qos_buffer_reserve),
		cmocka_unit_test(test_qos_ecn_bad),
		cmocka_unit_test(test_qos_pfcwd_bad),
		cmocka_unit_test(test_trim_cnp),
		cmocka_unit_test(test_every_error),
		cmocka_unit_test(test_load_file_errors),
		cmocka_unit_test(test_parse_rate),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_prefix_helpers),
		cmocka_unit_test(test_full_example),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_misc_good),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_qos_config_md),
		cmocka_unit_test(test_qos_defaults),
		cmocka_unit_test(test_qos_good),
		cmocka_unit_test(test_qos_json),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_shipped_configs),
		cmocka_unit_test(test_port_impair_llr),
		cmocka_unit_test(test_route_distance),
		cmocka_unit_test(test_control_fpm),
		cmocka_unit_test(test_control_kif),
		cmocka_unit_test(test_control_kif_punt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
