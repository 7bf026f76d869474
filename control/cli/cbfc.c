/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `show cbfc [PORT]` (docs/cli.md, docs/link.md "Credit-based flow control"): one row per
 * port and lossless TC (its VC): the machine's state, its per-VC counters and the port's
 * message counters (RSW_FOREACH_CBFC_*); a port without cbfc says state off. `clear counters` takes their baseline
 * through rsw_cli_cbfc_clear.
 */

#include <errno.h>
#include <string.h>

#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_link.h"
#include "rsw_module.h"

static const struct rsw_field_def cbfc_fields[] = {
	RSW_LABEL("port", "port", "the port's name"),
	RSW_LABEL("vc", "vc", "the virtual channel: a lossless TC"),
	RSW_FIELD("state", STATE, "",
		  "the sender's state: off, init (handshake), active (credits), fallback (the "
		  "peer does not answer)"),
	RSW_FOREACH_CBFC_VC_CREDIT_CTR(RSW_FIELD_OF_CTR) RSW_FOREACH_CBFC_MSG_CTR(RSW_FIELD_OF_CTR)
		RSW_FOREACH_CBFC_VC_STALL_CTR(RSW_FIELD_OF_CTR) RSW_FIELD_F(
			"fallback", STATE, "",
			"what guards the VC while the peer does not speak CBFC: pfc or none",
			RSW_FIELD_NO_METRIC),
	RSW_FIELD("peer_synced", STATE, "",
		  "as a receiver: the peer's sender has a session with this port (no PFC on "
		  "the VC)"),
	RSW_FIELD("gated", STATE, "", "as a sender: frames of the VC go against credits now"),
	RSW_FIELD("bytes_per_credit", GAUGE, "bytes", "the credit size (ports[].cbfc)"),
	RSW_FIELD("buffer_bytes", GAUGE, "bytes", "what the receiver grants the VC"),
	RSW_FOREACH_CBFC_VC_MORE_CTR(RSW_FIELD_OF_CTR) RSW_FOREACH_CBFC_MORE_CTR(RSW_FIELD_OF_CTR)};

const struct rsw_table_def rsw_table_cbfc = {
	.command = "show cbfc",
	.key = "cbfc",
	.metric_prefix = "cbfc_",
	.fields = cbfc_fields,
	.n_fields = RSW_TABLE_N_FIELDS(cbfc_fields),
};

/* Counters at the last `clear counters`. */
static uint64_t vc_base[RSW_MAX_PORTS][RSW_CBFC_N_VC][RSW_N_CBFC_VC_CTRS];
static uint64_t port_base[RSW_MAX_PORTS][RSW_N_CBFC_CTRS];

void
rsw_cli_cbfc_clear(void)
{
	uint16_t p;
	int v;

	for (p = 0; p < RSW_MAX_PORTS; p++) {
		const struct rsw_link_cbfc *lc = rsw_links[p].cbfc;

		if (lc == NULL)
			continue;
		for (v = 0; v < RSW_CBFC_N_VC; v++)
			memcpy(vc_base[p][v], lc->c.vc[v].ctr, sizeof(vc_base[p][v]));
		memcpy(port_base[p], lc->c.ctr, sizeof(port_base[p]));
	}
}

/* The row of a port without CBFC: state off, every counter 0. */
static json_t *
off_row(uint16_t p, int v)
{
	const struct rsw_cfg_port *cp = &rsw_ctl.cfg->ports[p];
	json_t *o;
	int i;

	o = json_pack("{s:s, s:i, s:s, s:s, s:b, s:b, s:i, s:i}", "port", cp->name, "vc", v,
		      "state", "off", "fallback",
		      cp->cbfc.fallback == RSW_CFG_CBFC_NONE ? "none" : "pfc", "peer_synced", 0,
		      "gated", 0, "bytes_per_credit", (int)cp->cbfc.bytes_per_credit,
		      "buffer_bytes", 0);
	if (o == NULL)
		return NULL;
	for (i = 0; i < RSW_N_CBFC_VC_CTRS; i++)
		json_object_set_new(o, rsw_cbfc_vc_ctr_name(i), json_integer(0));
	for (i = 0; i < RSW_N_CBFC_CTRS; i++)
		json_object_set_new(o, rsw_cbfc_ctr_name(i), json_integer(0));
	return rsw_row(&rsw_table_cbfc, o);
}

static json_t *
cbfc_row(uint16_t p, int v)
{
	const struct rsw_link_cbfc *lc = rsw_links[p].cbfc;
	const struct rsw_cbfc *c;
	uint8_t state;
	json_t *o;
	int i;

	if (lc == NULL)
		return off_row(p, v);
	c = &lc->c;
	state = __atomic_load_n(&c->tx_state, __ATOMIC_RELAXED);
	o = json_pack("{s:s, s:i, s:s, s:s, s:b, s:b, s:i, s:I}", "port",
		      rsw_ctl.cfg->ports[p].name, "vc", v, "state", rsw_cbfc_state_name(state),
		      "fallback", c->p.fallback == RSW_CBFC_FB_NONE ? "none" : "pfc", "peer_synced",
		      __atomic_load_n(&c->rx_synced, __ATOMIC_RELAXED) && (c->rx_vcs >> v & 1),
		      "gated", rsw_cbfc_tx_gated(c, (uint8_t)v), "bytes_per_credit",
		      (int)c->p.bytes_per_credit, "buffer_bytes", (json_int_t)c->p.buffer_bytes);
	if (o == NULL)
		return NULL;
	for (i = 0; i < RSW_N_CBFC_VC_CTRS; i++) {
		uint64_t x = __atomic_load_n(&c->vc[v].ctr[i], __ATOMIC_RELAXED);

		if (i != RSW_CBFC_credits_tx_available)
			x = rsw_cli_since(x, vc_base[p][v][i]);
		json_object_set_new(o, rsw_cbfc_vc_ctr_name(i), json_integer((json_int_t)x));
	}
	for (i = 0; i < RSW_N_CBFC_CTRS; i++) {
		uint64_t x = __atomic_load_n(&c->ctr[i], __ATOMIC_RELAXED);

		json_object_set_new(o, rsw_cbfc_ctr_name(i),
				    json_integer((json_int_t)rsw_cli_since(x, port_base[p][i])));
	}
	return rsw_row(&rsw_table_cbfc, o);
}

/* One row per port and lossless TC (its VC); ports without cbfc say state off. */
static json_t *
cmd_show_cbfc(int argc, char **argv, void *ctx)
{
	json_t *err = NULL, *rows, *r;
	int only = rsw_cli_port_filter(argc, argv, &err), v;
	uint16_t p;

	(void)ctx;
	if (only == -2)
		return err;
	rows = json_array();
	if (rows == NULL)
		return NULL;
	for (p = 0; p < rsw_ctl.cfg->n_ports; p++) {
		if (only >= 0 && only != p)
			continue;
		for (v = 0; v < RSW_CBFC_N_VC; v++) {
			if (!(rsw_ctl.cfg->qos.lossless >> v & 1))
				continue;
			r = cbfc_row(p, v);
			if (r == NULL || json_array_append_new(rows, r) != 0) {
				json_decref(rows);
				return NULL;
			}
		}
	}
	return json_pack("{s:o}", "cbfc", rows);
}

static int
cbfc_cli_init(const struct rsw_config *cfg)
{
	(void)cfg;
	return rsw_cmd_register("show cbfc", 0, 1, "[PORT]",
				"UEC credit-based flow control per port and lossless TC (VC)",
				cmd_show_cbfc, NULL)
		       ? -EINVAL
		       : 0;
}

static struct rsw_module cbfc_cli_module = {
	.name = "cli.cbfc",
	.order = RSW_CLI_MODULE_ORDER,
	.init = cbfc_cli_init,
};

RSW_MODULE_REGISTER(cbfc_cli_module);
