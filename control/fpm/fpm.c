/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The FPM server: routes from FRR zebra's dplane_fpm_nl (docs/routing.md). A
 * non-blocking TCP listener on control.fpm.listen; one zebra at a time (a new connection
 * replaces the old one: zebra reconnects after a restart, and the old socket may not have
 * seen its end yet). Frames are read incrementally: partial frames wait for their rest,
 * every message of a frame is applied (a delete followed by an add, as zebra sends a
 * change of next hops, lands in one batch). A header that loses the stream (bad version or
 * type, a length shorter than the header) is an error: the session is closed and its
 * routes stay until the next session's replay replaces them or the stale timer drops them.
 * A bad message inside a good frame is counted and skipped.
 *
 * Changes mark the tables dirty; the poll builds one new generation from the configuration
 * and the RIB at most every RSW_FPM_BATCH_MS and publishes it (RCU, docs/architecture.md), so a
 * burst of thousands of routes costs a few generations and workers never stop forwarding.
 */

#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_log.h>

#include "fpm_priv.h"
#include "rsw_cli.h"
#include "rsw_ctl.h"
#include "rsw_fpm.h"
#include "rsw_kif.h"
#include "rsw_listen.h"
#include "rsw_module.h"
#include "rsw_reload.h"
#include "rsw_tables_ctl.h"

RTE_LOG_REGISTER_DEFAULT(rsw_logtype_fpm, INFO);
#define FPM_LOG(l, ...) rte_log(RTE_LOG_##l, rsw_logtype_fpm, "fpm: " __VA_ARGS__)

#define READ_BUDGET (256 * 1024) /* bytes read per poll, so the control loop turns */

struct fpm_main {
	int lfd;                        /* listener, -1 = none */
	int cfd;                        /* zebra's connection, -1 = none */
	char listen[64];                /* control.fpm.listen */
	uint32_t stale_s;               /* control.fpm.stale_s */
	uint8_t buf[RSW_FPM_MAX_FRAME]; /* what has been read of the current frame */
	size_t len;                     /* bytes in buf */
	uint64_t session;               /* the current session's number; routes carry theirs */
	bool stale_pending;     /* a session replaced another: drop the stale routes later */
	uint64_t last_msg_ms;   /* the last message of the current session */
	bool dirty;             /* the RIB changed since the last generation */
	uint64_t last_build_ms; /* when the last generation was built */
	uint64_t ll_heard;      /* rsw_kif_ll_heard() at the last check */
	struct fpm_rib *rib;
	struct rsw_fpm_stats st;
};

static struct fpm_main fm = {.lfd = -1, .cfd = -1};

static uint32_t
src_count(void)
{
	return fpm_rib_count(fm.rib);
}

static struct rsw_ctl_route *
src_get(uint32_t i)
{
	return fpm_rib_get(fm.rib, i);
}

static struct rsw_ctl_route *
src_find(const struct rsw_prefix *p)
{
	return fpm_rib_find(fm.rib, p);
}

static const struct rsw_ctl_route_source fpm_source = {
	.count = src_count,
	.get = src_get,
	.find = src_find,
};

const struct rsw_fpm_stats *
rsw_fpm_stats(void)
{
	return &fm.st;
}

void
rsw_fpm_counters_clear(void)
{
	fm.st.connects = 0;
	fm.st.messages = 0;
	fm.st.routes_added = 0;
	fm.st.routes_deleted = 0;
	fm.st.errors = 0;
	fm.st.generations = 0;
	fm.st.stale_dropped = 0;
}

static void
set_error(const char *fmt, const char *why)
{
	fm.st.errors++;
	snprintf(fm.st.last_error, sizeof(fm.st.last_error), fmt, why);
	FPM_LOG(WARNING, "%s\n", fm.st.last_error);
}

int
rsw_fpm_open(const struct rsw_config *cfg)
{
	int gai_rc = 0, fd, saved;

	if (!cfg->control.has_fpm)
		return 0;
	snprintf(fm.listen, sizeof(fm.listen), "%s", cfg->control.fpm_listen);
	fm.stale_s = cfg->control.fpm_stale_s;
	if (fm.rib == NULL)
		fm.rib = fpm_rib_new(RSW_FPM_MAX_ROUTES);
	if (fm.rib == NULL)
		return -ENOMEM;
	/* Where zebra runs: inside the kernel interfaces' namespace when there is one. */
	fd = rsw_kif_netns_enter(&saved);
	if (fd == 0) {
		fd = rsw_tcp_listen(fm.listen, AI_NUMERICHOST, 4, &gai_rc);
		rsw_kif_netns_leave(saved);
	}
	if (fd == -EINVAL) {
		FPM_LOG(ERR, "listen %s: expected host:port or [v6]:port\n", fm.listen);
		return -EINVAL;
	}
	if (fd < 0) {
		FPM_LOG(ERR, "listen %s: %s\n", fm.listen, strerror(-fd));
		return fd;
	}
	fm.lfd = fd;
	fm.st.listening = true;
	rsw_ctl_tables_set_source(&fpm_source);
	FPM_LOG(INFO, "listening on %s for zebra (dplane_fpm_nl)\n", fm.listen);
	return 0;
}

static void
session_close(void)
{
	if (fm.cfd >= 0)
		close(fm.cfd);
	fm.cfd = -1;
	fm.len = 0;
	fm.st.connected = false;
}

void
rsw_fpm_close(void)
{
	session_close();
	if (fm.lfd >= 0)
		close(fm.lfd);
	fm.lfd = -1;
	fm.st.listening = false;
	rsw_ctl_tables_set_source(NULL);
	fpm_rib_free(fm.rib);
	fm.rib = NULL;
}

static void
on_bad_message(const char *err, void *arg)
{
	(void)arg;
	fm.st.messages++;
	set_error("bad message: %s", err);
}

static int
on_message(const struct rsw_fpm_msg *m, void *arg)
{
	char err[RSW_FPM_ERR_LEN] = "";
	int ret;

	(void)arg;
	fm.st.messages++;
	ret = fpm_rib_apply(fm.rib, m, fm.session, err, sizeof(err));
	if (ret < 0) {
		set_error("%s", err);
		fm.dirty = true; /* the prefix's old route may be gone */
		return 0;
	}
	if (ret == FPM_APPLY_ADDED)
		fm.st.routes_added++;
	else if (ret == FPM_APPLY_DELETED)
		fm.st.routes_deleted++;
	if (ret != FPM_APPLY_NONE)
		fm.dirty = true;
	return 0;
}

/* Apply the whole frames in buf; keep a partial one. @return 0, or -1: the stream is lost. */
static int
consume(uint64_t now_ms)
{
	size_t off = 0, flen;
	int ret;

	while (off < fm.len) {
		ret = rsw_fpm_frame_check(fm.buf + off, fm.len - off, &flen);
		if (ret == -EAGAIN)
			break;
		if (ret != 0) {
			set_error("bad FPM header: %s; closing the session",
				  ret == -EPROTO ? "unknown version or type"
						 : "length shorter than the header");
			return -1;
		}
		if (flen > fm.len - off)
			break;
		rsw_fpm_parse_frame(fm.buf + off, flen, on_message, on_bad_message, NULL);
		fm.last_msg_ms = now_ms;
		off += flen;
	}
	if (off > 0) {
		memmove(fm.buf, fm.buf + off, fm.len - off);
		fm.len -= off;
	}
	return 0;
}

static void
do_accept(uint64_t now_ms)
{
	int fd = accept4(fm.lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (fm.cfd >= 0)
		FPM_LOG(INFO, "a new zebra connection replaces the current one\n");
	session_close();
	fm.cfd = fd;
	fm.st.connected = true;
	fm.st.connects++;
	/* Routes of earlier sessions are stale until sent again. */
	if (fm.session > 0 || fpm_rib_count(fm.rib) > 0)
		fm.stale_pending = true;
	fm.session++;
	fm.last_msg_ms = now_ms;
	FPM_LOG(INFO, "zebra connected (session %" PRIu64 ")\n", fm.session);
}

static void
do_read(uint64_t now_ms)
{
	size_t budget = READ_BUDGET;
	ssize_t n;

	while (fm.cfd >= 0 && budget > 0) {
		n = read(fm.cfd, fm.buf + fm.len, sizeof(fm.buf) - fm.len);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				return;
			set_error("read: %s; closing the session", strerror(errno));
			session_close();
			return;
		}
		if (n == 0) {
			if (fm.len > 0)
				set_error("%s",
					  "zebra closed the session in the middle of a frame");
			FPM_LOG(INFO,
				"zebra disconnected; its routes stay until the next session\n");
			session_close();
			return;
		}
		fm.len += (size_t)n;
		budget -= (size_t)n < budget ? (size_t)n : budget;
		if (consume(now_ms) != 0) {
			session_close();
			return;
		}
	}
}

/*
 * A link-local neighbour heard for the first time on a port (rsw_kif_ll_heard grew) may be
 * what a route's next hop over that port waits for: an RFC 8950 169.254.0.1 or a link-local
 * gateway with RTA_OIF resolves only where the port has heard its peer. Mark the tables
 * dirty when a route has a next hop with an OIF that the last build could not resolve, so
 * it is installed within a batch instead of at zebra's next change.
 */
static void
ll_check(void)
{
	uint64_t heard = rsw_kif_ll_heard();
	uint32_t i, j, n;

	if (heard == fm.ll_heard)
		return;
	fm.ll_heard = heard;
	n = fpm_rib_count(fm.rib);
	for (i = 0; i < n && !fm.dirty; i++) {
		const struct rsw_ctl_route *cr = fpm_rib_get(fm.rib, i);

		if (cr->n_resolved >= cr->r.n_nexthops)
			continue;
		for (j = 0; j < cr->r.n_nexthops; j++)
			if (cr->r.oif[j] != 0)
				fm.dirty = true;
	}
}

static void
rebuild(uint64_t now_ms)
{
	char err[RSW_CFG_ERR_LEN];

	fm.last_build_ms = now_ms;
	fm.dirty = false;
	if (rsw_ctl_tables_rebuild(err, sizeof(err)) != 0) {
		set_error("cannot build the tables: %s", err);
		return;
	}
	fm.st.generations++;
}

unsigned int
rsw_fpm_poll(uint64_t now_ms)
{
	uint64_t before = fm.st.messages;
	uint32_t n;

	if (fm.lfd < 0)
		return 0;
	do_accept(now_ms);
	do_read(now_ms);
	ll_check();
	if (fm.stale_pending && now_ms - fm.last_msg_ms >= (uint64_t)fm.stale_s * 1000) {
		fm.stale_pending = false;
		n = fpm_rib_drop_stale(fm.rib, fm.session);
		if (n > 0) {
			fm.st.stale_dropped += n;
			fm.st.routes_deleted += n;
			fm.dirty = true;
			FPM_LOG(INFO, "%u stale routes dropped after the replay\n", n);
		}
	}
	if (fm.dirty && now_ms - fm.last_build_ms >= RSW_FPM_BATCH_MS)
		rebuild(now_ms);
	return (unsigned int)(fm.st.messages - before);
}

static const struct rsw_field_def fpm_fields[] = {
	RSW_LABEL("listen", NULL, "control.fpm.listen (\"\" when FPM is off)"),
	RSW_FIELD_F("connected", STATE, "", "a zebra is connected", RSW_FIELD_NO_METRIC),
	RSW_FIELD("sessions", COUNTER, "sessions", "zebra connections accepted"),
	RSW_FIELD("messages", COUNTER, "messages", "netlink messages received"),
	RSW_FIELD("routes_added", COUNTER, "routes", "route adds and replaces taken"),
	RSW_FIELD("routes_deleted", COUNTER, "routes",
		  "route deletes taken, stale routes dropped included"),
	RSW_FIELD("stale_dropped", COUNTER, "routes",
		  "routes dropped because a new session did not send them again"),
	RSW_FIELD("errors", COUNTER, "errors",
		  "bad frames or messages, and routes that could not be taken"),
	RSW_FIELD("generations", COUNTER, "generations",
		  "table generations built for route changes"),
	RSW_FIELD("routes", GAUGE, "routes", "routes from zebra now"),
	RSW_FIELD("routes_active", GAUGE, "routes",
		  "routes from zebra in the forwarding tables now"),
	RSW_FIELD_F("last_error", STATE, "", "the reason of the last error (\"\" if none)",
		    RSW_FIELD_NO_METRIC),
};

const struct rsw_table_def rsw_table_fpm = {
	.command = "show fpm",
	.key = "fpm",
	.metric_prefix = "fpm_",
	.fields = fpm_fields,
	.n_fields = RSW_TABLE_N_FIELDS(fpm_fields),
};

json_t *
rsw_fpm_json(void)
{
	uint32_t i, n = fpm_rib_count(fm.rib), active = 0;

	for (i = 0; i < n; i++)
		active += fpm_rib_get(fm.rib, i)->active;
	return json_pack(
		"{s:o}", "fpm",
		rsw_row(&rsw_table_fpm,
			json_pack("{s:s, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s}",
				  "listen", fm.st.listening ? fm.listen : "", "connected",
				  fm.st.connected, "sessions", (json_int_t)fm.st.connects,
				  "messages", (json_int_t)fm.st.messages, "routes_added",
				  (json_int_t)fm.st.routes_added, "routes_deleted",
				  (json_int_t)fm.st.routes_deleted, "stale_dropped",
				  (json_int_t)fm.st.stale_dropped, "errors",
				  (json_int_t)fm.st.errors, "generations",
				  (json_int_t)fm.st.generations, "routes", (json_int_t)n,
				  "routes_active", (json_int_t)active, "last_error",
				  fm.st.last_error)));
}

static json_t *
cmd_show_fpm(int argc, char **argv, void *ctx)
{
	(void)argc;
	(void)argv;
	(void)ctx;
	return rsw_fpm_json();
}

static int
fpm_init(const struct rsw_config *cfg)
{
	int ret = rsw_fpm_open(cfg);

	if (ret != 0)
		return ret;
	return rsw_cmd_register("show fpm", 0, 0, "", "the FPM session with zebra and its counters",
				cmd_show_fpm, NULL)
		       ? -EINVAL
		       : 0;
}

static struct rsw_module fpm_module = {
	.name = "fpm",
	.order = RSW_MODULE_ORDER_FPM,
	.init = fpm_init,
	.poll = rsw_fpm_poll,
	.period_ms = 0,
	.fini = rsw_fpm_close,
};

RSW_MODULE_REGISTER(fpm_module);
