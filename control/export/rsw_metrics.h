/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Prometheus text exposition (format 0.0.4) of the `show` tables of docs/cli.md (metrics.c),
 * served on control.metrics_listen by libmicrohttpd on the control thread (http.c; HTTP/1.0
 * replies, one request per connection). Metric names are railsw_<field> with the labels of
 * the table's row (port, tc, priority, pg, reason, group...); see docs/observability.md.
 *
 * Thread-safety: everything here is used by the control thread only.
 */

#ifndef RSW_METRICS_H
#define RSW_METRICS_H

#include <jansson.h>
#include <stddef.h>

#define RSW_METRICS_MAX_CLIENTS 16   /* connections served at once; more get 503 */
#define RSW_METRICS_MAX_REQUEST 8192 /* memory of a connection: request line and headers */
#define RSW_METRICS_TIMEOUT_MS  5000 /* a client idle this long is dropped (whole seconds) */

/* The replies of the `show` commands a scrape exposes; NULL members are left out. */
struct rsw_metrics_src {
	const json_t *ports;   /* show ports:  {"ports":[...]} */
	const json_t *queues;  /* show queues: {"queues":[...]} */
	const json_t *pfc;     /* show pfc:    {"pfc":[...]} */
	const json_t *buffer;  /* show buffer: {"buffer":{...},"pgs":[...]} */
	const json_t *drops;   /* show drops:  {"drops":[...]} */
	const json_t *lb;      /* show lb:     {"groups":[...]} */
	const json_t *punt;    /* show punt:   {"punt":[...]} */
	const json_t *llr;     /* show llr:    {"llr":[...]} */
	const json_t *workers; /* show workers: {"workers":[...]} */
	const json_t *cbfc;    /* show cbfc:    {"cbfc":[...]} */
};

/**
 * Format src as Prometheus text: for each metric one `# HELP` and one `# TYPE` line,
 * then its samples, e.g. `railsw_rx_packets{port="p0"} 12`. Which fields are metrics, their
 * types, HELP lines and labels come from the tables' definitions (rsw_table.h): counter ->
 * counter, gauge and state -> gauge, label -> a label or nothing. Label values are escaped
 * (backslash, double quote, newline); string fields are not metrics.
 *
 * @param len
 *   Set to the length of the text (without the terminating NUL).
 * @return
 *   The text (malloc'd, NUL-terminated), or NULL with errno ENOMEM.
 */
char *rsw_metrics_format(const struct rsw_metrics_src *src, size_t *len);

struct rsw_metrics;

/**
 * Listen on listen ("host:port" or "[v6]:port"; host may be a name) for scrapes.
 * @return the server, or NULL with errno set and a message in err
 *   (EINVAL: malformed address, or a bind/listen error such as EADDRINUSE).
 */
struct rsw_metrics *rsw_metrics_open(const char *listen, char *err, size_t errlen);

/**
 * Serve without waiting: accept clients (503 and close beyond RSW_METRICS_MAX_CLIENTS),
 * read requests, answer GET (or HEAD) /metrics with the current `show` tables (run through
 * rsw_cmd_exec, on the calling thread), any other path with 404 and any other method with
 * 405, write what the sockets take, close after the response. A malformed request gets
 * libmicrohttpd's 400 or is closed, one over RSW_METRICS_MAX_REQUEST bytes gets 414 or 431,
 * a client idle for RSW_METRICS_TIMEOUT_MS is dropped. NULL is a no-op.
 */
void rsw_metrics_poll(struct rsw_metrics *m);

/** Number of connected clients (0 for NULL). */
unsigned int rsw_metrics_client_count(const struct rsw_metrics *m);

/** Close every client and the listening socket, free; NULL is a no-op. */
void rsw_metrics_close(struct rsw_metrics *m);

#endif /* RSW_METRICS_H */
