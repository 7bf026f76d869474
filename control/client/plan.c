/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * railctl plan FILE: the fabric of FILE's topology: loaded with the switch's own loader and
 * planned by topology/, then printed in the form the options ask for (railctl_plan.h). No
 * switch is needed.
 */

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "railctl_lldp.h"
#include "railctl_plan.h"
#include "railctl_priv.h"
#include "rsw_config.h"
#include "rsw_topology.h"

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

#define PLAN_USAGE                                                                                 \
	"usage: plan FILE [--json] [--summary | --switch NAME | --csv | --dot |\n"                 \
	"                 --containerlab [--image IMAGE] | --configs DIR [--bgp] |\n"              \
	"                 --check-lldp DIR]"

/* What `railctl plan` prints. */
enum plan_form {
	FORM_PLAN,
	FORM_SUMMARY,
	FORM_SWITCH,
	FORM_CSV,
	FORM_DOT,
	FORM_CLAB,
	FORM_CONFIGS,
	FORM_LLDP,
};

struct plan_args {
	const char *file;
	enum plan_form form;
	const char *arg; /* --switch NAME, --configs DIR, --check-lldp DIR */
	const char *image;
	bool json, bgp;
};

static int
usage(const char *what)
{
	if (what != NULL)
		railctl_warn("plan: %s", what);
	railctl_warn(PLAN_USAGE);
	return EXIT_USAGE;
}

/* One output form: a second one is a usage error. */
static bool
set_form(struct plan_args *a, enum plan_form f, const char *arg)
{
	if (a->form != FORM_PLAN)
		return false;
	a->form = f;
	a->arg = arg;
	return true;
}

static int
parse_args(int argc, char **argv, int i, struct plan_args *a)
{
	char msg[128];

	for (i++; i < argc; i++) {
		const char *o = argv[i];
		bool more = i + 1 < argc && argv[i + 1][0] != '\0';
		bool ok = true;

		if (strcmp(o, "-j") == 0 || strcmp(o, "--json") == 0)
			a->json = true;
		else if (strcmp(o, "--bgp") == 0)
			a->bgp = true;
		else if (strcmp(o, "--summary") == 0)
			ok = set_form(a, FORM_SUMMARY, NULL);
		else if (strcmp(o, "--csv") == 0)
			ok = set_form(a, FORM_CSV, NULL);
		else if (strcmp(o, "--dot") == 0)
			ok = set_form(a, FORM_DOT, NULL);
		else if (strcmp(o, "--containerlab") == 0)
			ok = set_form(a, FORM_CLAB, NULL);
		else if (strcmp(o, "--image") == 0 && more && a->image == NULL)
			a->image = argv[++i];
		else if (strcmp(o, "--switch") == 0 && more)
			ok = set_form(a, FORM_SWITCH, argv[++i]);
		else if (strcmp(o, "--configs") == 0 && more)
			ok = set_form(a, FORM_CONFIGS, argv[++i]);
		else if (strcmp(o, "--check-lldp") == 0 && more)
			ok = set_form(a, FORM_LLDP, argv[++i]);
		else if (a->file == NULL && o[0] != '\0' && o[0] != '-')
			a->file = o;
		else {
			snprintf(msg, sizeof(msg), "unexpected argument '%.80s'", o);
			return usage(msg);
		}
		if (!ok) {
			snprintf(msg, sizeof(msg), "'%.80s' and another output form: give one", o);
			return usage(msg);
		}
	}
	if (a->file == NULL)
		return usage(NULL);
	if (a->bgp && a->form != FORM_CONFIGS)
		return usage("--bgp goes with --configs DIR");
	if (a->image != NULL && a->form != FORM_CLAB)
		return usage("--image goes with --containerlab");
	if (a->json && a->form != FORM_PLAN && a->form != FORM_SUMMARY && a->form != FORM_SWITCH &&
	    a->form != FORM_LLDP)
		return usage("--json goes with the plan, --summary, --switch or --check-lldp");
	return EXIT_OK;
}

/* The lab's name for containerlab: the file's base name without its extension. */
static void
lab_name(const char *file, char *buf, size_t len)
{
	const char *b = strrchr(file, '/');
	char *dot;

	snprintf(buf, len, "%s", b != NULL ? b + 1 : file);
	dot = strrchr(buf, '.');
	if (dot != NULL && dot != buf)
		*dot = '\0';
}

static int
print_json(json_t *o)
{
	char *text = o != NULL ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;

	if (text == NULL) {
		railctl_warn("out of memory");
		return EXIT_USAGE;
	}
	printf("%s\n", text);
	free(text);
	return EXIT_OK;
}

/* The chosen form of a plan. Takes plan. */
static int
plan_output(json_t *plan, const struct plan_args *a)
{
	char name[256];
	json_t *o;
	int rc = EXIT_OK;

	switch (a->form) {
	case FORM_LLDP:
		return check_lldp(plan, a->arg, a->json);
	case FORM_SUMMARY:
		if (a->json) {
			o = railctl_plan_summary_json(plan);
			rc = print_json(o);
			json_decref(o);
		} else {
			railctl_plan_print(plan, true);
		}
		break;
	case FORM_SWITCH:
		rc = railctl_plan_switch(plan, a->arg, a->json);
		break;
	case FORM_CSV:
		railctl_plan_csv(plan);
		break;
	case FORM_DOT:
		railctl_plan_dot(plan);
		break;
	case FORM_CLAB:
		lab_name(a->file, name, sizeof(name));
		railctl_plan_containerlab(plan, name,
					  a->image != NULL ? a->image : "railsw:latest");
		break;
	case FORM_CONFIGS:
		rc = railctl_plan_configs(plan, a->file, a->arg, a->bgp);
		break;
	default:
		if (a->json)
			rc = print_json(plan);
		else
			railctl_plan_print(plan, false);
	}
	json_decref(plan);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		railctl_warn("write error: %s", strerror(errno));
		return EXIT_USAGE;
	}
	return rc;
}

/*
 * railctl plan FILE [--json] [FORM]: load FILE as railsw would (switch: and ports:
 * optional) and print the plan of its fabric in one form (PLAN_USAGE), or, with
 * --check-lldp, compare it with the LLDP neighbours of DIR/SWITCH.json (lldp.c). Exit 0, 1
 * on a bad plan or a cabling that differs, 2 on usage errors.
 */
int
railctl_cmd_plan(int argc, char **argv, int i, bool json)
{
	struct rsw_topo_error e = {0};
	char err[RSW_CFG_ERR_LEN + 4096]; /* the file name, then e.msg */
	struct plan_args a = {.json = json};
	struct rsw_config *cfg;
	char *text, *line, *nl;
	json_t *plan;
	int rc;

	rc = parse_args(argc, argv, i, &a);
	if (rc != EXIT_OK)
		return rc;
	cfg = rsw_config_load_plan(a.file, err, sizeof(err));
	plan = cfg != NULL ? rsw_topology_plan_json(cfg, &e) : NULL;
	if (cfg != NULL && plan == NULL)
		snprintf(err, sizeof(err), "%.4000s: %s", a.file, e.msg);
	rsw_config_free(cfg);
	if (plan == NULL) {
		/* One "railctl: " line per error of the file. */
		for (line = err; line != NULL; line = nl != NULL ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			railctl_warn("%.*s", nl != NULL ? (int)(nl - line) : (int)strlen(line),
				     line);
		}
		if (a.json) {
			json_t *o = json_pack("{s:s}", "error", err);

			text = o != NULL ? json_dumps(o, JSON_COMPACT) : NULL;
			if (text != NULL)
				printf("%s\n", text);
			free(text);
			json_decref(o);
		}
		return EXIT_REPLY_ERROR;
	}
	return plan_output(plan, &a);
}
