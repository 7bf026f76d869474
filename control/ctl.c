/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The control thread's shared state (rsw_ctl.h): defined in the library, not in main.c,
 * so that unit tests link every control module against it.
 */

#include "rsw_ctl.h"

struct rsw_ctl_main rsw_ctl;
