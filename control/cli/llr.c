/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `show llr [PORT]` and `port NAME impair ...` (docs/cli.md, docs/link.md): the LLR
 * machines' state and counters (RSW_FOREACH_LLR_CTR), and the impairments changed at run
 * time. `clear counters` zeroes the LLR counters through rsw_cli_llr_clear.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_link.h"
#include "rsw_link_ctl.h"
#include "rsw_module.h"

/* The drop counters are in Prometheus once, as the port counters llr_<name> (show ports). */
#define RSW_FIELD_OF_LLR_CTR(n, is_drop, k, u, h)                                                  \
	RSW_FIELD_F(#n, k, u, h, (is_drop) ? RSW_FIELD_NO_METRIC : 0u),

static const struct rsw_field_def llr_fields[] = {
	RSW_LABEL("port", "port", "the port's name"),
	RSW_FIELD("state", STATE, "", "TX state: off, init, advance, replay, flush"),
	RSW_FIELD("rtt_us", GAUGE, "us",
		  "smoothed round trip, frame sent to its ACK (0: none measured yet)"),
	RSW_FIELD("rto_us", GAUGE, "us",
		  "the replay timer in force: the round trip plus 4 deviations, floored, capped, "
		  "doubled by each expiry"),
	RSW_FIELD("rx_state", STATE, "", "RX state: off, send_acks, send_nack, nack_sent"),
	RSW_FIELD("fallback", STATE, "",
		  "what frames get while the peer has not answered INIT: best-effort, discard, "
		  "block"),
	RSW_FOREACH_LLR_CTR(RSW_FIELD_OF_LLR_CTR)
		RSW_FIELD("replay_buffer_peak", GAUGE, "packets",
			  "most frames the replay buffer held since start"),
};

const struct rsw_table_def rsw_table_llr = {
	.command = "show llr",
	.key = "llr",
	.metric_prefix = "llr_",
	.fields = llr_fields,
	.n_fields = RSW_TABLE_N_FIELDS(llr_fields),
};

/* Counters at the last `clear counters`. */
static uint64_t llr_base[RSW_MAX_PORTS][RSW_N_LLR_CTRS];

static const char *const rx_state_names[] = {"off", "send_acks", "send_nack", "nack_sent"};
static const char *const fallback_names[] = {"best-effort", "discard", "block"};

void
rsw_cli_llr_clear(void)
{
	uint16_t p;

	for (p = 0; p < RSW_MAX_PORTS; p++) {
		const struct rsw_link_llr *ll = rsw_links[p].llr;

		if (ll != NULL)
			memcpy(llr_base[p], ll->l->ctr, sizeof(llr_base[p]));
	}
}

/* The row of a port without LLR: state off, every counter 0. */
static json_t *
off_row(uint16_t p)
{
	json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:s, s:s}", "port", rsw_ctl.cfg->ports[p].name,
			      "state", "off", "rtt_us", 0, "rto_us", 0, "rx_state", "off",
			      "fallback", fallback_names[rsw_ctl.cfg->ports[p].llr_fallback % 3]);
	int i;

	if (o == NULL)
		return NULL;
	for (i = 0; i < RSW_N_LLR_CTRS; i++)
		json_object_set_new(o, rsw_llr_ctr_name(i), json_integer(0));
	json_object_set_new(o, "replay_buffer_peak", json_integer(0));
	return rsw_row(&rsw_table_llr, o);
}

/* Microseconds, rounded to the nearest; below 0.5 µs but not 0 (measured) shows as 1. */
static uint64_t
ns_to_us(uint64_t ns)
{
	if (ns == 0)
		return 0;
	return ns < 500 ? 1 : (ns + 500) / 1000;
}

static json_t *
llr_row(uint16_t p)
{
	const struct rsw_link_llr *ll = rsw_links[p].llr;
	const struct rsw_llr *l;
	uint8_t rs;
	json_t *o;
	int i;

	if (ll == NULL)
		return off_row(p);
	l = ll->l;
	rs = __atomic_load_n(&l->rx_state, __ATOMIC_RELAXED);
	o = json_pack(
		"{s:s, s:s, s:I, s:I, s:s, s:s}", "port", rsw_ctl.cfg->ports[p].name, "state",
		rsw_llr_tx_state_name(__atomic_load_n(&l->tx_state, __ATOMIC_RELAXED)), "rtt_us",
		(json_int_t)ns_to_us(__atomic_load_n(&l->rtt.srtt_ns, __ATOMIC_RELAXED)), "rto_us",
		(json_int_t)ns_to_us(__atomic_load_n(&l->rtt.rto_ns, __ATOMIC_RELAXED)), "rx_state",
		rs < RTE_DIM(rx_state_names) ? rx_state_names[rs] : "?", "fallback",
		fallback_names[l->fallback % 3]);
	if (o == NULL)
		return NULL;
	for (i = 0; i < RSW_N_LLR_CTRS; i++) {
		uint64_t v = __atomic_load_n(&l->ctr[i], __ATOMIC_RELAXED);

		/* Gauges are levels: never relative to the baseline. */
		if (i != RSW_LLR_replay_buffer_frames && i != RSW_LLR_replay_buffer_bytes)
			v = rsw_cli_since(v, llr_base[p][i]);
		json_object_set_new(o, rsw_llr_ctr_name(i), json_integer((json_int_t)v));
	}
	json_object_set_new(o, "replay_buffer_peak",
			    json_integer((json_int_t)__atomic_load_n(&ll->peak, __ATOMIC_RELAXED)));
	return rsw_row(&rsw_table_llr, o);
}

static json_t *
cmd_show_llr(int argc, char **argv, void *ctx)
{
	(void)ctx;
	return rsw_cli_port_rows(argc, argv, "llr", llr_row);
}

/* A probability 0..1, or an integer in lo..hi, from a word; -1 when it is not. */
static int
word_prob(const char *w, double *v)
{
	char *end;

	*v = strtod(w, &end);
	return end != w && *end == '\0' && *v >= 0.0 && *v <= 1.0 ? 0 : -1;
}

static int
word_u64(const char *w, uint64_t lo, uint64_t hi, uint64_t *v)
{
	char *end;

	if (w[0] < '0' || w[0] > '9')
		return -1;
	*v = strtoull(w, &end, 10);
	return *end == '\0' && *v >= lo && *v <= hi ? 0 : -1;
}

#define IMPAIR_USAGE                                                                               \
	"usage: port NAME impair [loss P] [loss_burst N] [corrupt P] [delay_us D] [seed S] | "     \
	"port NAME impair off"

json_t *
rsw_cli_port_impair(int argc, char **argv)
{
	struct rsw_cfg_impair c = {.loss_burst = 1, .seed = 1};
	char err[160];
	uint64_t v;
	int p = rsw_cli_port_arg(argv[0]), i;

	if (p < 0)
		return rsw_cmd_error("unknown port '%s'", argv[0]);
	if (argc == 3 && strcmp(argv[2], "off") == 0) {
		rsw_ctl_link_impair_set((uint16_t)p, NULL, err, sizeof(err));
		return rsw_cmd_ok();
	}
	if (argc < 4 || (argc - 2) % 2 != 0)
		return rsw_cmd_error(IMPAIR_USAGE);
	for (i = 2; i + 1 < argc; i += 2) {
		const char *k = argv[i], *w = argv[i + 1];

		if (strcmp(k, "loss") == 0) {
			if (word_prob(w, &c.loss) < 0)
				return rsw_cmd_error("impair: loss must be a probability 0..1, not "
						     "'%s'",
						     w);
		} else if (strcmp(k, "corrupt") == 0) {
			if (word_prob(w, &c.corrupt) < 0)
				return rsw_cmd_error("impair: corrupt must be a probability 0..1, "
						     "not '%s'",
						     w);
		} else if (strcmp(k, "loss_burst") == 0) {
			if (word_u64(w, 1, RSW_IMPAIR_BURST_MAX, &v) < 0)
				return rsw_cmd_error("impair: loss_burst must be 1..%u, not '%s'",
						     RSW_IMPAIR_BURST_MAX, w);
			c.loss_burst = (uint32_t)v;
		} else if (strcmp(k, "delay_us") == 0) {
			if (word_u64(w, 0, RSW_IMPAIR_DELAY_US_MAX, &v) < 0)
				return rsw_cmd_error("impair: delay_us must be 0..%u, not '%s'",
						     RSW_IMPAIR_DELAY_US_MAX, w);
			c.delay_us = (uint32_t)v;
		} else if (strcmp(k, "seed") == 0) {
			if (word_u64(w, 0, INT64_MAX, &c.seed) < 0)
				return rsw_cmd_error(
					"impair: seed must be an integer >= 0, not '%s'", w);
		} else {
			return rsw_cmd_error("impair: unknown word '%s'; %s", k, IMPAIR_USAGE);
		}
	}
	if (rsw_ctl_link_impair_set((uint16_t)p, &c, err, sizeof(err)) != 0)
		return rsw_cmd_error("%s", err);
	return rsw_cmd_ok();
}

static int
llr_cli_init(const struct rsw_config *cfg)
{
	(void)cfg;
	return rsw_cmd_register("show llr", 0, 1, "[PORT]",
				"Link-Level Retry state and counters (state off: no llr)",
				cmd_show_llr, NULL)
		       ? -EINVAL
		       : 0;
}

static struct rsw_module llr_cli_module = {
	.name = "cli.llr",
	.order = RSW_CLI_MODULE_ORDER,
	.init = llr_cli_init,
};

RSW_MODULE_REGISTER(llr_cli_module);
