/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `railctl plan` exports: a CSV cabling sheet, a Graphviz graph and a containerlab topology,
 * each from the plan's switches and links alone (one row, edge or link per cable).
 */

#include <stdio.h>
#include <string.h>

#include "railctl_plan.h"
#include "railctl_priv.h"

/* A CSV field (RFC 4180): quoted when it holds a comma, quote or line break. */
static void
csv_field(const char *s, const char *sep)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
		printf("%s%s", s, sep);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	printf("\"%s", sep);
}

void
railctl_plan_csv(json_t *plan)
{
	char speed[32];
	json_t *l;
	size_t i;

	printf("a_device,a_port,b_device,b_port,speed,a_ip,b_ip\n");
	json_array_foreach(json_object_get(plan, "links"), i, l)
	{
		csv_field(railctl_plan_str(l, "a"), ",");
		csv_field(railctl_plan_str(l, "a_port"), ",");
		csv_field(railctl_plan_str(l, "b"), ",");
		csv_field(railctl_plan_str(l, "b_port"), ",");
		csv_field(railctl_plan_speed(json_object_get(l, "speed_bps"), speed, sizeof(speed)),
			  ",");
		csv_field(railctl_plan_str(l, "a_ip"), ",");
		csv_field(railctl_plan_str(l, "b_ip"), "\n");
	}
}

/*
 * s in double quotes, '"' and '\\' escaped with a backslash: a DOT ID (the plan's names are
 * [a-z0-9-]; quoted all the same) and a YAML double-quoted scalar alike.
 */
static void
put_quoted(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

/* The servers of the plan, each once, in cable order. */
static json_t *
servers(json_t *plan)
{
	json_t *out = json_array(), *seen = json_object(), *l;
	size_t i;

	json_array_foreach(json_object_get(plan, "links"), i, l)
	{
		const char *b = railctl_plan_str(l, "b");

		if (strcmp(railctl_plan_str(l, "kind"), "server") != 0 ||
		    json_object_get(seen, b) != NULL)
			continue;
		json_object_set_new(seen, b, json_true());
		json_array_append_new(out, json_string(b));
	}
	json_decref(seen);
	return out;
}

/* One rank of nodes: spines on top, leaves, servers at the bottom. */
static void
dot_rank(json_t *plan, const char *tier, const char *shape, const char *colour)
{
	json_t *sw, *srv = NULL;
	size_t i;

	printf("  { rank=same; node [shape=%s, style=filled, fillcolor=\"%s\"];\n", shape, colour);
	if (strcmp(tier, "server") == 0) {
		srv = servers(plan);
		json_array_foreach(srv, i, sw)
		{
			printf("    ");
			put_quoted(json_string_value(sw));
			printf(";\n");
		}
		json_decref(srv);
	} else {
		json_array_foreach(json_object_get(plan, "switches"), i, sw)
		{
			if (strcmp(railctl_plan_str(sw, "tier"), tier) != 0)
				continue;
			printf("    ");
			put_quoted(railctl_plan_str(sw, "name"));
			printf(";\n");
		}
	}
	printf("  }\n");
}

void
railctl_plan_dot(json_t *plan)
{
	json_t *l;
	size_t i;

	printf("graph fabric {\n");
	printf("  // a %s fabric (railctl plan --dot): one node per switch and server,\n",
	       railctl_plan_str(plan, "design"));
	printf("  // one edge per cable. Render: dot -Tsvg FILE > fabric.svg\n");
	printf("  graph [rankdir=BT, nodesep=0.15, ranksep=1.2, fontname=\"Helvetica\"];\n");
	printf("  node [fontname=\"Helvetica\", fontsize=10];\n");
	printf("  edge [fontname=\"Helvetica\", fontsize=7];\n");
	dot_rank(plan, "spine", "box", "#f4c7a1");
	dot_rank(plan, "leaf", "box", "#a9c8ec");
	dot_rank(plan, "server", "ellipse", "#e2e2e2");
	json_array_foreach(json_object_get(plan, "links"), i, l)
	{
		bool fabric = strcmp(railctl_plan_str(l, "kind"), "fabric") == 0;

		/* Servers below the leaves, leaves below the spines (rankdir=BT). */
		printf("  ");
		put_quoted(fabric ? railctl_plan_str(l, "a") : railctl_plan_str(l, "b"));
		printf(" -- ");
		put_quoted(fabric ? railctl_plan_str(l, "b") : railctl_plan_str(l, "a"));
		printf(" [tooltip=\"%s:%s %s -- %s:%s %s\", color=\"%s\"];\n",
		       railctl_plan_str(l, "a"), railctl_plan_str(l, "a_port"),
		       railctl_plan_str(l, "a_ip"), railctl_plan_str(l, "b"),
		       railctl_plan_str(l, "b_port"), railctl_plan_str(l, "b_ip"),
		       fabric ? "#c0504d" : "#4f81bd");
	}
	printf("}\n");
}

/* "10.1.2.254/24" -> "10.1.2.0/24" (a leaf's gateway to its subnet); "" when not IPv4. */
static void
subnet_of(const char *gw, char *buf, size_t len)
{
	unsigned int a, b, c, d, plen;

	if (sscanf(gw, "%u.%u.%u.%u/%u", &a, &b, &c, &d, &plen) != 5 || plen != 24)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, "%u.%u.%u.0/24", a, b, c);
}

/* The servers' subnets of each rail: {"<rail>": ["10.0.1.0/24", ...]}, in plan order. */
static json_t *
rail_subnets(json_t *plan)
{
	json_t *rail_of = json_object(), *out = json_object(), *seen = json_object(), *o, *l;
	char net[64], key[32];
	size_t i;

	json_array_foreach(json_object_get(plan, "switches"), i,
			   o) if (strcmp(railctl_plan_str(o, "tier"), "leaf") == 0)
		json_object_set(rail_of, railctl_plan_str(o, "name"), json_object_get(o, "rail"));
	json_array_foreach(json_object_get(plan, "links"), i, l)
	{
		json_t *r = json_object_get(rail_of, railctl_plan_str(l, "a")), *arr;

		subnet_of(railctl_plan_str(l, "a_ip"), net, sizeof(net));
		if (strcmp(railctl_plan_str(l, "kind"), "server") != 0 || r == NULL || !net[0] ||
		    json_object_get(seen, net) != NULL)
			continue;
		json_object_set_new(seen, net, json_true());
		snprintf(key, sizeof(key), "%" JSON_INTEGER_FORMAT, json_integer_value(r));
		arr = json_object_get(out, key);
		if (arr == NULL) {
			arr = json_array();
			json_object_set_new(out, key, arr);
		}
		json_array_append_new(arr, json_string(net));
	}
	json_decref(seen);
	json_object_set_new(out, "", rail_of); /* the leaves' rails, for the servers */
	return out;
}

static void
clab_exec(const char *cmd)
{
	printf("        - ");
	put_quoted(cmd);
	printf("\n");
}

/*
 * A server's node, configured at start: its NICs' addresses; through each NIC's leaf, the
 * subnets of the other leaves of that NIC's rail (rail-aligned traffic stays on its rail,
 * and on rail-only that is the only way); rail-optimized, the rest of gpu_prefix through
 * the first NIC's leaf.
 */
static void
clab_server(json_t *plan, json_t *rails, const char *name)
{
	json_t *rail_of = json_object_get(rails, ""), *l, *net;
	bool first = true;
	char cmd[256], gw[64], key[32], own[64];
	size_t i, j;

	printf("    ");
	put_quoted(name);
	printf(":\n      kind: linux\n      image: alpine:3\n      exec:\n");
	json_array_foreach(json_object_get(plan, "links"), i, l)
	{
		if (strcmp(railctl_plan_str(l, "b"), name) != 0)
			continue;
		snprintf(cmd, sizeof(cmd), "ip addr add %s dev %s", railctl_plan_str(l, "b_ip"),
			 railctl_plan_str(l, "b_port"));
		clab_exec(cmd);
		snprintf(gw, sizeof(gw), "%s", railctl_plan_str(l, "a_ip"));
		gw[strcspn(gw, "/")] = '\0';
		snprintf(key, sizeof(key), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(rail_of, railctl_plan_str(l, "a"))));
		subnet_of(railctl_plan_str(l, "a_ip"), own, sizeof(own));
		json_array_foreach(json_object_get(rails, key), j, net)
		{
			char route[256];

			if (strcmp(json_string_value(net), own) == 0)
				continue;
			snprintf(route, sizeof(route), "ip route add %s via %s dev %s",
				 json_string_value(net), gw, railctl_plan_str(l, "b_port"));
			clab_exec(route);
		}
		if (first && strcmp(railctl_plan_str(plan, "design"), "rail-optimized") == 0) {
			snprintf(cmd, sizeof(cmd), "ip route add %s via %s dev %s",
				 railctl_plan_str(plan, "gpu_prefix"), gw,
				 railctl_plan_str(l, "b_port"));
			clab_exec(cmd);
		}
		first = false;
	}
}

void
railctl_plan_containerlab(json_t *plan, const char *name, const char *image)
{
	json_t *sw, *srv, *rails, *l;
	size_t i;

	printf("# containerlab topology of a %s fabric (railctl plan --containerlab): a node per\n"
	       "# switch and server, named as in the plan; a link per cable.\n",
	       railctl_plan_str(plan, "design"));
	printf("name: ");
	put_quoted(name);
	printf("\ntopology:\n  nodes:\n");
	json_array_foreach(json_object_get(plan, "switches"), i, sw)
	{
		printf("    ");
		put_quoted(railctl_plan_str(sw, "name"));
		printf(":\n      kind: linux\n      image: ");
		put_quoted(image);
		printf("\n      labels:\n        railsw.tier: ");
		put_quoted(railctl_plan_str(sw, "tier"));
		printf("\n");
	}
	srv = servers(plan);
	rails = rail_subnets(plan);
	json_array_foreach(srv, i, sw) clab_server(plan, rails, json_string_value(sw));
	json_decref(rails);
	json_decref(srv);
	printf("  links:\n");
	json_array_foreach(json_object_get(plan, "links"), i, l)
	{
		char a[160], b[160];

		snprintf(a, sizeof(a), "%s:%s", railctl_plan_str(l, "a"),
			 railctl_plan_str(l, "a_port"));
		snprintf(b, sizeof(b), "%s:%s", railctl_plan_str(l, "b"),
			 railctl_plan_str(l, "b_port"));
		printf("    - endpoints: [");
		put_quoted(a);
		printf(", ");
		put_quoted(b);
		printf("]\n");
	}
}
