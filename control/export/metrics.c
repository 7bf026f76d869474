/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Prometheus text exposition on control.metrics_listen (DESIGN.md §8). The control
 * thread serves it from its loop with poll(0): a scrape runs the `show` commands of
 * CLI.md through the command registry, so metric values are exactly the counters
 * `railctl --json` prints, and formats them as text format 0.0.4 (railsw_<field>,
 * labels from the row: port, tc, priority, ...). Plain HTTP/1.0, one request per
 * connection, closed after the response. Types, HELP lines and labels come from the tables'
 * definitions (rsw_table.h). Nothing here may block the control thread:
 * sockets are non-blocking, requests are bounded in size and time, clients in number.
 */

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_log.h>

#include "rsw_cmd.h"
#include "rsw_config.h"
#include "rsw_metrics.h"
#include "rsw_module.h"
#include "rsw_table.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* A growing text buffer; oom latches the first allocation failure. */
struct sbuf {
	char *p;
	size_t len;
	size_t cap;
	bool oom;
};

static void
sb_grow(struct sbuf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	if (b->oom || b->len + more + 1 <= b->cap)
		return;
	while (cap < b->len + more + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (p == NULL) {
		b->oom = true;
		return;
	}
	b->p = p;
	b->cap = cap;
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	sb_grow(b, (size_t)n);
	if (b->oom)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static void
sb_putc(struct sbuf *b, char c)
{
	sb_grow(b, 1);
	if (b->oom)
		return;
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

/* A label value with \, " and newline escaped (text format 0.0.4). */
static void
sb_label_value(struct sbuf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			sb_printf(b, "\\\\");
		else if (*s == '"')
			sb_printf(b, "\\\"");
		else if (*s == '\n')
			sb_printf(b, "\\n");
		else
			sb_putc(b, *s);
	}
}

/* A metric name character: [a-zA-Z0-9_:] (others become '_'). */
static char
name_char(char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '_' || c == ':')
		return c;
	return '_';
}

static bool
is_sample(const json_t *v)
{
	return json_is_integer(v) || json_is_real(v) || json_is_boolean(v);
}

/* Whether field f of a table is a metric: counters, gauges and states, unless left out. */
static bool
is_metric(const struct rsw_field_def *f)
{
	return f->kind != RSW_FK_LABEL && !(f->flags & RSW_FIELD_NO_METRIC);
}

static void
sb_name(struct sbuf *b, const struct rsw_table_def *t, const char *field)
{
	const char *s;

	sb_printf(b, "railsw_");
	for (s = t->metric_prefix ? t->metric_prefix : ""; *s != '\0'; s++)
		sb_putc(b, name_char(*s));
	for (s = field; *s != '\0'; s++)
		sb_putc(b, name_char(*s));
}

/* HELP text: backslash and newline escaped (text format 0.0.4). */
static void
sb_help(struct sbuf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			sb_printf(b, "\\\\");
		else if (*s == '\n')
			sb_printf(b, "\\n");
		else
			sb_putc(b, *s);
	}
}

/* The Prometheus labels of t's fields found in row, continuing after *first. */
static void
sb_labels_of(struct sbuf *b, const struct rsw_table_def *t, const json_t *row, bool *first)
{
	unsigned int i;
	char num[32];

	for (i = 0; i < t->n_fields; i++) {
		const struct rsw_field_def *f = &t->fields[i];
		const json_t *v;
		const char *s;

		if (f->kind != RSW_FK_LABEL || f->prom_label == NULL)
			continue;
		v = json_object_get(row, f->name);
		if (json_is_string(v)) {
			s = json_string_value(v);
		} else if (json_is_integer(v)) {
			snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
			s = num;
		} else {
			continue;
		}
		sb_printf(b, "%s%s=\"", *first ? "{" : ",", f->prom_label);
		sb_label_value(b, s);
		sb_putc(b, '"');
		*first = false;
	}
}

/* The labels of a row of t: its parent row's first (nested tables), then its own. */
static void
sb_labels(struct sbuf *b, const struct rsw_table_def *t, const json_t *parent, const json_t *row)
{
	bool first = true;

	if (t->parent != NULL && parent != NULL)
		sb_labels_of(b, t->parent, parent, &first);
	sb_labels_of(b, t, row, &first);
	if (!first)
		sb_putc(b, '}');
}

static void
sb_value(struct sbuf *b, const json_t *v)
{
	if (json_is_integer(v))
		sb_printf(b, " %" JSON_INTEGER_FORMAT "\n", json_integer_value(v));
	else if (json_is_real(v))
		sb_printf(b, " %.17g\n", json_real_value(v));
	else
		sb_printf(b, " %d\n", json_is_true(v) ? 1 : 0);
}

/*
 * Every metric field of table t (rsw_table.h) that some row holds as a number or boolean:
 * one # HELP (the field's help) and one # TYPE line (counter -> counter, gauge and state ->
 * gauge), then its samples, one per row (samples of a metric stay together). rows[i] sits
 * in the row parents[i] of t's parent table (parents NULL: t is not nested).
 */
static void
emit_table(struct sbuf *b, const struct rsw_table_def *t, const json_t *rows, const json_t *parents)
{
	const json_t *row;
	unsigned int f;
	size_t i;

	for (f = 0; f < t->n_fields; f++) {
		const struct rsw_field_def *fd = &t->fields[f];
		bool any = false;

		if (!is_metric(fd))
			continue;
		json_array_foreach(rows, i, row) any =
			any || is_sample(json_object_get(row, fd->name));
		if (!any)
			continue;
		sb_printf(b, "# HELP ");
		sb_name(b, t, fd->name);
		sb_putc(b, ' ');
		sb_help(b, fd->help);
		sb_printf(b, " (%s%s%s)\n# TYPE ", t->command, fd->unit[0] ? ", " : "", fd->unit);
		sb_name(b, t, fd->name);
		sb_printf(b, " %s\n", fd->kind == RSW_FK_COUNTER ? "counter" : "gauge");
		json_array_foreach(rows, i, row)
		{
			const json_t *s = json_object_get(row, fd->name);

			if (!is_sample(s))
				continue;
			sb_name(b, t, fd->name);
			sb_labels(b, t, parents ? json_array_get(parents, i) : NULL, row);
			sb_value(b, s);
		}
	}
}

/* The rows of a nested table (t->key "parent.member") of reply, and the parent row of each. */
static void
nested_rows(const struct rsw_table_def *t, const json_t *reply, json_t *rows, json_t *parents)
{
	const char *dot = strchr(t->key, '.');
	char parent_key[64];
	json_t *pr, *r;
	size_t i, j;

	if (dot == NULL || (size_t)(dot - t->key) >= sizeof(parent_key))
		return;
	memcpy(parent_key, t->key, (size_t)(dot - t->key));
	parent_key[dot - t->key] = '\0';
	json_array_foreach(json_object_get(reply, parent_key), i, pr)
	{
		json_array_foreach(json_object_get(pr, dot + 1), j, r)
		{
			json_array_append(rows, r);
			json_array_append(parents, pr);
		}
	}
}

/* Emit table t of reply (a `show` reply): an array of rows, one object, or a nested list. */
static void
emit_reply(struct sbuf *b, const struct rsw_table_def *t, const json_t *reply)
{
	const json_t *v;
	json_t *rows, *parents;

	if (reply == NULL)
		return;
	if (t->parent != NULL) {
		rows = json_array();
		parents = json_array();
		if (rows != NULL && parents != NULL) {
			nested_rows(t, reply, rows, parents);
			emit_table(b, t, rows, parents);
		} else {
			b->oom = true;
		}
		json_decref(rows);
		json_decref(parents);
		return;
	}
	v = json_object_get(reply, t->key);
	if (json_is_array(v)) {
		emit_table(b, t, v, NULL);
	} else if (json_is_object(v)) {
		rows = json_pack("[O]", v);
		if (rows == NULL)
			b->oom = true;
		emit_table(b, t, rows, NULL);
		json_decref(rows);
	}
}

char *
rsw_metrics_format(const struct rsw_metrics_src *src, size_t *len)
{
	struct sbuf b = {0};

	sb_grow(&b, 0);
	if (!b.oom)
		b.p[0] = '\0';
	emit_reply(&b, &rsw_table_ports, src->ports);
	emit_reply(&b, &rsw_table_queues, src->queues);
	emit_reply(&b, &rsw_table_pfc, src->pfc);
	emit_reply(&b, &rsw_table_buffer, src->buffer);
	emit_reply(&b, &rsw_table_pgs, src->buffer);
	emit_reply(&b, &rsw_table_drops, src->drops);
	emit_reply(&b, &rsw_table_lb_members, src->lb);
	if (b.oom) {
		free(b.p);
		errno = ENOMEM;
		return NULL;
	}
	*len = b.len;
	return b.p;
}

/* --- HTTP ------------------------------------------------------------------------------- */

struct rsw_metrics_client {
	int fd;                               /* connected, non-blocking; -1 = free slot */
	uint64_t since_ms;                    /* when it connected */
	bool answering;                       /* the response is in out[] */
	size_t in_len;                        /* bytes used in in[] */
	size_t out_off;                       /* bytes of out[] already sent */
	size_t out_len;                       /* bytes of the response */
	char *out;                            /* the response */
	char in[RSW_METRICS_MAX_REQUEST + 1]; /* the request so far, NUL-terminated */
};

/* Thread-safety: used by the control thread only. */
struct rsw_metrics {
	int fd;                /* listening socket */
	unsigned int nclients; /* slots with fd >= 0 */
	struct rsw_metrics_client clients[RSW_METRICS_MAX_CLIENTS];
	struct pollfd pfd[RSW_METRICS_MAX_CLIENTS + 1]; /* scratch for poll */
};

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Split "host:port" / "[v6]:port" into host and port. Returns 0 or -EINVAL. */
static int
split_listen(const char *listen, char *host, size_t hlen, char *port, size_t plen)
{
	const char *colon, *h = listen;
	size_t n;

	if (listen[0] == '[') {
		const char *close = strchr(listen, ']');

		if (close == NULL || close[1] != ':')
			return -EINVAL;
		h = listen + 1;
		n = (size_t)(close - h);
		colon = close + 1;
	} else {
		colon = strrchr(listen, ':');
		if (colon == NULL || memchr(listen, ':', (size_t)(colon - listen)) != NULL)
			return -EINVAL;
		n = (size_t)(colon - listen);
	}
	if (n == 0 || n >= hlen || strlen(colon + 1) == 0 || strlen(colon + 1) > 5 ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1) || atoi(colon + 1) > 65535)
		return -EINVAL;
	memcpy(host, h, n);
	host[n] = '\0';
	snprintf(port, plen, "%s", colon + 1);
	return 0;
}

struct rsw_metrics *
rsw_metrics_open(const char *listen_addr, char *err, size_t errlen)
{
	struct addrinfo hints = {.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
				 .ai_socktype = SOCK_STREAM};
	struct addrinfo *res = NULL, *ai;
	char host[256], port[16], dummy[1];
	struct rsw_metrics *m;
	int rc, fd = -1, one = 1, i;

	if (err == NULL || errlen == 0) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	if (listen_addr == NULL ||
	    split_listen(listen_addr, host, sizeof(host), port, sizeof(port)) < 0) {
		snprintf(err, errlen, "metrics_listen '%s': expected host:port or [v6]:port",
			 listen_addr ? listen_addr : "");
		errno = EINVAL;
		return NULL;
	}
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0) {
		snprintf(err, errlen, "metrics_listen %s: %s", listen_addr, gai_strerror(rc));
		errno = EINVAL;
		return NULL;
	}
	rc = -EADDRNOTAVAIL;
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0) {
			rc = -errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 64) == 0)
			break;
		rc = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		snprintf(err, errlen, "metrics_listen %s: cannot listen: %s", listen_addr,
			 strerror(-rc));
		errno = -rc;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	m->fd = fd;
	for (i = 0; i < RSW_METRICS_MAX_CLIENTS; i++)
		m->clients[i].fd = -1;
	return m;
}

unsigned int
rsw_metrics_client_count(const struct rsw_metrics *m)
{
	return m != NULL ? m->nclients : 0;
}

static void
client_drop(struct rsw_metrics *m, struct rsw_metrics_client *c)
{
	if (c->fd < 0)
		return;
	close(c->fd);
	free(c->out);
	c->out = NULL;
	c->fd = -1;
	m->nclients--;
}

/* The text of a scrape: the `show` tables run now, on the control thread. */
static char *
scrape(size_t *len)
{
	static const char *const cmds[] = {"show ports",  "show queues", "show pfc",
					   "show buffer", "show drops",  "show lb"};
	json_t *r[N_ELEMS(cmds)];
	struct rsw_metrics_src src;
	char *text;
	size_t i;

	for (i = 0; i < N_ELEMS(cmds); i++) {
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
				       .lb = r[5]};
	text = rsw_metrics_format(&src, len);
	for (i = 0; i < N_ELEMS(cmds); i++)
		json_decref(r[i]);
	return text;
}

/* Put the response (status line, headers, body) in c->out. */
static void
respond(struct rsw_metrics_client *c, const char *status, const char *type, const char *body,
	size_t body_len, bool head)
{
	struct sbuf b = {0};

	sb_printf(&b,
		  "HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		  "Connection: close\r\n\r\n",
		  status, type, body_len);
	if (!head && !b.oom) {
		sb_grow(&b, body_len);
		if (!b.oom) {
			memcpy(b.p + b.len, body, body_len);
			b.len += body_len;
		}
	}
	c->answering = true;
	c->out_off = 0;
	if (b.oom) {
		free(b.p);
		c->out = NULL;
		c->out_len = 0; /* nothing to say: just close */
		return;
	}
	c->out = b.p;
	c->out_len = b.len;
}

static void
respond_text(struct rsw_metrics_client *c, const char *status, const char *msg)
{
	respond(c, status, "text/plain; charset=utf-8", msg, strlen(msg), false);
}

/* Answer the request in c->in (complete: its headers ended). */
static void
handle_request(struct rsw_metrics_client *c)
{
	char method[16], target[256];
	size_t len, n;
	bool head;
	char *text;

	if (sscanf(c->in, "%15s %255s", method, target) != 2) {
		respond_text(c, "400 Bad Request", "bad request\n");
		return;
	}
	head = strcmp(method, "HEAD") == 0;
	if (strcmp(method, "GET") != 0 && !head) {
		respond_text(c, "405 Method Not Allowed", "only GET /metrics\n");
		return;
	}
	n = strcspn(target, "?#");
	if (n != strlen("/metrics") || strncmp(target, "/metrics", n) != 0) {
		respond_text(c, "404 Not Found", "not found: metrics are at /metrics\n");
		return;
	}
	text = scrape(&len);
	if (text == NULL) {
		respond_text(c, "500 Internal Server Error", "out of memory\n");
		return;
	}
	respond(c, "200 OK", "text/plain; version=0.0.4; charset=utf-8", text, len, head);
	free(text);
}

/* Read what is there. Returns 0, or -1 to drop the client. */
static int
client_read(struct rsw_metrics_client *c)
{
	ssize_t n;

	for (;;) {
		if (c->in_len == RSW_METRICS_MAX_REQUEST) {
			respond_text(c, "431 Request Header Fields Too Large",
				     "request too large\n");
			return 0;
		}
		n = recv(c->fd, c->in + c->in_len, RSW_METRICS_MAX_REQUEST - c->in_len,
			 MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		}
		if (n == 0)
			return -1; /* gone before its request ended */
		c->in_len += (size_t)n;
		c->in[c->in_len] = '\0';
		if (memchr(c->in, '\0', c->in_len) != NULL) {
			respond_text(c, "400 Bad Request", "bad request\n");
			return 0;
		}
		if (strstr(c->in, "\r\n\r\n") != NULL || strstr(c->in, "\n\n") != NULL) {
			handle_request(c);
			return 0;
		}
	}
}

/* Send what the socket takes. Returns 1 when all is sent, 0 for later, -1 on error. */
static int
client_write(struct rsw_metrics_client *c)
{
	return rsw_sock_send_pending(c->fd, c->out, c->out_len, &c->out_off);
}

static void
accept_clients(struct rsw_metrics *m, uint64_t now)
{
	static const char busy[] = "HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\n"
				   "Connection: close\r\n\r\n";
	int fd, i;

	for (;;) {
		fd = accept4(m->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return; /* EAGAIN, or EMFILE and friends: retry next poll */
		}
		for (i = 0; i < RSW_METRICS_MAX_CLIENTS && m->clients[i].fd >= 0; i++)
			;
		if (i == RSW_METRICS_MAX_CLIENTS) {
			(void)!send(fd, busy, sizeof(busy) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
			close(fd);
			continue;
		}
		memset(&m->clients[i], 0, offsetof(struct rsw_metrics_client, in));
		m->clients[i].fd = fd;
		m->clients[i].since_ms = now;
		m->clients[i].in[0] = '\0';
		m->nclients++;
	}
}

void
rsw_metrics_poll(struct rsw_metrics *m)
{
	int slot[RSW_METRICS_MAX_CLIENTS + 1];
	struct rsw_metrics_client *c;
	uint64_t now;
	int i, n = 0, rc;

	if (m == NULL)
		return;
	m->pfd[n].fd = m->fd;
	m->pfd[n].events = POLLIN;
	m->pfd[n].revents = 0;
	slot[n++] = -1;
	for (i = 0; i < RSW_METRICS_MAX_CLIENTS; i++) {
		c = &m->clients[i];
		if (c->fd < 0)
			continue;
		m->pfd[n].fd = c->fd;
		m->pfd[n].events = c->answering ? POLLOUT : POLLIN;
		m->pfd[n].revents = 0;
		slot[n++] = i;
	}
	if (poll(m->pfd, (nfds_t)n, 0) < 0)
		return;
	now = mono_ms();
	for (i = 1; i < n; i++) {
		short re = m->pfd[i].revents;

		c = &m->clients[slot[i]];
		if (re & (POLLERR | POLLNVAL)) {
			client_drop(m, c);
			continue;
		}
		if (!c->answering && (re & (POLLIN | POLLHUP)) && client_read(c) < 0) {
			client_drop(m, c);
			continue;
		}
		if (c->answering) {
			rc = client_write(c);
			if (rc != 0) {
				if (rc > 0)
					shutdown(c->fd, SHUT_WR);
				client_drop(m, c);
				continue;
			}
		}
		if (now - c->since_ms > RSW_METRICS_TIMEOUT_MS)
			client_drop(m, c);
	}
	if (m->pfd[0].revents & POLLIN)
		accept_clients(m, now);
}

void
rsw_metrics_close(struct rsw_metrics *m)
{
	int i;

	if (m == NULL)
		return;
	for (i = 0; i < RSW_METRICS_MAX_CLIENTS; i++)
		client_drop(m, &m->clients[i]);
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
