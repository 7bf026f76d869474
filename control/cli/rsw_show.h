/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The `show` and `clear` commands of CLI.md (show.c).
 */

#ifndef RSW_SHOW_H
#define RSW_SHOW_H

/** Register the commands of CLI.md. @return 0 or -errno. */
int rsw_ctl_commands_register(void);

#endif /* RSW_SHOW_H */
