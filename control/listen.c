/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * A non-blocking TCP listener on "host:port" / "[v6]:port" (rsw_listen.h), for the control
 * thread's servers: the Prometheus endpoint and the FPM listener.
 */

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rsw_listen.h"

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

int
rsw_tcp_listen(const char *listen_addr, int ai_flags, int backlog, int *gai_rc)
{
	struct addrinfo hints = {.ai_flags = AI_PASSIVE | AI_NUMERICSERV | ai_flags,
				 .ai_socktype = SOCK_STREAM};
	struct addrinfo *res = NULL, *ai;
	char host[256], port[16];
	int rc, fd = -1, one = 1;

	*gai_rc = 0;
	if (listen_addr == NULL ||
	    split_listen(listen_addr, host, sizeof(host), port, sizeof(port)) < 0)
		return -EINVAL;
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0) {
		*gai_rc = rc;
		return -EINVAL;
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
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, backlog) == 0)
			break;
		rc = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd < 0 ? rc : fd;
}
