/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The control socket (docs/cli.md): a unix stream socket served by the
 * control thread with poll(). Each client sends request lines and gets one
 * compact JSON line back per request, from rsw_cmd_exec. Nothing here may block
 * the control thread: every socket is non-blocking, replies a client does not
 * read are buffered (and new requests from it wait) up to a bound, after which
 * the client is dropped. Garbage, over-long lines and clients vanishing
 * mid-line cost that client its connection and nothing else.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_log.h>

#include "rsw_cmd.h"
#include "rsw_config.h"
#include "rsw_module.h"

/* Stop reading a client's requests while this much of its output is unsent. */
#define RSW_SOCK_OUT_HIGH (64 * 1024)
/* Drop a client whose unsent output would exceed this. */
#define RSW_SOCK_OUT_MAX (16 * 1024 * 1024)
/* Bytes read from one client per rsw_sock_poll, so one client cannot starve the rest. */
#define RSW_SOCK_READ_BUDGET (64 * 1024)

struct rsw_sock_client {
	int fd;                        /* connected, non-blocking */
	bool closing;                  /* sent its last reply: close once flushed */
	bool eof;                      /* the peer sends no more: close once answered */
	size_t in_len;                 /* bytes used in in[] */
	size_t out_off;                /* bytes of out[] already sent */
	size_t out_len;                /* bytes used in out[] */
	size_t out_cap;                /* bytes allocated in out[] */
	char *out;                     /* replies not yet sent */
	char in[RSW_CMD_MAX_LINE + 1]; /* a partial request line */
};

/* Thread-safety: used by the control thread only. */
struct rsw_sock {
	int fd;                /* listening socket */
	unsigned int nclients; /* non-NULL entries in clients[] */
	char *path;            /* socket file, unlinked on close */
	struct rsw_sock_client *clients[RSW_SOCK_MAX_CLIENTS];
	struct pollfd pfd[RSW_SOCK_MAX_CLIENTS + 1]; /* scratch for rsw_sock_poll */
	int slot[RSW_SOCK_MAX_CLIENTS + 1];          /* pfd[i] -> clients[slot[i]] */
};

/* mkdir -p for the directory holding path; new directories get mode 0755. */
static int
make_parent_dir(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct stat st;
	char *p, c;

	snprintf(dir, sizeof(dir), "%s", path);
	p = strrchr(dir, '/');
	if (p == NULL || p == dir)
		return 0;
	*p = '\0';
	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;

	for (p = dir + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(dir, 0755) == 0) {
			if (chmod(dir, 0755) < 0)
				return -errno;
		} else if (errno != EEXIST) {
			return -errno;
		}
		*p = c;
		if (c == '\0')
			return 0;
	}
}

/*
 * If path exists: fail when it is not a socket or when something accepts
 * connections on it; otherwise (a stale socket) remove it.
 */
static int
remove_stale(const char *path, const struct sockaddr_un *sa, char *err, size_t errlen)
{
	struct stat st;
	int fd, rc;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s: exists and is not a socket", path);
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "socket: %s", strerror(-rc));
		return rc;
	}
	rc = connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	close(fd);
	if (rc == 0 || errno == EAGAIN) {
		/* EAGAIN: alive but with a full backlog. */
		snprintf(err, errlen, "%s: another process is listening on it", path);
		return -EADDRINUSE;
	}
	if (unlink(path) < 0 && errno != ENOENT) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot remove stale socket: %s", path, strerror(-rc));
		return rc;
	}
	return 0;
}

struct rsw_sock *
rsw_sock_open(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char dummy[1];
	struct rsw_sock *s;
	mode_t old_mask;
	int rc;

	if (err == NULL || errlen == 0) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	if (path == NULL || path[0] == '\0') {
		snprintf(err, errlen, "empty socket path");
		errno = EINVAL;
		return NULL;
	}
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "%s: socket path too long (at most %zu bytes)", path,
			 sizeof(sa.sun_path) - 1);
		errno = ENAMETOOLONG;
		return NULL;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);

	rc = make_parent_dir(path);
	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot create parent directory: %s", path,
			 strerror(-rc));
		errno = -rc;
		return NULL;
	}
	rc = remove_stale(path, &sa, err, errlen);
	if (rc < 0) {
		errno = -rc;
		return NULL;
	}

	s = calloc(1, sizeof(*s));
	if (s == NULL || (s->path = strdup(path)) == NULL) {
		free(s);
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "socket: %s", strerror(-rc));
		goto fail;
	}
	/* The file is created by bind: never let it exist with a wider mode. */
	old_mask = umask(0177);
	rc = bind(s->fd, (struct sockaddr *)&sa, sizeof(sa));
	if (rc < 0)
		rc = -errno;
	umask(old_mask);
	if (rc < 0) {
		snprintf(err, errlen, "%s: bind: %s", path, strerror(-rc));
		goto fail;
	}
	if (chmod(path, 0600) < 0 || listen(s->fd, SOMAXCONN) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		unlink(path);
		goto fail;
	}
	return s;
fail:
	if (s->fd >= 0)
		close(s->fd);
	free(s->path);
	free(s);
	errno = -rc;
	return NULL;
}

unsigned int
rsw_sock_client_count(const struct rsw_sock *s)
{
	return s != NULL ? s->nclients : 0;
}

static void
client_drop(struct rsw_sock *s, int slot)
{
	struct rsw_sock_client *c = s->clients[slot];

	if (c == NULL)
		return;
	close(c->fd);
	free(c->out);
	free(c);
	s->clients[slot] = NULL;
	s->nclients--;
}

int
rsw_sock_send_pending(int fd, const char *buf, size_t len, size_t *off)
{
	ssize_t n;

	while (*off < len) {
		n = send(fd, buf + *off, len - *off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		}
		*off += (size_t)n;
	}
	return 1;
}

/* Send what can be sent now. Returns 0, or -1 when the client is gone. */
static int
client_flush(struct rsw_sock_client *c)
{
	int rc = rsw_sock_send_pending(c->fd, c->out, c->out_len, &c->out_off);

	if (rc <= 0)
		return rc;
	c->out_off = 0;
	c->out_len = 0;
	if (c->out_cap > RSW_SOCK_OUT_HIGH) {
		/* Give back the memory of one big reply. */
		free(c->out);
		c->out = NULL;
		c->out_cap = 0;
	}
	return 0;
}

/* Queue reply + "\n". Returns 0, or -1 to drop the client. */
static int
client_queue(struct rsw_sock_client *c, json_t *reply)
{
	char *text = NULL;
	size_t len, need;

	if (reply != NULL)
		text = json_dumps(reply, JSON_COMPACT);
	json_decref(reply);
	if (text == NULL)
		text = strdup("{\"error\":\"out of memory\"}");
	if (text == NULL)
		return -1;
	len = strlen(text);

	if (c->out_off > 0 && c->out_off == c->out_len) {
		c->out_off = 0;
		c->out_len = 0;
	}
	need = c->out_len + len + 1;
	if (need - c->out_off > RSW_SOCK_OUT_MAX) {
		free(text);
		return -1;
	}
	if (need > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 4096;
		char *out;

		while (cap < need)
			cap *= 2;
		out = realloc(c->out, cap);
		if (out == NULL) {
			free(text);
			return -1;
		}
		c->out = out;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, text, len);
	c->out[c->out_len + len] = '\n';
	c->out_len += len + 1;
	free(text);
	return client_flush(c);
}

static size_t
client_pending(const struct rsw_sock_client *c)
{
	return c->out_len - c->out_off;
}

/*
 * Answer the complete lines in c->in, while c's unsent output stays below the
 * high mark. Returns 0, or -1 to drop the client.
 */
static int
client_process(struct rsw_sock_client *c)
{
	size_t start = 0, len;
	char *nl;

	while (!c->closing && client_pending(c) < RSW_SOCK_OUT_HIGH) {
		nl = memchr(c->in + start, '\n', c->in_len - start);
		if (nl == NULL)
			break;
		len = nl - (c->in + start);
		if (len > 0 && c->in[start + len - 1] == '\r')
			len--;
		if (client_queue(c, rsw_cmd_exec(c->in + start, len)) < 0)
			return -1;
		start = nl + 1 - c->in;
	}
	if (start > 0) {
		memmove(c->in, c->in + start, c->in_len - start);
		c->in_len -= start;
	}
	if (c->eof && memchr(c->in, '\n', c->in_len) == NULL)
		c->in_len = 0;
	if (!c->closing && c->in_len == sizeof(c->in) && memchr(c->in, '\n', c->in_len) == NULL) {
		/* No newline within RSW_CMD_MAX_LINE + 1 bytes: answer, then hang up. */
		c->closing = true;
		c->in_len = 0;
		if (client_queue(c, rsw_cmd_error("request too long (more than %d bytes)",
						  RSW_CMD_MAX_LINE)) < 0)
			return -1;
	}
	return 0;
}

/* Read what the client sent and answer it. Returns 0, or -1 to drop the client. */
static int
client_read(struct rsw_sock_client *c)
{
	size_t budget = RSW_SOCK_READ_BUDGET;
	ssize_t n;

	while (!c->closing && !c->eof && budget > 0 && client_pending(c) < RSW_SOCK_OUT_HIGH) {
		if (c->in_len == sizeof(c->in))
			break; /* only while complete lines wait for output room */
		n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -1;
		}
		if (n == 0) {
			/* Answer the complete lines; a partial one is just forgotten. */
			c->eof = true;
			return client_process(c);
		}
		c->in_len += n;
		budget -= (size_t)n < budget ? (size_t)n : budget;
		if (client_process(c) < 0)
			return -1;
	}
	return 0;
}

static void
accept_clients(struct rsw_sock *s)
{
	struct rsw_sock_client *c;
	int fd, slot;

	for (;;) {
		fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return; /* EAGAIN, or EMFILE and friends: retry next poll */
		}
		c = NULL;
		if (s->nclients < RSW_SOCK_MAX_CLIENTS)
			c = calloc(1, sizeof(*c));
		if (c == NULL) {
			static const char busy[] = "{\"error\":\"too many clients\"}\n";

			(void)!send(fd, busy, sizeof(busy) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
			close(fd);
			continue;
		}
		for (slot = 0; s->clients[slot] != NULL; slot++)
			;
		c->fd = fd;
		s->clients[slot] = c;
		s->nclients++;
	}
}

void
rsw_sock_poll(struct rsw_sock *s, int timeout_ms)
{
	struct rsw_sock_client *c;
	int i, n = 0, ready;

	if (s == NULL)
		return;
	s->pfd[n].fd = s->fd;
	s->pfd[n].events = POLLIN;
	s->pfd[n].revents = 0;
	s->slot[n++] = -1;
	for (i = 0; i < RSW_SOCK_MAX_CLIENTS; i++) {
		c = s->clients[i];
		if (c == NULL)
			continue;
		s->pfd[n].fd = c->fd;
		s->pfd[n].events = 0;
		if (!c->closing && !c->eof && client_pending(c) < RSW_SOCK_OUT_HIGH)
			s->pfd[n].events |= POLLIN;
		if (client_pending(c) > 0)
			s->pfd[n].events |= POLLOUT;
		s->pfd[n].revents = 0;
		s->slot[n++] = i;
	}

	ready = poll(s->pfd, n, timeout_ms);
	if (ready <= 0)
		return;

	for (i = 1; i < n; i++) {
		short re = s->pfd[i].revents;
		int slot = s->slot[i];

		c = s->clients[slot];
		if (re == 0)
			continue;
		if ((re & POLLOUT) && client_flush(c) < 0) {
			client_drop(s, slot);
			continue;
		}
		/* Room again: answer lines that waited for it, then read more. */
		if (client_process(c) < 0) {
			client_drop(s, slot);
			continue;
		}
		if ((re & (POLLIN | POLLHUP | POLLERR)) && client_read(c) < 0) {
			client_drop(s, slot);
			continue;
		}
		if ((re & POLLERR) ||
		    ((c->closing || c->eof) && client_pending(c) == 0 && c->in_len == 0) ||
		    ((re & POLLHUP) && !(s->pfd[i].events & POLLIN))) {
			client_drop(s, slot);
			continue;
		}
	}
	if (s->pfd[0].revents & POLLIN)
		accept_clients(s);
}

void
rsw_sock_close(struct rsw_sock *s)
{
	int i;

	if (s == NULL)
		return;
	for (i = 0; i < RSW_SOCK_MAX_CLIENTS; i++)
		client_drop(s, i);
	close(s->fd);
	unlink(s->path);
	free(s->path);
	free(s);
}

/* The daemon's control socket, on control.socket. */
static struct rsw_sock *ctl_sock;

static int
sock_init(const struct rsw_config *cfg)
{
	char err[RSW_CFG_ERR_LEN];

	ctl_sock = rsw_sock_open(cfg->control.socket, err, sizeof(err));
	if (ctl_sock == NULL) {
		int ret = errno != 0 ? -errno : -EINVAL;

		rte_log(RTE_LOG_ERR, RTE_LOGTYPE_USER1, "railsw: %s\n", err);
		return ret;
	}
	return 0;
}

/* Last of a turn: wait for requests (at most RSW_MODULE_IDLE_WAIT_MS) when nothing else had work. */
static unsigned int
sock_poll(uint64_t now_ms __rte_unused)
{
	rsw_sock_poll(ctl_sock, rsw_modules_busy() > 0 ? 0 : RSW_MODULE_IDLE_WAIT_MS);
	return 0;
}

static void
sock_fini(void)
{
	rsw_sock_close(ctl_sock);
	ctl_sock = NULL;
}

static struct rsw_module sock_module = {
	.name = "sock",
	.order = RSW_MODULE_ORDER_SOCK,
	.init = sock_init,
	.poll = sock_poll,
	.fini = sock_fini,
};

RSW_MODULE_REGISTER(sock_module);
