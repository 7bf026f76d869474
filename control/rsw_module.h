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

/*
 * The orders of railsw's modules: init runs from the lowest, fini from the highest, and
 * every turn of the control loop polls them in this order. The control socket comes last
 * because its poll is where an idle control thread waits.
 */
enum rsw_module_order {
	RSW_MODULE_ORDER_PUNT = 100,      /* punted packets, every turn (punt.c) */
	RSW_MODULE_ORDER_KIF = 150,       /* kernel interfaces, punt policers (kif.c) */
	RSW_MODULE_ORDER_NEIGH = 200,     /* neighbour timers (neigh.c) */
	RSW_MODULE_ORDER_PORTS = 250,     /* link speeds read again (port_conf.c) */
	RSW_MODULE_ORDER_LIVENESS = 300,  /* next-hop group liveness (liveness.c) */
	RSW_MODULE_ORDER_PFCWD = 400,     /* the PFC watchdog (watchdog.c) */
	RSW_MODULE_ORDER_CLI = 500,       /* the cli nouns' commands (RSW_CLI_MODULE_ORDER) */
	RSW_MODULE_ORDER_ICMP = 510,      /* ICMP commands (icmp.c) */
	RSW_MODULE_ORDER_RELOAD = 600,    /* `reload` (reload.c) */
	RSW_MODULE_ORDER_FPM = 650,       /* routes from zebra over FPM (fpm.c) */
	RSW_MODULE_ORDER_METRICS = 700,   /* Prometheus on metrics_listen (http.c) */
	RSW_MODULE_ORDER_TELEMETRY = 800, /* DPDK telemetry (telemetry.c) */
	RSW_MODULE_ORDER_CAPTURE = 900,   /* rte_pdump (capture.c) */
	RSW_MODULE_ORDER_SOCK = 10000,    /* the control socket, last (sock.c) */
};

/* How long the last module's poll may wait for its file descriptors in a turn without work. */
#define RSW_MODULE_IDLE_WAIT_MS 2

struct rsw_module {
	const char *name;                          /* for logs: "neigh", "pfcwd", ... */
	int order;                                 /* lower first at init, last at fini */
	int (*init)(const struct rsw_config *cfg); /* optional: 0 or -errno */
	/*
	 * Optional periodic work; returns how much work it did (packets, requests), 0 when it
	 * found nothing to do: rsw_modules_busy() tells later modules of the same turn.
	 */
	unsigned int (*poll)(uint64_t now_ms);
	unsigned int period_ms;  /* poll every period_ms; 0 = every turn */
	void (*fini)(void);      /* optional */
	uint64_t last_ms;        /* rsw_modules_poll's own */
	struct rsw_module *next; /* registry list, by order */
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
 * Initialise every registered module in order. A module logs why its init failed.
 * @return 0, or the first -errno (the modules already initialised are finalised again,
 *   in reverse order).
 */
int rsw_modules_init(const struct rsw_config *cfg);

/**
 * One turn: run each module's poll whose period has passed since its last run (every
 * turn for period 0), in order.
 * @return the work the polls did (the sum of their returns).
 */
unsigned int rsw_modules_poll(uint64_t now_ms);

/**
 * The work done so far in the current turn of rsw_modules_poll: a module whose poll may
 * wait for file descriptors waits (at most RSW_MODULE_IDLE_WAIT_MS) only when it is 0, so
 * that the control thread neither spins when idle nor slows down when there is work.
 */
unsigned int rsw_modules_busy(void);

/** Finalise the initialised modules, in reverse order. */
void rsw_modules_fini(void);

/** The first registered module, for iteration and tests (then ->next). */
struct rsw_module *rsw_modules_first(void);

#endif /* RSW_MODULE_H */
