/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The punt policers' rates on `reload` (rsw_punt_ctl.h): control.kernel_interfaces.punt over
 * the defaults (rsw_config_punt_rates), handed to the workers as a struct rsw_punt_rates. On `reload` the new rates are
 * published by a pointer swap (rsw_punt_set_rates), then the control thread waits for every
 * worker's quiescent state, as for a new tables generation, so the slot left is free for the
 * next change.
 */

#include <string.h>

#include <rte_log.h>
#include <rte_rcu_qsbr.h>

#include "rsw_fib.h"
#include "rsw_punt_ctl.h"

int
rsw_ctl_punt_reload(const struct rsw_config *n)
{
	struct rsw_punt_rates now, want;

	rsw_punt_rates_get(&now);
	rsw_config_punt_rates(n, &want);
	if (memcmp(&now, &want, sizeof(now)) == 0)
		return 0;
	rsw_punt_set_rates(&want);
	if (rsw_fib_main.qsbr != NULL)
		rte_rcu_qsbr_synchronize(rsw_fib_main.qsbr, RTE_QSBR_THRID_INVALID);
	RTE_LOG(INFO, USER1, "punt: new policer rates (control.kernel_interfaces.punt)\n");
	return 1;
}
