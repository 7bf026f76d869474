/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The control: section: the socket path, telemetry, the Prometheus listen address and the
 * FPM listener that takes routes from FRR zebra (control.fpm).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config_priv.h"

enum {
	C_SOCKET,
	C_TELEMETRY,
	C_METRICS,
	C_FPM,
	C_N,
};

static const char *const control_keys[C_N] = {
	[C_SOCKET] = "socket",
	[C_TELEMETRY] = "telemetry",
	[C_METRICS] = "metrics_listen",
	[C_FPM] = "fpm",
};

enum {
	F_LISTEN,
	F_STALE,
	F_N,
};

static const char *const fpm_keys[F_N] = {
	[F_LISTEN] = "listen",
	[F_STALE] = "stale_s",
};

/* "host:port" or "[v6]:port"; port 1..65535. */
static bool
valid_listen(const char *s)
{
	const char *colon = strrchr(s, ':');
	int64_t port;

	if (colon == NULL || colon == s)
		return false;
	if (!cfg_parse_i64(colon + 1, &port) || colon[1] == '+' || colon[1] == '-' || port < 1 ||
	    port > 65535)
		return false;
	if (s[0] == '[') {
		char buf[INET6_ADDRSTRLEN];
		size_t len = (size_t)(colon - s);
		uint8_t a[16];

		if (len < 3 || s[len - 1] != ']' || len - 2 >= sizeof(buf))
			return false;
		memcpy(buf, s + 1, len - 2);
		buf[len - 2] = '\0';
		return inet_pton(AF_INET6, buf, a) == 1;
	}
	/* A host name or IPv4 address; a bare IPv6 address needs brackets. */
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-") ==
	       (size_t)(colon - s);
}

/* control.fpm: { listen: host:port, stale_s: N }; both optional. */
static int
parse_fpm(struct ctx *c, yaml_node_t *n, struct rsw_cfg_control *ctl)
{
	struct kv kv[F_N];

	ctl->fpm_line = cfg_line_of(n);
	snprintf(ctl->fpm_listen, sizeof(ctl->fpm_listen), "%s", "127.0.0.1:2620");
	ctl->fpm_stale_s = 10;
	if (!cfg_is_null(n) && n->type != YAML_MAPPING_NODE)
		return cfg_fail(
			c, cfg_line_of(n),
			"'fpm' must be a mapping like { listen: 127.0.0.1:2620, stale_s: 10 }");
	if (cfg_get_map(c, n, "fpm", fpm_keys, F_N, NULL, kv) < 0)
		return -EINVAL;
	if (kv[F_LISTEN].v != NULL) {
		if (cfg_get_text(c, kv[F_LISTEN].v, "listen", ctl->fpm_listen,
				 sizeof(ctl->fpm_listen)) < 0)
			return -EINVAL;
		if (!valid_listen(ctl->fpm_listen))
			return cfg_fail(
				c, cfg_line_of(kv[F_LISTEN].v),
				"'listen' must be host:port like 127.0.0.1:2620 or [::1]:2620 (got '%s')",
				ctl->fpm_listen);
	}
	if (kv[F_STALE].v != NULL &&
	    cfg_get_u32(c, kv[F_STALE].v, "stale_s", 1, 3600, &ctl->fpm_stale_s) < 0)
		return -EINVAL;
	ctl->has_fpm = true;
	return 0;
}

int
cfg_parse_control(struct ctx *c, const struct kv *sec)
{
	struct rsw_cfg_control *ctl = &c->cfg->control;
	struct kv kv[C_N];
	int rc = 0;

	if (cfg_get_map(c, sec->v, "control", control_keys, C_N, NULL, kv) < 0)
		return -EINVAL;
	/* The keys are independent: each one's error is reported. */
	if (kv[C_SOCKET].v != NULL &&
	    cfg_get_text(c, kv[C_SOCKET].v, "socket", ctl->socket, sizeof(ctl->socket)) < 0)
		rc = -EINVAL;
	if (kv[C_TELEMETRY].v != NULL &&
	    cfg_get_bool(c, kv[C_TELEMETRY].v, "telemetry", &ctl->telemetry) < 0)
		rc = -EINVAL;
	if (kv[C_METRICS].v != NULL) {
		if (cfg_get_text(c, kv[C_METRICS].v, "metrics_listen", ctl->metrics_listen,
				 sizeof(ctl->metrics_listen)) < 0)
			return -EINVAL;
		if (!valid_listen(ctl->metrics_listen))
			return cfg_fail(
				c, cfg_line_of(kv[C_METRICS].v),
				"'metrics_listen' must be host:port like 127.0.0.1:9417 or [::1]:9417 (got '%s')",
				ctl->metrics_listen);
		ctl->has_metrics = true;
	}
	if (kv[C_FPM].v != NULL && parse_fpm(c, kv[C_FPM].v, ctl) < 0)
		rc = -EINVAL;
	return rc;
}
