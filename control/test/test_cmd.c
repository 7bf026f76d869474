/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Unit tests of the command registry (cmd.c) and the control socket (sock.c):
 * bad requests first (binary, NUL, over-long, too many words, empty), then
 * matching, argument bounds and help; then a real unix socket in a temporary
 * directory driven by rsw_sock_poll in bounded loops, with plain
 * socket()/connect() clients. Last, the tables' definitions (table.c): `describe` and
 * the row builder.
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
#include "rsw_qos.h"
#include "rsw_stats.h"
#include "rsw_table.h"

/* Upper bound on rsw_sock_poll rounds while waiting for something (~5 s). */
#define POLL_ROUNDS 500
#define POLL_MS     10

/* A handler that echoes what it was called with: {"cmd":ctx,"args":[...]}. */
static json_t *
echo_fn(int argc, char **argv, void *ctx)
{
	json_t *args = json_array();
	int i;

	for (i = 0; i < argc; i++)
		json_array_append_new(args, json_string(argv[i]));
	assert_null(argv[argc]);
	return json_pack("{s:s,s:o}", "cmd", (const char *)ctx, "args", args);
}

static json_t *
null_fn(int argc, char **argv, void *ctx)
{
	return NULL;
}

/* A reply of about 200 KB, to fill socket buffers. */
static json_t *
big_fn(int argc, char **argv, void *ctx)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < 10000; i++)
		json_array_append_new(a, json_pack("{s:i,s:s}", "i", i, "pad", "xxxxxxxx"));
	return json_pack("{s:o}", "rows", a);
}

static int
setup_registry(void **state)
{
	assert_int_equal(rsw_cmd_register("show ports", 0, 0, "", "per-port counters", echo_fn,
					  "show ports"),
			 0);
	assert_int_equal(rsw_cmd_register("show queues", 0, 1, "[PORT]", "per-queue counters",
					  echo_fn, "show queues"),
			 0);
	assert_int_equal(
		rsw_cmd_register("show", 1, -1, "WHAT...", "generic show", echo_fn, "show"), 0);
	assert_int_equal(rsw_cmd_register("show ports detail", 1, 2, "PORT [FIELD]", "one port",
					  echo_fn, "show ports detail"),
			 0);
	assert_int_equal(
		rsw_cmd_register("port", 2, 2, "NAME down|up", "admin state", echo_fn, "port"), 0);
	assert_int_equal(rsw_cmd_register("clear counters", 0, 0, NULL, "zero counters", echo_fn,
					  "clear counters"),
			 0);
	assert_int_equal(rsw_cmd_register("null", 0, 0, "", "returns NULL", null_fn, NULL), 0);
	assert_int_equal(rsw_cmd_register("big", 0, 0, "", "a big reply", big_fn, NULL), 0);
	return 0;
}

static int
teardown_registry(void **state)
{
	rsw_cmd_unregister_all();
	return 0;
}

/* The error string of reply, or NULL. Frees nothing. */
static const char *
err_of(json_t *reply)
{
	assert_non_null(reply);
	return json_string_value(json_object_get(reply, "error"));
}

static void
expect_error(const char *line, size_t len, const char *msg)
{
	json_t *r = rsw_cmd_exec(line, len);

	assert_non_null(err_of(r));
	if (msg != NULL)
		assert_string_equal(err_of(r), msg);
	json_decref(r);
}

static void
expect_error_str(const char *line, const char *msg)
{
	expect_error(line, strlen(line), msg);
}

/* Run line, expect the echo of handler `cmd` with the given arguments. */
static void
expect_call(const char *line, const char *cmd, int nargs, ...)
{
	json_t *r = rsw_cmd_exec(line, strlen(line)), *args;
	va_list ap;
	int i;

	assert_non_null(r);
	if (err_of(r) != NULL)
		fail_msg("'%s' -> error '%s'", line, err_of(r));
	assert_string_equal(json_string_value(json_object_get(r, "cmd")), cmd);
	args = json_object_get(r, "args");
	assert_int_equal(json_array_size(args), nargs);
	va_start(ap, nargs);
	for (i = 0; i < nargs; i++)
		assert_string_equal(json_string_value(json_array_get(args, i)),
				    va_arg(ap, const char *));
	va_end(ap);
	json_decref(r);
}

/* Bad input first. */

static void
test_malformed(void **state)
{
	static const char nul[] = "show\0ports";
	char buf[5000];

	expect_error(NULL, 0, "empty request");
	expect_error("", 0, "empty request");
	expect_error_str("   \t  ", "empty request");
	expect_error(nul, sizeof(nul) - 1, "malformed request");
	expect_error_str("show \xff\xfe ports", "malformed request");
	expect_error_str("show ports\x1b[2J", "malformed request");
	expect_error_str("show ports\r", "malformed request");
	expect_error_str("show\nports", "malformed request");
	expect_error_str("show \x7f", "malformed request");
	expect_error_str("show \xc0\x80", "malformed request");     /* overlong NUL */
	expect_error_str("show \xed\xa0\x80", "malformed request"); /* surrogate */
	expect_error_str("show \xe2\x82", "malformed request");     /* cut sequence */
	expect_error_str("show \xc2\x85", "malformed request");     /* C1 control */

	memset(buf, 'a', sizeof(buf));
	expect_error(buf, sizeof(buf), "request too long (5000 bytes, at most 4096)");
	expect_error(buf, RSW_CMD_MAX_LINE + 1, NULL);
	/* Exactly RSW_CMD_MAX_LINE bytes is fine: an unknown command. */
	expect_error(buf, RSW_CMD_MAX_LINE,
		     "unknown command "
		     "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'");

	expect_error_str("show a b c d e f g h i j k l m n o p q", "too many words (at most 16)");
	expect_call("show a b c d e f g h i j k l m n o", "show", 15, "a", "b", "c", "d", "e", "f",
		    "g", "h", "i", "j", "k", "l", "m", "n", "o");
}

static void
test_unknown(void **state)
{
	char line[400];

	expect_error_str("shw", "unknown command 'shw'");
	expect_error_str("  shw\t ports  ", "unknown command 'shw ports'");
	expect_error_str("clear", "unknown command 'clear'");
	expect_error_str("clear everything", "unknown command 'clear everything'");
	/* Words are quoted as given, UTF-8 included, and cut at a character boundary. */
	expect_error_str("sh\xc3\xb6w", "unknown command 'sh\xc3\xb6w'");
	memset(line, 'x', sizeof(line));
	memcpy(line + 59, "\xc3\xb6", 2);
	line[sizeof(line) - 1] = '\0';
	expect_error(line, strlen(line),
		     "unknown command "
		     "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xc3\xb6...'");
	memset(line, 'x', sizeof(line) - 1);
	memcpy(line + 60, "\xc3\xb6", 2);
	expect_error(line, strlen(line),
		     "unknown command "
		     "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'");
	/* Case matters. */
	expect_error_str("SHOW PORTS", "unknown command 'SHOW PORTS'");
}

static void
test_register_errors(void **state)
{
	assert_int_equal(rsw_cmd_register("show ports", 0, 0, "", "", echo_fn, NULL), -EEXIST);
	assert_int_equal(rsw_cmd_register("  show   ports ", 0, 0, "", "", echo_fn, NULL), -EEXIST);
	assert_int_equal(rsw_cmd_register("help", 0, 0, "", "", echo_fn, NULL), -EEXIST);
	assert_int_equal(rsw_cmd_register(NULL, 0, 0, "", "", echo_fn, NULL), -EINVAL);
	assert_int_equal(rsw_cmd_register("", 0, 0, "", "", echo_fn, NULL), -EINVAL);
	assert_int_equal(rsw_cmd_register("  \t", 0, 0, "", "", echo_fn, NULL), -EINVAL);
	assert_int_equal(rsw_cmd_register("x\ny", 0, 0, "", "", echo_fn, NULL), -EINVAL);
	assert_int_equal(rsw_cmd_register("x", 0, 0, "", "", NULL, NULL), -EINVAL);
	assert_int_equal(rsw_cmd_register("x", -1, 0, "", "", echo_fn, NULL), -EINVAL);
	assert_int_equal(rsw_cmd_register("x", 2, 1, "", "", echo_fn, NULL), -EINVAL);
	assert_int_equal(
		rsw_cmd_register("a b c d e f g h i j k l m n o p q", 0, 0, "", "", echo_fn, NULL),
		-EINVAL);
	/* Everything starting with "help" belongs to the built-in. */
	assert_int_equal(rsw_cmd_register("help x", 0, 0, "", "", echo_fn, NULL), -EEXIST);
}

static void
test_match(void **state)
{
	expect_call("show ports", "show ports", 0);
	expect_call("\tshow  ports\t", "show ports", 0);
	expect_call("show queues", "show queues", 0);
	expect_call("show queues p0", "show queues", 1, "p0");
	/* Longest match wins over "show" and "show ports". */
	expect_call("show ports detail p1", "show ports detail", 1, "p1");
	expect_call("show ports detail p1 rx", "show ports detail", 2, "p1", "rx");
	/* "show" takes what no longer command claims. */
	expect_call("show pfc p0", "show", 2, "pfc", "p0");
	expect_call("show portsx", "show", 1, "portsx");
	expect_call("port p0 down", "port", 2, "p0", "down");
	expect_call("clear counters", "clear counters", 0);
	/* UTF-8 arguments pass through unchanged. */
	expect_call("show \xe2\x82\xac", "show", 1, "\xe2\x82\xac");
}

static void
test_arg_bounds(void **state)
{
	expect_error_str("show queues p0 p1", "usage: show queues [PORT]");
	expect_error_str("show ports p0", "usage: show ports");
	expect_error_str("show ports detail", "usage: show ports detail PORT [FIELD]");
	expect_error_str("show ports detail a b c", "usage: show ports detail PORT [FIELD]");
	expect_error_str("show", "usage: show WHAT...");
	expect_error_str("port p0", "usage: port NAME down|up");
	expect_error_str("port p0 down now", "usage: port NAME down|up");
	expect_error_str("clear counters now", "usage: clear counters");
	expect_error_str("null", "internal error: 'null' gave no reply");
}

static void
test_help(void **state)
{
	json_t *r = rsw_cmd_exec("help", 4), *cmds, *e;
	const char *prev = "";
	bool seen_queues = false, seen_help = false;
	size_t i;

	assert_null(err_of(r));
	cmds = json_object_get(r, "commands");
	/* 8 registered + help. */
	assert_int_equal(json_array_size(cmds), 9);
	json_array_foreach(cmds, i, e)
	{
		const char *name = json_string_value(json_object_get(e, "command"));

		assert_non_null(name);
		assert_non_null(json_string_value(json_object_get(e, "usage")));
		assert_non_null(json_string_value(json_object_get(e, "help")));
		assert_true(strcmp(prev, name) < 0); /* sorted */
		prev = name;
		if (strcmp(name, "show queues") == 0) {
			seen_queues = true;
			assert_string_equal(json_string_value(json_object_get(e, "usage")),
					    "show queues [PORT]");
			assert_string_equal(json_string_value(json_object_get(e, "help")),
					    "per-queue counters");
		}
		if (strcmp(name, "help") == 0)
			seen_help = true;
	}
	assert_true(seen_queues);
	assert_true(seen_help);
	json_decref(r);

	/* help with a prefix: only the matching commands. */
	r = rsw_cmd_exec("help show ports", 15);
	cmds = json_object_get(r, "commands");
	assert_int_equal(json_array_size(cmds), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(cmds, 0), "command")),
			    "show ports");
	assert_string_equal(json_string_value(json_object_get(json_array_get(cmds, 1), "command")),
			    "show ports detail");
	json_decref(r);
	expect_error_str("help nope", "unknown command 'nope'");

	/* After unregister_all only help is left. */
	rsw_cmd_unregister_all();
	r = rsw_cmd_exec("help", 4);
	assert_int_equal(json_array_size(json_object_get(r, "commands")), 1);
	json_decref(r);
	expect_error_str("show ports", "unknown command 'show ports'");
	setup_registry(state);
}

static void
test_error_ok(void **state)
{
	json_t *r = rsw_cmd_error("x=%d %s", 3, "y");

	assert_string_equal(err_of(r), "x=3 y");
	json_decref(r);
	/* Not UTF-8: still an error object. */
	r = rsw_cmd_error("bad %s", "\xff\xfe");
	assert_string_equal(err_of(r), "bad ??");
	json_decref(r);
	r = rsw_cmd_ok();
	assert_true(json_is_true(json_object_get(r, "ok")));
	assert_int_equal(json_object_size(r), 1);
	json_decref(r);
}

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

/* The table of `describe` with command and key, or NULL. */
static const json_t *
described(const json_t *d, const char *command, const char *key)
{
	const json_t *t;
	size_t i;

	json_array_foreach(json_object_get(d, "tables"), i, t)
	{
		if (strcmp(json_string_value(json_object_get(t, "command")), command) == 0 &&
		    strcmp(json_string_value(json_object_get(t, "key")), key) == 0)
			return t;
	}
	return NULL;
}

/* The kind of field name of table t of `describe`, or NULL. */
static const char *
kind_of(const json_t *t, const char *name)
{
	const json_t *f;
	size_t i;

	json_array_foreach(json_object_get(t, "fields"), i, f)
	{
		if (strcmp(json_string_value(json_object_get(f, "name")), name) == 0)
			return json_string_value(json_object_get(f, "kind"));
	}
	return NULL;
}

static void
test_describe(void **state)
{
	static const char *const kinds[] = {"counter", "gauge", "label", "state"};
	json_t *d = rsw_tables_describe();
	const json_t *t, *f, *ports, *pfc;
	size_t i, j, k;

	(void)state;
	assert_non_null(d);
	assert_int_equal(json_object_size(d), 1);
	assert_int_equal(json_array_size(json_object_get(d, "tables")),
			 16); /* show drops totals, show punt, show kif, show llr */
	json_array_foreach(json_object_get(d, "tables"), i, t)
	{
		assert_int_equal(json_object_size(t), 3);
		assert_non_null(json_string_value(json_object_get(t, "command")));
		assert_non_null(json_string_value(json_object_get(t, "key")));
		assert_true(json_array_size(json_object_get(t, "fields")) > 0);
		json_array_foreach(json_object_get(t, "fields"), j, f)
		{
			const char *kind = json_string_value(json_object_get(f, "kind"));
			bool known = false;

			assert_int_equal(json_object_size(f), 4);
			assert_non_null(json_string_value(json_object_get(f, "unit")));
			assert_true(strlen(json_string_value(json_object_get(f, "help"))) > 0);
			for (k = 0; k < 4; k++)
				known = known || strcmp(kind, kinds[k]) == 0;
			assert_true(known);
		}
	}
	/* Every port counter of the X-macro (punt_policed among them), rx_missed from the PMD, and
	 * the rest (link_state and peer_down included): 37, and 11 of the link layer (impair_*,
	 * llr_*). */
	ports = described(d, "show ports", "ports");
	assert_non_null(ports);
	assert_int_equal(json_array_size(json_object_get(ports, "fields")), 48);
	assert_string_equal(kind_of(ports, "peer_down"), "state");
	for (i = 0; i < RSW_N_PORT_CTRS; i++)
		assert_string_equal(kind_of(ports, rsw_port_ctr_name(i)), "counter");
	assert_string_equal(kind_of(ports, "rx_missed"), "counter");
	assert_string_equal(kind_of(ports, "name"), "label");
	assert_string_equal(kind_of(ports, "speed_bps"), "gauge");
	assert_string_equal(kind_of(ports, "link_up"), "state");
	/* The watchdog's counts are in `show pfc`, not in the dataplane's slots. */
	pfc = described(d, "show pfc", "pfc");
	assert_string_equal(kind_of(pfc, "pfcwd_storms"), "counter");
	assert_string_equal(kind_of(pfc, "pfcwd_restores"), "counter");
	for (i = 0; i < RSW_N_PFC_CTRS; i++)
		assert_int_not_equal(strncmp(rsw_pfc_ctr_name(i), "pfcwd_", 6), 0);
	/* Two tables of `show buffer`, the nested members of `show lb`. */
	assert_non_null(described(d, "show buffer", "buffer"));
	assert_non_null(described(d, "show buffer", "pgs"));
	assert_non_null(described(d, "show lb", "groups.members"));
	assert_null(kind_of(described(d, "show lb", "groups"), "members"));
	/* Two of `show drops`: the reasons and the totals of ../shared/CLI.md. */
	assert_non_null(described(d, "show drops", "drops"));
	assert_int_equal(
		json_array_size(json_object_get(described(d, "show drops", "totals"), "fields")),
		6);
	assert_string_equal(kind_of(described(d, "show drops", "totals"), "queued"), "gauge");
	assert_string_equal(kind_of(described(d, "show drops", "totals"), "received"), "counter");
	assert_ptr_equal(rsw_table_find("show lb", "groups.members"), &rsw_table_lb_members);
	assert_null(rsw_table_find("show lb", "members"));
	json_decref(d);
}

static void
test_row(void **state)
{
	json_t *o =
		json_pack("{s:I, s:s, s:s, s:b, s:I, s:i}", "bytes", (json_int_t)800, "port", "p1",
			  "nexthop", "10.2.0.1", "up", 1, "packets", (json_int_t)8, "bogus", 1);
	json_t *row, *g;
	const char *key, *order[] = {"nexthop", "port", "up", "packets", "bytes"};
	json_t *v;
	size_t i = 0;

	(void)state;
	/* Members in the definition's order; an undescribed one is left out. */
	row = rsw_row(&rsw_table_lb_members, o);
	assert_non_null(row);
	assert_int_equal(json_object_size(row), 5);
	json_object_foreach(row, key, v) assert_string_equal(key, order[i++]);
	/* The member a nested table lives in stays. */
	g = rsw_row(&rsw_table_lb_groups,
		    json_pack("{s:o, s:i, s:s}", "members", json_pack("[O]", row), "id", 0,
			      "prefix", "10.20.0.0/16"));
	assert_non_null(g);
	assert_int_equal(json_object_size(g), 3);
	assert_string_equal(json_object_iter_key(json_object_iter(g)), "id");
	assert_int_equal(json_array_size(json_object_get(g, "members")), 1);
	json_decref(row);
	json_decref(g);
	assert_null(rsw_row(&rsw_table_ports, NULL));
}

int
main(void)
{
	const struct CMUnitTest cmd_tests[] = {
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_register_errors),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_arg_bounds),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_error_ok),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_row),
	};
	const struct CMUnitTest sock_tests[] = {
		cmocka_unit_test_setup_teardown(test_sock_file, setup_sock, teardown_sock),
		cmocka_unit_test_setup_teardown(test_sock_basic, setup_sock, teardown_sock),
		cmocka_unit_test_setup_teardown(test_sock_half_line, setup_sock, teardown_sock),
		cmocka_unit_test_setup_teardown(test_sock_long_line, setup_sock, teardown_sock),
		cmocka_unit_test_setup_teardown(test_sock_many_clients, setup_sock, teardown_sock),
		cmocka_unit_test_setup_teardown(test_sock_slow_reader, setup_sock, teardown_sock),
	};
	int fails;

	fails = cmocka_run_group_tests_name("cmd", cmd_tests, setup_registry, teardown_registry);
	fails += cmocka_run_group_tests_name("sock", sock_tests, NULL, NULL);
	return fails ? 1 : 0;
}
