/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The control thread's shared state (rsw_ctl.h) and the module registry (rsw_module.h):
 * defined in the library, not in main.c, so that unit tests link every control module
 * against them.
 */

#include <string.h>

#include <rte_log.h>

#include "rsw_ctl.h"
#include "rsw_module.h"

struct rsw_ctl_main rsw_ctl;

static struct rsw_module *modules;
static struct rsw_module *initialised; /* the last module whose init succeeded */
static unsigned int turn_work;         /* work done so far in this rsw_modules_poll */

void
rsw_module_register(struct rsw_module *m)
{
	struct rsw_module **pp = &modules;

	while (*pp != NULL && (*pp)->order <= m->order)
		pp = &(*pp)->next;
	m->next = *pp;
	*pp = m;
}

struct rsw_module *
rsw_modules_first(void)
{
	return modules;
}

/* The module at position i of the registry. */
static struct rsw_module *
module_at(unsigned int i)
{
	struct rsw_module *m = modules;

	while (m != NULL && i-- > 0)
		m = m->next;
	return m;
}

/* Finalise from last back to the first module (the registry is short: quadratic is fine). */
static void
fini_through(struct rsw_module *last)
{
	struct rsw_module *m;
	unsigned int n = 0;

	if (last == NULL)
		return;
	for (m = modules; m != NULL && m != last; m = m->next)
		n++;
	for (m = last;; m = module_at(--n)) {
		if (m->fini != NULL)
			m->fini();
		if (n == 0)
			break;
	}
}

int
rsw_modules_init(const struct rsw_config *cfg)
{
	struct rsw_module *m;
	int ret;

	initialised = NULL;
	for (m = modules; m != NULL; m = m->next) {
		if (m->init != NULL) {
			ret = m->init(cfg);
			if (ret != 0) {
				rte_log(RTE_LOG_ERR, RTE_LOGTYPE_USER1, "railsw: module %s: %s\n",
					m->name, strerror(-ret));
				fini_through(initialised);
				initialised = NULL;
				return ret;
			}
		}
		initialised = m;
	}
	return 0;
}

unsigned int
rsw_modules_poll(uint64_t now_ms)
{
	struct rsw_module *m;

	turn_work = 0;
	for (m = modules; m != NULL; m = m->next) {
		if (m->poll == NULL || (m->period_ms != 0 && now_ms - m->last_ms < m->period_ms))
			continue;
		turn_work += m->poll(now_ms);
		m->last_ms = now_ms;
	}
	return turn_work;
}

unsigned int
rsw_modules_busy(void)
{
	return turn_work;
}

void
rsw_modules_fini(void)
{
	fini_through(initialised);
	initialised = NULL;
}
