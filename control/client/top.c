/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * railctl top: every interval, read `show ports`, `show queues`, `show pfc` and `show drops`
 * and `show workers` from the control socket and print what changed per second since the read
 * before: packets and bits per port, drops by reason, per (port, TC) the queue depth, ECN
 * marks, trims, drops and pause time, and per worker its frames and busy share. A frame is built as JSON first (rsw_top_frame()); --json prints it,
 * otherwise it is drawn for an 80-column terminal, redrawn in place when stdout is one.
 */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "rsw_top.h"

#define TOP_TIMEOUT_S 5
#define TOP_MAX_REPLY (64u << 20)
#define TOP_NAME_MAX  16 /* port names wider than this are cut in the text view */

enum {
	TOP_OK = 0,
	TOP_REPLY_ERROR = 1,
	TOP_USAGE = 2,
};

/* The socket requests of one read, and the member of the read each reply goes to. */
static const char *const top_reqs[][2] = {
	{"show ports", "ports"}, {"show queues", "queues"},   {"show pfc", "pfc"},
	{"show drops", "drops"}, {"show workers", "workers"},
};

static void __attribute__((format(printf, 1, 2))) top_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("railctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static double
mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * One request over a new connection; the reply parsed into *out. 0, -errno when the socket
 * cannot be used (*what says which step), or -EBADMSG when the reply is not JSON.
 */
static int
top_request(const char *path, const char *req, json_t **out, const char **what)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = TOP_TIMEOUT_S};
	char buf[65536], *line = NULL, *nl = NULL;
	size_t len = 0, off = 0, rlen = strlen(req);
	ssize_t n;
	int fd, rc = 0;

	*what = "connect";
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		goto out;
	}
	*what = "send";
	while (off < rlen) {
		n = send(fd, req + off, rlen - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = errno == EAGAIN ? -ETIMEDOUT : -errno;
			goto out;
		}
		off += (size_t)n;
	}
	*what = "receive";
	while (nl == NULL) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || len + (size_t)n > TOP_MAX_REPLY) {
			rc = n < 0 ? (errno == EAGAIN ? -ETIMEDOUT : -errno)
				   : (n == 0 ? -ECONNRESET : -EMSGSIZE);
			goto out;
		}
		line = realloc(line, len + (size_t)n + 1);
		if (line == NULL) {
			rc = -ENOMEM;
			goto out;
		}
		memcpy(line + len, buf, (size_t)n);
		len += (size_t)n;
		line[len] = '\0';
		nl = strchr(line, '\n');
	}
	*nl = '\0';
	*what = "reply";
	*out = json_loads(line, 0, NULL);
	if (*out == NULL)
		rc = -EBADMSG;
out:
	free(line);
	close(fd);
	return rc;
}

/*
 * One read: {"ports": ..., "queues": ..., "pfc": ..., "drops": ...} in *out. 0, or an exit
 * status with the message printed.
 */
static int
top_read(const char *sock, json_t **out)
{
	json_t *all = json_object(), *r = NULL, *err;
	const char *what = "";
	char req[64];
	size_t i;
	int rc;

	if (all == NULL)
		return TOP_USAGE;
	for (i = 0; i < sizeof(top_reqs) / sizeof(top_reqs[0]); i++) {
		snprintf(req, sizeof(req), "%s\n", top_reqs[i][0]);
		rc = top_request(sock, req, &r, &what);
		if (rc < 0) {
			if (rc == -ETIMEDOUT)
				top_warn("%s: no reply within %d s", sock, TOP_TIMEOUT_S);
			else if (strcmp(what, "connect") == 0)
				top_warn("cannot reach the switch at %s: %s", sock, strerror(-rc));
			else
				top_warn("%s: %s: %s", sock, what, strerror(-rc));
			json_decref(all);
			return TOP_USAGE;
		}
		err = json_object_get(r, "error");
		if (err != NULL) {
			top_warn("error: %s: %s", top_reqs[i][0],
				 json_is_string(err) ? json_string_value(err) : "?");
			json_decref(r);
			json_decref(all);
			return TOP_REPLY_ERROR;
		}
		json_object_set_new(all, top_reqs[i][1], r);
	}
	*out = all;
	return TOP_OK;
}

/* The rows of one table of a read: read.member.member ("ports" of the show ports reply). */
static json_t *
rows_of(json_t *read, const char *key)
{
	json_t *l = json_object_get(json_object_get(read, key), key);

	return json_is_array(l) ? l : NULL;
}

/* The row of rows whose key field is the string s and, if idx_key, whose idx_key is idx. */
static json_t *
find_row(json_t *rows, const char *key, const char *s, const char *idx_key, json_int_t idx)
{
	json_t *row;
	size_t i;

	json_array_foreach(rows, i, row)
	{
		const char *v = json_string_value(json_object_get(row, key));

		if (v == NULL || strcmp(v, s) != 0)
			continue;
		if (idx_key != NULL && json_integer_value(json_object_get(row, idx_key)) != idx)
			continue;
		return row;
	}
	return NULL;
}

/* How much field grew from row a to row b (b alone when it went backwards or a is absent). */
static double
delta(json_t *a, json_t *b, const char *field)
{
	json_t *vb = json_object_get(b, field), *va = a ? json_object_get(a, field) : NULL;
	uint64_t x, y;

	if (!json_is_integer(vb))
		return 0;
	y = (uint64_t)json_integer_value(vb);
	x = json_is_integer(va) ? (uint64_t)json_integer_value(va) : 0;
	return (double)(y >= x ? y - x : y);
}

static json_t *
ports_rates(json_t *a, json_t *b, double s)
{
	json_t *out = json_array(), *row, *drops = rows_of(b, "drops"), *d;
	size_t i, j;

	json_array_foreach(rows_of(b, "ports"), i, row)
	{
		const char *name = json_string_value(json_object_get(row, "name"));
		json_t *prev = find_row(rows_of(a, "ports"), "name", name ? name : "", NULL, 0);
		double dropped = delta(prev, row, "rx_missed");

		/* A port's drops: its fields that are drop reasons of show drops, and rx_missed. */
		json_array_foreach(drops, j, d)
		{
			const char *reason = json_string_value(json_object_get(d, "reason"));

			if (reason != NULL && strcmp(reason, "rx_missed") != 0)
				dropped += delta(prev, row, reason);
		}
		json_array_append_new(
			out,
			json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:f}", "name", name ? name : "",
				  "link_state",
				  json_string_value(json_object_get(row, "link_state")) ?: "?",
				  "rx_pps", delta(prev, row, "rx_packets") / s, "tx_pps",
				  delta(prev, row, "tx_packets") / s, "rx_bps",
				  delta(prev, row, "rx_bytes") * 8 / s, "tx_bps",
				  delta(prev, row, "tx_bytes") * 8 / s, "drop_pps", dropped / s));
	}
	return out;
}

static json_t *
drops_rates(json_t *a, json_t *b, double s)
{
	json_t *out = json_array(), *row;
	size_t i;

	json_array_foreach(rows_of(b, "drops"), i, row)
	{
		const char *reason = json_string_value(json_object_get(row, "reason"));
		json_t *prev =
			find_row(rows_of(a, "drops"), "reason", reason ? reason : "", NULL, 0);

		json_array_append_new(out, json_pack("{s:s, s:f}", "reason", reason ? reason : "",
						     "pps", delta(prev, row, "packets") / s));
	}
	return out;
}

static json_t *
queues_rates(json_t *a, json_t *b, double s)
{
	json_t *out = json_array(), *row;
	size_t i;

	json_array_foreach(rows_of(b, "queues"), i, row)
	{
		const char *port = json_string_value(json_object_get(row, "port"));
		json_int_t tc = json_integer_value(json_object_get(row, "tc"));
		json_t *prev = find_row(rows_of(a, "queues"), "port", port ? port : "", "tc", tc);
		/* PFC priority n pauses TC n's queue. */
		json_t *pb = find_row(rows_of(b, "pfc"), "port", port ? port : "", "priority", tc);
		json_t *pa = find_row(rows_of(a, "pfc"), "port", port ? port : "", "priority", tc);

		json_array_append_new(
			out, json_pack("{s:s, s:I, s:I, s:f, s:f, s:f, s:f}", "port",
				       port ? port : "", "tc", tc, "depth_bytes",
				       json_integer_value(json_object_get(row, "depth_bytes")),
				       "ecn_marked_ps", delta(prev, row, "ecn_marked") / s,
				       "trimmed_ps", delta(prev, row, "trimmed") / s, "dropped_ps",
				       (delta(prev, row, "dropped_packets") +
					delta(prev, row, "lossless_drops")) /
					       s,
				       "paused_ms_per_s",
				       pb != NULL ? delta(pa, pb, "paused_ns") / 1e6 / s : 0.0));
	}
	return out;
}

/* A worker's row of the earlier read: the one of the same index. */
static json_t *
find_worker(json_t *rows, json_int_t worker)
{
	json_t *row;
	size_t i;

	json_array_foreach(rows, i, row)
	{
		if (json_integer_value(json_object_get(row, "worker")) == worker)
			return row;
	}
	return NULL;
}

static json_t *
workers_rates(json_t *a, json_t *b, double s)
{
	json_t *out = json_array(), *row;
	size_t i;

	json_array_foreach(rows_of(b, "workers"), i, row)
	{
		json_int_t wk = json_integer_value(json_object_get(row, "worker"));
		json_t *prev = find_worker(rows_of(a, "workers"), wk);
		double loops = delta(prev, row, "loops");

		/* Busy over the interval: the loops that found work of the loops it turned. */
		json_array_append_new(
			out, json_pack("{s:I, s:I, s:f, s:f, s:f, s:f}", "worker", wk, "lcore",
				       json_integer_value(json_object_get(row, "lcore")), "rx_pps",
				       delta(prev, row, "rx_packets") / s, "tx_pps",
				       delta(prev, row, "tx_packets") / s, "handed_off_ps",
				       delta(prev, row, "handed_off") / s, "busy_pct",
				       loops > 0 ? 100.0 * delta(prev, row, "busy_loops") / loops
						 : 0.0));
	}
	return out;
}

json_t *
rsw_top_frame(json_t *a, json_t *b, double seconds)
{
	if (seconds <= 0)
		seconds = 1e-9;
	return json_pack("{s:f, s:o, s:o, s:o, s:o}", "interval_s", seconds, "ports",
			 ports_rates(a, b, seconds), "drops", drops_rates(a, b, seconds), "queues",
			 queues_rates(a, b, seconds), "workers", workers_rates(a, b, seconds));
}

/* --- the text view --------------------------------------------------------------------- */

/* A rate in at most 6 characters: 0, 7, 12.5, 999, 1.23k, 45.6M, 789G. */
static const char *
si(double v, char *buf, size_t len)
{
	static const char *const unit[] = {"", "k", "M", "G", "T", "P"};
	size_t u = 0;

	if (v < 0.05) {
		snprintf(buf, len, "0");
		return buf;
	}
	if (v < 10 && v != floor(v)) {
		snprintf(buf, len, "%.1f", v);
		return buf;
	}
	while (v >= 999.5 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.*f%s", v < 9.995 ? 2 : v < 99.95 ? 1 : 0, v, unit[u]);
	return buf;
}

/* A name cut to w columns ("~" marks the cut), control characters shown as '?'. */
static const char *
cut(const char *s, char *buf, size_t w)
{
	size_t i, n = strlen(s);

	for (i = 0; i < n && i < w; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	if (n > w)
		buf[w - 1] = '~';
	buf[i] = '\0';
	return buf;
}

static double
num(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

static void
draw_ports(json_t *ports)
{
	char n1[16], n2[16], n3[16], n4[16], n5[16], nm[TOP_NAME_MAX + 1];
	size_t i, w = 4;
	json_t *p;

	json_array_foreach(ports, i, p)
	{
		size_t l = strlen(json_string_value(json_object_get(p, "name")) ?: "");

		if (l > w)
			w = l > TOP_NAME_MAX ? TOP_NAME_MAX : l;
	}
	printf("%-*s  %9s %9s %9s %9s %9s  %s\n", (int)w, "PORT", "RX pkt/s", "RX bit/s",
	       "TX pkt/s", "TX bit/s", "DROP/s", "LINK");
	json_array_foreach(ports, i, p)
	{
		printf("%-*s  %9s %9s %9s %9s %9s  %s\n", (int)w,
		       cut(json_string_value(json_object_get(p, "name")) ?: "", nm, w),
		       si(num(p, "rx_pps"), n1, sizeof(n1)), si(num(p, "rx_bps"), n2, sizeof(n2)),
		       si(num(p, "tx_pps"), n3, sizeof(n3)), si(num(p, "tx_bps"), n4, sizeof(n4)),
		       si(num(p, "drop_pps"), n5, sizeof(n5)),
		       json_string_value(json_object_get(p, "link_state")) ?: "?");
	}
}

/* "drops/s: reason N, reason N" wrapped at 80 columns; only the reasons that moved. */
static void
draw_drops(json_t *drops)
{
	size_t i, col;
	char n[16], item[96];
	json_t *d;
	bool any = false;

	col = (size_t)printf("drops/s:");
	json_array_foreach(drops, i, d)
	{
		if (num(d, "pps") < 0.05)
			continue;
		snprintf(item, sizeof(item), " %s %s",
			 json_string_value(json_object_get(d, "reason")) ?: "?",
			 si(num(d, "pps"), n, sizeof(n)));
		if (col + strlen(item) + 1 > 80) {
			printf("\n        ");
			col = 8;
		}
		col += (size_t)printf("%s%s", any ? "," : "", item);
		any = true;
	}
	printf("%s\n", any ? "" : " none");
}

/* Queues with something to show: not empty, or marking, trimming, dropping or paused. */
static void
draw_queues(json_t *queues)
{
	char n1[16], n2[16], n3[16], n4[16], n5[16], nm[TOP_NAME_MAX + 1], key[TOP_NAME_MAX + 8];
	size_t i, shown = 0;
	json_t *q;

	json_array_foreach(queues, i, q)
	{
		if (num(q, "depth_bytes") == 0 && num(q, "ecn_marked_ps") < 0.05 &&
		    num(q, "trimmed_ps") < 0.05 && num(q, "dropped_ps") < 0.05 &&
		    num(q, "paused_ms_per_s") < 0.05)
			continue;
		if (shown++ == 0)
			printf("%-*s  %9s %9s %9s %9s %11s\n", TOP_NAME_MAX + 3, "PORT/TC",
			       "DEPTH B", "ECN/s", "TRIM/s", "DROP/s", "PAUSE ms/s");
		snprintf(key, sizeof(key), "%s/%d",
			 cut(json_string_value(json_object_get(q, "port")) ?: "", nm, TOP_NAME_MAX),
			 (int)json_integer_value(json_object_get(q, "tc")));
		printf("%-*s  %9s %9s %9s %9s %11s\n", TOP_NAME_MAX + 3, key,
		       si(num(q, "depth_bytes"), n1, sizeof(n1)),
		       si(num(q, "ecn_marked_ps"), n2, sizeof(n2)),
		       si(num(q, "trimmed_ps"), n3, sizeof(n3)),
		       si(num(q, "dropped_ps"), n4, sizeof(n4)),
		       si(num(q, "paused_ms_per_s"), n5, sizeof(n5)));
	}
	if (shown == 0)
		printf("queues: all empty; no ECN marks, trims, drops or pause\n");
}

static void
draw_workers(json_t *workers)
{
	char n1[16], n2[16], n3[16];
	size_t i;
	json_t *w;

	if (json_array_size(workers) == 0)
		return;
	printf("%-6s %5s  %9s %9s %11s %6s\n", "WORKER", "LCORE", "RX pkt/s", "TX pkt/s",
	       "HANDOFF/s", "BUSY%");
	json_array_foreach(workers, i, w)
	{
		printf("%-6d %5d  %9s %9s %11s %6.1f\n",
		       (int)json_integer_value(json_object_get(w, "worker")),
		       (int)json_integer_value(json_object_get(w, "lcore")),
		       si(num(w, "rx_pps"), n1, sizeof(n1)), si(num(w, "tx_pps"), n2, sizeof(n2)),
		       si(num(w, "handed_off_ps"), n3, sizeof(n3)), num(w, "busy_pct"));
	}
}

static void
draw(json_t *frame, const char *sock, unsigned long n, unsigned long count, bool tty)
{
	char of[32] = "";

	if (tty)
		fputs("\033[H\033[2J", stdout);
	else if (n > 1)
		putchar('\n');
	if (count != 0)
		snprintf(of, sizeof(of), " of %lu", count);
	printf("railctl top  %s  every %.2g s  frame %lu%s\n\n", sock, num(frame, "interval_s"), n,
	       of);
	draw_ports(json_object_get(frame, "ports"));
	putchar('\n');
	draw_drops(json_object_get(frame, "drops"));
	putchar('\n');
	draw_queues(json_object_get(frame, "queues"));
	putchar('\n');
	draw_workers(json_object_get(frame, "workers"));
}

/* --- main ------------------------------------------------------------------------------ */

static int
top_usage(void)
{
	top_warn("usage: top [-s SOCKET] [--interval S] [--count N] [--json]");
	return TOP_USAGE;
}

static void
sleep_until(double t)
{
	double left = t - mono_s();
	struct timespec ts;

	if (left <= 0)
		return;
	ts.tv_sec = (time_t)left;
	ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

int
rsw_top_main(const char *sock, bool json, int argc, char **argv)
{
	double interval = 1.0, t_prev, t_cur, next;
	unsigned long count = 0, n;
	json_t *prev = NULL, *cur = NULL, *frame;
	char *end, *text;
	bool tty;
	int i, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "-j") == 0 || strcmp(a, "--json") == 0) {
			json = true;
		} else if ((strcmp(a, "-s") == 0 || strcmp(a, "--socket") == 0) && v != NULL) {
			sock = v;
			i++;
		} else if ((strcmp(a, "-i") == 0 || strcmp(a, "--interval") == 0) && v != NULL) {
			errno = 0;
			interval = strtod(v, &end);
			if (errno != 0 || *end != '\0' || !(interval >= 0.1 && interval <= 3600)) {
				top_warn("top: --interval '%s': seconds from 0.1 to 3600", v);
				return TOP_USAGE;
			}
			i++;
		} else if ((strcmp(a, "-n") == 0 || strcmp(a, "--count") == 0) && v != NULL) {
			errno = 0;
			count = strtoul(v, &end, 10);
			if (errno != 0 || *end != '\0' || v[0] == '-' || count == 0) {
				top_warn("top: --count '%s': a number of frames, at least 1", v);
				return TOP_USAGE;
			}
			i++;
		} else {
			top_warn("top: unexpected argument '%s'", a);
			return top_usage();
		}
	}
	tty = !json && isatty(STDOUT_FILENO);
	rc = top_read(sock, &prev);
	if (rc != TOP_OK)
		return rc;
	t_prev = mono_s();
	next = t_prev;
	for (n = 1; count == 0 || n <= count; n++) {
		next += interval;
		sleep_until(next);
		rc = top_read(sock, &cur);
		if (rc != TOP_OK)
			break;
		t_cur = mono_s();
		frame = rsw_top_frame(prev, cur, t_cur - t_prev);
		if (frame == NULL) {
			top_warn("out of memory");
			rc = TOP_USAGE;
			break;
		}
		if (json) {
			text = json_dumps(frame, JSON_COMPACT | JSON_REAL_PRECISION(9));
			printf("%s\n", text ? text : "{}");
			free(text);
		} else {
			draw(frame, sock, n, count, tty);
		}
		json_decref(frame);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			top_warn("write error: %s", strerror(errno));
			rc = TOP_USAGE;
			break;
		}
		json_decref(prev);
		prev = cur;
		cur = NULL;
		t_prev = t_cur;
	}
	json_decref(prev);
	json_decref(cur);
	return rc;
}
