/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Prometheus text exposition on control.metrics_listen (DESIGN.md §8). The control
 * thread serves it from its loop with poll(0): a scrape runs the `show` commands of
 * CLI.md through the command registry, so metric values are exactly the counters
 * `railctl --json` prints, and formats them as text format 0.0.4 (railsw_<field>,
 * labels from the row: port, tc, priority, ...). Plain HTTP/1.0, one request per
 * connection, closed after the response. Nothing here may block the control thread:
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

#include "rsw_cmd.h"
#include "rsw_metrics.h"

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

/* One table of rows (objects): which fields are labels, which are left out, which gauges. */
struct metric_table {
	const char *what;          /* for # HELP: "show queues" */
	const char *prefix;        /* after "railsw_": "" or "pg_" */
	const char *const *labels; /* pairs {field, label}, NULL-terminated */
	const char *const *skip;   /* fields that are not metrics, NULL-terminated */
	const char *const *gauges; /* fields typed gauge, NULL-terminated */
	bool all_gauges;           /* every field is a gauge */
};

static bool
in_list(const char *const *list, const char *s)
{
	for (; list != NULL && *list != NULL; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

static bool
is_label(const struct metric_table *t, const char *field)
{
	const char *const *l;

	for (l = t->labels; l != NULL && l[0] != NULL; l += 2)
		if (strcmp(l[0], field) == 0)
			return true;
	return false;
}

static bool
is_sample(const json_t *v)
{
	return json_is_integer(v) || json_is_real(v) || json_is_boolean(v);
}

/*
 * Whether field (v in the first row) has a sample in some row: a null in one row (a port
 * whose link is unknown) leaves that row out, not the metric.
 */
static bool
any_sample(const json_t *rows, const char *field, const json_t *v)
{
	const json_t *row;
	size_t i;

	if (is_sample(v))
		return true;
	if (!json_is_null(v))
		return false;
	json_array_foreach(rows, i, row) if (is_sample(json_object_get(row, field))) return true;
	return false;
}

static void
sb_name(struct sbuf *b, const struct metric_table *t, const char *field)
{
	const char *s;

	sb_printf(b, "railsw_");
	for (s = t->prefix; *s != '\0'; s++)
		sb_putc(b, name_char(*s));
	for (s = field; *s != '\0'; s++)
		sb_putc(b, name_char(*s));
}

static void
sb_labels(struct sbuf *b, const struct metric_table *t, const json_t *row)
{
	const char *const *l;
	bool first = true;
	char num[32];

	for (l = t->labels; l != NULL && l[0] != NULL; l += 2) {
		const json_t *v = json_object_get(row, l[0]);
		const char *s;

		if (json_is_string(v)) {
			s = json_string_value(v);
		} else if (json_is_integer(v)) {
			snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
			s = num;
		} else {
			continue;
		}
		sb_printf(b, "%s%s=\"", first ? "{" : ",", l[1]);
		sb_label_value(b, s);
		sb_putc(b, '"');
		first = false;
	}
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
 * Every numeric or boolean field of the first row is a metric; its samples, one per
 * row, follow one # HELP and one # TYPE line (samples of a metric stay together).
 */
static void
emit_table(struct sbuf *b, const struct metric_table *t, const json_t *rows)
{
	const json_t *first = json_array_get(rows, 0), *row, *v;
	const char *field;
	size_t i;

	if (!json_is_object(first))
		return;
	json_object_foreach((json_t *)first, field, v)
	{
		bool gauge = t->all_gauges || in_list(t->gauges, field);

		if (!any_sample(rows, field, v) || is_label(t, field) || in_list(t->skip, field))
			continue;
		sb_printf(b, "# HELP ");
		sb_name(b, t, field);
		sb_printf(b, " %s of railctl %s\n# TYPE ", field, t->what);
		sb_name(b, t, field);
		sb_printf(b, " %s\n", gauge ? "gauge" : "counter");
		json_array_foreach(rows, i, row)
		{
			const json_t *s = json_object_get(row, field);

			if (!is_sample(s))
				continue;
			sb_name(b, t, field);
			sb_labels(b, t, row);
			sb_value(b, s);
		}
	}
}

static const char *const port_labels[] = {"name", "port", NULL};
static const char *const port_skip[] = {"id", NULL};
static const char *const port_gauges[] = {"speed_bps", "link_up", "admin_up", "mtu", NULL};
static const char *const queue_labels[] = {"port", "port", "tc", "tc", NULL};
static const char *const queue_gauges[] = {"depth_bytes", "watermark_bytes", "lossless", NULL};
static const char *const pfc_labels[] = {"port", "port", "priority", "priority", NULL};
static const char *const pfc_skip[] = {"lossless", NULL}; /* already per (port, tc) */
static const char *const pfc_gauges[] = {"paused", "storm", NULL};
static const char *const pg_labels[] = {"port", "port", "pg", "pg", NULL};
static const char *const pg_skip[] = {"lossless", NULL};
static const char *const pg_gauges[] = {"bytes", "watermark", "xoff_threshold", NULL};
static const char *const drop_labels[] = {"reason", "reason", NULL};
static const char *const lb_labels[] = {"group",   "group", "prefix", "prefix", "nexthop",
					"nexthop", "port",  "port",   NULL};
static const char *const lb_skip[] = {"mode", NULL};
static const char *const lb_gauges[] = {"up", NULL};

static const struct metric_table t_ports = {"show ports", "", port_labels, port_skip, port_gauges};
static const struct metric_table t_queues = {"show queues", "", queue_labels, NULL, queue_gauges};
static const struct metric_table t_pfc = {"show pfc", "", pfc_labels, pfc_skip, pfc_gauges};
static const struct metric_table t_buffer = {"show buffer", "buffer_", NULL, NULL, NULL, true};
static const struct metric_table t_pgs = {"show buffer", "pg_", pg_labels, pg_skip, pg_gauges};
static const struct metric_table t_drops = {"show drops", "drop_", drop_labels, NULL, NULL};
static const struct metric_table t_lb = {"show lb", "lb_member_", lb_labels, lb_skip, lb_gauges};

/* The members of every group as rows carrying their group's id and prefix. */
static json_t *
lb_rows(const json_t *groups)
{
	json_t *rows = json_array(), *gr, *m;
	size_t i, j;

	if (rows == NULL)
		return NULL;
	json_array_foreach(groups, i, gr)
	{
		json_array_foreach(json_object_get(gr, "members"), j, m)
		{
			json_t *r = json_deep_copy(m);

			if (r == NULL)
				continue;
			json_object_set(r, "group", json_object_get(gr, "id"));
			json_object_set(r, "prefix", json_object_get(gr, "prefix"));
			json_array_append_new(rows, r);
		}
	}
	return rows;
}

char *
rsw_metrics_format(const struct rsw_metrics_src *src, size_t *len)
{
	struct sbuf b = {0};
	json_t *tmp;

	sb_grow(&b, 0);
	if (!b.oom)
		b.p[0] = '\0';
	if (src->ports != NULL)
		emit_table(&b, &t_ports, json_object_get(src->ports, "ports"));
	if (src->queues != NULL)
		emit_table(&b, &t_queues, json_object_get(src->queues, "queues"));
	if (src->pfc != NULL)
		emit_table(&b, &t_pfc, json_object_get(src->pfc, "pfc"));
	if (src->buffer != NULL) {
		tmp = json_pack("[O]", json_object_get(src->buffer, "buffer"));
		emit_table(&b, &t_buffer, tmp);
		json_decref(tmp);
		emit_table(&b, &t_pgs, json_object_get(src->buffer, "pgs"));
	}
	if (src->drops != NULL)
		emit_table(&b, &t_drops, json_object_get(src->drops, "drops"));
	if (src->lb != NULL) {
		tmp = lb_rows(json_object_get(src->lb, "groups"));
		emit_table(&b, &t_lb, tmp);
		json_decref(tmp);
	}
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
