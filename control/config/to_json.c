/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The effective configuration as JSON (`show config`): every key with docs/config.md's name, every
 * default filled in.
 */

#include <jansson.h>
#include <stdio.h>

#include "config_priv.h"
#include "rsw_punt_dp.h"
#include "rsw_topology.h"

static json_t *
jmac(const uint8_t m[6])
{
	char buf[18];

	snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4],
		 m[5]);
	return json_string(buf);
}

static json_t *
json_switch(const struct rsw_config *cfg, bool *bad)
{
	const struct rsw_cfg_switch *sw = &cfg->sw;
	json_t *o = json_object(), *icmp = json_object(), *rss;

	if (o == NULL || icmp == NULL) {
		json_decref(o);
		json_decref(icmp);
		*bad = true;
		return NULL;
	}
	rsw_cfg_json_set(o, "name", json_string(sw->name), bad);
	rsw_cfg_json_set(o, "role", json_string(cfg_switch_roles[sw->role]), bad);
	rsw_cfg_json_set(o, "idle_sleep_us", json_integer(sw->idle_sleep_us), bad);
	rsw_cfg_json_set(o, "shaper_burst_us", json_integer(sw->shaper_burst_us), bad);
	rsw_cfg_json_set(o, "router_id",
			 sw->has_router_id ? rsw_ip_json(&sw->router_id) : json_null(), bad);
	rsw_cfg_json_set(icmp, "enable", json_boolean(sw->icmp_unreachable), bad);
	rsw_cfg_json_set(icmp, "rate_pps", json_integer(sw->icmp_rate_pps), bad);
	rsw_cfg_json_set(o, "icmp_unreachable", icmp, bad);
	rss = json_object();
	if (rss == NULL)
		*bad = true;
	rsw_cfg_json_set(rss, "symmetric", json_boolean(sw->rss_symmetric), bad);
	rsw_cfg_json_set(o, "rss", rss, bad);
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
		rsw_cfg_json_set(o, "name", json_string(p->name), bad);
		rsw_cfg_json_set(o, "devargs", json_string(p->devargs), bad);
		rsw_cfg_json_set(o, "mac", p->has_mac ? jmac(p->mac) : json_null(), bad);
		rsw_cfg_json_set(
			o, "speed",
			p->speed_bps ? json_integer((json_int_t)p->speed_bps) : json_null(), bad);
		rsw_cfg_json_set(o, "ipv4", p->has_ipv4 ? rsw_prefix_json(&p->ipv4) : json_null(),
				 bad);
		rsw_cfg_json_set(o, "ipv6", p->has_ipv6 ? rsw_prefix_json(&p->ipv6) : json_null(),
				 bad);
		rsw_cfg_json_set(o, "mtu", json_integer(p->mtu), bad);
		rsw_cfg_json_set(o, "role",
				 p->role == RSW_PORT_ROLE_NONE
					 ? json_null()
					 : json_string(cfg_port_roles[p->role - 1]),
				 bad);
		/* Only when given, so that the output of other configurations stays as it was. */
		if (p->has_impair) {
			json_t *im = json_object();

			if (im == NULL)
				*bad = true;
			rsw_cfg_json_set(im, "loss", json_real(p->impair.loss), bad);
			rsw_cfg_json_set(im, "loss_burst", json_integer(p->impair.loss_burst), bad);
			rsw_cfg_json_set(im, "corrupt", json_real(p->impair.corrupt), bad);
			rsw_cfg_json_set(im, "delay_us", json_integer(p->impair.delay_us), bad);
			rsw_cfg_json_set(im, "seed", json_integer((json_int_t)p->impair.seed), bad);
			rsw_cfg_json_set(o, "impair", im, bad);
		}
		rsw_cfg_json_set(o, "rx_desc", json_integer(p->rx_desc), bad);
		rsw_cfg_json_set(o, "tx_desc", json_integer(p->tx_desc), bad);
		if (p->llr) {
			json_t *l = json_object();

			if (l == NULL)
				*bad = true;
			rsw_cfg_json_set(l, "enable", json_true(), bad);
			rsw_cfg_json_set(l, "fallback",
					 json_string(cfg_llr_fallbacks[p->llr_fallback]), bad);
			rsw_cfg_json_set(o, "llr", l, bad);
		}
		if (p->cbfc.enable) {
			json_t *cb = json_object();

			if (cb == NULL)
				*bad = true;
			rsw_cfg_json_set(cb, "enable", json_true(), bad);
			rsw_cfg_json_set(cb, "bytes_per_credit",
					 json_integer(p->cbfc.bytes_per_credit), bad);
			if (p->cbfc.buffer != 0)
				rsw_cfg_json_set(cb, "buffer",
						 json_integer((json_int_t)p->cbfc.buffer), bad);
			rsw_cfg_json_set(cb, "fallback",
					 json_string(cfg_cbfc_fallbacks[p->cbfc.fallback]), bad);
			rsw_cfg_json_set(o, "cbfc", cb, bad);
		}
		rsw_cfg_json_append(a, o, bad);
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
		rsw_cfg_json_set(o, "ip", rsw_ip_json(&n->ip), bad);
		rsw_cfg_json_set(o, "mac", jmac(n->mac), bad);
		rsw_cfg_json_set(o, "port", json_string(cfg->ports[n->port].name), bad);
		rsw_cfg_json_append(a, o, bad);
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
			rsw_cfg_json_append(nh, rsw_ip_json(&r->nexthops[k]), bad);
			rsw_cfg_json_append(w, json_integer(r->weights[k]), bad);
		}
		rsw_cfg_json_set(o, "prefix", rsw_prefix_json(&r->prefix), bad);
		rsw_cfg_json_set(o, "nexthops", nh, bad);
		rsw_cfg_json_set(o, "weights", w, bad);
		rsw_cfg_json_set(o, "lb",
				 r->lb == RSW_LB_UNSET ? json_null()
						       : json_string(rsw_lb_mode_name(r->lb)),
				 bad);
		/* The effective distance: given, else static 1, topology-derived 5. */
		rsw_cfg_json_set(o, "distance",
				 json_integer(r->has_distance ? r->distance
					      : r->derived    ? 5
							      : 1),
				 bad);
		rsw_cfg_json_append(a, o, bad);
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
		rsw_cfg_json_set(per_tc, k, json_string(rsw_lb_mode_name(lb->per_tc[i])), bad);
	}
	for (i = 0; i < CFG_N_HASH_FIELDS; i++)
		if (lb->hash_fields & (1u << i))
			rsw_cfg_json_append(fields, json_string(cfg_hash_field_names[i]), bad);
	rsw_cfg_json_set(o, "mode", json_string(rsw_lb_mode_name(lb->mode)), bad);
	rsw_cfg_json_set(o, "per_tc", per_tc, bad);
	rsw_cfg_json_set(o, "hash_fields", fields, bad);
	rsw_cfg_json_set(o, "hash_algorithm", json_string(cfg_hash_alg_names[lb->hash_algorithm]),
			 bad);
	rsw_cfg_json_set(o, "spray", json_string(cfg_spray_names[lb->spray]), bad);
	rsw_cfg_json_set(o, "flowlet_timeout_us", json_integer(lb->flowlet_timeout_us), bad);
	rsw_cfg_json_set(o, "hash_seed", json_integer(lb->hash_seed), bad);
	rsw_cfg_json_set(o, "hash_symmetric", json_boolean(lb->hash_symmetric), bad);
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
		rsw_cfg_json_set(o, k, json_integer(map[i]), bad);
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
			rsw_cfg_json_append(a, json_integer(i), bad);
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
		rsw_cfg_json_append(strict, json_integer(q->strict[i]), bad);
	for (i = 0; i < RSW_N_TC; i++) {
		char k[12];

		if (q->dwrr[i] == 0) /* strict */
			continue;
		snprintf(k, sizeof(k), "%d", i);
		rsw_cfg_json_set(dwrr, k, json_integer(q->dwrr[i]), bad);
	}
	rsw_cfg_json_set(o, "strict", strict, bad);
	rsw_cfg_json_set(o, "dwrr", dwrr, bad);
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
	rsw_cfg_json_set(p, "mode", json_string(cfg_pfc_mode_names[pfc->dynamic]), bad);
	if (pfc->dynamic) {
		rsw_cfg_json_set(p, "alpha", json_real(pfc->alpha), bad);
		rsw_cfg_json_set(p, "xon_offset", json_integer((json_int_t)pfc->xon_offset), bad);
	} else {
		rsw_cfg_json_set(p, "xoff", json_integer((json_int_t)pfc->xoff), bad);
		rsw_cfg_json_set(p, "xon", json_integer((json_int_t)pfc->xon), bad);
	}
	rsw_cfg_json_set(p, "headroom", json_integer((json_int_t)pfc->headroom), bad);
	rsw_cfg_json_set(p, "quanta", json_integer(pfc->quanta), bad);
	rsw_cfg_json_set(o, "total", json_integer((json_int_t)q->buffer_total), bad);
	rsw_cfg_json_set(o, "queue_limit", json_integer((json_int_t)q->queue_limit), bad);
	rsw_cfg_json_set(o, "pfc", p, bad);
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
		rsw_cfg_json_set(t, "kmin", json_integer((json_int_t)e->kmin), bad);
		rsw_cfg_json_set(t, "kmax", json_integer((json_int_t)e->kmax), bad);
		rsw_cfg_json_set(t, "pmax", json_real(e->pmax), bad);
		snprintf(k, sizeof(k), "%d", i);
		rsw_cfg_json_set(o, k, t, bad);
	}
	return o;
}

static json_t *
json_pfcwd(const struct rsw_cfg_qos *q, bool *bad)
{
	json_t *o = jobject(bad);

	if (o == NULL)
		return NULL;
	rsw_cfg_json_set(o, "detect_ms", json_integer(q->pfcwd.detect_ms), bad);
	rsw_cfg_json_set(o, "restore_ms", json_integer(q->pfcwd.restore_ms), bad);
	rsw_cfg_json_set(o, "action", json_string(cfg_pfcwd_action_names[q->pfcwd.action]), bad);
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
	rsw_cfg_json_set(o, "tcs", json_tc_bits(q->trim.tcs, bad), bad);
	rsw_cfg_json_set(o, "threshold", json_integer((json_int_t)q->trim.threshold), bad);
	rsw_cfg_json_set(o, "size", json_integer(q->trim.size), bad);
	rsw_cfg_json_set(o, "dscp", json_integer(q->trim.dscp), bad);
	rsw_cfg_json_set(
		o, "dscp_lasthop",
		q->trim.has_dscp_lasthop ? json_integer(q->trim.dscp_lasthop) : json_null(), bad);
	rsw_cfg_json_set(o, "tc", json_integer(q->trim.tc), bad);
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
	rsw_cfg_json_set(o, "tc", json_integer(q->cnp.tc), bad);
	rsw_cfg_json_set(o, "coalesce_us", json_integer(q->cnp.coalesce_us), bad);
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
	rsw_cfg_json_set(o, "trust", json_string(cfg_trust_names[q->trust]), bad);
	rsw_cfg_json_set(o, "dscp_to_tc", json_tc_map(q->dscp_to_tc, 64, bad), bad);
	rsw_cfg_json_set(o, "pcp_to_tc", json_tc_map(q->pcp_to_tc, 8, bad), bad);
	rsw_cfg_json_set(o, "default_tc", json_integer(q->default_tc), bad);
	rsw_cfg_json_set(o, "scheduler", json_scheduler(q, bad), bad);
	rsw_cfg_json_set(o, "lossless", json_tc_bits(q->lossless, bad), bad);
	rsw_cfg_json_set(o, "buffer", json_buffer(q, bad), bad);
	rsw_cfg_json_set(o, "ecn", json_ecn(q, bad), bad);
	rsw_cfg_json_set(o, "ecn_mark_point", json_string(cfg_ecn_mark_names[q->ecn_mark_enqueue]),
			 bad);
	rsw_cfg_json_set(o, "pfc_watchdog", json_pfcwd(q, bad), bad);
	rsw_cfg_json_set(o, "trim", json_trim(q, bad), bad);
	rsw_cfg_json_set(o, "cnp", json_cnp(q, bad), bad);
	return o;
}

/* kernel_interfaces.punt as it runs: {"CLASS": {"rate", "burst"}} for every class. */
static json_t *
json_punt(const struct rsw_config *cfg)
{
	struct rsw_punt_rates r;
	json_t *o = json_object();
	unsigned int c;

	rsw_config_punt_rates(cfg, &r);
	for (c = 0; o != NULL && c < RSW_N_PUNT_CLASSES; c++)
		json_object_set_new(o, rsw_punt_class_name(c),
				    json_pack("{s:I, s:I}", "rate", (json_int_t)r.pps[c], "burst",
					      (json_int_t)r.burst[c]));
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
	rsw_cfg_json_set(o, "socket", json_string(ctl->socket), bad);
	rsw_cfg_json_set(o, "telemetry", json_boolean(ctl->telemetry), bad);
	rsw_cfg_json_set(o, "metrics_listen",
			 ctl->has_metrics ? json_string(ctl->metrics_listen) : json_null(), bad);
	rsw_cfg_json_set(o, "fpm",
			 ctl->has_fpm ? json_pack("{s:s, s:I}", "listen", ctl->fpm_listen,
						  "stale_s", (json_int_t)ctl->fpm_stale_s)
				      : json_null(),
			 bad);
	if (ctl->has_kif) {
		json_t *k = json_pack("{s:s, s:i}", "netns", ctl->kif_netns, "tc",
				      ctl->kif_tc >= 0 ? ctl->kif_tc : rsw_config_kif_tc(cfg));
		json_t *peers = json_array();
		char buf[64];
		uint16_t i;

		for (i = 0; i < ctl->n_bgp_peers && peers != NULL; i++) {
			rsw_ip_str(&ctl->bgp_peers[i], buf, sizeof(buf));
			json_array_append_new(peers, json_string(buf));
		}
		if (k != NULL) {
			json_object_set_new(k, "bgp_peers", peers);
			json_object_set_new(k, "punt", json_punt(cfg));
		} else {
			json_decref(peers);
		}
		rsw_cfg_json_set(o, "kernel_interfaces", k, bad);
	} else {
		rsw_cfg_json_set(o, "kernel_interfaces", json_null(), bad);
	}
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
	rsw_cfg_json_set(o, "switch", json_switch(cfg, &bad), &bad);
	rsw_cfg_json_set(o, "ports", json_ports(cfg, &bad), &bad);
	rsw_cfg_json_set(o, "neighbors", json_neighbors(cfg, &bad), &bad);
	rsw_cfg_json_set(o, "routes", json_routes(cfg, &bad), &bad);
	rsw_cfg_json_set(o, "load_balance", json_lb(cfg, &bad), &bad);
	rsw_cfg_json_set(o, "qos", json_qos(cfg, &bad), &bad);
	rsw_cfg_json_set(o, "control", json_control(cfg, &bad), &bad);
	if (cfg->topology.present)
		rsw_cfg_json_set(o, "topology", rsw_topology_to_json(&cfg->topology), &bad);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}
