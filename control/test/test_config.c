/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the configuration loader (control/config/): every rule of docs/config.md with its
 * exact "FILE:LINE: message": bad files and YAML, bad values of switch, ports, load_balance,
 * neighbors and routes, every error of a file at once, and the parsing helpers. The qos
 * section is test_config_qos.c's, control test_config_control.c's, good configurations
 * test_config_good.c's; cfg_test.h has their shared helpers. Runs from control/test (meson
 * workdir).
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
	expect_err(HEAD "ports2: x\n", "t.yaml:6: unknown key 'ports2'; did you mean 'ports'?");
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
	expect_err("switch:\n  name: a\nports:\n  - name: p0\n    devargs: x\n    rx_desc: 0\n",
		   "t.yaml:6: 'rx_desc' must be between 1 and 32768 (got 0)");
	expect_err("switch:\n  name: a\nports:\n  - name: p0\n    devargs: x\n    tx_desc: 65536\n",
		   "t.yaml:6: 'tx_desc' must be between 1 and 32768 (got 65536)");
	expect_err("switch:\n  name: a\n  rss: { symmetric: maybe }\nports:\n  - { name: p0, "
		   "devargs: x }\n",
		   "t.yaml:3: 'symmetric' must be true or false (got 'maybe')");
	expect_err("switch:\n  name: a\n  rss: { key: 1 }\nports:\n  - { name: p0, devargs: x }\n",
		   "t.yaml:3: unknown key 'key' in 'switch.rss'");
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
		   "t.yaml:8: unknown key 'trsut' in 'qos'; did you mean 'trust'?");
	expect_err("switch:\n  name: a\nports:\n  - name: p0\n    devargs: x\n    speeed: 10G\n",
		   "t.yaml:6: unknown key 'speeed' in 'ports'; did you mean 'speed'?");
	expect_err(HEAD "neighbors:\n  - { ip: 10.0.1.1, mac: 02:00:00:00:01:01, prot: p0 }\n",
		   "t.yaml:7: unknown key 'prot' in 'neighbors'; did you mean 'port'?");
	expect_err(HEAD "routes:\n  - { prefix: 10.9.0.0/16, nexthop: 10.0.1.1 }\n",
		   "t.yaml:7: unknown key 'nexthop' in 'routes'; did you mean 'nexthops'?");
	expect_err(HEAD "load_balance:\n  hash: crc32\n",
		   "t.yaml:7: unknown key 'hash' in 'load_balance'");
	expect_err(HEAD "control:\n  sock: /x\n",
		   "t.yaml:7: unknown key 'sock' in 'control'; did you mean 'socket'?");
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
	expect_err("switch:\n  name: a\n  shaper_burst_us: 0\n",
		   "t.yaml:3: 'shaper_burst_us' must be between 1 and 100000 (got 0)");
	expect_err("switch:\n  name: a\n  shaper_burst_us: 100001\n",
		   "t.yaml:3: 'shaper_burst_us' must be between 1 and 100000 (got 100001)");
	expect_err("switch:\n  name: a\n  router_id: fd00::1\n",
		   "t.yaml:3: 'router_id' must be an IPv4 address (got 'fd00::1')");
	expect_err("switch:\n  name: a\n  router_id: 10.0.0\n",
		   "t.yaml:3: 'router_id' must be an IPv4 address (got '10.0.0')");
	expect_err("switch:\n  name: a\n  icmp_unreachable: { rate_pps: 0 }\n",
		   "t.yaml:3: 'rate_pps' must be between 1 and 1000000 (got 0)");
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
		   "t.yaml:7: 'hash_algorithm' must be crc32 | toeplitz | nic (got 'md5')");
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
		cmocka_unit_test(test_lb),
		cmocka_unit_test(test_neighbors),
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_every_error),
		cmocka_unit_test(test_load_file_errors),
		cmocka_unit_test(test_parse_rate),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_prefix_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
