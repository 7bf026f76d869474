/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * railctl: the command-line client of the control socket (docs/cli.md).
 * It sends one request line (its arguments joined by spaces) and prints the
 * JSON reply, either as is (--json) or rendered for people: arrays of objects
 * become aligned tables, transposed when wider than RSW_CTL_WIDTH columns.
 * Exit 0 on success, 1 when the switch answered with an error, 2 on usage
 * errors or when the switch cannot be reached. No DPDK here. `plan FILE` needs
 * no switch: railctl loads FILE with the switch's own loader and prints the
 * plan of topology/ (docs/topology.md). This file: the arguments, the socket round trip and
 * the exit status; format.c renders replies, plan.c is `railctl plan`.
 */

#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "railctl_priv.h"
#include "rsw_cmd.h"
#include "rsw_lookup.h"
#include "rsw_table.h"
#include "rsw_top.h"
#include "rsw_trace_args.h"

#define RSW_CTL_DEFAULT_SOCK "/run/railsw/railsw.sock"
#define RSW_CTL_TIMEOUT_MS   5000
#define RSW_CTL_MAX_REPLY    (256u << 20) /* sanity bound on one reply line */

static const char *prog = "railctl";

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: %s [-s SOCKET] [--json] COMMAND [ARGS...]\n"
		"\n"
		"Send COMMAND to a running railsw and print its reply.\n"
		"\n"
		"options:\n"
		"  -s, --socket SOCKET  control socket (default: $RAILSW_SOCK, else %s)\n"
		"  -j, --json           print the reply as the switch sent it (one JSON line)\n"
		"  -h, --help           print this help\n"
		"\n"
		"commands (`%s help` asks the switch for its own list):\n"
		"  show ports [PORT] | queues [PORT] | pfc [PORT] | buffer [PORT] | llr [PORT]\n"
		"  show cbfc [PORT] | drops | lb | routes | neighbors | icmp | punt | kif | fpm\n"
		"  show topology | config | workers\n"
		"  lookup DST [--src IP] [--proto udp|tcp|N] [--sport N] [--dport N] [--qp N]\n"
		"         [--dscp N] [--in PORT]  what the workers would do with that frame now\n"
		"  trace start [--port PORT] [--count N]  record the next N frames received\n"
		"                       (default 50, on PORT or any)\n"
		"  trace show           the traced frames: each step's decision, how each ended\n"
		"  trace stop           stop recording (the records stay)\n"
		"  trace clear          forget the records\n"
		"  clear counters\n"
		"  port NAME down|up\n"
		"  port NAME impair [loss P] [loss_burst N] [corrupt P] [delay_us D] [seed S]\n"
		"  port NAME impair off\n"
		"  reload [FILE]\n"
		"  describe             every table's fields (railctl's own copy when no switch\n"
		"                       answers)\n"
		"  help [COMMAND]       the switch's commands with their usage\n"
		"  plan FILE [--json]   cabling and addressing of the fabric of FILE's topology:\n"
		"                       (computed by railctl itself; no switch needed)\n"
		"  plan FILE --summary | --switch NAME  the summary (tiers, bill of materials,\n"
		"                       capacity) alone, or one switch's ports and cables\n"
		"  plan FILE --csv | --dot | --containerlab [--image IMAGE]  the cabling as CSV,\n"
		"                       a Graphviz graph or a containerlab topology\n"
		"  plan FILE --configs DIR [--bgp]  DIR/SWITCH.yaml for every switch (and with\n"
		"                       --bgp DIR/SWITCH.frr.conf)\n"
		"  plan FILE --check-lldp DIR  the cabling check: DIR/SWITCH.json of each switch\n"
		"                       (lldpcli -f json0 show neighbors) against the plan\n"
		"  top [--interval S] [--count N]  live rates (railctl's own view)\n"
		"\n"
		"exit status: 0 success, 1 the switch answered with an error,\n"
		"2 usage error or switch unreachable.\n",
		prog, RSW_CTL_DEFAULT_SOCK, prog);
}

/* `describe` answered from railctl's own copy of the table catalog (control/cli/catalog.c). */
static int
describe_local(bool json)
{
	json_t *d = rsw_tables_describe();
	char *text;

	if (d == NULL) {
		railctl_warn("out of memory");
		return EXIT_USAGE;
	}
	if (json) {
		text = json_dumps(d, JSON_COMPACT);
		if (text != NULL)
			printf("%s\n", text);
		free(text);
	} else {
		railctl_print_reply(d);
	}
	json_decref(d);
	return fflush(stdout) != 0 || ferror(stdout) ? EXIT_USAGE : EXIT_OK;
}

/* Bad words to `lookup` are refused here, with its usage, before anything is sent. */
static int
lookup_usage(int argc, char **argv)
{
	struct rsw_lookup_req q;
	char err[160];

	if (rsw_lookup_parse(argc, argv, &q, err, sizeof(err)) == 0)
		return 0;
	railctl_warn("lookup: %s", err);
	fprintf(stderr, "usage: %s lookup %s\n", prog, RSW_LOOKUP_USAGE);
	return -EINVAL;
}

/* Bad words to `trace` are refused here, with its usage, before anything is sent. */
static int
trace_usage(int argc, char **argv)
{
	char err[160];

	if (rsw_trace_check(argc, argv, err, sizeof(err)) == 0)
		return 0;
	railctl_warn("trace: %s", err);
	fprintf(stderr, "usage: %s trace %s\n", prog, RSW_TRACE_USAGE);
	return -EINVAL;
}

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static int
wait_fd(int fd, short events, long deadline)
{
	struct pollfd pfd = {.fd = fd, .events = events};
	long left;
	int rc;

	for (;;) {
		left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		rc = poll(&pfd, 1, (int)left);
		if (rc > 0)
			return 0;
		if (rc == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

/* Connect, send the request, read one reply line into *out. 0 or -errno. */
static int
transact(const char *path, const char *req, char **out, const char **stage)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	long deadline = now_ms() + RSW_CTL_TIMEOUT_MS;
	size_t len = strlen(req), off = 0;
	struct sbuf sb = {0};
	char buf[65536], *nl;
	ssize_t n;
	int fd, rc;

	*stage = "connect";
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		if (rc == -EINTR)
			continue;
		if (rc != -EAGAIN || now_ms() >= deadline)
			goto out;
		/* Backlog full: the switch is busy, try again shortly. */
		poll(NULL, 0, 10);
	}

	*stage = "send";
	while (off < len) {
		n = send(fd, req + off, len - off, MSG_NOSIGNAL);
		if (n >= 0) {
			off += n;
			continue;
		}
		rc = -errno;
		if (rc == -EINTR)
			continue;
		if (rc != -EAGAIN || (rc = wait_fd(fd, POLLOUT, deadline)) < 0)
			goto out;
	}

	*stage = "receive";
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n > 0) {
			nl = memchr(buf, '\n', n);
			railctl_sb_add(&sb, buf, nl ? (size_t)(nl - buf) : (size_t)n);
			if (nl != NULL)
				break;
			if (sb.len > RSW_CTL_MAX_REPLY) {
				rc = -EMSGSIZE;
				goto out;
			}
			continue;
		}
		if (n == 0) {
			rc = -ECONNRESET; /* closed before a complete line */
			goto out;
		}
		rc = -errno;
		if (rc == -EINTR)
			continue;
		if (rc != -EAGAIN || (rc = wait_fd(fd, POLLIN, deadline)) < 0)
			goto out;
	}
	*out = railctl_sb_take(&sb);
	rc = 0;
out:
	free(sb.p);
	close(fd);
	return rc;
}

int
main(int argc, char **argv)
{
	const char *sock = getenv("RAILSW_SOCK"), *stage = "";
	struct sbuf req = {0};
	bool json = false;
	char *line = NULL;
	json_error_t jerr;
	json_t *reply, *err;
	int i, rc, cmd;

	if (sock == NULL || sock[0] == '\0')
		sock = RSW_CTL_DEFAULT_SOCK;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return EXIT_OK;
		} else if (strcmp(a, "-j") == 0 || strcmp(a, "--json") == 0) {
			json = true;
		} else if (strcmp(a, "-s") == 0 || strcmp(a, "--socket") == 0) {
			if (i + 1 >= argc) {
				railctl_warn("%s needs a SOCKET argument", a);
				usage(stderr);
				return EXIT_USAGE;
			}
			sock = argv[++i];
		} else if (strncmp(a, "--socket=", 9) == 0) {
			sock = a + 9;
		} else if (a[0] == '-' && a[1] != '\0') {
			railctl_warn("unknown option '%s'", a);
			usage(stderr);
			return EXIT_USAGE;
		} else {
			break;
		}
	}
	if (i >= argc) {
		railctl_warn("missing COMMAND");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (sock[0] == '\0') {
		railctl_warn("empty socket path");
		return EXIT_USAGE;
	}

	if (strcmp(argv[i], "plan") == 0)
		return railctl_cmd_plan(argc, argv, i, json);
	if (strcmp(argv[i], "top") == 0)
		return rsw_top_main(sock, json, argc - i, argv + i);
	if (strcmp(argv[i], "lookup") == 0 && lookup_usage(argc - i - 1, argv + i + 1) != 0)
		return EXIT_USAGE;
	if (strcmp(argv[i], "trace") == 0 && trace_usage(argc - i - 1, argv + i + 1) != 0)
		return EXIT_USAGE;

	for (cmd = i; i < argc; i++) {
		const unsigned char *p;

		for (p = (const unsigned char *)argv[i]; *p != '\0'; p++) {
			if (*p < 0x20 || *p == 0x7f) {
				railctl_warn("argument '%s' contains a control character", argv[i]);
				free(req.p);
				return EXIT_USAGE;
			}
		}
		if (argv[i][0] == '\0') {
			railctl_warn("empty argument");
			free(req.p);
			return EXIT_USAGE;
		}
		if (req.len > 0)
			railctl_sb_puts(&req, " ");
		railctl_sb_puts(&req, argv[i]);
	}
	if (req.len > RSW_CMD_MAX_LINE) {
		railctl_warn("request too long (%zu bytes, at most %d)", req.len, RSW_CMD_MAX_LINE);
		free(req.p);
		return EXIT_USAGE;
	}
	railctl_sb_puts(&req, "\n");

	rc = transact(sock, req.p, &line, &stage);
	free(req.p);
	/* `describe` with no switch to answer: the catalog railctl was built with. */
	if (rc < 0 && strcmp(stage, "connect") == 0 && argc - cmd == 1 &&
	    strcmp(argv[cmd], "describe") == 0)
		return describe_local(json);
	if (rc < 0) {
		if (rc == -ETIMEDOUT)
			railctl_warn("%s: no reply within %d s", sock, RSW_CTL_TIMEOUT_MS / 1000);
		else if (strcmp(stage, "connect") == 0)
			railctl_warn("cannot reach the switch at %s: %s", sock, strerror(-rc));
		else
			railctl_warn("%s: %s: %s", sock, stage, strerror(-rc));
		return EXIT_USAGE;
	}

	reply = json_loads(line, JSON_DECODE_ANY, &jerr);
	if (reply == NULL) {
		railctl_warn("%s: invalid reply: %s", sock, jerr.text);
		free(line);
		return EXIT_USAGE;
	}
	err = json_is_object(reply) ? json_object_get(reply, "error") : NULL;
	rc = err != NULL ? EXIT_REPLY_ERROR : EXIT_OK;
	if (json) {
		printf("%s\n", line);
	} else if (err != NULL) {
		char *text = railctl_value_text(err);

		railctl_warn("error: %s", text);
		free(text);
	} else {
		railctl_print_reply(reply);
	}
	json_decref(reply);
	free(line);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		railctl_warn("write error: %s", strerror(errno));
		return EXIT_USAGE;
	}
	return rc;
}
