/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The effective configuration as JSON (`show config`): every key with CONFIG.md's name, every
 * default filled in.
 */

#include <arpa/inet.h>
#include <jansson.h>
#include <stdio.h>

#include "config_priv.h"
#include "rsw_topology.h"

/* Set o[k] = v, remembering any failure (v NULL from a failed allocation included). */
static void
jset(json_t *o, const char *k, json_t *v, bool *bad)
{
	if (v == NULL || json_object_set_new(o, k, v) < 0)
		*bad = true;
}

static void
jappend(json_t *a, json_t *v, bool *bad)
{
	if (v == NULL || json_array_append_new(a, v) < 0)
		*bad = true;
}

static json_t *
jmac(const uint8_t m[6])
{
	char buf[18];

	snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4],
		 m[5]);
	return json_string(buf);
}

static json_t *
jip(const struct rsw_ip *ip)
{
	char buf[INET6_ADDRSTRLEN];

	return json_string(rsw_ip_str(ip, buf, sizeof(buf)));
}

static json_t *
jprefix(const struct rsw_prefix *p)
{
	char buf[INET6_ADDRSTRLEN + 4];

	return json_string(rsw_prefix_str(p, buf, sizeof(buf)));
}

static json_t *
json_switch(const struct rsw_config *cfg, bool *bad)
{
	const struct rsw_cfg_switch *sw = &cfg->sw;
	json_t *o = json_object(), *icmp = json_object();

	if (o == NULL || icmp == NULL) {
		json_decref(o);
		json_decref(icmp);
		*bad = true;
		return NULL;
	}
	jset(o, "name", json_string(sw->name), bad);
	jset(o, "role", json_string(cfg_switch_roles[sw->role]), bad);
	jset(o, "idle_sleep_us", json_integer(sw->idle_sleep_us), bad);
	jset(o, "router_id", sw->has_router_id ? jip(&sw->router_id) : json_null(), bad);
	jset(icmp, "enable", json_boolean(sw->icmp_unreachable), bad);
	jset(icmp, "rate_pps", json_integer(sw->icmp_rate_pps), bad);
	jset(o, "icmp_unreachable", icmp, bad);
	return o;
}

static json_t *
json_ports(const struct rsw_config *cfg, bool *bad)
{
	json_t *a = json_array();
	int i;

	for (i = 0; a != NULL && i < cfg->n_ports; i++) {
		const struct rsw_cfg_port *p = &cfg->ports[i];
		json_t *o = json_object();

		if (o == NULL) {
			*bad = true;
			break;
		}
		jset(o, "name", json_string(p->name), bad);
		jset(o, "devargs", json_string(p->devargs), bad);
		jset(o, "mac", p->has_mac ? jmac(p->mac) : json_null(), bad);
		jset(o, "speed",
		     p->speed_bps ? json_integer((json_int_t)p->speed_bps) : json_null(), bad);
		jset(o, "ipv4", p->has_ipv4 ? jprefix(&p->ipv4) : json_null(), bad);
		jset(o, "ipv6", p->has_ipv6 ? jprefix(&p->ipv6) : json_null(), bad);
		jset(o, "mtu", json_integer(p->mtu), bad);
		jset(o, "role",
		     p->role == RSW_PORT_ROLE_NONE ? json_null()
						   : json_string(cfg_port_roles[p->role - 1]),
		     bad);
		jappend(a, o, bad);
	}
	return a;
}

static json_t *
json_neighbors(const struct rsw_config *cfg, bool *bad)
{
	json_t *a = json_array();
	uint32_t i;

	for (i = 0; a != NULL && i < cfg->n_neighbors; i++) {
		const struct rsw_cfg_neighbor *n = &cfg->neighbors[i];
		json_t *o = json_object();

		if (o == NULL) {
			*bad = true;
			break;
		}
		jset(o, "ip", jip(&n->ip), bad);
		jset(o, "mac", jmac(n->mac), bad);
		jset(o, "port", json_string(cfg->ports[n->port].name), bad);
		jappend(a, o, bad);
	}
	return a;
}

static json_t *
json_routes(const struct rsw_config *cfg, bool *bad)
{
	json_t *a = json_array();
	uint32_t i;
	int k;

	for (i = 0; a != NULL && i < cfg->n_routes; i++) {
		const struct rsw_cfg_route *r = &cfg->routes[i];
		json_t *o = json_object(), *nh = json_array(), *w = json_array();

		if (o == NULL || nh == NULL || w == NULL) {
			json_decref(o);
			json_decref(nh);
			json_decref(w);
			*bad = true;
			break;
		}
		for (k = 0; k < r->n_nexthops; k++) {
			jappend(nh, jip(&r->nexthops[k]), bad);
			jappend(w, json_integer(r->weights[k]), bad);
		}
		jset(o, "prefix", jprefix(&r->prefix), bad);
		jset(o, "nexthops", nh, bad);
		jset(o, "weights", w, bad);
		jset(o, "lb",
		     r->lb == RSW_LB_UNSET ? json_null() : json_string(rsw_lb_mode_name(r->lb)),
		     bad);
		jappend(a, o, bad);
	}
	return a;
}

static json_t *
json_lb(const struct rsw_config *cfg, bool *bad)
{
	const struct rsw_cfg_lb *lb = &cfg->lb;
	json_t *o = json_object(), *per_tc = json_object(), *fields = json_array();
	int i;

	if (o == NULL || per_tc == NULL || fields == NULL) {
		json_decref(o);
		json_decref(per_tc);
		json_decref(fields);
		*bad = true;
		return NULL;
	}
	for (i = 0; i < RSW_N_TC; i++) {
		char k[12];

		if (lb->per_tc[i] == RSW_LB_UNSET)
			continue;
		snprintf(k, sizeof(k), "%d", i);
		jset(per_tc, k, json_string(rsw_lb_mode_name(lb->per_tc[i])), bad);
	}
	for (i = 0; i < CFG_N_HASH_FIELDS; i++)
		if (lb->hash_fields & (1u << i))
			jappend(fields, json_string(cfg_hash_field_names[i]), bad);
	jset(o, "mode", json_string(rsw_lb_mode_name(lb->mode)), bad);
	jset(o, "per_tc", per_tc, bad);
	jset(o, "hash_fields", fields, bad);
	jset(o, "hash_algorithm", json_string(cfg_hash_alg_names[lb->hash_algorithm]), bad);
	jset(o, "spray", json_string(cfg_spray_names[lb->spray]), bad);
	jset(o, "flowlet_timeout_us", json_integer(lb->flowlet_timeout_us), bad);
	jset(o, "hash_seed", json_integer(lb->hash_seed), bad);
	jset(o, "hash_symmetric", json_boolean(lb->hash_symmetric), bad);
	return o;
}

static json_t *
json_tc_map(const uint8_t *map, int n, bool *bad)
{
	json_t *o = json_object();
	int i;

	for (i = 0; o != NULL && i < n; i++) {
		char k[12];

		snprintf(k, sizeof(k), "%d", i);
		jset(o, k, json_integer(map[i]), bad);
	}
	return o;
}

/* A JSON object, or NULL with *bad set. */
static json_t *
jobject(bool *bad)
{
	json_t *o = json_object();

	if (o == NULL)
		*bad = true;
	return o;
}

/* The TCs of a bitmask, ascending. */
static json_t *
json_tc_bits(uint8_t bits, bool *bad)
{
	json_t *a = json_array();
	int i;

	for (i = 0; a != NULL && i < RSW_N_TC; i++)
		if (bits & (1u << i))
			jappend(a, json_integer(i), bad);
	return a;
}

static json_t *
json_scheduler(const struct rsw_cfg_qos *q, bool *bad)
{
	json_t *o = jobject(bad), *strict = json_array(), *dwrr = json_object();
	int i;

	if (o == NULL || strict == NULL || dwrr == NULL) {
		json_decref(o);
		json_decref(strict);
		json_decref(dwrr);
		*bad = true;
		return NULL;
	}
	for (i = 0; i < q->n_strict; i++)
		jappend(strict, json_integer(q->strict[i]), bad);
	for (i = 0; i < RSW_N_TC; i++) {
		char k[12];

		if (q->dwrr[i] == 0) /* strict */
			continue;
		snprintf(k, sizeof(k), "%d", i);
		jset(dwrr, k, json_integer(q->dwrr[i]), bad);
	}
	jset(o, "strict", strict, bad);
	jset(o, "dwrr", dwrr, bad);
	return o;
}

/* Sizes in bytes; pfc shows the keys of its mode only. */
static json_t *
json_buffer(const struct rsw_cfg_qos *q, bool *bad)
{
	const struct rsw_cfg_pfc *pfc = &q->pfc;
	json_t *o = jobject(bad), *p = jobject(bad);

	if (o == NULL || p == NULL) {
		json_decref(o);
		json_decref(p);
		return NULL;
	}
	jset(p, "mode", json_string(cfg_pfc_mode_names[pfc->dynamic]), bad);
	if (pfc->dynamic) {
		jset(p, "alpha", json_real(pfc->alpha), bad);
		jset(p, "xon_offset", json_integer((json_int_t)pfc->xon_offset), bad);
	} else {
		jset(p, "xoff", json_integer((json_int_t)pfc->xoff), bad);
		jset(p, "xon", json_integer((json_int_t)pfc->xon), bad);
	}
	jset(p, "headroom", json_integer((json_int_t)pfc->headroom), bad);
	jset(p, "quanta", json_integer(pfc->quanta), bad);
	jset(o, "total", json_integer((json_int_t)q->buffer_total), bad);
	jset(o, "queue_limit", json_integer((json_int_t)q->queue_limit), bad);
	jset(o, "pfc", p, bad);
	return o;
}

static json_t *
json_ecn(const struct rsw_cfg_qos *q, bool *bad)
{
	json_t *o = jobject(bad);
	int i;

	for (i = 0; o != NULL && i < RSW_N_TC; i++) {
		const struct rsw_cfg_ecn *e = &q->ecn[i];
		json_t *t;
		char k[12];

		if (!e->enabled)
			continue;
		t = jobject(bad);
		if (t == NULL)
			break;
		jset(t, "kmin", json_integer((json_int_t)e->kmin), bad);
		jset(t, "kmax", json_integer((json_int_t)e->kmax), bad);
		jset(t, "pmax", json_real(e->pmax), bad);
		snprintf(k, sizeof(k), "%d", i);
		jset(o, k, t, bad);
	}
	return o;
}

static json_t *
json_pfcwd(const struct rsw_cfg_qos *q, bool *bad)
{
	json_t *o = jobject(bad);

	if (o == NULL)
		return NULL;
	jset(o, "detect_ms", json_integer(q->pfcwd.detect_ms), bad);
	jset(o, "restore_ms", json_integer(q->pfcwd.restore_ms), bad);
	jset(o, "action", json_string(cfg_pfcwd_action_names[q->pfcwd.action]), bad);
	return o;
}

/* qos.trim, or null when not configured. */
static json_t *
json_trim(const struct rsw_cfg_qos *q, bool *bad)
{
	json_t *o;

	if (!q->trim.enabled)
		return json_null();
	o = jobject(bad);
	if (o == NULL)
		return NULL;
	jset(o, "tcs", json_tc_bits(q->trim.tcs, bad), bad);
	jset(o, "threshold", json_integer((json_int_t)q->trim.threshold), bad);
	jset(o, "size", json_integer(q->trim.size), bad);
	jset(o, "dscp", json_integer(q->trim.dscp), bad);
	jset(o, "dscp_lasthop",
	     q->trim.has_dscp_lasthop ? json_integer(q->trim.dscp_lasthop) : json_null(), bad);
	jset(o, "tc", json_integer(q->trim.tc), bad);
	return o;
}

/* qos.cnp, or null when not configured. */
static json_t *
json_cnp(const struct rsw_cfg_qos *q, bool *bad)
{
	json_t *o;

	if (!q->cnp.enabled)
		return json_null();
	o = jobject(bad);
	if (o == NULL)
		return NULL;
	jset(o, "tc", json_integer(q->cnp.tc), bad);
	jset(o, "coalesce_us", json_integer(q->cnp.coalesce_us), bad);
	return o;
}

static json_t *
json_qos(const struct rsw_config *cfg, bool *bad)
{
	const struct rsw_cfg_qos *q = &cfg->qos;
	json_t *o = json_object();

	if (o == NULL) {
		*bad = true;
		return NULL;
	}
	jset(o, "trust", json_string(cfg_trust_names[q->trust]), bad);
	jset(o, "dscp_to_tc", json_tc_map(q->dscp_to_tc, 64, bad), bad);
	jset(o, "pcp_to_tc", json_tc_map(q->pcp_to_tc, 8, bad), bad);
	jset(o, "default_tc", json_integer(q->default_tc), bad);
	jset(o, "scheduler", json_scheduler(q, bad), bad);
	jset(o, "lossless", json_tc_bits(q->lossless, bad), bad);
	jset(o, "buffer", json_buffer(q, bad), bad);
	jset(o, "ecn", json_ecn(q, bad), bad);
	jset(o, "ecn_mark_point", json_string(cfg_ecn_mark_names[q->ecn_mark_enqueue]), bad);
	jset(o, "pfc_watchdog", json_pfcwd(q, bad), bad);
	jset(o, "trim", json_trim(q, bad), bad);
	jset(o, "cnp", json_cnp(q, bad), bad);
	return o;
}

static json_t *
json_control(const struct rsw_config *cfg, bool *bad)
{
	const struct rsw_cfg_control *ctl = &cfg->control;
	json_t *o = json_object();

	if (o == NULL) {
		*bad = true;
		return NULL;
	}
	jset(o, "socket", json_string(ctl->socket), bad);
	jset(o, "telemetry", json_boolean(ctl->telemetry), bad);
	jset(o, "metrics_listen", ctl->has_metrics ? json_string(ctl->metrics_listen) : json_null(),
	     bad);
	return o;
}

json_t *
rsw_config_to_json(const struct rsw_config *cfg)
{
	bool bad = false;
	json_t *o;

	if (cfg == NULL)
		return NULL;
	o = json_object();
	if (o == NULL)
		return NULL;
	jset(o, "switch", json_switch(cfg, &bad), &bad);
	jset(o, "ports", json_ports(cfg, &bad), &bad);
	jset(o, "neighbors", json_neighbors(cfg, &bad), &bad);
	jset(o, "routes", json_routes(cfg, &bad), &bad);
	jset(o, "load_balance", json_lb(cfg, &bad), &bad);
	jset(o, "qos", json_qos(cfg, &bad), &bad);
	jset(o, "control", json_control(cfg, &bad), &bad);
	if (cfg->topology.present)
		jset(o, "topology", rsw_topology_to_json(&cfg->topology), &bad);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}
