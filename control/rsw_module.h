/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Control modules that register themselves (as grout's gr_module): each area names its
 * start-up work (commands, state), its periodic work and its shutdown in one struct and
 * registers it with RSW_MODULE_REGISTER. main.c starts EAL, loads the configuration, builds
 * the first tables, then calls rsw_modules_init, runs rsw_modules_poll in its loop and
 * rsw_modules_fini at the end. Control thread only.
 *
 * The registrations are constructors: the daemon links the control library whole
 * (link_whole), so that no module's object is left out for want of a reference.
 */

#ifndef RSW_MODULE_H
#define RSW_MODULE_H

#include <stdint.h>

#include <rte_common.h>

struct rsw_config;

struct rsw_module {
	const char *name;                          /* for logs: "neigh", "pfcwd", ... */
	int order;                                 /* lower first at init, last at fini */
	int (*init)(const struct rsw_config *cfg); /* optional: 0 or -errno */
	void (*poll)(uint64_t now_ms);             /* optional: periodic work */
	unsigned int period_ms;                    /* poll every period_ms; 0 = every turn */
	void (*fini)(void);                        /* optional */
	uint64_t last_ms;                          /* rsw_modules_poll's own */
	struct rsw_module *next;                   /* registry list, by order */
};

/** Add m to the registry (kept sorted by order). Call before rsw_modules_init. */
void rsw_module_register(struct rsw_module *m);

/** Register module m (a struct rsw_module) from a constructor. */
#define RSW_MODULE_REGISTER(m)                                                                     \
	RTE_INIT(rsw_module_register_##m)                                                          \
	{                                                                                          \
		rsw_module_register(&(m));                                                         \
	}

/**
 * Initialise every registered module in order.
 * @return 0, or the first -errno (the modules already initialised are finalised again).
 */
int rsw_modules_init(const struct rsw_config *cfg);

/** Run each module's poll whose period has passed since its last run. */
void rsw_modules_poll(uint64_t now_ms);

/** Finalise the initialised modules, in reverse order. */
void rsw_modules_fini(void);

/** The first registered module, for iteration and tests (then ->next). */
struct rsw_module *rsw_modules_first(void);

#endif /* RSW_MODULE_H */
