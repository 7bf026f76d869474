/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * `reload [FILE]` (reload.c): refuse what needs a restart, build aside, publish.
 */

#ifndef RSW_RELOAD_H
#define RSW_RELOAD_H

#include <jansson.h>
#include <stddef.h>

/**
 * Load path (the running file when NULL), refuse it when it changes what needs a restart,
 * else build its tables aside, publish them (RCU) and make it the running configuration.
 * @return {"ok":true,"generation":N} or {"error":"FILE:LINE: ..."} / {"error":"requires
 *   restart: KEY"}; the old configuration keeps running on any error.
 */
json_t *rsw_ctl_reload(const char *path);

/**
 * Build a new generation from the running configuration and the route source (FPM), and
 * publish it as reload does (the groups' counters count from it).
 * @return 0, or -EINVAL with the reason in err.
 */
int rsw_ctl_tables_rebuild(char *err, size_t errlen);

/** Register `reload [FILE]`. @return 0 or -errno. */
int rsw_ctl_reload_register(void);

#endif /* RSW_RELOAD_H */
