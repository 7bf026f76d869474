/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `show ports [PORT]` and `port NAME down|up` (docs/cli.md): the ports table and its
 * definition, counters from the X-macros of rsw_stats.h.
 */

#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>

#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_liveness.h"
#include "rsw_module.h"
#include "rsw_ports.h"

static const struct rsw_field_def port_fields[] = {
	RSW_LABEL("name", "port", "the port's name, as configured"),
	RSW_LABEL("id", NULL, "the port's index, in configuration order"),
	RSW_LABEL("mac", NULL, "the port's MAC address"),
	RSW_FIELD("speed_bps", GAUGE, "bps", "link speed (the configured speed, else the PMD's)"),
	RSW_FIELD("link_up", STATE, "", "link up; null where the port kind cannot know it"),
	RSW_FIELD("link_state", STATE, "",
		  "up, down, or unknown where the port kind cannot know it"),
	RSW_FIELD("admin_up", STATE, "", "false after `port NAME down`"),
	RSW_FIELD("peer_down", STATE, "",
		  "while admin down: true when the link went down for the peer too (memif, TAP "
		  "carrier, PHY), false when the port kind cannot tell it; null while up"),
	RSW_FOREACH_PORT_TRAFFIC_CTR(RSW_FIELD_OF_PORT_CTR) RSW_FIELD(
		"rx_missed", COUNTER, "packets", "dropped by the NIC: its rx queue was full"),
	RSW_FOREACH_PORT_EVENT_CTR(RSW_FIELD_OF_PORT_CTR)
		RSW_LABEL("devargs", NULL, "the DPDK device arguments of the port"),
	RSW_LABEL("kind", NULL, "the DPDK driver: net_tap, net_memif, net_ice, ..."),
	RSW_FIELD("mac_ctrl", STATE, "", "the port carries MAC-control frames (PFC, PAUSE)"),
	RSW_FIELD("mtu", GAUGE, "bytes", "the port's MTU"),
	RSW_FIELD_F("ipv4", LABEL, "", "the port's IPv4 address and prefix length",
		    RSW_FIELD_OPTIONAL),
	RSW_FIELD_F("ipv6", LABEL, "", "the port's IPv6 address and prefix length",
		    RSW_FIELD_OPTIONAL),
};

const struct rsw_table_def rsw_table_ports = {
	.command = "show ports",
	.key = "ports",
	.metric_prefix = "",
	.fields = port_fields,
	.n_fields = RSW_TABLE_N_FIELDS(port_fields),
};

static json_t *
port_json(uint16_t p)
{
	const struct rsw_cfg_port *cp = &rsw_ctl.cfg->ports[p];
	uint64_t c[RSW_N_PORT_CTRS];
	enum rsw_link_state link = rsw_port_link(p);
	char mac[RSW_MAC_STR_LEN], buf[64];
	json_t *o;
	int i;

	rsw_stats_port_sum(p, c);
	o = json_pack("{s:s, s:i, s:s, s:I, s:o, s:s, s:b}", "name", cp->name, "id", p, "mac",
		      rsw_mac_str(rsw_dp.ports[p].mac.addr_bytes, mac), "speed_bps",
		      (json_int_t)rsw_port_speed(p), "link_up",
		      link == RSW_LINK_UNKNOWN ? json_null() : json_boolean(link == RSW_LINK_UP),
		      "link_state", rsw_link_state_name(link), "admin_up",
		      !rsw_dp.ports[p].admin_down);
	if (o == NULL)
		return NULL;
	for (i = 0; i < RSW_N_PORT_CTRS; i++)
		json_object_set_new(
			o, rsw_port_ctr_name(i),
			json_integer((json_int_t)rsw_cli_since(c[i], rsw_ctl.port_base[p][i])));
	json_object_set_new(o, "rx_missed",
			    json_integer((json_int_t)rsw_cli_since(rsw_cli_port_missed(p),
								   rsw_ctl.missed_base[p])));
	switch (rsw_port_peer_state(p)) {
	case RSW_PEER_TOLD:
		json_object_set_new(o, "peer_down", json_true());
		break;
	case RSW_PEER_NOT_TOLD:
		json_object_set_new(o, "peer_down", json_false());
		break;
	default:
		json_object_set_new(o, "peer_down", json_null());
		break;
	}
	json_object_set_new(o, "devargs", json_string(cp->devargs));
	json_object_set_new(o, "kind", json_string(rsw_port_kind_name(p)));
	json_object_set_new(o, "mac_ctrl", json_boolean(rsw_port_mac_ctrl(p)));
	json_object_set_new(o, "mtu", json_integer(cp->mtu));
	if (cp->has_ipv4)
		json_object_set_new(o, "ipv4",
				    json_string(rsw_prefix_str(&cp->ipv4, buf, sizeof(buf))));
	if (cp->has_ipv6)
		json_object_set_new(o, "ipv6",
				    json_string(rsw_prefix_str(&cp->ipv6, buf, sizeof(buf))));
	return rsw_row(&rsw_table_ports, o);
}

static json_t *
cmd_show_ports(int argc, char **argv, void *ctx)
{
	(void)ctx;
	return rsw_cli_port_rows(argc, argv, "ports", port_json);
}

static json_t *
cmd_port_admin(int argc, char **argv, void *ctx)
{
	int p = rsw_cli_port_arg(argv[0]);

	(void)argc;
	(void)ctx;
	if (p < 0)
		return rsw_cmd_error("unknown port '%s'", argv[0]);
	if (strcmp(argv[1], "impair") == 0)
		return rsw_cli_port_impair(argc, argv); /* llr.c */
	if (argc != 2)
		return rsw_cmd_error("usage: port NAME down|up|impair ...");
	if (strcmp(argv[1], "down") == 0)
		rsw_port_admin((uint16_t)p, true);
	else if (strcmp(argv[1], "up") == 0)
		rsw_port_admin((uint16_t)p, false);
	else
		return rsw_cmd_error("usage: port NAME down|up");
	/* Next-hop groups drop the port now, not at the next poll. */
	rsw_ctl_lb_poll();
	return rsw_cmd_ok();
}

static int
ports_init(const struct rsw_config *cfg)
{
	int ret = 0;

	(void)cfg;
	ret |= rsw_cmd_register("show ports", 0, 1, "[PORT]", "port state and counters",
				cmd_show_ports, NULL);
	ret |= rsw_cmd_register(
		"port", 2, 12,
		"NAME down|up | NAME impair [loss P] [loss_burst N] [corrupt P] "
		"[delay_us D] [seed S] | NAME impair off",
		"administrative state: a down port takes no traffic, and its link goes "
		"down for the peer where the port kind allows; injected faults on what "
		"the port transmits",
		cmd_port_admin, NULL);
	return ret ? -EINVAL : 0;
}

static struct rsw_module ports_cli_module = {
	.name = "cli.ports",
	.order = RSW_CLI_MODULE_ORDER,
	.init = ports_init,
};

RSW_MODULE_REGISTER(ports_cli_module);
