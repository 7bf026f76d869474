/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `show punt` (docs/cli.md): the frames workers handed to the control thread or a kernel
 * interface, by punt class (dataplane/qos/punt.c), summed over the lcores, since the last
 * `clear counters`, with each class's rate and burst in force; `show kif`: the TAPs of
 * control.kernel_interfaces (kif.c), their counters since the last `clear counters`.
 */

#include <errno.h>

#include "rsw_cli.h"
#include "rsw_kif.h"
#include "rsw_module.h"
#include "rsw_punt_dp.h"

static const struct rsw_field_def punt_fields[] = {
	RSW_LABEL(
		"class", "class",
		"arp, nd, icmp, bgp, bfd, lldp, other, unresolved (routed packets held for ARP/ND)"),
	RSW_FIELD("packets", COUNTER, "packets", "frames of the class put on the punt ring"),
	RSW_FIELD("bytes", COUNTER, "bytes", "bytes of those frames"),
	RSW_FIELD("policed", COUNTER, "packets",
		  "frames over the class's rate, dropped in the worker (punt_policed)"),
	RSW_FIELD("rate", GAUGE, "pps",
		  "the class's policer rate per worker (kernel_interfaces.punt; 0: all policed)"),
	RSW_FIELD("burst", GAUGE, "packets", "frames the policer lets through at once"),
};

const struct rsw_table_def rsw_table_punt = {
	.command = "show punt",
	.key = "punt",
	.metric_prefix = "punt_class_",
	.fields = punt_fields,
	.n_fields = RSW_TABLE_N_FIELDS(punt_fields),
};

static const struct rsw_field_def kif_fields[] = {
	RSW_LABEL("port", "port", "the port"),
	RSW_LABEL("ifname", NULL, "its kernel interface, in kernel_interfaces.netns"),
	RSW_FIELD_F("ifindex", GAUGE, "", "the interface's index in the namespace",
		    RSW_FIELD_NO_METRIC),
	RSW_FIELD("carrier", STATE, "", "true when the port is admin up and its link not down"),
	RSW_FIELD("to_kernel", COUNTER, "packets", "frames written to the kernel interface"),
	RSW_FIELD("from_kernel", COUNTER, "packets",
		  "frames the kernel wrote, sent on the port in kernel_interfaces.tc"),
	RSW_FIELD(
		"filtered", COUNTER, "packets",
		"frames of the kernel not sent: PAUSE/PFC, ARP replies and NAs railsw gives itself"),
	RSW_FIELD("errors", COUNTER, "packets", "frames lost: failed reads or writes, no mbuf"),
};

const struct rsw_table_def rsw_table_kif = {
	.command = "show kif",
	.key = "kernel_interfaces",
	.metric_prefix = "kif_",
	.fields = kif_fields,
	.n_fields = RSW_TABLE_N_FIELDS(kif_fields),
};

static uint64_t punt_base[RSW_N_PUNT_CLASSES][RSW_N_PUNT_CTRS];

void
rsw_cli_punt_clear(void)
{
	unsigned int c, k;

	for (c = 0; c < RSW_N_PUNT_CLASSES; c++)
		for (k = 0; k < RSW_N_PUNT_CTRS; k++)
			punt_base[c][k] = rsw_punt_sum(c, k);
}

static json_t *
cmd_show_punt(int argc, char **argv, void *ctx)
{
	json_t *rows = json_array();
	struct rsw_punt_rates r;
	unsigned int c;

	(void)argc;
	(void)argv;
	(void)ctx;
	if (rows == NULL)
		return NULL;
	rsw_punt_rates_get(&r);
	for (c = 0; c < RSW_N_PUNT_CLASSES; c++) {
		uint64_t v[RSW_N_PUNT_CTRS];
		unsigned int k;

		for (k = 0; k < RSW_N_PUNT_CTRS; k++)
			v[k] = rsw_cli_since(rsw_punt_sum(c, k), punt_base[c][k]);
		json_array_append_new(
			rows,
			rsw_row(&rsw_table_punt,
				json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "class",
					  rsw_punt_class_name(c), "packets",
					  (json_int_t)v[RSW_PUNT_packets], "bytes",
					  (json_int_t)v[RSW_PUNT_bytes], "policed",
					  (json_int_t)v[RSW_PUNT_policed], "rate",
					  (json_int_t)r.pps[c], "burst", (json_int_t)r.burst[c])));
	}
	return json_pack("{s:o}", "punt", rows);
}

static json_t *
cmd_show_kif(int argc, char **argv, void *ctx)
{
	json_t *r = rsw_kif_json(), *out;

	(void)argc;
	(void)argv;
	(void)ctx;
	if (r == NULL)
		return NULL;
	out = rsw_rows(&rsw_table_kif, r);
	json_decref(r);
	return out;
}

static int
punt_cli_init(const struct rsw_config *cfg)
{
	(void)cfg;
	if (rsw_cmd_register("show punt", 0, 0, "", "punted frames by class, and policed ones",
			     cmd_show_punt, NULL) ||
	    rsw_cmd_register("show kif", 0, 0, "",
			     "the ports' kernel interfaces (control.kernel_interfaces)",
			     cmd_show_kif, NULL))
		return -EINVAL;
	return 0;
}

static struct rsw_module punt_cli_module = {
	.name = "cli.punt",
	.order = RSW_CLI_MODULE_ORDER,
	.init = punt_cli_init,
};

RSW_MODULE_REGISTER(punt_cli_module);
