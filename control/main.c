/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * railsw: the daemon. Parses the configuration before rte_eal_init, builds
 * the EAL device list from the ports' devargs, sets up ports, tables and
 * workers, then runs the control thread on the main lcore: the periodic work
 * of every registered module (rsw_module.h: punted packets, neighbour timers,
 * the PFC watchdog, telemetry, Prometheus, the control socket). SIGINT/SIGTERM
 * stop it cleanly: workers return, the modules finish (the socket file is
 * removed), ports stop.
 */

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_version.h>

#include "llr_shim.h"
#include "rsw_cmd.h"
#include "rsw_ctl.h"
#include "rsw_liveness.h"
#include "rsw_module.h"
#include "rsw_neigh.h"
#include "rsw_ports.h"
#include "rsw_reload.h"
#include "rsw_tables_ctl.h"

#define MAX_EAL_ARGS 256

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t reload_signal;

static void
on_signal(int sig)
{
	stop_signal = sig;
}

static void
on_sighup(int sig)
{
	reload_signal = sig;
}

/* SIGHUP: reload the running file, as `railctl reload` does. */
static void
reload_on_signal(void)
{
	json_t *r;
	char *s;

	reload_signal = 0;
	r = rsw_ctl_reload(NULL);
	s = r ? json_dumps(r, JSON_COMPACT) : NULL;
	printf("railsw: SIGHUP: reload: %s\n", s ? s : "out of memory");
	fflush(stdout);
	free(s);
	json_decref(r);
}

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [EAL args] -- -c FILE [--check]\n"
		"       %s -c FILE --check\n"
		"\n"
		"  -c, --config FILE  switch configuration (YAML, see docs/config.md)\n"
		"      --check        validate the configuration and exit (0 valid, 1 not)\n"
		"      --list-port-kinds  the port kinds (devargs) railsw knows and what each\n"
		"                     supports (docs/ports.md)\n"
		"  -h, --help         this text\n"
		"  -v, --version      print the version\n"
		"\n"
		"railsw adds a --vdev (or -a for PCI) per port devargs, --no-pci when no port is\n"
		"a PCI device, and --file-prefix railsw-<switch.name> unless given.\n"
		"Without hugepages: %s -l 0,1 --no-huge -m 1024 -- -c config/lab.yaml\n",
		prog, prog, prog);
}

/* `railsw --list-port-kinds`: the table of rsw_ports.h, before EAL starts. */
static void
list_port_kinds(FILE *f)
{
	const struct rsw_port_kind *k;
	unsigned int i;

	fprintf(f, "%-11s %-60s %-9s %-45s %s\n", "KIND", "MULTI-QUEUE", "MAC_CTRL", "PFC RX/TX",
		"LINK SPEED (no speed:)");
	for (i = 0; (k = rsw_port_kind_get(i)) != NULL; i++)
		fprintf(f, "%-11s %-60s %-9s %-45s %s\n", k->name, k->multi_queue,
			k->mac_ctrl ? "yes" : (strcmp(k->name, "pci") == 0 ? "per NIC" : "no"),
			k->pfc, k->speed);
	fprintf(f, "\n%-11s %s\n", "KIND", "DEVARGS EXAMPLE");
	for (i = 0; (k = rsw_port_kind_get(i)) != NULL; i++)
		fprintf(f, "%-11s %s\n", k->name, k->example);
	fprintf(f, "\n%-11s %s\n", "KIND", "KNOWN LIMITS");
	for (i = 0; (k = rsw_port_kind_get(i)) != NULL; i++)
		fprintf(f, "%-11s %s\n", k->name, k->limits);
	fprintf(f, "\nOther DPDK devices work too; railsw has no notes on them (docs/ports.md).\n");
}

static bool
has_arg(int argc, char **argv, const char *opt)
{
	size_t n = strlen(opt);
	int i;

	for (i = 0; i < argc; i++)
		if (strncmp(argv[i], opt, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '='))
			return true;
	return false;
}

/* Whether the EAL arguments load more drivers (-d LIB or -dLIB): then any name may exist. */
static bool
eal_loads_drivers(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strncmp(argv[i], "-d", 2) == 0)
			return true;
	return false;
}

/* EAL argv: the user's EAL args plus the devices of the config. */
static int
build_eal_args(const struct rsw_config *cfg, int argc, char **argv, char **out, char *store,
	       size_t store_len)
{
	size_t used = 0;
	int n = 0, i;
	bool pci = false;
	uint16_t p;

#define ADD(s)                                                                                     \
	do {                                                                                       \
		size_t l_ = strlen(s) + 1;                                                         \
		if (n >= MAX_EAL_ARGS - 1 || used + l_ > store_len)                                \
			return -E2BIG;                                                             \
		memcpy(store + used, s, l_);                                                       \
		out[n++] = store + used;                                                           \
		used += l_;                                                                        \
	} while (0)

	for (i = 0; i < argc; i++)
		ADD(argv[i]);
	for (p = 0; p < cfg->n_ports; p++) {
		if (rsw_devargs_is_pci(cfg->ports[p].devargs)) {
			ADD("-a");
			pci = true;
		} else {
			ADD("--vdev");
		}
		ADD(cfg->ports[p].devargs);
	}
	if (!pci && !has_arg(argc, argv, "--no-pci"))
		ADD("--no-pci");
	if (!has_arg(argc, argv, "--file-prefix")) {
		char prefix[64];

		snprintf(prefix, sizeof(prefix), "railsw-%s", cfg->sw.name);
		ADD("--file-prefix");
		ADD(prefix);
	}
	if (!cfg->control.telemetry && !has_arg(argc, argv, "--no-telemetry"))
		ADD("--no-telemetry");
#undef ADD
	out[n] = NULL;
	return n;
}

/* The control thread: every registered module's periodic work, until a signal stops it. */
static void
control_loop(void)
{
	while (!stop_signal) {
		if (reload_signal)
			reload_on_signal();
		rsw_modules_poll(rsw_now_ms());
	}
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"check", no_argument, NULL, 'C'},
		{"list-port-kinds", no_argument, NULL, 'K'}, /* docs/ports.md */
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'v'},
		{NULL, 0, NULL, 0},
	};
	static char eal_store[16384];
	char *eal_argv[MAX_EAL_ARGS];
	char err[RSW_CFG_ERR_LEN];
	const char *cfg_path = NULL;
	struct rsw_config *cfg;
	struct rsw_tables *t;
	int eal_argc, app_argc, sep = -1, i, ret, opt;
	unsigned int lc, w;
	bool check = false;
	char **app_argv;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			sep = i;
			break;
		}
	/* Without "--", every argument is railsw's. */
	eal_argc = sep < 0 ? 1 : sep;
	app_argc = sep < 0 ? argc : argc - sep;
	app_argv = sep < 0 ? argv : argv + sep;
	optind = 1;
	while ((opt = getopt_long(app_argc, app_argv, "c:hv", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			cfg_path = optarg;
			break;
		case 'C':
			check = true;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		case 'K':
			list_port_kinds(stdout);
			return 0;
		case 'v':
			printf("railsw %s (DPDK %s)\n", RSW_VERSION, rte_version());
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (cfg_path == NULL || optind != app_argc) {
		usage(stderr, argv[0]);
		return 2;
	}

	/* The devargs checks that need no device, at --check as at start-up (docs/config.md). */
	rsw_ports_check_drivers(!eal_loads_drivers(eal_argc, argv));
	rsw_config_register_check(rsw_ports_check_config);
	cfg = rsw_config_load(cfg_path, err, sizeof(err));
	if (cfg == NULL) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (err[0] != '\0') /* warnings */
		fprintf(stderr, "%s\n", err);
	if (check) {
		printf("%s: configuration OK (%u ports, %u routes, %u neighbors)\n", cfg_path,
		       cfg->n_ports, cfg->n_routes, cfg->n_neighbors);
		rsw_config_free(cfg);
		return 0;
	}

	if (rsw_ports_precheck(cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "railsw: %s\n", err);
		rsw_config_free(cfg);
		return 1;
	}
	ret = build_eal_args(cfg, eal_argc, argv, eal_argv, eal_store, sizeof(eal_store));
	if (ret < 0) {
		fprintf(stderr, "railsw: too many EAL arguments\n");
		return 1;
	}
	if (rte_eal_init(ret, eal_argv) < 0) {
		fprintf(stderr,
			"railsw: EAL initialisation failed: %s\n"
			"railsw: without hugepages, run with --no-huge -m 1024; a stale run may hold "
			"the file prefix (--file-prefix)\n",
			rte_strerror(rte_errno));
		return 1;
	}

	rsw_ctl.cfg = cfg;
	w = 0;
	RTE_LCORE_FOREACH_WORKER(lc) {
		rsw_ctl.workers[w].lcore = lc;
		rsw_ctl.workers[w].qsbr_id = w;
		w++;
	}
	rsw_ctl.n_workers = w;
	if (w == 0) {
		fprintf(stderr, "railsw: no worker lcore: give at least two lcores (-l 0,1)\n");
		goto fail_eal;
	}
	rsw_dp.idle_sleep_us = cfg->sw.idle_sleep_us;
	rsw_qos.shaper_burst_us = cfg->sw.shaper_burst_us;
	rsw_dp.cut_through = true;
	rsw_dp.admit_burst = true;
	if (rsw_stats_init() != 0 || rsw_fib_init(w) != 0 || rsw_dp_init(cfg->n_ports) != 0) {
		fprintf(stderr, "railsw: out of memory at start-up (raise -m)\n");
		goto fail_eal;
	}
	rsw_ctl.pool = rsw_pools_create(cfg, w);
	if (rsw_ctl.pool == NULL) {
		fprintf(stderr, "railsw: cannot create the mbuf pool: %s (raise -m)\n",
			rte_strerror(rte_errno));
		goto fail_eal;
	}
	rsw_dp.pool = rsw_ctl.pool;
	if (rsw_ports_setup(cfg, rsw_ctl.pool, w, err, sizeof(err)) != 0) {
		fprintf(stderr, "railsw: %s\n", err);
		goto fail_ports;
	}
	for (i = 0; i < cfg->n_ports; i++) {
		rsw_qos.port[i].speed_bps = rsw_port_speed((uint16_t)i);
		rsw_dp.ports[i].downlink = cfg->ports[i].role == RSW_PORT_ROLE_DOWNLINK;
	}
	if (rsw_ctl_neigh_init(cfg) != 0) {
		fprintf(stderr, "railsw: cannot set up neighbours\n");
		goto fail_ports;
	}
	t = rsw_ctl_tables_build(cfg, ++rsw_ctl.generation, err, sizeof(err));
	if (t == NULL) {
		fprintf(stderr, "railsw: %s\n", err);
		goto fail_ports;
	}
	rsw_tables_publish(t);
	rsw_ctl_lb_poll();
	/* Each module logs why it could not start (and the registry which one it was). */
	if (rsw_modules_init(cfg) != 0)
		goto fail_ports;

	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_sighup);
	for (i = 0; i < (int)w; i++)
		rte_eal_remote_launch(rsw_worker_main, &rsw_ctl.workers[i],
				      rsw_ctl.workers[i].lcore);
	printf("railsw: %s forwarding on %u ports with %u worker(s); socket %s\n", cfg->sw.name,
	       cfg->n_ports, w, cfg->control.socket);
	fflush(stdout);

	control_loop();

	printf("railsw: signal %d, stopping\n", (int)stop_signal);
	rsw_dp.quit = true;
	rte_eal_mp_wait_lcore();
	rsw_modules_fini();
	rsw_cmd_unregister_all();
	rsw_ports_close();
	rsw_ctl_neigh_fini();
	rsw_fib_fini();
	rsw_dp_fini();
	rsw_pools_free();
	rsw_stats_fini();
	free(rsw_ctl.lb_base);
	free(rsw_ctl.qos_base);
	rte_eal_cleanup();
	/* The running configuration: a reload replaced (and freed) the one loaded here. */
	rsw_config_free(rsw_ctl.cfg);
	return 0;

fail_ports:
	rsw_cmd_unregister_all();
	rsw_ports_close();
	rsw_pools_free();
fail_eal:
	rte_eal_cleanup();
	rsw_config_free(cfg);
	return 1;
}
