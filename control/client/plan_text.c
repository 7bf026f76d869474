/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `railctl plan` for people: the summary (the fabric, its tiers, the bill of materials and
 * the capacity figures), the switches and one line per cable; or one switch alone.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "railctl_plan.h"
#include "railctl_priv.h"

const char *
railctl_plan_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "";
}

static json_int_t
jint(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* o.a.b as an integer. */
static json_int_t
jint2(json_t *o, const char *a, const char *b)
{
	return jint(json_object_get(o, a), b);
}

const char *
railctl_plan_speed(json_t *bps, char *buf, size_t len)
{
	json_int_t v = json_integer_value(bps);

	if (v <= 0)
		snprintf(buf, len, "%s", "");
	else if (v % 1000000000 == 0)
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT "G", v / 1000000000);
	else if (v % 1000000 == 0)
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT "M", v / 1000000);
	else
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, v);
	return buf;
}

/* "switch:port" of one end of a cable. */
static char *
cable_end(json_t *l, const char *sw, const char *port)
{
	struct sbuf sb = {0};

	railctl_sb_text(&sb, railctl_plan_str(l, sw));
	railctl_sb_puts(&sb, ":");
	railctl_sb_text(&sb, railctl_plan_str(l, port));
	return railctl_sb_take(&sb);
}

/* One line per cable, columns aligned. */
static void
print_cables(json_t *links)
{
	size_t i, n = json_array_size(links), wa = 0, wai = 0, wb = 0;
	char **ends = railctl_xcalloc(2 * (n ? n : 1), sizeof(*ends));
	json_t *l;

	json_array_foreach(links, i, l)
	{
		ends[2 * i] = cable_end(l, "a", "a_port");
		ends[2 * i + 1] = cable_end(l, "b", "b_port");
		if (railctl_text_width(ends[2 * i]) > wa)
			wa = railctl_text_width(ends[2 * i]);
		if (railctl_text_width(railctl_plan_str(l, "a_ip")) > wai)
			wai = railctl_text_width(railctl_plan_str(l, "a_ip"));
		if (railctl_text_width(ends[2 * i + 1]) > wb)
			wb = railctl_text_width(ends[2 * i + 1]);
	}
	json_array_foreach(links, i, l)
	{
		printf("  %-*s  %-*s  <->  %-*s  %s\n", (int)wa, ends[2 * i], (int)wai,
		       railctl_plan_str(l, "a_ip"), (int)wb, ends[2 * i + 1],
		       railctl_plan_str(l, "b_ip"));
		free(ends[2 * i]);
		free(ends[2 * i + 1]);
	}
	free(ends);
}

/* "50%" of a fraction, or "-" for null. */
static const char *
percent(json_t *v, char *buf, size_t len)
{
	if (!json_is_number(v))
		return "-";
	snprintf(buf, len, "%.4g%%", 100.0 * json_number_value(v));
	return buf;
}

static void
print_bom(json_t *plan)
{
	json_t *bom = json_object_get(plan, "bom"), *c, *ports = json_object_get(bom, "ports");
	json_t *head = json_object_get(bom, "headroom");
	char sp[32], pa[32], pb[32];
	size_t i;

	printf("\nbill of materials:\n");
	printf("  switches: %" JSON_INTEGER_FORMAT " leaves, %" JSON_INTEGER_FORMAT
	       " spines (%" JSON_INTEGER_FORMAT " ports each)",
	       jint2(bom, "switches", "leaf"), jint2(bom, "switches", "spine"), jint(bom, "radix"));
	if (json_is_integer(json_object_get(bom, "spines_per_rail")))
		printf("; %" JSON_INTEGER_FORMAT " spine%s per rail", jint(bom, "spines_per_rail"),
		       jint(bom, "spines_per_rail") == 1 ? "" : "s");
	printf("\n");
	json_array_foreach(json_object_get(bom, "cables_by_speed"), i, c)
	{
		railctl_plan_speed(json_object_get(c, "speed_bps"), sp, sizeof(sp));
		printf("  cables:   %" JSON_INTEGER_FORMAT " %s%s%s\n", jint(c, "count"),
		       strcmp(railctl_plan_str(c, "kind"), "server_leaf") == 0 ? "server-leaf"
									       : "leaf-spine",
		       sp[0] ? " at " : " (speed not given)", sp);
	}
	printf("  optics:   %" JSON_INTEGER_FORMAT " (one per cable "
	       "end: %" JSON_INTEGER_FORMAT " server-leaf, %" JSON_INTEGER_FORMAT " leaf-spine)\n",
	       jint2(bom, "optics", "server_leaf") + jint2(bom, "optics", "leaf_spine"),
	       jint2(bom, "optics", "server_leaf"), jint2(bom, "optics", "leaf_spine"));
	printf("  ports:    %" JSON_INTEGER_FORMAT " used, %" JSON_INTEGER_FORMAT
	       " spare (leaves %" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT
	       ", spines %" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT ")\n",
	       jint(ports, "used"), jint(ports, "spare"), jint2(ports, "leaf", "used"),
	       jint2(ports, "leaf", "spare"), jint2(ports, "spine", "used"),
	       jint2(ports, "spine", "spare"));
	printf("  headroom: %" JSON_INTEGER_FORMAT " spare ports per leaf",
	       jint(head, "leaf_ports_spare"));
	if (json_is_integer(json_object_get(head, "spine_ports_spare")))
		printf(", %" JSON_INTEGER_FORMAT " on the fullest spine",
		       jint(head, "spine_ports_spare"));
	printf("\n            room for %" JSON_INTEGER_FORMAT " more SU%s%s, %" JSON_INTEGER_FORMAT
	       " more servers per SU\n",
	       jint(head, "more_sus"), jint(head, "more_sus") == 1 ? "" : "s",
	       json_is_true(json_object_get(head, "full")) ? " (full)" : "",
	       jint(head, "more_servers_per_su"));
	if (json_is_number(json_object_get(bom, "capacity_after_spine_loss")))
		printf("  one spine down: %s of the leaf-spine capacity left\n"
		       "            the worst-hit leaf keeps %s of its uplinks%s\n",
		       percent(json_object_get(bom, "capacity_after_spine_loss"), pa, sizeof(pa)),
		       percent(json_object_get(bom, "leaf_uplinks_after_spine_loss"), pb,
			       sizeof(pb)),
		       json_number_value(json_object_get(bom, "leaf_uplinks_after_spine_loss")) == 0
			       ? " (its rail's leaves lose each other)"
			       : "");
	else
		printf("  one spine down: no spine tier\n");
}

void
railctl_plan_print(json_t *plan, bool summary_only)
{
	json_t *links = json_object_get(plan, "links");

	printf("%s fabric: %" JSON_INTEGER_FORMAT " SUs x %" JSON_INTEGER_FORMAT
	       " servers, %" JSON_INTEGER_FORMAT " rails, %" JSON_INTEGER_FORMAT " spines%s;"
	       " radix %" JSON_INTEGER_FORMAT "\n",
	       railctl_plan_str(plan, "design"), jint(plan, "sus"), jint(plan, "servers_per_su"),
	       jint(plan, "rails"), jint(plan, "spines"),
	       strcmp(railctl_plan_str(plan, "design"), "rail-only") == 0 ? " (uplinks per leaf)"
									  : "",
	       jint(plan, "radix"));
	printf("gpu_prefix %s, fabric_prefix %s; %" JSON_INTEGER_FORMAT " servers, "
	       "%" JSON_INTEGER_FORMAT " server NICs\n",
	       railctl_plan_str(plan, "gpu_prefix"), railctl_plan_str(plan, "fabric_prefix"),
	       jint(plan, "servers"), jint(plan, "server_nics"));
	if (json_is_string(json_object_get(plan, "this")))
		printf("this file's switch: %s\n", railctl_plan_str(plan, "this"));
	printf("\ntiers:\n");
	railctl_print_rows(json_object_get(plan, "tiers"), 2);
	printf("  oversubscription: leaf downlink vs uplink capacity; %s\n",
	       railctl_plan_str(json_object_get(plan, "speeds"), "note"));
	print_bom(plan);
	if (summary_only)
		return;
	printf("\nswitches:\n");
	railctl_print_rows(json_object_get(plan, "switches"), 2);
	printf("\ncables (%zu):\n", json_array_size(links));
	print_cables(links);
}

json_t *
railctl_plan_summary_json(json_t *plan)
{
	json_t *o = json_copy(plan);

	if (o != NULL) {
		json_object_del(o, "switches");
		json_object_del(o, "links");
	}
	return o;
}

int
railctl_plan_switch(json_t *plan, const char *name, bool json)
{
	json_t *links = json_array(), *sw = NULL, *l, *o;
	char *text;
	size_t i;

	json_array_foreach(json_object_get(plan, "switches"), i,
			   o) if (strcmp(railctl_plan_str(o, "name"), name) == 0) sw = o;
	json_array_foreach(json_object_get(plan, "links"), i, l)
	{
		if (strcmp(railctl_plan_str(l, "a"), name) == 0) {
			json_array_append(links, l);
		} else if (strcmp(railctl_plan_str(l, "b"), name) == 0) {
			/* Seen from this box: its end first. */
			o = json_pack(
				"{s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O}", "a", json_object_get(l, "b"),
				"a_port", json_object_get(l, "b_port"), "a_ip",
				json_object_get(l, "b_ip"), "b", json_object_get(l, "a"), "b_port",
				json_object_get(l, "a_port"), "b_ip", json_object_get(l, "a_ip"),
				"kind", json_object_get(l, "kind"), "speed_bps",
				json_object_get(l, "speed_bps"));
			json_array_append_new(links, o);
		}
	}
	if (sw == NULL && json_array_size(links) == 0) {
		json_decref(links);
		railctl_warn("plan: no switch or server named '%s' in the plan", name);
		if (json)
			printf("{\"error\":\"no switch or server named in the plan\"}\n");
		return EXIT_REPLY_ERROR;
	}
	if (json) {
		o = json_pack("{s:O?,s:o}", "switch", sw, "links", links);
		text = o != NULL ? json_dumps(o, JSON_COMPACT) : NULL;
		if (text != NULL)
			printf("%s\n", text);
		free(text);
		json_decref(o);
		return EXIT_OK;
	}
	if (sw != NULL) {
		o = json_array();
		json_array_append(o, sw);
		railctl_print_rows(o, 0);
		json_decref(o);
	} else {
		printf("%s: a server\n", name);
	}
	printf("\ncables (%zu):\n", json_array_size(links));
	print_cables(links);
	json_decref(links);
	return EXIT_OK;
}
