/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the control socket (sock.c): a real unix socket in a temporary directory
 * driven by rsw_sock_poll in bounded loops, with plain socket()/connect() clients, in front
 * of the registry of test_cmd_common.h: the socket file, requests split and joined, half
 * and over-long lines, many clients, a client that does not read. The registry itself:
 * test_cmd.c.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* cmocka needs stdarg, stddef and setjmp first. */
#include <cmocka.h>

#include "rsw_cmd.h"
#include "test_cmd_common.h"

/* Upper bound on rsw_sock_poll rounds while waiting for something (~5 s). */
#define POLL_ROUNDS 500
#define POLL_MS     10

/* The socket. */

struct sock_fixture {
	char dir[48];
	char path[96];
	struct rsw_sock *s;
};

static int
setup_sock(void **state)
{
	struct sock_fixture *f = calloc(1, sizeof(*f));
	char err[256];

	assert_non_null(f);
	setup_registry(state);
	snprintf(f->dir, sizeof(f->dir), "/tmp/rsw_test_cmd_XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	/* A missing parent directory is created. */
	snprintf(f->path, sizeof(f->path), "%s/run/railsw.sock", f->dir);
	f->s = rsw_sock_open(f->path, err, sizeof(err));
	if (f->s == NULL)
		fail_msg("rsw_sock_open: %s", err);
	*state = f;
	return 0;
}

static int
teardown_sock(void **state)
{
	struct sock_fixture *f = *state;
	char sub[160];

	rsw_sock_close(f->s);
	snprintf(sub, sizeof(sub), "%s/run", f->dir);
	rmdir(sub);
	rmdir(f->dir);
	free(f);
	rsw_cmd_unregister_all();
	return 0;
}

static int
client(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static void
send_all(int fd, const void *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		assert_true(n > 0);
		buf = (const char *)buf + n;
		len -= n;
	}
}

static void
send_str(int fd, const char *s)
{
	send_all(fd, s, strlen(s));
}

/* What a client has received so far. */
struct rx {
	char buf[1 << 20];
	size_t len;
	bool eof;
};

static void
rx_pump(int fd, struct rx *r)
{
	ssize_t n;

	while (!r->eof && r->len < sizeof(r->buf) - 1) {
		n = recv(fd, r->buf + r->len, sizeof(r->buf) - 1 - r->len, MSG_DONTWAIT);
		if (n > 0) {
			r->len += n;
		} else if (n == 0 || errno == ECONNRESET) {
			r->eof = true;
		} else {
			assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
			break;
		}
	}
	r->buf[r->len] = '\0';
}

static size_t
rx_lines(const struct rx *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->len; i++)
		n += r->buf[i] == '\n';
	return n;
}

/* Serve until fd has received `lines` lines (and EOF if want_eof); bounded. */
static void
serve_until(struct rsw_sock *s, int fd, struct rx *r, size_t lines, bool want_eof)
{
	int i;

	for (i = 0; i < POLL_ROUNDS; i++) {
		rx_pump(fd, r);
		if (rx_lines(r) >= lines && (!want_eof || r->eof))
			return;
		rsw_sock_poll(s, POLL_MS);
	}
	fail_msg("timed out: %zu of %zu lines, eof %d: %.200s", rx_lines(r), lines, r->eof, r->buf);
}

/* Serve until the server counts `n` clients; bounded. */
static void
serve_until_clients(struct rsw_sock *s, unsigned int n)
{
	int i;

	for (i = 0; i < POLL_ROUNDS && rsw_sock_client_count(s) != n; i++)
		rsw_sock_poll(s, POLL_MS);
	assert_int_equal(rsw_sock_client_count(s), n);
}

/* The n-th reply line of r (0-based), parsed. */
static json_t *
rx_json(const struct rx *r, size_t n)
{
	const char *p = r->buf, *nl;
	json_error_t jerr;
	json_t *j;

	for (;;) {
		nl = strchr(p, '\n');
		assert_non_null(nl);
		if (n-- == 0)
			break;
		p = nl + 1;
	}
	j = json_loadb(p, nl - p, 0, &jerr);
	if (j == NULL)
		fail_msg("bad JSON line: %s", jerr.text);
	return j;
}

static struct rx *
rx_new(void)
{
	struct rx *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	return r;
}

static void
test_sock_file(void **state)
{
	struct sock_fixture *f = *state;
	char err[256], sub[160];
	struct stat st;

	assert_int_equal(stat(f->path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	snprintf(sub, sizeof(sub), "%s/run", f->dir);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);

	/* A live server on the path: refuse. */
	errno = 0;
	assert_null(rsw_sock_open(f->path, err, sizeof(err)));
	assert_int_equal(errno, EADDRINUSE);
	assert_non_null(strstr(err, f->path));
	assert_non_null(strstr(err, "listening"));
	/* Path too long, not a socket. */
	memset(sub, 'a', sizeof(sub));
	sub[0] = '/';
	sub[sizeof(sub) - 1] = '\0';
	assert_null(rsw_sock_open(sub, err, sizeof(err)));
	assert_int_equal(errno, ENAMETOOLONG);
	snprintf(sub, sizeof(sub), "%s/run", f->dir);
	assert_null(rsw_sock_open(sub, err, sizeof(err)));
	assert_int_equal(errno, EEXIST);
	assert_null(rsw_sock_open("", err, sizeof(err)));
	assert_int_equal(errno, EINVAL);

	/* Close removes the file; a stale socket file is replaced. */
	rsw_sock_close(f->s);
	assert_int_equal(stat(f->path, &st), -1);
	{
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->path);
		assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
		close(fd); /* the file stays, nobody listens */
	}
	assert_int_equal(stat(f->path, &st), 0);
	f->s = rsw_sock_open(f->path, err, sizeof(err));
	if (f->s == NULL)
		fail_msg("stale socket not replaced: %s", err);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	rsw_sock_close(NULL);
	assert_int_equal(rsw_sock_client_count(NULL), 0);
}

static void
test_sock_basic(void **state)
{
	struct sock_fixture *f = *state;
	struct rx *r = rx_new();
	int fd = client(f->path);
	json_t *j;

	/* Two lines in one write, the second with CRLF, then garbage. */
	send_str(fd, "show ports\nshow queues p0\r\n");
	serve_until(f->s, fd, r, 2, false);
	j = rx_json(r, 0);
	assert_string_equal(json_string_value(json_object_get(j, "cmd")), "show ports");
	json_decref(j);
	j = rx_json(r, 1);
	assert_string_equal(json_string_value(json_object_get(j, "cmd")), "show queues");
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "args"), 0)), "p0");
	json_decref(j);
	/* Replies are compact, one line each. */
	assert_null(strstr(r->buf, ": "));

	send_str(fd, "shw\n\n\xff\xfe\x01\nhelp\n");
	send_all(fd, "a\0b\n", 4);
	serve_until(f->s, fd, r, 7, false);
	assert_non_null(strstr(r->buf, "{\"error\":\"unknown command 'shw'\"}\n"
				       "{\"error\":\"empty request\"}\n"
				       "{\"error\":\"malformed request\"}\n"
				       "{\"commands\":["));
	j = rx_json(r, 6);
	assert_string_equal(err_of(j), "malformed request");
	json_decref(j);

	/* A line split over several writes is answered once complete. */
	send_str(fd, "show ");
	rsw_sock_poll(f->s, 0);
	send_str(fd, "queues");
	rsw_sock_poll(f->s, 0);
	send_str(fd, "\n");
	serve_until(f->s, fd, r, 8, false);
	j = rx_json(r, 7);
	assert_string_equal(json_string_value(json_object_get(j, "cmd")), "show queues");
	json_decref(j);
	assert_int_equal(rsw_sock_client_count(f->s), 1);

	close(fd);
	serve_until_clients(f->s, 0);
	free(r);
}

static void
test_sock_half_line(void **state)
{
	struct sock_fixture *f = *state;
	struct rx *r = rx_new();
	int fd = client(f->path);

	send_str(fd, "show po");
	serve_until_clients(f->s, 1);
	rsw_sock_poll(f->s, 0);
	close(fd);
	serve_until_clients(f->s, 0);

	/* A client that half-closes after its request still gets the answer. */
	fd = client(f->path);
	send_str(fd, "show ports\nshow q");
	shutdown(fd, SHUT_WR);
	serve_until(f->s, fd, r, 1, true);
	assert_int_equal(rx_lines(r), 1);
	close(fd);
	serve_until_clients(f->s, 0);

	/* The server still answers. */
	memset(r, 0, sizeof(*r));
	fd = client(f->path);
	send_str(fd, "show ports\n");
	serve_until(f->s, fd, r, 1, false);
	close(fd);
	serve_until_clients(f->s, 0);
	free(r);
}

static void
test_sock_long_line(void **state)
{
	struct sock_fixture *f = *state;
	struct rx *r = rx_new();
	char line[5001];
	int fd = client(f->path), fd2 = client(f->path);
	json_t *j;

	/* A good line, then 5000 bytes with no newline: an error, then EOF. */
	memset(line, 'a', sizeof(line));
	send_str(fd, "show ports\n");
	send_all(fd, line, sizeof(line));
	serve_until(f->s, fd, r, 2, true);
	assert_int_equal(rx_lines(r), 2);
	j = rx_json(r, 1);
	assert_string_equal(err_of(j), "request too long (more than 4096 bytes)");
	json_decref(j);
	close(fd);

	/* Exactly RSW_CMD_MAX_LINE bytes plus newline is a request. */
	memset(r, 0, sizeof(*r));
	line[RSW_CMD_MAX_LINE] = '\n';
	send_all(fd2, line, RSW_CMD_MAX_LINE + 1);
	serve_until(f->s, fd2, r, 1, false);
	j = rx_json(r, 0);
	assert_non_null(strstr(err_of(j), "unknown command"));
	json_decref(j);
	assert_false(r->eof);
	close(fd2);
	serve_until_clients(f->s, 0);
	free(r);
}

static void
test_sock_many_clients(void **state)
{
	struct sock_fixture *f = *state;
	enum {
		N = 100
	};
	int fds[RSW_SOCK_MAX_CLIENTS + 1], i, round, done = 0, extra;
	static struct rx r[RSW_SOCK_MAX_CLIENTS];
	char req[64];

	memset(r, 0, sizeof(r));
	for (i = 0; i < N; i++)
		fds[i] = client(f->path);
	for (i = 0; i < N; i++) {
		snprintf(req, sizeof(req), "show queues q%d\n", i);
		send_str(fds[i], req);
	}
	for (round = 0; round < POLL_ROUNDS && done < N; round++) {
		rsw_sock_poll(f->s, POLL_MS);
		for (i = 0, done = 0; i < N; i++) {
			rx_pump(fds[i], &r[i]);
			done += rx_lines(&r[i]) == 1;
		}
	}
	assert_int_equal(done, N);
	for (i = 0; i < N; i++) {
		json_t *j = rx_json(&r[i], 0);

		snprintf(req, sizeof(req), "q%d", i);
		assert_string_equal(
			json_string_value(json_array_get(json_object_get(j, "args"), 0)), req);
		json_decref(j);
	}
	assert_int_equal(rsw_sock_client_count(f->s), N);

	/* Fill up to the limit; one more is told so and closed. */
	for (i = N; i < RSW_SOCK_MAX_CLIENTS; i++)
		fds[i] = client(f->path);
	serve_until_clients(f->s, RSW_SOCK_MAX_CLIENTS);
	extra = client(f->path);
	memset(&r[0], 0, sizeof(r[0]));
	serve_until(f->s, extra, &r[0], 1, true);
	assert_string_equal(r[0].buf, "{\"error\":\"too many clients\"}\n");
	close(extra);
	assert_int_equal(rsw_sock_client_count(f->s), RSW_SOCK_MAX_CLIENTS);

	for (i = 0; i < RSW_SOCK_MAX_CLIENTS; i++)
		close(fds[i]);
	serve_until_clients(f->s, 0);
}

/* A client that sends many requests and does not read never blocks the server. */
static void
test_sock_slow_reader(void **state)
{
	struct sock_fixture *f = *state;
	struct rx *r = rx_new(), *r2 = rx_new();
	int fd = client(f->path), fd2, i, round;
	char reqs[20 * 4 + 1];
	size_t total = 0;
	ssize_t n;
	char buf[65536];

	reqs[0] = '\0';
	for (i = 0; i < 20; i++)
		strcat(reqs, "big\n");
	send_str(fd, reqs);
	/* Every poll returns although fd reads nothing (a blocking write would hang). */
	for (i = 0; i < 50; i++)
		rsw_sock_poll(f->s, 0);
	/* Others are still served meanwhile. */
	fd2 = client(f->path);
	send_str(fd2, "show ports\n");
	serve_until(f->s, fd2, r2, 1, false);
	close(fd2);

	/* Now read all 20 replies. */
	for (round = 0; round < POLL_ROUNDS * 4 && rx_lines(r) < 20; round++) {
		rsw_sock_poll(f->s, POLL_MS);
		while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
			for (i = 0; i < n; i++)
				r->len += buf[i] == '\n'; /* count lines in len */
			total += n;
		}
		if (r->len >= 20)
			break;
	}
	assert_int_equal(r->len, 20);
	assert_true(total > 20 * 100000);
	close(fd);
	serve_until_clients(f->s, 0);
	free(r);
	free(r2);
}

int
main(void)
{
	const struct CMUnitTest sock_tests[] = {
		cmocka_unit_test_setup_teardown(test_sock_file, setup_sock, teardown_sock),
		cmocka_unit_test_setup_teardown(test_sock_basic, setup_sock, teardown_sock),
		cmocka_unit_test_setup_teardown(test_sock_half_line, setup_sock, teardown_sock),
		cmocka_unit_test_setup_teardown(test_sock_long_line, setup_sock, teardown_sock),
		cmocka_unit_test_setup_teardown(test_sock_many_clients, setup_sock, teardown_sock),
		cmocka_unit_test_setup_teardown(test_sock_slow_reader, setup_sock, teardown_sock),
	};
	int fails;

	fails = cmocka_run_group_tests_name("sock", sock_tests, NULL, NULL);
	return fails ? 1 : 0;
}
