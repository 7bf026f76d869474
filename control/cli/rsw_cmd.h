/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Command registry shared by the control socket, railctl and telemetry
 * (docs/cli.md). A command is a fixed sequence of words ("show ports")
 * followed by arguments. Handlers run on the control thread only.
 *
 * Thread-safety: registration happens before the socket opens; rsw_cmd_exec
 * is called from the control thread only.
 */

#ifndef RSW_CMD_H
#define RSW_CMD_H

#include <jansson.h>
#include <stddef.h>

#define RSW_CMD_MAX_LINE  4096 /* a request line, newline excluded */
#define RSW_CMD_MAX_WORDS 16

/**
 * A command handler.
 *
 * @param argc, argv
 *   The arguments after the command words (argv[argc] is NULL).
 * @param ctx
 *   The pointer given to rsw_cmd_register.
 * @return
 *   A new JSON reply (object), or rsw_cmd_error(...). NULL is answered as an internal error.
 */
typedef json_t *(rsw_cmd_fn)(int argc, char **argv, void *ctx);

/**
 * Register a command.
 *
 * @param words
 *   Space-separated command words, e.g. "show ports".
 * @param min_args, max_args
 *   Bounds on the number of arguments after the words; max_args < 0: no upper bound.
 * @param usage
 *   Argument synopsis shown by `help` and in usage errors, e.g. "[PORT]".
 * @param help
 *   One-line description.
 * @return 0, or -ENOMEM / -EEXIST (already registered, or "help", which is
 *   built in) / -EINVAL (empty or non-printable words, more than RSW_CMD_MAX_WORDS
 *   words, NULL fn, bad bounds).
 */
int rsw_cmd_register(const char *words, int min_args, int max_args, const char *usage,
		     const char *help, rsw_cmd_fn *fn, void *ctx);

/** Forget every registered command (tests, shutdown). */
void rsw_cmd_unregister_all(void);

/**
 * Run one request line (no newline) and return the reply, never NULL except on
 * allocation failure. Unknown command: {"error":"unknown command 'x'"}; wrong
 * arguments: {"error":"usage: show queues [PORT]"}; empty line, binary bytes or
 * over-long lines get an error object too. `help` lists every command.
 */
json_t *rsw_cmd_exec(const char *line, size_t len);

/** {"error": printf(fmt, ...)} */
json_t *rsw_cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** {"ok": true} */
json_t *rsw_cmd_ok(void);

struct rsw_sock;

/**
 * Open the control socket: create the parent directory if missing (0755),
 * remove a stale socket file, bind, chmod 0600, listen, non-blocking.
 *
 * @return the server, or NULL with errno set and a message in err.
 */
struct rsw_sock *rsw_sock_open(const char *path, char *err, size_t errlen);

/**
 * Serve: accept clients, read lines, run each with rsw_cmd_exec and answer one
 * JSON line. Waits at most timeout_ms for activity (0 = do not wait). Never
 * blocks on one client; drops clients that send more than RSW_CMD_MAX_LINE bytes
 * without a newline (after an error reply), and at most RSW_SOCK_MAX_CLIENTS at once.
 */
void rsw_sock_poll(struct rsw_sock *s, int timeout_ms);

#define RSW_SOCK_MAX_CLIENTS 128

/** Number of connected clients (0 for NULL). */
unsigned int rsw_sock_client_count(const struct rsw_sock *s);

/** Close every client, unlink the socket file, free; NULL is a no-op. */
void rsw_sock_close(struct rsw_sock *s);

/**
 * Send buf[*off, len) on a non-blocking stream socket as far as it takes it now, advancing
 * *off (the control socket's and the metrics endpoint's replies).
 * @return 1 when all is sent, 0 to go on when the socket is writable, -1 on error.
 */
int rsw_sock_send_pending(int fd, const char *buf, size_t len, size_t *off);

#endif /* RSW_CMD_H */
