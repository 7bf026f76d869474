/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * A non-blocking TCP listener for the control thread's servers (listen.c).
 */

#ifndef RSW_LISTEN_H
#define RSW_LISTEN_H

/**
 * Listen on listen_addr ("host:port" or "[v6]:port"), non-blocking and close-on-exec, with
 * SO_REUSEADDR, on the first address getaddrinfo gives that binds.
 * @param ai_flags  getaddrinfo flags added to AI_PASSIVE | AI_NUMERICSERV (e.g. AI_NUMERICHOST)
 * @param gai_rc    set to getaddrinfo's error when it failed, else 0
 * @return the socket, or -EINVAL (bad form: *gai_rc 0; getaddrinfo failed: *gai_rc set),
 *   or the -errno of socket/bind/listen.
 */
int rsw_tcp_listen(const char *listen_addr, int ai_flags, int backlog, int *gai_rc);

#endif /* RSW_LISTEN_H */
