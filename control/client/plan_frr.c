/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The FRR configuration of a switch of a BGP fabric (`railctl plan --configs DIR --bgp`):
 * one integrated frr.conf with zebra (towards railsw's FPM listener), BFD and bgpd. The plan
 * is the fabric lab's (devtools/fabric_frr.py, docs/routing.md "The BGP lab"), which a test
 * holds this to: RFC 7938, eBGP on every fabric link, one ASN per leaf (65001 + its index
 * in the plan), one ASN for every spine (65000, so a route a leaf learns from one spine is
 * never accepted back by another), multipath over the spines; unnumbered sessions over IPv6
 * link-local (`interface v6only`, IPv4 routes over RFC 8950 next hops), BFD 150 ms x 3 on
 * each; a leaf announces its servers' subnet, a spine nothing of its own.
 */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "railctl_plan.h"
#include "railctl_priv.h"

#define SPINE_ASN 65000
#define LEAF_ASN0 65001
#define FPM_PORT  2620
#define BFD_MS    150

uint32_t
railctl_plan_asn(json_t *plan, const char *name)
{
	uint32_t leaf = 0;
	json_t *sw;
	size_t i;

	json_array_foreach(json_object_get(plan, "switches"), i, sw)
	{
		bool is_leaf = strcmp(railctl_plan_str(sw, "tier"), "leaf") == 0;

		if (strcmp(railctl_plan_str(sw, "name"), name) == 0)
			return is_leaf ? LEAF_ASN0 + leaf : SPINE_ASN;
		leaf += is_leaf;
	}
	return 0;
}

void
railctl_plan_router_id(json_t *plan, const char *name, char *buf, size_t len)
{
	json_t *sw;
	size_t i;

	json_array_foreach(json_object_get(plan, "switches"), i,
			   sw) if (strcmp(railctl_plan_str(sw, "name"), name) == 0) break;
	snprintf(buf, len, "10.255.%zu.%zu", 255 - i / 250, i % 250 + 1);
}

static void add(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
add(struct sbuf *sb, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	railctl_sb_puts(sb, line);
	railctl_sb_puts(sb, "\n");
}

char *
railctl_plan_frr(json_t *plan, const char *name)
{
	json_t *links = json_object_get(plan, "links"), *l, *sw;
	uint32_t asn = railctl_plan_asn(plan, name);
	struct sbuf sb = {0};
	char rid[32];
	size_t i;

	railctl_plan_router_id(plan, name, rid, sizeof(rid));
	add(&sb, "! %s: FRR for railsw, written by railctl plan --configs --bgp.", name);
	add(&sb, "! ASN %u: RFC 7938, one ASN per leaf, one for all the spines.", asn);
	add(&sb, "! zebra needs the FPM module: zebra_options=\"-M dplane_fpm_nl\" in");
	add(&sb, "! /etc/frr/daemons, and bgpd=yes, bfdd=yes; run FRR in the switch's");
	add(&sb, "! kernel_interfaces namespace (control.kernel_interfaces.netns).");
	add(&sb, "frr defaults datacenter");
	add(&sb, "hostname %s", name);
	add(&sb, "log syslog informational");
	add(&sb, "!");
	add(&sb, "! railsw listens for dplane_fpm_nl inside its namespace (control.fpm).");
	add(&sb, "fpm address 127.0.0.1 port %d", FPM_PORT);
	add(&sb, "no fpm use-next-hop-groups");
	add(&sb, "!");
	json_array_foreach(links, i, l)
	{
		bool a = strcmp(railctl_plan_str(l, "a"), name) == 0;

		if (strcmp(railctl_plan_str(l, "kind"), "fabric") != 0 ||
		    (!a && strcmp(railctl_plan_str(l, "b"), name) != 0))
			continue;
		add(&sb, "interface %s", railctl_plan_str(l, a ? "a_port" : "b_port"));
		add(&sb, " ipv6 nd ra-interval 3");
		add(&sb, " no ipv6 nd suppress-ra");
		add(&sb, "exit");
	}
	add(&sb, "!");
	add(&sb, "bfd");
	add(&sb, " profile fabric");
	add(&sb, "  detect-multiplier 3");
	add(&sb, "  receive-interval %d", BFD_MS);
	add(&sb, "  transmit-interval %d", BFD_MS);
	add(&sb, " exit");
	add(&sb, "exit");
	add(&sb, "!");
	add(&sb, "router bgp %u", asn);
	add(&sb, " bgp router-id %s", rid);
	add(&sb, " bgp log-neighbor-changes");
	add(&sb, " no bgp ebgp-requires-policy");
	add(&sb, " no bgp default ipv4-unicast");
	add(&sb, " bgp bestpath as-path multipath-relax");
	add(&sb, " timers bgp 3 9");
	add(&sb, " neighbor FABRIC peer-group");
	add(&sb, " neighbor FABRIC remote-as external");
	add(&sb, " neighbor FABRIC timers connect 5");
	add(&sb, " neighbor FABRIC advertisement-interval 0");
	add(&sb, " neighbor FABRIC bfd profile fabric");
	json_array_foreach(links, i, l)
	{
		bool a = strcmp(railctl_plan_str(l, "a"), name) == 0;

		if (strcmp(railctl_plan_str(l, "kind"), "fabric") != 0 ||
		    (!a && strcmp(railctl_plan_str(l, "b"), name) != 0))
			continue;
		add(&sb, " neighbor %s interface v6only peer-group FABRIC",
		    railctl_plan_str(l, a ? "a_port" : "b_port"));
	}
	add(&sb, " address-family ipv4 unicast");
	json_array_foreach(json_object_get(plan, "switches"), i,
			   sw) if (strcmp(railctl_plan_str(sw, "name"), name) == 0 &&
				   strcmp(railctl_plan_str(sw, "tier"), "leaf") == 0)
		add(&sb, "  network %s", railctl_plan_str(sw, "subnet"));
	add(&sb, "  neighbor FABRIC activate");
	add(&sb, "  maximum-paths 16");
	add(&sb, " exit-address-family");
	add(&sb, "exit");
	add(&sb, "!");
	return railctl_sb_take(&sb);
}
