/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `railctl plan FILE --configs DIR [--bgp]`: a railsw configuration per switch of the plan,
 * DIR/SWITCH.yaml, its ports named and ordered as the plan's (so the LLDP cabling check
 * agrees), each port's devargs a placeholder saying what to fill in. The file carries
 * `topology:` with `this`, and railsw derives addresses and routes from it; with --bgp it
 * also has a kernel interface per port and the FPM listener for FRR, whose configuration
 * DIR/SWITCH.frr.conf is written beside it (plan_frr.c).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "railctl_plan.h"
#include "railctl_priv.h"
#include "rsw_config.h"

/* The placeholder every devargs starts with; docs/topology.md says how to fill it in. */
#define DEVARGS_TODO "FILL-IN"

/* One port of a switch, from the plan's links. */
struct cport {
	const char *name;  /* down<n> or up<p> */
	const char *ip;    /* its address in the plan */
	const char *peer;  /* the far end, switch or server */
	const char *pport; /* the far end's port */
	bool up;           /* an uplink (else a downlink) */
	unsigned int n;    /* the number in its name */
	json_t *speed;     /* the cable's speed_bps */
};

static int
cport_cmp(const void *a, const void *b)
{
	const struct cport *x = a, *y = b;

	if (x->up != y->up)
		return x->up ? 1 : -1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* The switch's ports, downlinks then uplinks, each by number. n_out: how many. */
static struct cport *
switch_ports(json_t *plan, const char *name, size_t *n_out)
{
	json_t *links = json_object_get(plan, "links"), *l;
	struct cport *ps = railctl_xcalloc(json_array_size(links) + 1, sizeof(*ps));
	size_t i, n = 0;

	json_array_foreach(links, i, l)
	{
		bool a = strcmp(railctl_plan_str(l, "a"), name) == 0;
		struct cport *p = &ps[n];

		if (!a && strcmp(railctl_plan_str(l, "b"), name) != 0)
			continue;
		p->name = railctl_plan_str(l, a ? "a_port" : "b_port");
		p->ip = railctl_plan_str(l, a ? "a_ip" : "b_ip");
		p->peer = railctl_plan_str(l, a ? "b" : "a");
		p->pport = railctl_plan_str(l, a ? "b_port" : "a_port");
		p->up = strncmp(p->name, "up", 2) == 0;
		p->n = (unsigned int)strtoul(p->name + (p->up ? 2 : 4), NULL, 10);
		p->speed = json_object_get(l, "speed_bps");
		n++;
	}
	qsort(ps, n, sizeof(*ps), cport_cmp);
	*n_out = n;
	return ps;
}

/* topology.this of a switch entry of the plan. */
static void
this_of(json_t *sw, char *buf, size_t len)
{
	json_t *su = json_object_get(sw, "su"), *rail = json_object_get(sw, "rail");

	if (strcmp(railctl_plan_str(sw, "tier"), "spine") == 0) {
		if (rail != NULL)
			snprintf(buf, len,
				 "{ rail: %" JSON_INTEGER_FORMAT ", spine: %" JSON_INTEGER_FORMAT
				 " }",
				 json_integer_value(rail),
				 json_integer_value(json_object_get(sw, "spine")));
		else
			snprintf(buf, len, "{ spine: %" JSON_INTEGER_FORMAT " }",
				 json_integer_value(json_object_get(sw, "spine")));
	} else if (su != NULL) {
		snprintf(buf, len,
			 "{ su: %" JSON_INTEGER_FORMAT ", rail: %" JSON_INTEGER_FORMAT " }",
			 json_integer_value(su), json_integer_value(rail));
	} else {
		snprintf(buf, len, "{ rail: %" JSON_INTEGER_FORMAT " }", json_integer_value(rail));
	}
}

static void
write_topology(FILE *f, json_t *plan, json_t *sw)
{
	static const char *const keys[] = {"design", "sus",   "servers_per_su", "rails",
					   "spines", "radix", "gpu_prefix",     "fabric_prefix"};
	char this[96];
	size_t i;

	fprintf(f,
		"\ntopology:                       # addresses and routes are derived from it\n");
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = json_object_get(plan, keys[i]);

		if (json_is_integer(v))
			fprintf(f, "  %s: %" JSON_INTEGER_FORMAT "\n", keys[i],
				json_integer_value(v));
		else
			fprintf(f, "  %s: %s\n", keys[i], json_string_value(v));
	}
	this_of(sw, this, sizeof(this));
	fprintf(f, "  this: %s\n", this);
}

/* DIR/NAME.yaml of one switch. */
static int
write_switch(json_t *plan, json_t *sw, const char *file, const char *dir, bool bgp)
{
	const char *name = railctl_plan_str(sw, "name");
	bool spine = strcmp(railctl_plan_str(sw, "tier"), "spine") == 0;
	char path[4096], speed[32];
	struct cport *ps;
	size_t i, n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.yaml", dir, name);
	f = fopen(path, "w");
	if (f == NULL) {
		railctl_warn("plan: %s: %s", path, strerror(errno));
		return -1;
	}
	ps = switch_ports(plan, name, &n);
	fprintf(f, "# %s: written by `railctl plan %s --configs %s%s` (docs/topology.md).\n", name,
		file, dir, bgp ? " --bgp" : "");
	fprintf(f,
		"# Before use, replace each port's devargs placeholder (\"" DEVARGS_TODO
		" ...\") with the\n"
		"# DPDK device of the port cabled as its comment says: a PCI address such as\n"
		"# 0000:3b:00.0, or a vdev; then `railsw -c %s.yaml --check`.\n",
		name);
	if (bgp)
		fprintf(f,
			"# Routes from FRR (%s.frr.conf) over FPM. The topology-derived routes\n"
			"# stay beneath them: BGP's /24 of each leaf is more specific than a\n"
			"# leaf's derived %s, and a spine's derived /24 has one path anyway.\n",
			name, railctl_plan_str(plan, "gpu_prefix"));
	fprintf(f, "switch:\n  name: %s\n  role: %s\n\nports:\n", name, spine ? "spine" : "leaf");
	for (i = 0; i < n; i++) {
		railctl_plan_speed(ps[i].speed, speed, sizeof(speed));
		fprintf(f,
			"  - { name: %s, devargs: \"" DEVARGS_TODO " device of %s\", role: %s%s%s }"
			"  # to %s:%s, %s\n",
			ps[i].name, ps[i].name, ps[i].up ? "uplink" : "downlink",
			speed[0] ? ", speed: " : "", speed, ps[i].peer, ps[i].pport, ps[i].ip);
	}
	free(ps);
	write_topology(f, plan, sw);
	fprintf(f,
		"\nload_balance:\n  mode: hash\n  hash_seed: %d                   # leaves and "
		"spines hash with different seeds\n",
		spine ? 2 : 1);
	fprintf(f, "\ncontrol:\n  socket: /run/railsw/%s.sock\n", name);
	if (bgp) {
		fprintf(f, "  kernel_interfaces: { netns: rsw-%.40s }  # where FRR runs\n", name);
		fprintf(f, "  fpm: { listen: 127.0.0.1:2620, stale_s: 10 }\n");
	}
	if (fclose(f) != 0) {
		railctl_warn("plan: %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int
write_frr(json_t *plan, const char *name, const char *dir)
{
	char path[4096], *text = railctl_plan_frr(plan, name);
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s.frr.conf", dir, name);
	f = fopen(path, "w");
	if (f == NULL || fputs(text, f) < 0)
		rc = -1;
	if (f != NULL && fclose(f) != 0)
		rc = -1;
	if (rc < 0)
		railctl_warn("plan: %s: %s", path, strerror(errno));
	free(text);
	return rc;
}

int
railctl_plan_configs(json_t *plan, const char *file, const char *dir, bool bgp)
{
	size_t i, n = 0, big = 0;
	json_t *sw;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		railctl_warn("plan: %s: %s", dir, strerror(errno));
		return EXIT_REPLY_ERROR;
	}
	json_array_foreach(json_object_get(plan, "switches"), i, sw)
	{
		if (write_switch(plan, sw, file, dir, bgp) < 0 ||
		    (bgp && write_frr(plan, railctl_plan_str(sw, "name"), dir) < 0))
			return EXIT_REPLY_ERROR;
		n++;
		big += json_integer_value(json_object_get(sw, "ports_used")) > RSW_MAX_PORTS;
	}
	printf("%zu switch configurations%s in %s\n", n, bgp ? " and FRR configurations" : "", dir);
	if (big > 0)
		railctl_warn("plan: %zu of the switches use more than %d ports, more than railsw "
			     "takes: railsw --check refuses their files",
			     big, RSW_MAX_PORTS);
	return EXIT_OK;
}
