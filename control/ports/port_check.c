/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * The checks of the ports' devargs that need no device, registered with the configuration
 * loader so that `railsw --check` and start-up report them alike, as FILE:LINE errors among
 * the others: the driver name is one this DPDK has, a PCI address is well formed, no two
 * ports name one device, one TAP interface or one vhost socket, the socket directories of
 * net_memif and net_vhost exist, the MTU fits net_af_xdp's frames. A port with `llr` or `cbfc`
 * on a kind that can have no railsw peer (net_null, net_pcap) gets a warning. The checks that need
 * the device (an AF_XDP interface and its channels) stay in rsw_ports_precheck. Control
 * thread, before rte_eal_init.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_build_config.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "llr_shim.h"
#include "rsw_ports.h"

#define MAX_DRIVERS 256

/* The net drivers of this DPDK's plugin directory, read once. */
static struct {
	bool read;                             /* the directory was scanned */
	bool on;                               /* names are checked (no -d given to EAL) */
	unsigned int n;                        /* names found */
	char names[MAX_DRIVERS][RSW_NAME_LEN]; /* "net_tap", "net_memif", ... */
} drivers = {.on = true};

void
rsw_ports_check_drivers(bool on)
{
	drivers.on = on;
}

/* Every "PMD_INFO_STRING= {"name": "X"" that a PMD library embeds (dpdk-pmdinfo reads them). */
static void
scan_library(const char *path)
{
	static const char tag[] = "PMD_INFO_STRING= {\"name\": \"";
	const char *p, *end, *name;
	struct stat st;
	size_t len;
	void *map;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return;
	p = map;
	end = p + st.st_size;
	while (drivers.n < MAX_DRIVERS &&
	       (p = memmem(p, (size_t)(end - p), tag, sizeof(tag) - 1)) != NULL) {
		name = p + sizeof(tag) - 1;
		len = 0;
		while (name + len < end && name[len] != '"' && len < RSW_NAME_LEN - 1)
			len++;
		memcpy(drivers.names[drivers.n], name, len);
		drivers.names[drivers.n][len] = '\0';
		drivers.n++;
		p = name + len;
	}
	munmap(map, (size_t)st.st_size);
}

/* The net PMD libraries EAL would load (files ending in .so, as EAL's -d DIR takes them). */
static void
read_drivers(void)
{
	char path[512];
	struct dirent *d;
	size_t len;
	DIR *dir;

	drivers.read = true;
	dir = opendir(RTE_EAL_PMD_PATH);
	if (dir == NULL)
		return;
	while ((d = readdir(dir)) != NULL) {
		len = strlen(d->d_name);
		if (strncmp(d->d_name, "librte_net_", 11) != 0 || len < 3 ||
		    strcmp(d->d_name + len - 3, ".so") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", RTE_EAL_PMD_PATH, d->d_name);
		scan_library(path);
	}
	closedir(dir);
}

/*
 * Whether this DPDK has a driver for vdev name: the vdev bus takes the first driver whose
 * name starts name ("net_tap" for "net_tap0"); "eth_X" is the older alias of "net_X". True
 * when the drivers cannot be known (no plugin directory, or EAL given -d).
 */
static bool
driver_known(const char *name)
{
	char alias[RSW_DEVARGS_LEN];
	unsigned int i;

	if (!drivers.on)
		return true;
	if (!drivers.read)
		read_drivers();
	if (drivers.n == 0)
		return true;
	snprintf(alias, sizeof(alias), "net_%s", strncmp(name, "eth_", 4) == 0 ? name + 4 : "");
	for (i = 0; i < drivers.n; i++) {
		size_t n = strlen(drivers.names[i]);

		if (strncmp(drivers.names[i], name, n) == 0 ||
		    (alias[4] != '\0' && strncmp(drivers.names[i], alias, n) == 0))
			return true;
	}
	return false;
}

/* n hex digits, at most max of them, then stop: the next character is not a hex digit. */
static const char *
hex_field(const char *s, int max, unsigned long *v)
{
	int n = 0;

	*v = 0;
	while (isxdigit((unsigned char)s[n]) && n <= max) {
		*v = *v * 16 + (unsigned long)(isdigit((unsigned char)s[n])
						       ? s[n] - '0'
						       : tolower((unsigned char)s[n]) - 'a' + 10);
		n++;
	}
	return n == 0 || n > max ? NULL : s + n;
}

/* DDDD:BB:DD.F or BB:DD.F, device 00-1f and function 0-7 (PCI), and nothing after it. */
static bool
pci_address_valid(const char *name)
{
	unsigned long a, b, d, f;
	const char *s = name, *t;

	t = hex_field(s, 4, &a);
	if (t == NULL || *t != ':')
		return false;
	s = t + 1;
	t = hex_field(s, 2, &b);
	if (t == NULL)
		return false;
	if (*t == ':') { /* a was the domain */
		if (b > 0xff)
			return false;
		s = t + 1;
		t = hex_field(s, 2, &d);
	} else if (a > 0xff) { /* a was the bus */
		return false;
	} else {
		d = b;
	}
	if (t == NULL || *t != '.' || d > 0x1f)
		return false;
	t = hex_field(t + 1, 1, &f);
	return t != NULL && *t == '\0' && f <= 7;
}

/* The largest MTU net_af_xdp takes: a page, less the mbuf and XDP headrooms (its dev_info). */
static unsigned int
af_xdp_max_mtu(void)
{
	return (unsigned int)(sysconf(_SC_PAGESIZE) - (long)sizeof(struct rte_mempool_objhdr) -
			      (long)sizeof(struct rte_mbuf) - RTE_PKTMBUF_HEADROOM -
			      XDP_PACKET_HEADROOM);
}

static void
check_socket_dir(const struct rsw_cfg_port *cp, const char *key, struct rsw_cfg_report *r)
{
	char path[RSW_DEVARGS_LEN], *dir;
	struct stat st;

	if (!rsw_devargs_value(cp->devargs, key, path, sizeof(path)))
		return;
	dir = dirname(path);
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		rsw_config_report_error(r, cp->devargs_line,
					"port %s: directory '%s' of %s= does not exist", cp->name,
					dir, key);
}

/* A value (TAP interface, vhost socket) that two ports must not share. */
static void
check_unique_value(const struct rsw_config *cfg, uint16_t p, const char *kind, const char *key,
		   const char *what, struct rsw_cfg_report *r)
{
	char mine[RSW_DEVARGS_LEN], other[RSW_DEVARGS_LEN];
	const struct rsw_port_kind *k;
	uint16_t q;

	if (!rsw_devargs_value(cfg->ports[p].devargs, key, mine, sizeof(mine)))
		return;
	for (q = 0; q < p; q++) {
		k = rsw_port_kind_of(cfg->ports[q].devargs);
		if (cfg->ports[q].name[0] == '\0' || k == NULL || strcmp(k->name, kind) != 0 ||
		    !rsw_devargs_value(cfg->ports[q].devargs, key, other, sizeof(other)) ||
		    strcmp(mine, other) != 0)
			continue;
		rsw_config_report_error(r, cfg->ports[p].devargs_line,
					"duplicate %s '%.64s' (port '%s' has it)", what, mine,
					cfg->ports[q].name);
		return;
	}
}

static void
check_port(const struct rsw_config *cfg, uint16_t p, struct rsw_cfg_report *r)
{
	const struct rsw_cfg_port *cp = &cfg->ports[p];
	const struct rsw_port_kind *k = rsw_port_kind_of(cp->devargs);
	char name[RSW_DEVARGS_LEN], other[RSW_DEVARGS_LEN];
	int line = cp->devargs_line;
	uint16_t q;

	rsw_devargs_name(cp->devargs, name, sizeof(name));
	if (strchr(name, ':') != NULL) {
		if (!pci_address_valid(name)) {
			rsw_config_report_error(
				r, line,
				"'devargs' '%.64s' is not a PCI address (DDDD:BB:DD.F "
				"or BB:DD.F: device 00-1f, function 0-7)",
				name);
			return;
		}
	} else if (!driver_known(name)) {
		rsw_config_report_error(r, line,
					"'devargs' '%.64s': this DPDK has no driver of that name "
					"(railsw --list-port-kinds)",
					name);
		return;
	}
	for (q = 0; q < p; q++) {
		if (cfg->ports[q].name[0] == '\0')
			continue;
		rsw_devargs_name(cfg->ports[q].devargs, other, sizeof(other));
		if (strcmp(name, other) == 0) {
			rsw_config_report_error(r, line,
						"duplicate device '%.64s' (port '%s' has it)", name,
						cfg->ports[q].name);
			return;
		}
	}
	if (k == NULL)
		return;
	if (strcmp(k->name, "net_tap") == 0)
		check_unique_value(cfg, p, "net_tap", "iface", "TAP interface", r);
	else if (strcmp(k->name, "net_vhost") == 0)
		check_unique_value(cfg, p, "net_vhost", "iface", "vhost socket", r);
	if (strcmp(k->name, "net_vhost") == 0)
		check_socket_dir(cp, "iface", r);
	else if (strcmp(k->name, "net_memif") == 0)
		check_socket_dir(cp, "socket", r);
	if (strcmp(k->name, "net_af_xdp") == 0 &&
	    (unsigned int)cp->mtu + (cp->llr ? RSW_LLR_SHIM_LEN : 0) > af_xdp_max_mtu())
		rsw_config_report_error(
			r, cp->mtu_line > 0 ? cp->mtu_line : cp->line,
			"'mtu' %u is more than net_af_xdp takes (at most %u%s on this machine)",
			cp->mtu, af_xdp_max_mtu() - (cp->llr ? RSW_LLR_SHIM_LEN : 0),
			cp->llr ? " with llr" : "");
	if (cp->llr && k->no_peer)
		rsw_config_report_warning(
			r, cp->llr_line > 0 ? cp->llr_line : cp->line,
			"port %s: 'llr' on a %s port, which has no railsw peer to "
			"answer it",
			cp->name, k->name);
	if (cp->cbfc.enable && k->no_peer)
		rsw_config_report_warning(
			r, cp->cbfc.line > 0 ? cp->cbfc.line : cp->line,
			"port %s: 'cbfc' on a %s port, which has no railsw peer to "
			"grant it credits",
			cp->name, k->name);
}

void
rsw_ports_check_config(const struct rsw_config *cfg, struct rsw_cfg_report *r)
{
	uint16_t p;

	for (p = 0; p < cfg->n_ports; p++)
		if (cfg->ports[p].name[0] != '\0')
			check_port(cfg, p, r);
}
