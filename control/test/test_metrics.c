/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the Prometheus exposition (metrics.c, http.c): the text formatter on
 * hand-made `show` replies (names, labels, escaping, types, grouping, every line in text
 * format 0.0.4), bad listen addresses, and the HTTP server on loopback with a fake `show
 * ports` command (200, 404, 405, malformed and over-long requests, bind conflict).
 */

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* cmocka.h needs the headers above. */
#include <cmocka.h>

#include "rsw_cmd.h"
#include "rsw_metrics.h"
#include "rsw_table.h"

/* A sample line: name, optional labels with escaped values, an integer or float value. */
#define SAMPLE_RE                                                                                  \
	"^[a-zA-Z_:][a-zA-Z0-9_:]*"                                                                \
	"(\\{[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\]|\\\\[\\\\\"n])*\""                                \
	"(,[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\]|\\\\[\\\\\"n])*\")*\\})?"                           \
	" -?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?$"

static json_t *
load(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	if (j == NULL)
		fail_msg("bad test JSON: %s", e.text);
	return j;
}

/* Check that every line is HELP, TYPE or a sample, that each metric has exactly one HELP
 * and one TYPE before its samples, and that its samples are contiguous. */
static void
check_format(const char *text)
{
	char seen[256][96], cur[96] = "";
	unsigned int n_seen = 0, i;
	const char *line = text, *nl;
	regex_t re;

	assert_int_equal(regcomp(&re, SAMPLE_RE, REG_EXTENDED | REG_NOSUB), 0);
	for (; *line != '\0'; line = nl + 1) {
		char buf[512], name[96];

		nl = strchr(line, '\n');
		assert_non_null(nl); /* every line ends with \n, the last one too */
		assert_true((size_t)(nl - line) < sizeof(buf));
		memcpy(buf, line, (size_t)(nl - line));
		buf[nl - line] = '\0';
		if (strncmp(buf, "# HELP ", 7) == 0) {
			assert_int_equal(sscanf(buf + 7, "%95s", name), 1);
			for (i = 0; i < n_seen; i++)
				assert_string_not_equal(seen[i], name);
			assert_true(n_seen < 256);
			snprintf(seen[n_seen++], sizeof(seen[0]), "%s", name);
			snprintf(cur, sizeof(cur), "%s", name);
			continue;
		}
		if (strncmp(buf, "# TYPE ", 7) == 0) {
			char type[16];

			assert_int_equal(sscanf(buf + 7, "%95s %15s", name, type), 2);
			assert_string_equal(name, cur);
			assert_true(strcmp(type, "counter") == 0 || strcmp(type, "gauge") == 0);
			continue;
		}
		if (regexec(&re, buf, 0, NULL, 0) != 0)
			fail_msg("not a sample line: '%s'", buf);
		assert_int_equal(sscanf(buf, "%95[^{ ]", name), 1);
		assert_string_equal(name, cur);
	}
	regfree(&re);
}

/* The line of text that starts with prefix, or NULL. */
static const char *
find_line(const char *text, const char *prefix)
{
	const char *p = text;
	size_t n = strlen(prefix);

	for (; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, prefix, n) == 0)
			return p;
	return NULL;
}

static void
assert_line(const char *text, const char *line)
{
	const char *p = find_line(text, line);

	if (p == NULL || (p[strlen(line)] != '\n'))
		fail_msg("line '%s' not found in:\n%s", line, text);
}

static void
test_format_empty(void **state)
{
	struct rsw_metrics_src src = {0};
	json_t *ports = load("{\"ports\": []}");
	size_t len = 99;
	char *text;

	text = rsw_metrics_format(&src, &len);
	assert_non_null(text);
	assert_int_equal(len, 0);
	free(text);
	/* A table without rows, or a reply without its key, gives nothing. */
	src.ports = ports;
	src.queues = ports;
	text = rsw_metrics_format(&src, &len);
	assert_non_null(text);
	assert_int_equal(len, 0);
	free(text);
	json_decref(ports);
}

static void
test_format_ports_escaping(void **state)
{
	json_t *ports =
		load("{\"ports\": ["
		     "{\"name\": \"p0\", \"id\": 0, \"mac\": \"02:00:00:00:00:01\","
		     " \"speed_bps\": 100000000000, \"link_up\": true, \"admin_up\": false,"
		     " \"rx_packets\": 12, \"rx_bytes\": 1200, \"mtu\": 9000, \"mac_ctrl\": true},"
		     "{\"name\": \"we\\\"ird\\\\na\\nme\", \"id\": 1, \"mac\": \"x\","
		     " \"speed_bps\": 0, \"link_up\": false, \"admin_up\": true,"
		     " \"rx_packets\": 18446744073709551, \"rx_bytes\": 0, \"mtu\": 1500}]}");
	struct rsw_metrics_src src = {.ports = ports};
	char help[256];
	size_t len;
	char *text = rsw_metrics_format(&src, &len);

	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	check_format(text);
	assert_line(text, "# TYPE railsw_rx_packets counter");
	assert_line(text, "# TYPE railsw_rx_bytes counter");
	assert_line(text, "# TYPE railsw_speed_bps gauge");
	assert_line(text, "# TYPE railsw_link_up gauge");
	assert_line(text, "# TYPE railsw_mtu gauge");
	/* States are gauges; HELP is the field's help from its definition. */
	assert_line(text, "# TYPE railsw_mac_ctrl gauge");
	assert_line(text, "railsw_mac_ctrl{port=\"p0\"} 1");
	snprintf(help, sizeof(help), "# HELP railsw_rx_packets %s (show ports, packets)",
		 rsw_table_field(&rsw_table_ports, "rx_packets")->help);
	assert_line(text, help);
	assert_line(text, "railsw_rx_packets{port=\"p0\"} 12");
	assert_line(text, "railsw_speed_bps{port=\"p0\"} 100000000000");
	assert_line(text, "railsw_link_up{port=\"p0\"} 1");
	assert_line(text, "railsw_admin_up{port=\"p0\"} 0");
	/* Backslash, double quote and newline escaped in label values. */
	assert_line(text, "railsw_rx_packets{port=\"we\\\"ird\\\\na\\nme\"} 18446744073709551");
	/* Strings and the port id are not metrics. */
	assert_null(strstr(text, "railsw_mac{"));
	assert_null(strstr(text, "railsw_mac "));
	assert_null(strstr(text, "railsw_id"));
	assert_null(strstr(text, "railsw_name"));
	free(text);
	json_decref(ports);
}

static void
test_format_link_unknown(void **state)
{
	/* The first port's link is unknown (null): its row has no railsw_link_up, the others do. */
	json_t *ports = load("{\"ports\": ["
			     "{\"name\": \"t0\", \"link_up\": null, \"link_state\": \"unknown\","
			     " \"rx_packets\": 1},"
			     "{\"name\": \"m0\", \"link_up\": false, \"link_state\": \"down\","
			     " \"rx_packets\": 2}]}");
	json_t *all_unknown = load("{\"ports\": [{\"name\": \"t0\", \"link_up\": null,"
				   " \"rx_packets\": 1}]}");
	struct rsw_metrics_src src = {.ports = ports};
	size_t len;
	char *text = rsw_metrics_format(&src, &len);

	assert_non_null(text);
	check_format(text);
	assert_line(text, "# TYPE railsw_link_up gauge");
	assert_line(text, "railsw_link_up{port=\"m0\"} 0");
	assert_null(strstr(text, "railsw_link_up{port=\"t0\"}"));
	assert_null(strstr(text, "link_state"));
	assert_line(text, "railsw_rx_packets{port=\"t0\"} 1");
	free(text);
	src.ports = all_unknown;
	text = rsw_metrics_format(&src, &len);
	assert_non_null(text);
	check_format(text);
	assert_null(strstr(text, "railsw_link_up"));
	assert_line(text, "railsw_rx_packets{port=\"t0\"} 1");
	free(text);
	json_decref(ports);
	json_decref(all_unknown);
}

static void
test_format_tables(void **state)
{
	json_t *queues =
		load("{\"queues\": [{\"port\": \"p0\", \"tc\": 3, \"enqueued_packets\": 5,"
		     " \"depth_bytes\": 1500, \"watermark_bytes\": 3000, \"lossless\": true},"
		     "{\"port\": \"p0\", \"tc\": 4, \"enqueued_packets\": 0,"
		     " \"depth_bytes\": 0, \"watermark_bytes\": 0, \"lossless\": false}]}");
	json_t *pfc = load("{\"pfc\": [{\"port\": \"p0\", \"priority\": 3, \"tx_xoff\": 1,"
			   " \"rx_xon\": 2, \"lossless\": true, \"paused\": false}]}");
	json_t *buffer =
		load("{\"buffer\": {\"total\": 1000, \"used\": 10, \"headroom_reserved\": 0,"
		     " \"watermark\": 20}, \"pgs\": [{\"port\": \"p1\", \"pg\": 3,"
		     " \"bytes\": 7, \"watermark\": 9, \"xoff_threshold\": 100,"
		     " \"lossless_drops\": 4, \"lossless\": true}]}");
	json_t *drops = load("{\"drops\": [{\"reason\": \"no_route\", \"packets\": 3},"
			     " {\"reason\": \"ttl_expired\", \"packets\": 0}]}");
	json_t *lb = load("{\"groups\": [{\"id\": 0, \"prefix\": \"10.20.0.0/16\", \"mode\":"
			  " \"hash\", \"members\": [{\"nexthop\": \"10.2.0.1\", \"port\": \"p1\","
			  " \"up\": true, \"packets\": 8, \"bytes\": 800}]}]}");
	struct rsw_metrics_src src = {
		.queues = queues, .pfc = pfc, .buffer = buffer, .drops = drops, .lb = lb};
	size_t len;
	char *text = rsw_metrics_format(&src, &len);

	assert_non_null(text);
	check_format(text);
	assert_line(text, "# TYPE railsw_enqueued_packets counter");
	assert_line(text, "railsw_enqueued_packets{port=\"p0\",tc=\"3\"} 5");
	assert_line(text, "# TYPE railsw_depth_bytes gauge");
	assert_line(text, "railsw_depth_bytes{port=\"p0\",tc=\"3\"} 1500");
	assert_line(text, "# TYPE railsw_watermark_bytes gauge");
	assert_line(text, "railsw_lossless{port=\"p0\",tc=\"4\"} 0");
	assert_line(text, "# TYPE railsw_tx_xoff counter");
	assert_line(text, "railsw_tx_xoff{port=\"p0\",priority=\"3\"} 1");
	assert_line(text, "# TYPE railsw_paused gauge");
	assert_null(strstr(text, "railsw_lossless{port=\"p0\",priority"));
	assert_line(text, "# TYPE railsw_buffer_used gauge");
	assert_line(text, "railsw_buffer_used 10");
	assert_line(text, "railsw_buffer_total 1000");
	assert_line(text, "# TYPE railsw_pg_bytes gauge");
	assert_line(text, "railsw_pg_bytes{port=\"p1\",pg=\"3\"} 7");
	assert_line(text, "# TYPE railsw_pg_lossless_drops counter");
	assert_line(text, "railsw_pg_lossless_drops{port=\"p1\",pg=\"3\"} 4");
	assert_line(text, "# TYPE railsw_drop_packets counter");
	assert_line(text, "railsw_drop_packets{reason=\"no_route\"} 3");
	assert_line(text, "railsw_lb_member_packets{group=\"0\",prefix=\"10.20.0.0/16\","
			  "nexthop=\"10.2.0.1\",port=\"p1\"} 8");
	assert_line(text, "# TYPE railsw_lb_member_up gauge");
	assert_null(strstr(text, "mode"));
	free(text);
	json_decref(queues);
	json_decref(pfc);
	json_decref(buffer);
	json_decref(drops);
	json_decref(lb);
}

static void
test_open_bad_address(void **state)
{
	static const char *const bad[] = {
		"",
		"nocolon",
		"127.0.0.1",
		"127.0.0.1:",
		":9417",
		"[::1",
		"[::1]9417",
		"::1:9417",
		"256.1.1.1:80",
		"127.0.0.1:http",
		"127.0.0.1:99999",
	};
	char err[256];
	unsigned int i;

	assert_null(rsw_metrics_open(NULL, err, sizeof(err)));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rsw_metrics *m = rsw_metrics_open(bad[i], err, sizeof(err));

		if (m != NULL)
			fail_msg("'%s' accepted", bad[i]);
		assert_true(strstr(err, "metrics_listen") != NULL);
	}
	/* NULL is a no-op. */
	rsw_metrics_poll(NULL);
	rsw_metrics_close(NULL);
	assert_int_equal(rsw_metrics_client_count(NULL), 0);
}

/* A loopback port free right now. */
static int
free_port(void)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	close(fd);
	return ntohs(sa.sin_port);
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A client connected to 127.0.0.1:port (non-blocking, maybe still connecting). */
static int
connect_to(int port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	assert_true(fd >= 0);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		assert_int_equal(errno, EINPROGRESS);
	return fd;
}

/* Send req (len bytes) and serve until the server closes; the response, malloc'd. */
static char *
http(struct rsw_metrics *m, int port, const char *req, size_t len)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	size_t got = 0, cap = 1 << 16, sent = 0;
	char *out = calloc(1, cap);
	uint64_t deadline = now_ms() + 3000;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	ssize_t n;

	assert_non_null(out);
	assert_true(fd >= 0);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		assert_int_equal(errno, EINPROGRESS);
	while (now_ms() < deadline) {
		rsw_metrics_poll(m);
		if (sent < len) {
			n = send(fd, req + sent, len - sent, MSG_NOSIGNAL);
			if (n > 0)
				sent += (size_t)n;
		}
		n = recv(fd, out + got, cap - got - 1, 0);
		if (n == 0)
			break;
		if (n < 0 && errno != EAGAIN && errno != ENOTCONN && errno != ECONNRESET)
			fail_msg("recv: %s", strerror(errno));
		if (n < 0 && errno == ECONNRESET)
			break;
		if (n > 0)
			got += (size_t)n;
		poll(NULL, 0, 1);
	}
	close(fd);
	out[got] = '\0';
	return out;
}

/* Whether response r has the status code (an HTTP/1.0 or HTTP/1.1 status line). */
static bool
status_is(const char *r, const char *code)
{
	return (strncmp(r, "HTTP/1.0 ", 9) == 0 || strncmp(r, "HTTP/1.1 ", 9) == 0) &&
	       strncmp(r + 9, code, 3) == 0 && r[12] == ' ';
}

static json_t *
fake_show_ports(int argc, char **argv, void *ctx)
{
	return json_pack("{s:[{s:s, s:i, s:I}]}", "ports", "name", "p\"0", "id", 0, "rx_packets",
			 (json_int_t)42);
}

static void
test_http(void **state)
{
	char addr[64], err[256], *big, *r;
	int port = free_port(), idle[RSW_METRICS_MAX_CLIENTS], i, j;
	struct rsw_metrics *m, *m2;

	rsw_cmd_unregister_all();
	assert_int_equal(
		rsw_cmd_register("show ports", 0, 1, "[PORT]", "ports", fake_show_ports, NULL), 0);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	m = rsw_metrics_open(addr, err, sizeof(err));
	assert_non_null(m);

	/* The same address again: a clear error. */
	m2 = rsw_metrics_open(addr, err, sizeof(err));
	assert_null(m2);
	assert_int_equal(errno, EADDRINUSE);
	assert_non_null(strstr(err, addr));

	r = http(m, port, "GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n", 34);
	assert_true(strncmp(r, "HTTP/1.0 200 OK\r\n", 17) == 0);
	assert_non_null(strstr(r, "Content-Type: text/plain; version=0.0.4"));
	assert_non_null(strstr(r, "\r\n\r\n# HELP railsw_rx_packets"));
	assert_non_null(strstr(r, "\nrailsw_rx_packets{port=\"p\\\"0\"} 42\n"));
	check_format(strstr(r, "\r\n\r\n") + 4);
	free(r);

	r = http(m, port, "GET /metrics?x=1 HTTP/1.1\nHost: x\n\n", 35);
	assert_true(strncmp(r, "HTTP/1.0 200 OK\r\n", 17) == 0);
	free(r);

	r = http(m, port, "GET / HTTP/1.0\r\n\r\n", 18);
	assert_true(strncmp(r, "HTTP/1.0 404 ", 13) == 0);
	free(r);
	r = http(m, port, "GET /metricsx HTTP/1.0\r\n\r\n", 26);
	assert_true(strncmp(r, "HTTP/1.0 404 ", 13) == 0);
	free(r);
	r = http(m, port, "POST /metrics HTTP/1.0\r\n\r\n", 26);
	assert_true(strncmp(r, "HTTP/1.0 405 ", 13) == 0);
	free(r);
	/* Malformed requests: libmicrohttpd's own 400 (an HTTP/1.1 status line), or nothing. */
	r = http(m, port, "GET /metrics HTTP/1.0\r\nno colon\r\n\r\n", 35);
	assert_true(status_is(r, "400"));
	free(r);
	r = http(m, port, "\x01\x02garbage\r\n\r\n", 13);
	assert_true(r[0] == '\0' || status_is(r, "400"));
	free(r);
	/* Empty lines before a request line are skipped (RFC 9112 2.2): no request, no reply. */
	r = http(m, port, "\r\n\r\n", 4);
	assert_true(r[0] == '\0');
	free(r);

	/* An over-long request: 414 (or a reset), the connection closed, the server still fine. */
	big = malloc(RSW_METRICS_MAX_REQUEST * 2);
	assert_non_null(big);
	memset(big, 'A', RSW_METRICS_MAX_REQUEST * 2);
	memcpy(big, "GET /", 5);
	r = http(m, port, big, RSW_METRICS_MAX_REQUEST * 2);
	assert_true(r[0] == '\0' || status_is(r, "414"));
	free(r);
	free(big);
	for (i = 0; i < 50 && rsw_metrics_client_count(m) > 0; i++) {
		rsw_metrics_poll(m);
		poll(NULL, 0, 2);
	}
	assert_int_equal(rsw_metrics_client_count(m), 0);
	r = http(m, port, "GET /metrics HTTP/1.0\r\n\r\n", 25);
	assert_true(strncmp(r, "HTTP/1.0 200 OK\r\n", 17) == 0);
	free(r);

	/* Every client slot held by a silent client: one more gets 503 at once. */
	for (i = 0; i < RSW_METRICS_MAX_CLIENTS; i++)
		idle[i] = connect_to(port);
	for (j = 0; j < 500 && rsw_metrics_client_count(m) < RSW_METRICS_MAX_CLIENTS; j++) {
		rsw_metrics_poll(m);
		poll(NULL, 0, 2);
	}
	assert_int_equal(rsw_metrics_client_count(m), RSW_METRICS_MAX_CLIENTS);
	r = http(m, port, "GET /metrics HTTP/1.0\r\n\r\n", 25);
	assert_true(strncmp(r, "HTTP/1.0 503 ", 13) == 0);
	free(r);
	for (i = 0; i < RSW_METRICS_MAX_CLIENTS; i++)
		close(idle[i]);
	for (j = 0; j < 500 && rsw_metrics_client_count(m) > 0; j++) {
		rsw_metrics_poll(m);
		poll(NULL, 0, 2);
	}
	assert_int_equal(rsw_metrics_client_count(m), 0);
	r = http(m, port, "GET /metrics HTTP/1.0\r\n\r\n", 25);
	assert_true(strncmp(r, "HTTP/1.0 200 OK\r\n", 17) == 0);
	free(r);

	rsw_metrics_close(m);
	rsw_cmd_unregister_all();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_bad_address),
		cmocka_unit_test(test_format_empty),
		cmocka_unit_test(test_format_ports_escaping),
		cmocka_unit_test(test_format_link_unknown),
		cmocka_unit_test(test_format_tables),
		cmocka_unit_test(test_http),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
