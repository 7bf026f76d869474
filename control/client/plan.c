/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * railctl plan FILE: the fabric of FILE's topology: loaded with the switch's own loader and
 * planned by topology/, printed as JSON or as a summary, tables and one line per cable. No
 * switch is needed.
 */

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "railctl_lldp.h"
#include "railctl_priv.h"
#include "rsw_config.h"
#include "rsw_topology.h"

static const char *
jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "";
}

/* "switch:port" of one end of a cable. */
static char *
cable_end(json_t *l, const char *sw, const char *port)
{
	struct sbuf sb = {0};

	railctl_sb_text(&sb, jstr(l, sw));
	railctl_sb_puts(&sb, ":");
	railctl_sb_text(&sb, jstr(l, port));
	return railctl_sb_take(&sb);
}

/* The plan for people: a summary, the tiers, the switches and one line per cable. */
static void
print_plan(json_t *plan)
{
	json_t *links = json_object_get(plan, "links"), *l;
	size_t i, n = json_array_size(links), wa = 0, wai = 0, wb = 0;
	char **ends = railctl_xcalloc(2 * (n ? n : 1), sizeof(*ends));

	printf("%s fabric: %" JSON_INTEGER_FORMAT " SUs x %" JSON_INTEGER_FORMAT
	       " servers, %" JSON_INTEGER_FORMAT " rails, %" JSON_INTEGER_FORMAT " spines%s;"
	       " radix %" JSON_INTEGER_FORMAT "\n",
	       jstr(plan, "design"), json_integer_value(json_object_get(plan, "sus")),
	       json_integer_value(json_object_get(plan, "servers_per_su")),
	       json_integer_value(json_object_get(plan, "rails")),
	       json_integer_value(json_object_get(plan, "spines")),
	       strcmp(jstr(plan, "design"), "rail-only") == 0 ? " per rail" : "",
	       json_integer_value(json_object_get(plan, "radix")));
	printf("gpu_prefix %s, fabric_prefix %s; %" JSON_INTEGER_FORMAT " servers, "
	       "%" JSON_INTEGER_FORMAT " server NICs\n",
	       jstr(plan, "gpu_prefix"), jstr(plan, "fabric_prefix"),
	       json_integer_value(json_object_get(plan, "servers")),
	       json_integer_value(json_object_get(plan, "server_nics")));
	if (json_is_string(json_object_get(plan, "this")))
		printf("this file's switch: %s\n", jstr(plan, "this"));
	printf("\ntiers:\n");
	railctl_print_rows(json_object_get(plan, "tiers"), 2);
	printf("  oversubscription: leaf downlink vs uplink capacity; %s\n",
	       jstr(json_object_get(plan, "speeds"), "note"));
	printf("\nswitches:\n");
	railctl_print_rows(json_object_get(plan, "switches"), 2);

	printf("\ncables (%zu):\n", n);
	json_array_foreach(links, i, l)
	{
		ends[2 * i] = cable_end(l, "a", "a_port");
		ends[2 * i + 1] = cable_end(l, "b", "b_port");
		if (railctl_text_width(ends[2 * i]) > wa)
			wa = railctl_text_width(ends[2 * i]);
		if (railctl_text_width(jstr(l, "a_ip")) > wai)
			wai = railctl_text_width(jstr(l, "a_ip"));
		if (railctl_text_width(ends[2 * i + 1]) > wb)
			wb = railctl_text_width(ends[2 * i + 1]);
	}
	json_array_foreach(links, i, l)
	{
		printf("  %-*s  %-*s  <->  %-*s  %s\n", (int)wa, ends[2 * i], (int)wai,
		       jstr(l, "a_ip"), (int)wb, ends[2 * i + 1], jstr(l, "b_ip"));
		free(ends[2 * i]);
		free(ends[2 * i + 1]);
	}
	free(ends);
}

/* --check-lldp DIR: the cabling check, printed or as {"lldp_check": {...}}. Takes plan. */
static int
check_lldp(json_t *plan, const char *dir, bool json)
{
	json_t *res = railctl_lldp_check(plan, dir);
	char *text;
	int rc;

	json_decref(plan);
	if (res == NULL) {
		railctl_warn("out of memory");
		return EXIT_USAGE;
	}
	rc = json_is_true(json_object_get(res, "passed")) ? EXIT_OK : EXIT_REPLY_ERROR;
	if (json) {
		json_t *o = json_pack("{s:o}", "lldp_check", res);

		text = o != NULL ? json_dumps(o, JSON_COMPACT) : NULL;
		if (text != NULL)
			printf("%s\n", text);
		free(text);
		json_decref(o);
	} else {
		railctl_lldp_print(res, dir);
		json_decref(res);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		railctl_warn("write error: %s", strerror(errno));
		return EXIT_USAGE;
	}
	return rc;
}

/*
 * railctl plan FILE [--json] [--check-lldp DIR]: load FILE as railsw would (switch: and
 * ports: optional) and print the plan of its fabric, or, with --check-lldp, compare it with
 * the LLDP neighbours of DIR/SWITCH.json (lldp.c). Exit 0, 1 on a bad plan or a cabling
 * that differs, 2 on usage errors.
 */
int
railctl_cmd_plan(int argc, char **argv, int i, bool json)
{
	struct rsw_topo_error e = {0};
	char err[RSW_CFG_ERR_LEN + 4096]; /* the file name, then e.msg */
	const char *file = NULL, *lldp_dir = NULL;
	struct rsw_config *cfg;
	char *text, *line, *nl;
	json_t *plan;

	for (i++; i < argc; i++) {
		if (strcmp(argv[i], "-j") == 0 || strcmp(argv[i], "--json") == 0) {
			json = true;
		} else if (strcmp(argv[i], "--check-lldp") == 0 && i + 1 < argc &&
			   argv[i + 1][0] != '\0') {
			lldp_dir = argv[++i];
		} else if (file == NULL && argv[i][0] != '\0' && argv[i][0] != '-') {
			file = argv[i];
		} else {
			railctl_warn("plan: unexpected argument '%s'", argv[i]);
			railctl_warn("usage: plan FILE [--json] [--check-lldp DIR]");
			return EXIT_USAGE;
		}
	}
	if (file == NULL) {
		railctl_warn("usage: plan FILE [--json] [--check-lldp DIR]");
		return EXIT_USAGE;
	}
	cfg = rsw_config_load_plan(file, err, sizeof(err));
	plan = cfg != NULL ? rsw_topology_plan_json(cfg, &e) : NULL;
	if (cfg != NULL && plan == NULL)
		snprintf(err, sizeof(err), "%.4000s: %s", file, e.msg);
	rsw_config_free(cfg);
	if (plan == NULL) {
		/* One "railctl: " line per error of the file. */
		for (line = err; line != NULL; line = nl != NULL ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			railctl_warn("%.*s", nl != NULL ? (int)(nl - line) : (int)strlen(line),
				     line);
		}
		if (json) {
			json_t *o = json_pack("{s:s}", "error", err);

			text = o != NULL ? json_dumps(o, JSON_COMPACT) : NULL;
			if (text != NULL)
				printf("%s\n", text);
			free(text);
			json_decref(o);
		}
		return EXIT_REPLY_ERROR;
	}
	if (lldp_dir != NULL)
		return check_lldp(plan, lldp_dir, json);
	if (json) {
		text = json_dumps(plan, JSON_COMPACT | JSON_REAL_PRECISION(6));
		if (text == NULL) {
			railctl_warn("out of memory");
			json_decref(plan);
			return EXIT_USAGE;
		}
		printf("%s\n", text);
		free(text);
	} else {
		print_plan(plan);
	}
	json_decref(plan);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		railctl_warn("write error: %s", strerror(errno));
		return EXIT_USAGE;
	}
	return EXIT_OK;
}
