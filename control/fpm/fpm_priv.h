/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The FPM area's inside: the RIB of routes zebra sent (fpm_rib.c), which fpm.c feeds from
 * the parser and the table builder reads as a route source (rsw_tables_ctl.h). Plain
 * malloc, no DPDK: the unit tests drive it without EAL.
 *
 * Thread-safety: control thread only.
 */

#ifndef RSW_FPM_PRIV_H
#define RSW_FPM_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rsw_fpm_parse.h"
#include "rsw_tables_ctl.h"

#define RSW_FPM_MAX_ROUTES 262144 /* routes from zebra railsw keeps */
#define RSW_FPM_MAX_NHOBJ  65536  /* next-hop objects */
#define RSW_FPM_MAIN_TABLE 254    /* RT_TABLE_MAIN: the only table railsw takes */

struct fpm_rib;

/* What applying one message did. */
enum fpm_apply {
	FPM_APPLY_NONE = 0, /* nothing changed (an ignored message, a delete of nothing) */
	FPM_APPLY_ADDED,    /* a route added or replaced */
	FPM_APPLY_DELETED,  /* a route deleted */
	FPM_APPLY_NH,       /* a next-hop object added, changed or deleted */
};

/** A new, empty RIB of at most max_routes routes. @return it, or NULL (ENOMEM). */
struct fpm_rib *fpm_rib_new(uint32_t max_routes);

/** Free a RIB; NULL is a no-op. */
void fpm_rib_free(struct fpm_rib *rib);

/**
 * Apply one parsed message, the route marked as sent in session.
 * @return an enum fpm_apply (>= 0), or -EINVAL / -ENOSPC / -ENOTSUP with a reason in err (a
 *   route that cannot be taken: then the prefix's previous route is deleted, as zebra no
 *   longer wants it).
 */
int fpm_rib_apply(struct fpm_rib *rib, const struct rsw_fpm_msg *m, uint64_t session, char *err,
		  size_t errlen);

/** Delete the routes and next-hop objects not sent in session. @return routes deleted. */
uint32_t fpm_rib_drop_stale(struct fpm_rib *rib, uint64_t session);

/** Delete every route and next-hop object. */
void fpm_rib_clear(struct fpm_rib *rib);

/** Routes in the RIB. */
uint32_t fpm_rib_count(const struct fpm_rib *rib);

/** Route i (0..count-1); the order changes when a route is deleted. */
struct rsw_ctl_route *fpm_rib_get(struct fpm_rib *rib, uint32_t i);

/** The route of prefix p, or NULL. */
struct rsw_ctl_route *fpm_rib_find(struct fpm_rib *rib, const struct rsw_prefix *p);

#endif /* RSW_FPM_PRIV_H */
