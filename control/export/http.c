/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Prometheus scrapes on control.metrics_listen (docs/observability.md), served by libmicrohttpd
 * on the control thread. A scrape runs the `show` commands of docs/cli.md through the command
 * registry (control thread only), so the daemon has no thread of its own: railsw keeps
 * the listening socket, accepts clients and hands them to the daemon, and runs it from
 * the "metrics" module's poll without waiting (MHD_run, a zero poll timeout). The reply
 * is built there, on the control thread. One request per connection, HTTP/1.0 replies,
 * closed after the response. The bounds: RSW_METRICS_MAX_CLIENTS connections (one more
 * gets 503 and is closed), RSW_METRICS_MAX_REQUEST bytes of request (the connection's
 * memory), RSW_METRICS_TIMEOUT_MS without progress.
 */

#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_log.h>

#include "rsw_cmd.h"
#include "rsw_config.h"
#include "rsw_listen.h"
#include "rsw_metrics.h"
#include "rsw_module.h"

RTE_LOG_REGISTER(rsw_metrics_logtype, rsw.metrics, INFO);

/* Thread-safety: used by the control thread only. */
struct rsw_metrics {
	int fd;               /* listening socket, non-blocking */
	struct MHD_Daemon *d; /* no listening socket and no thread of its own */
};

/* The listening socket on listen_addr, or -errno with a message in err. */
static int
listen_on(const char *listen_addr, char *err, size_t errlen)
{
	int gai_rc, fd = rsw_tcp_listen(listen_addr, 0, 64, &gai_rc);

	if (fd == -EINVAL && gai_rc == 0)
		snprintf(err, errlen, "metrics_listen '%s': expected host:port or [v6]:port",
			 listen_addr ? listen_addr : "");
	else if (fd == -EINVAL)
		snprintf(err, errlen, "metrics_listen %s: %s", listen_addr, gai_strerror(gai_rc));
	else if (fd < 0)
		snprintf(err, errlen, "metrics_listen %s: cannot listen: %s", listen_addr,
			 strerror(-fd));
	return fd;
}

/* The text of a scrape: the `show` tables run now, on the control thread. */
static char *
scrape(size_t *len)
{
	static const char *const cmds[] = {
		"show ports", "show queues", "show pfc", "show buffer",  "show drops",
		"show lb",    "show punt",   "show llr", "show workers", "show cbfc"};
	json_t *r[RTE_DIM(cmds)];
	struct rsw_metrics_src src;
	char *text;
	size_t i;

	for (i = 0; i < RTE_DIM(cmds); i++) {
		r[i] = rsw_cmd_exec(cmds[i], strlen(cmds[i]));
		if (r[i] != NULL && json_object_get(r[i], "error") != NULL) {
			json_decref(r[i]);
			r[i] = NULL;
		}
	}
	src = (struct rsw_metrics_src){.ports = r[0],
				       .queues = r[1],
				       .pfc = r[2],
				       .buffer = r[3],
				       .drops = r[4],
				       .lb = r[5],
				       .punt = r[6],
				       .llr = r[7],
				       .workers = r[8],
				       .cbfc = r[9]};
	text = rsw_metrics_format(&src, len);
	for (i = 0; i < RTE_DIM(cmds); i++)
		json_decref(r[i]);
	return text;
}

/* Queue status with body (len bytes; must_free: malloc'd, the response frees it). */
static enum MHD_Result
reply(struct MHD_Connection *c, unsigned int status, const char *type, char *body, size_t len,
      bool must_free)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(
		len, body, must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (r == NULL) {
		if (must_free)
			free(body);
		return MHD_NO; /* MHD closes the connection */
	}
	/* An HTTP/1.0 status line, and no second request on the connection. */
	MHD_set_response_options(r, MHD_RF_HTTP_1_0_SERVER, MHD_RO_END);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result
reply_text(struct MHD_Connection *c, unsigned int status, const char *msg)
{
	return reply(c, status, "text/plain; charset=utf-8", (char *)(uintptr_t)msg, strlen(msg),
		     false);
}

/* GET (or HEAD) /metrics: the scrape; other paths 404, other methods 405. */
static enum MHD_Result
answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
       const char *version, const char *upload_data, size_t *upload_data_size, void **req_cls)
{
	size_t len;
	char *text;

	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET /metrics\n");
	if (strcmp(url, "/metrics") != 0)
		return reply_text(c, MHD_HTTP_NOT_FOUND, "not found: metrics are at /metrics\n");
	text = scrape(&len);
	if (text == NULL)
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", text, len, true);
}

/* libmicrohttpd's messages (malformed requests, clients over the limits): debug logs. */
static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	rte_vlog(RTE_LOG_DEBUG, rsw_metrics_logtype, fmt, ap);
}

struct rsw_metrics *
rsw_metrics_open(const char *listen_addr, char *err, size_t errlen)
{
	struct rsw_metrics *m;
	char dummy[1];
	int fd;

	if (err == NULL || errlen == 0) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	fd = listen_on(listen_addr, err, errlen);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		goto oom;
	m->fd = fd;
	m->d = MHD_start_daemon(
		MHD_USE_NO_LISTEN_SOCKET | MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0, NULL, NULL, answer,
		NULL, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned int)RSW_METRICS_MAX_CLIENTS, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)RSW_METRICS_MAX_REQUEST, MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned int)((RSW_METRICS_TIMEOUT_MS + 999) / 1000), MHD_OPTION_END);
	if (m->d == NULL)
		goto oom;
	return m;
oom:
	free(m);
	close(fd);
	snprintf(err, errlen, "metrics_listen %s: cannot start the HTTP server", listen_addr);
	errno = ENOMEM;
	return NULL;
}

unsigned int
rsw_metrics_client_count(const struct rsw_metrics *m)
{
	const union MHD_DaemonInfo *info;

	if (m == NULL)
		return 0;
	info = MHD_get_daemon_info(m->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
	return info != NULL ? info->num_connections : 0;
}

/* New clients go to the daemon while it has room; one more is told 503 and closed. */
static void
accept_clients(struct rsw_metrics *m)
{
	static const char busy[] = "HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\n"
				   "Connection: close\r\n\r\n";
	struct sockaddr_storage sa;
	socklen_t len;
	int fd;

	for (;;) {
		len = sizeof(sa);
		fd = accept4(m->fd, (struct sockaddr *)&sa, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return; /* EAGAIN, or EMFILE and friends: retry next poll */
		}
		if (rsw_metrics_client_count(m) >= RSW_METRICS_MAX_CLIENTS) {
			(void)!send(fd, busy, sizeof(busy) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
			close(fd);
			continue;
		}
		/* On failure the daemon has closed fd. */
		(void)MHD_add_connection(m->d, fd, (struct sockaddr *)&sa, len);
	}
}

void
rsw_metrics_poll(struct rsw_metrics *m)
{
	if (m == NULL)
		return;
	accept_clients(m);
	/* Reads, answers and writes what is ready, timeouts; never waits (poll with 0). */
	MHD_run(m->d);
}

void
rsw_metrics_close(struct rsw_metrics *m)
{
	if (m == NULL)
		return;
	MHD_stop_daemon(m->d);
	close(m->fd);
	free(m);
}

/* The daemon's server, when control.metrics_listen is set. */
static struct rsw_metrics *metrics;

static int
metrics_init(const struct rsw_config *cfg)
{
	char err[RSW_CFG_ERR_LEN];

	if (!cfg->control.has_metrics)
		return 0;
	metrics = rsw_metrics_open(cfg->control.metrics_listen, err, sizeof(err));
	if (metrics == NULL) {
		int ret = errno != 0 ? -errno : -EINVAL;

		rte_log(RTE_LOG_ERR, RTE_LOGTYPE_USER1, "railsw: %s\n", err);
		return ret;
	}
	return 0;
}

static unsigned int
metrics_poll(uint64_t now_ms)
{
	rsw_metrics_poll(metrics);
	return 0;
}

static void
metrics_fini(void)
{
	rsw_metrics_close(metrics);
	metrics = NULL;
}

static struct rsw_module metrics_module = {
	.name = "metrics",
	.order = RSW_MODULE_ORDER_METRICS,
	.init = metrics_init,
	.poll = metrics_poll,
	.fini = metrics_fini,
};

RSW_MODULE_REGISTER(metrics_module);
