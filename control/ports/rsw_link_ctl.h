/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The control side of the link layer (docs/link.md): the LLR machines and impairments of
 * the ports (dataplane/link/rsw_link.h), made from ports[].llr and ports[].impair at start,
 * impairments replaced at run time (`port NAME impair`, reload). Control thread only.
 */

#ifndef RSW_LINK_CTL_H
#define RSW_LINK_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "rsw_config.h"

/**
 * Replace port p's impairments with cfg (NULL: none), waiting for the workers' grace
 * period before freeing the old ones (frames still in its delay line are freed).
 * @return 0, -EINVAL (a bad configuration: err says why) or -ENOMEM.
 */
int rsw_ctl_link_impair_set(uint16_t p, const struct rsw_cfg_impair *cfg, char *err, size_t len);

/** Whether port p has impairments now; *cfg receives them. */
int rsw_ctl_link_impair_get(uint16_t p, struct rsw_cfg_impair *cfg);

/** Apply a reloaded configuration's impairments where they differ from the old one's. */
void rsw_ctl_link_reload(const struct rsw_config *o, const struct rsw_config *n);

#endif /* RSW_LINK_CTL_H */
