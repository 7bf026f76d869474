/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The configuration loader. It reads one YAML file (docs/config.md) with the libyaml
 * document API, checks every key, type, range and cross-reference, and fills a struct
 * rsw_config before rte_eal_init; nothing starts on any error. Every error is one line,
 * "FILE:LINE: message", so a typo never passes silently. This file holds the file and buffer
 * loading, libyaml's own errors, the defaults and the order the sections are parsed in.
 * Nothing here runs in a worker.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config_priv.h"
#include "rsw_topology.h"

/* The checks modules registered (rsw_config_register_check). */
static rsw_config_check_fn *checks[RSW_CFG_MAX_CHECKS];

struct rsw_cfg_report {
	struct ctx *c;
};

int
rsw_config_register_check(rsw_config_check_fn *fn)
{
	size_t i, free_slot = RSW_CFG_MAX_CHECKS;

	for (i = 0; i < RSW_CFG_MAX_CHECKS; i++) {
		if (checks[i] == fn)
			return 0;
		if (checks[i] == NULL && free_slot == RSW_CFG_MAX_CHECKS)
			free_slot = i;
	}
	if (free_slot == RSW_CFG_MAX_CHECKS)
		return -ENOSPC;
	checks[free_slot] = fn;
	return 0;
}

void
rsw_config_unregister_check(rsw_config_check_fn *fn)
{
	size_t i;

	for (i = 0; i < RSW_CFG_MAX_CHECKS; i++)
		if (checks[i] == fn)
			checks[i] = NULL;
}

void
rsw_config_report_error(struct rsw_cfg_report *r, int line, const char *fmt, ...)
{
	char msg[RSW_CFG_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cfg_fail(r->c, line, "%s", msg);
}

void
rsw_config_report_warning(struct rsw_cfg_report *r, int line, const char *fmt, ...)
{
	char msg[RSW_CFG_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cfg_warn(r->c, line, "%s", msg);
}

/* The registered checks, on the ports that parsed. */
static void
run_checks(struct ctx *c)
{
	struct rsw_cfg_report r = {.c = c};
	size_t i;

	for (i = 0; i < RSW_CFG_MAX_CHECKS; i++)
		if (checks[i] != NULL)
			checks[i](c->cfg, &r);
}

/* A topology/ error as FILE:LINE: message. */
static int
topo_fail(struct ctx *c, const struct rsw_topo_error *e)
{
	return cfg_fail(c, e->line, "%s", e->msg);
}

enum {
	T_SWITCH,
	T_PORTS,
	T_NEIGHBORS,
	T_ROUTES,
	T_LB,
	T_QOS,
	T_CONTROL,
	T_TOPOLOGY,
	T_N,
};

static const char *const top_keys[T_N] = {
	[T_SWITCH] = "switch",   [T_PORTS] = "ports",       [T_NEIGHBORS] = "neighbors",
	[T_ROUTES] = "routes",   [T_LB] = "load_balance",   [T_QOS] = "qos",
	[T_CONTROL] = "control", [T_TOPOLOGY] = "topology",
};

static void
set_defaults(struct rsw_config *cfg)
{
	int i;

	cfg->sw.role = RSW_ROLE_LEAF;
	cfg->sw.idle_sleep_us = 100;
	cfg->sw.shaper_burst_us = 100;
	cfg->sw.icmp_unreachable = true;
	cfg->sw.icmp_rate_pps = 100;
	cfg->lb.mode = RSW_LB_HASH;
	for (i = 0; i < RSW_N_TC; i++)
		cfg->lb.per_tc[i] = RSW_LB_UNSET;
	cfg->lb.hash_fields = RSW_HF_DEFAULT;
	cfg->lb.hash_algorithm = RSW_HASH_CRC32;
	cfg->lb.spray = RSW_SPRAY_RR;
	cfg->lb.flowlet_timeout_us = 50;
	cfg->lb.hash_seed = 0;
	cfg->lb.hash_symmetric = false;
	cfg->qos.trust = RSW_TRUST_DSCP;
	cfg->qos.default_tc = 0;
	for (i = 0; i < RSW_N_TC; i++)
		cfg->qos.dwrr[i] = 1;
	cfg->qos.buffer_total = 16 * CFG_MB;
	cfg->qos.queue_limit = 512 * CFG_KB;
	cfg->qos.pfc.dynamic = false;
	cfg->qos.pfc.xoff = 96 * CFG_KB;
	cfg->qos.pfc.xon = 48 * CFG_KB;
	cfg->qos.pfc.alpha = 0.125;
	cfg->qos.pfc.xon_offset = 3 * CFG_KB;
	cfg->qos.pfc.headroom = 64 * CFG_KB;
	cfg->qos.pfc.quanta = CFG_MAX_QUANTA;
	cfg->qos.ecn_mark_enqueue = false;
	cfg->qos.pfcwd.detect_ms = 200;
	cfg->qos.pfcwd.restore_ms = 200;
	cfg->qos.pfcwd.action = RSW_PFCWD_DROP;
	snprintf(cfg->control.socket, sizeof(cfg->control.socket), "%s", "/run/railsw/railsw.sock");
	cfg->control.telemetry = true;
	cfg->topology.design = RSW_TOPO_RAIL_OPTIMIZED;
	cfg->topology.radix = RSW_TOPO_RADIX;
	cfg->topology.gpu_prefix.ip.family = RSW_AF_INET;
	cfg->topology.gpu_prefix.ip.addr[0] = 10;
	cfg->topology.gpu_prefix.len = 8;
	cfg->topology.fabric_prefix.ip.family = RSW_AF_INET;
	cfg->topology.fabric_prefix.ip.addr[0] = 172;
	cfg->topology.fabric_prefix.ip.addr[1] = 16;
	cfg->topology.fabric_prefix.len = 12;
}

static int
parse_root(struct ctx *c, yaml_node_t *root)
{
	struct rsw_topo_error terr = {0};
	struct rsw_topo_errors terrs;
	bool one_switch, sw_ok = true, ports_ok = true, topo_ok = true, neigh_ok = false;
	bool routes_ok = false;
	struct kv kv[T_N];
	int i;

	if (root->type != YAML_MAPPING_NODE)
		return cfg_fail(
			c, cfg_line_of(root),
			"the top level must be a mapping of sections (switch:, ports:, ...)");
	/* An unknown top-level key is reported; the sections that are known are still checked. */
	cfg_get_map(c, root, NULL, top_keys, T_N, kv);
	/* A plan needs only topology:; a switch's file (or a plan with switch: or ports:) all. */
	one_switch = !c->plan || kv[T_SWITCH].v != NULL || kv[T_PORTS].v != NULL;
	/* A misspelt 'topology' is one mistake: its "did you mean" says it all. */
	if (c->plan && kv[T_TOPOLOGY].v == NULL)
		return c->n_errors > 0 ? -EINVAL
				       : cfg_fail(c, 0, "missing required key 'topology'");
	/*
	 * Every section is checked and every independent error reported; a check whose input
	 * had an error is left out, so that one mistake gives one message.
	 */
	if (one_switch) {
		sw_ok = kv[T_SWITCH].v != NULL && cfg_parse_switch(c, &kv[T_SWITCH]) == 0;
		ports_ok = kv[T_PORTS].v != NULL && cfg_parse_ports(c, &kv[T_PORTS]) == 0;
	}
	c->ports_ok = ports_ok;
	/* Derived port addresses first: neighbours and static routes may use them. */
	if (kv[T_TOPOLOGY].v != NULL) {
		topo_ok = cfg_parse_topology(c, &kv[T_TOPOLOGY]) == 0;
		if (topo_ok && rsw_topology_check_all(&c->cfg->topology, one_switch, &terrs) < 0) {
			for (i = 0; i < terrs.n && i < RSW_TOPO_MAX_ERRS; i++)
				topo_fail(c, &terrs.e[i]);
			topo_ok = false;
		}
		/* The derivation needs this switch's role and ports. */
		if (topo_ok && one_switch)
			topo_ok = sw_ok && ports_ok &&
				  (rsw_topology_apply_ports(c->cfg, &terr) == 0 ||
				   topo_fail(c, &terr) == 0);
	}
	/*
	 * Dependency order: neighbours need the ports' addresses, routes neighbours too. After
	 * an error in a port or the topology, neighbours are still checked (a port name that
	 * no entry of ports: has is an error whatever else failed), routes are not.
	 */
	c->ports_node = kv[T_PORTS].v;
	c->ports_partial = !(ports_ok && topo_ok);
	if (!c->ports_partial)
		neigh_ok = cfg_parse_neighbors(c, &kv[T_NEIGHBORS]) == 0;
	else if (c->ports_node != NULL && c->ports_node->type == YAML_SEQUENCE_NODE)
		cfg_parse_neighbors(c, &kv[T_NEIGHBORS]);
	if (neigh_ok)
		routes_ok = cfg_parse_routes(c, &kv[T_ROUTES]) == 0;
	if (routes_ok && one_switch && rsw_topology_apply_routes(c->cfg, &terr) < 0)
		routes_ok = topo_fail(c, &terr) == 0;
	if (routes_ok && one_switch)
		cfg_check_table_limits(c);
	cfg_parse_lb(c, &kv[T_LB]);
	/* ports[].cbfc needs the lossless TCs and the buffer of qos:. */
	if (cfg_parse_qos(c, &kv[T_QOS]) == 0 && ports_ok && one_switch)
		cfg_check_cbfc(c);
	cfg_parse_control(c, &kv[T_CONTROL]);
	if (one_switch && c->ports_node != NULL && c->ports_node->type == YAML_SEQUENCE_NODE)
		run_checks(c);
	/* A missing section is reported when nothing else is wrong, the first one only. */
	if (c->n_errors == 0 && one_switch && kv[T_SWITCH].v == NULL)
		cfg_parse_switch(c, &kv[T_SWITCH]);
	else if (c->n_errors == 0 && one_switch && kv[T_PORTS].v == NULL)
		cfg_parse_ports(c, &kv[T_PORTS]);
	return c->n_errors > 0 ? -EINVAL : 0;
}

/* libyaml's own message, with the line it happened on. */
static int
yaml_fail(struct ctx *c, const yaml_parser_t *p, const char *buf, size_t len)
{
	int line;
	size_t i;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return cfg_fail(c, 0, "out of memory");
	case YAML_READER_ERROR:
		line = 1;
		for (i = 0; i < p->problem_offset && i < len; i++)
			line += buf[i] == '\n';
		if (p->problem_value != -1)
			return cfg_fail(c, line, "invalid YAML: %s (byte 0x%02x)", p->problem,
					(unsigned)p->problem_value & 0xff);
		return cfg_fail(c, line, "invalid YAML: %s", p->problem);
	case YAML_SCANNER_ERROR:
	case YAML_PARSER_ERROR:
	case YAML_COMPOSER_ERROR:
		line = (int)p->problem_mark.line + 1;
		if (p->context != NULL)
			return cfg_fail(c, line, "invalid YAML: %s (%s at line %d)",
					p->problem ? p->problem : "syntax error", p->context,
					(int)p->context_mark.line + 1);
		return cfg_fail(c, line, "invalid YAML: %s",
				p->problem ? p->problem : "syntax error");
	default:
		return cfg_fail(c, 0, "invalid YAML");
	}
}

/*
 * libyaml takes time quadratic in flow nesting depth ("[[[[..." of 200k levels: a minute), so
 * deep flow nesting is refused before parsing. Quoted scalars and comments are skipped; a
 * bracket inside a plain scalar may be miscounted, which only matters past CFG_MAX_DEPTH.
 * Returns the line where the depth is exceeded, or 0.
 */
static int
too_deep(const char *buf, size_t len)
{
	int depth = 0, line = 1;
	char prev = '\n';
	size_t i;

	for (i = 0; i < len; i++) {
		char ch = buf[i];
		bool token_start = prev == '\n' || prev == ' ' || prev == '\t' || prev == '[' ||
				   prev == '{' || prev == ',' || prev == ':';

		if (ch == '\n') {
			line++;
		} else if (token_start && ch == '#') {
			while (i + 1 < len && buf[i + 1] != '\n')
				i++;
		} else if (token_start && (ch == '"' || ch == '\'')) {
			for (i++; i < len && buf[i] != ch; i++) {
				if (ch == '"' && buf[i] == '\\' && i + 1 < len)
					i++;
				if (i < len && buf[i] == '\n')
					line++;
			}
		} else if (ch == '[' || ch == '{') {
			if (++depth > CFG_MAX_DEPTH)
				return line;
		} else if ((ch == ']' || ch == '}') && depth > 0) {
			depth--;
		}
		prev = i < len ? buf[i] : '\n';
	}
	return 0;
}

static struct rsw_config *
load_buf(const char *name, const char *buf, size_t len, char *err, size_t errlen, bool plan)
{
	struct ctx c = {
		.name = name != NULL ? name : "<config>",
		.err = err,
		.errlen = errlen,
		.plan = plan,
	};
	yaml_document_t doc, extra;
	struct rsw_config *cfg;
	yaml_parser_t parser;
	yaml_node_t *root;
	int rc = -EINVAL;
	int line;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (buf == NULL)
		len = 0;
	cfg = calloc(1, sizeof(*cfg));
	if (cfg == NULL) {
		cfg_fail(&c, 0, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	snprintf(cfg->path, sizeof(cfg->path), "%s", c.name);
	set_defaults(cfg);
	c.cfg = cfg;
	c.doc = &doc;

	if (!yaml_parser_initialize(&parser)) {
		cfg_fail(&c, 0, "out of memory");
		free(cfg);
		errno = ENOMEM;
		return NULL;
	}
	line = too_deep(buf, len);
	if (line > 0) {
		cfg_fail(&c, line, "nesting deeper than %d levels", CFG_MAX_DEPTH);
		goto out_parser;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)(buf != NULL ? buf : ""), len);
	if (!yaml_parser_load(&parser, &doc)) {
		yaml_fail(&c, &parser, buf, len);
		goto out_parser;
	}
	root = yaml_document_get_root_node(&doc);
	if (root == NULL || cfg_is_null(root)) {
		cfg_fail(&c, 0, "empty configuration");
		goto out_doc;
	}
	/* One document per file: a second `---` is an error, not silently ignored. */
	if (!yaml_parser_load(&parser, &extra)) {
		yaml_fail(&c, &parser, buf, len);
		goto out_doc;
	}
	if (yaml_document_get_root_node(&extra) != NULL) {
		cfg_fail(&c, (int)extra.start_mark.line + 1, "only one YAML document is allowed");
		yaml_document_delete(&extra);
		goto out_doc;
	}
	yaml_document_delete(&extra);
	rc = parse_root(&c, root);
out_doc:
	yaml_document_delete(&doc);
out_parser:
	yaml_parser_delete(&parser);
	free(c.nsorted);
	if (rc < 0) {
		rsw_config_free(cfg);
		errno = EINVAL;
		return NULL;
	}
	return cfg;
}

struct rsw_config *
rsw_config_load_buf(const char *name, const char *buf, size_t len, char *err, size_t errlen)
{
	return load_buf(name, buf, len, err, errlen, false);
}

static struct rsw_config *
load_file(const char *path, char *err, size_t errlen, bool plan)
{
	struct ctx c = {.name = path != NULL ? path : "<config>", .err = err, .errlen = errlen};
	struct rsw_config *cfg;
	struct stat st;
	size_t got = 0;
	char *buf;
	FILE *f;
	int e;

	if (path == NULL) {
		cfg_fail(&c, 0, "no configuration file given");
		errno = EINVAL;
		return NULL;
	}
	f = fopen(path, "rb");
	if (f == NULL) {
		e = errno;
		cfg_fail(&c, 0, "%s", strerror(e));
		errno = e;
		return NULL;
	}
	if (fstat(fileno(f), &st) < 0)
		st.st_mode = 0;
	if (!S_ISREG(st.st_mode)) {
		e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		cfg_fail(&c, 0, "%s", e == EISDIR ? strerror(e) : "not a regular file");
		fclose(f);
		errno = e;
		return NULL;
	}
	if ((uint64_t)st.st_size > CFG_MAX_FILE) {
		cfg_fail(&c, 0, "file too large (at most %u MB)", CFG_MAX_FILE >> 20);
		fclose(f);
		errno = EFBIG;
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL) {
		cfg_fail(&c, 0, "out of memory");
		fclose(f);
		errno = ENOMEM;
		return NULL;
	}
	got = fread(buf, 1, (size_t)st.st_size, f);
	if (ferror(f)) {
		e = errno != 0 ? errno : EIO;
		cfg_fail(&c, 0, "%s", strerror(e));
		fclose(f);
		free(buf);
		errno = e;
		return NULL;
	}
	fclose(f);
	buf[got] = '\0';
	cfg = load_buf(path, buf, got, err, errlen, plan);
	free(buf);
	return cfg;
}

struct rsw_config *
rsw_config_load(const char *path, char *err, size_t errlen)
{
	return load_file(path, err, errlen, false);
}

struct rsw_config *
rsw_config_load_plan(const char *path, char *err, size_t errlen)
{
	return load_file(path, err, errlen, true);
}

void
rsw_config_free(struct rsw_config *cfg)
{
	if (cfg == NULL)
		return;
	free(cfg->neighbors);
	free(cfg->routes);
	free(cfg);
}
