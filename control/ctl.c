/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The control thread's shared state (rsw_ctl.h): defined in the library, not in main.c,
 * so that unit tests link every control module against it.
 */

#include <string.h>

#include <rte_log.h>

#include "rsw_ctl.h"
#include "rsw_module.h"

struct rsw_ctl_main rsw_ctl;

static struct rsw_module *modules;
static struct rsw_module *initialised; /* the last module whose init succeeded */

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

/* Finalise from the first module through last, in reverse order. */
static void
fini_through(struct rsw_module *last)
{
	struct rsw_module *stack[64], *m;
	unsigned int n = 0;

	if (last == NULL)
		return;
	for (m = modules; m != NULL && n < RTE_DIM(stack); m = m->next) {
		stack[n++] = m;
		if (m == last)
			break;
	}
	while (n > 0) {
		m = stack[--n];
		if (m->fini != NULL)
			m->fini();
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
				RTE_LOG(ERR, USER1, "railsw: module %s: %s\n", m->name,
					strerror(-ret));
				fini_through(initialised);
				initialised = NULL;
				return ret;
			}
		}
		initialised = m;
	}
	return 0;
}

void
rsw_modules_poll(uint64_t now_ms)
{
	struct rsw_module *m;

	for (m = modules; m != NULL; m = m->next) {
		if (m->poll == NULL || (m->period_ms != 0 && now_ms - m->last_ms < m->period_ms))
			continue;
		m->poll(now_ms);
		m->last_ms = now_ms;
	}
}

void
rsw_modules_fini(void)
{
	fini_through(initialised);
	initialised = NULL;
}
