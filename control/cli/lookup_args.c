/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The words of `lookup` (rsw_lookup.h), parsed alike by the switch and by railctl. No DPDK:
 * railctl refuses bad words before it sends anything.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsw_lookup.h"

static bool
parse_ip(const char *s, struct rsw_ip *ip)
{
	memset(ip, 0, sizeof(*ip));
	if (inet_pton(AF_INET, s, ip->addr) == 1) {
		ip->family = RSW_AF_INET;
		return true;
	}
	if (inet_pton(AF_INET6, s, ip->addr) == 1) {
		ip->family = RSW_AF_INET6;
		return true;
	}
	return false;
}

/* A decimal number from 0 to max. */
static int
parse_num(const char *opt, const char *s, unsigned long max, unsigned long *v, char *err,
	  size_t errlen)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0 || *v > max) {
		snprintf(err, errlen, "'%s' must be a number from 0 to %lu (got '%.32s')", opt, max,
			 s);
		return -EINVAL;
	}
	return 0;
}

static int
parse_opt(const char *opt, const char *val, struct rsw_lookup_req *req, char *err, size_t errlen)
{
	unsigned long v;

	if (strcmp(opt, "--src") == 0) {
		if (!parse_ip(val, &req->src)) {
			snprintf(err, errlen,
				 "'--src' must be an IPv4 or IPv6 address (got '%.48s')", val);
			return -EINVAL;
		}
		req->has_src = true;
	} else if (strcmp(opt, "--proto") == 0) {
		if (strcmp(val, "udp") == 0)
			req->proto = IPPROTO_UDP;
		else if (strcmp(val, "tcp") == 0)
			req->proto = IPPROTO_TCP;
		else if (parse_num(opt, val, 255, &v, err, errlen) == 0)
			req->proto = (uint8_t)v;
		else {
			snprintf(
				err, errlen,
				"'--proto' must be udp, tcp or a number from 0 to 255 (got '%.32s')",
				val);
			return -EINVAL;
		}
	} else if (strcmp(opt, "--sport") == 0 || strcmp(opt, "--dport") == 0) {
		if (parse_num(opt, val, 65535, &v, err, errlen) < 0)
			return -EINVAL;
		*(opt[2] == 's' ? &req->sport : &req->dport) = (uint16_t)v;
	} else if (strcmp(opt, "--qp") == 0) {
		if (parse_num(opt, val, 0xffffff, &v, err, errlen) < 0)
			return -EINVAL;
		req->qp = (uint32_t)v;
	} else if (strcmp(opt, "--dscp") == 0) {
		if (parse_num(opt, val, 63, &v, err, errlen) < 0)
			return -EINVAL;
		req->dscp = (uint8_t)v;
	} else if (strcmp(opt, "--in") == 0) {
		if (strlen(val) >= sizeof(req->in)) {
			snprintf(err, errlen, "'--in' must be a port name (got '%.48s')", val);
			return -EINVAL;
		}
		snprintf(req->in, sizeof(req->in), "%s", val);
	} else {
		snprintf(err, errlen, "unknown option '%.32s'", opt);
		return -EINVAL;
	}
	return 0;
}

int
rsw_lookup_parse(int argc, char **argv, struct rsw_lookup_req *req, char *err, size_t errlen)
{
	int i;

	memset(req, 0, sizeof(*req));
	req->proto = IPPROTO_UDP;
	if (argc < 1 || argv[0][0] == '-') {
		snprintf(err, errlen, "a destination address comes first");
		return -EINVAL;
	}
	if (!parse_ip(argv[0], &req->dst)) {
		snprintf(err, errlen, "DST must be an IPv4 or IPv6 address (got '%.48s')", argv[0]);
		return -EINVAL;
	}
	for (i = 1; i < argc; i += 2) {
		if (i + 1 >= argc) {
			snprintf(err, errlen, "'%.32s' needs a value", argv[i]);
			return -EINVAL;
		}
		if (parse_opt(argv[i], argv[i + 1], req, err, errlen) < 0)
			return -EINVAL;
	}
	if (!req->has_src)
		req->src.family = req->dst.family;
	else if (req->src.family != req->dst.family) {
		snprintf(err, errlen, "'--src' and DST must be of one family (IPv4 or IPv6)");
		return -EINVAL;
	}
	return 0;
}
