/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright (c) 2026 The railsw authors */

/*
 * Kernel interfaces (rsw_kif.h, docs/routing.md "Kernel interfaces"): a TAP per port inside
 * control.kernel_interfaces.netns, for FRR, lldpd, sshd and anything else that wants the
 * switch's ports as Linux netdevs (as VPP's linux-cp and grout do). Plain TUN/TAP descriptors
 * served by this thread, not DPDK ethdevs (32 ports would exhaust RTE_MAX_ETHPORTS).
 *
 * - Made inside the namespace (setns on this thread, then back): names are the ports', so two
 *   switches' "p0" never collide. A missing namespace is created as `ip netns add` does (a
 *   bind mount of a fresh namespace on /run/netns/NAME) and its lo brought up.
 * - Each TAP gets the port's MAC, MTU and addresses, and is brought up; its carrier
 *   (TUNSETCARRIER) follows the port's admin state and link (a link railsw cannot know counts
 *   as up).
 * - Towards the kernel: punt.c calls rsw_kif_deliver with copies of ARP and ND (the kernel's
 *   neighbour table learns from the same frames railsw's does), LLDP, and the frames to the
 *   switch's addresses that railsw does not answer itself.
 * - From the kernel: every frame it writes is sent on the paired port in kernel_interfaces.tc,
 *   except PAUSE/PFC (never the kernel's) and ARP replies and NAs for the port's configured
 *   addresses, which railsw answers itself (one answer per question).
 * - The IPv6 link-local sources seen in ND on a port are remembered: the neighbours BGP
 *   unnumbered routes point at (rsw_kif_ll_neighbor).
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include "rsw_ctl.h"
#include "rsw_kif.h"
#include "rsw_module.h"
#include "rsw_neigh.h"
#include "rsw_parse.h"
#include "rsw_ports.h"
#include "rsw_punt_dp.h"

#define KIF_LOG(level, ...) RTE_LOG(level, USER1, "kif: " __VA_ARGS__)

#define KIF_NETNS_DIR  "/run/netns"
#define KIF_RX_BURST   32    /* frames read from one TAP per turn */
#define KIF_FRAME_MAX  16384 /* a TAP frame, the largest a port's MTU allows and more */
#define KIF_LL_SLOTS   8     /* link-local neighbours remembered per port */
#define KIF_CARRIER_MS 100   /* carrier follows the port this often */
#define ND_TYPE_RA     134
#define ND_TYPE_NA     136
#define ND_TYPE_FIRST  133
#define ND_TYPE_LAST   137
#define ETH_TYPE_PAUSE 0x8808

struct kif_ll {
	uint8_t ip[16];
	uint8_t mac[6];
	uint64_t seen_ms; /* 0 = free */
};

struct kif_port {
	int fd;      /* the TAP, -1 = none */
	int ifindex; /* in the namespace */
	char ifname[IFNAMSIZ];
	int carrier;        /* last TUNSETCARRIER: 0, 1, -1 = never set */
	uint64_t to_kernel; /* frames written to the TAP */
	uint64_t from_kernel;
	uint64_t filtered; /* kernel frames not sent: PAUSE/PFC, answers railsw gives */
	uint64_t errors;   /* short writes, reads that failed, no mbuf */
	struct kif_ll ll[KIF_LL_SLOTS];
};

static struct {
	bool on;
	int netns_fd; /* the namespace, -1 = none */
	uint8_t tc;
	uint16_t n_ports;
	uint64_t ll_heard; /* link-local neighbours heard for the first time on their port */
	struct kif_port port[RSW_MAX_PORTS];
} kif = {.netns_fd = -1};

static uint8_t frame_buf[KIF_FRAME_MAX];

bool
rsw_kif_enabled(void)
{
	return kif.on;
}

int
rsw_kif_netns_enter(int *saved)
{
	int cur;

	*saved = -1;
	if (kif.netns_fd < 0)
		return 0;
	cur = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (cur < 0)
		return -errno;
	if (setns(kif.netns_fd, CLONE_NEWNET) != 0) {
		int e = errno;

		close(cur);
		return -e;
	}
	*saved = cur;
	return 0;
}

void
rsw_kif_netns_leave(int saved)
{
	if (saved < 0)
		return;
	if (setns(saved, CLONE_NEWNET) != 0)
		KIF_LOG(ERR, "back to railsw's namespace: %s\n", strerror(errno));
	close(saved);
}

/* Open /run/netns/name, creating the namespace when it is absent. @return an fd or -errno. */
static int
netns_open(const char *name, bool *created)
{
	char path[sizeof(KIF_NETNS_DIR) + 80];
	int fd, cur, e;

	*created = false;
	snprintf(path, sizeof(path), "%s/%s", KIF_NETNS_DIR, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (errno != ENOENT)
		return -errno;
	/* As `ip netns add`: a shared /run/netns, a file there, a new namespace bound on it. */
	if (mkdir(KIF_NETNS_DIR, 0755) != 0 && errno != EEXIST)
		return -errno;
	if (mount("", KIF_NETNS_DIR, "none", MS_SHARED | MS_REC, NULL) != 0 && errno == EINVAL &&
	    mount(KIF_NETNS_DIR, KIF_NETNS_DIR, "none", MS_BIND | MS_REC, NULL) == 0)
		mount("", KIF_NETNS_DIR, "none", MS_SHARED | MS_REC, NULL);
	fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	close(fd);
	cur = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (cur < 0) {
		e = -errno;
		unlink(path);
		return e;
	}
	if (unshare(CLONE_NEWNET) != 0) {
		e = -errno;
		close(cur);
		unlink(path);
		return e;
	}
	e = mount("/proc/thread-self/ns/net", path, "none", MS_BIND, NULL) != 0 ? -errno : 0;
	if (setns(cur, CLONE_NEWNET) != 0 && e == 0)
		e = -errno;
	close(cur);
	if (e != 0) {
		unlink(path);
		return e;
	}
	*created = true;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

/* Set IFF_UP on ifname through socket s (in the namespace). */
static int
if_up(int s, const char *ifname)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(s, SIOCGIFFLAGS, &ifr) != 0)
		return -errno;
	ifr.ifr_flags |= IFF_UP;
	return ioctl(s, SIOCSIFFLAGS, &ifr) != 0 ? -errno : 0;
}

/* The port's IPv4 address and mask on the interface, through an AF_INET socket s. */
static int
set_ipv4(int s, const char *ifname, const struct rsw_prefix *pf)
{
	struct ifreq ifr;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
	uint32_t mask = pf->len == 0 ? 0 : UINT32_MAX << (32 - pf->len);

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	sin->sin_family = AF_INET;
	memcpy(&sin->sin_addr, pf->ip.addr, 4);
	if (ioctl(s, SIOCSIFADDR, &ifr) != 0)
		return -errno;
	sin->sin_addr.s_addr = htonl(mask);
	return ioctl(s, SIOCSIFNETMASK, &ifr) != 0 ? -errno : 0;
}

/* As struct in6_ifreq of <linux/ipv6.h>, which clashes with <netinet/in.h>. */
struct kif_in6_ifreq {
	struct in6_addr addr;
	uint32_t prefixlen;
	int ifindex;
};

static int
set_ipv6(int s6, int ifindex, const struct rsw_prefix *pf)
{
	struct kif_in6_ifreq r;

	memset(&r, 0, sizeof(r));
	memcpy(&r.addr, pf->ip.addr, 16);
	r.prefixlen = pf->len;
	r.ifindex = ifindex;
	return ioctl(s6, SIOCSIFADDR, &r) != 0 ? -errno : 0;
}

/* Make port p's TAP in the namespace this thread is in. @return 0 or -errno (logged). */
static int
tap_make(uint16_t p, int s, int s6)
{
	const struct rsw_cfg_port *cp = &rsw_ctl.cfg->ports[p];
	struct kif_port *kp = &kif.port[p];
	struct ifreq ifr;
	int fd, rc;

	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		KIF_LOG(ERR, "%s: /dev/net/tun: %s\n", cp->name, strerror(errno));
		return rc;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", cp->name);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	if (ioctl(fd, TUNSETIFF, &ifr) != 0) {
		rc = -errno;
		KIF_LOG(ERR, "%s: TUNSETIFF: %s\n", cp->name, strerror(errno));
		close(fd);
		return rc;
	}
	kp->fd = fd;
	snprintf(kp->ifname, sizeof(kp->ifname), "%s", ifr.ifr_name);
	kp->carrier = -1;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", kp->ifname);
	ifr.ifr_hwaddr.sa_family = 1; /* ARPHRD_ETHER */
	memcpy(ifr.ifr_hwaddr.sa_data, rsw_dp.ports[p].mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	if (ioctl(s, SIOCSIFHWADDR, &ifr) != 0)
		goto fail;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", kp->ifname);
	ifr.ifr_mtu = rsw_dp.ports[p].mtu;
	if (ifr.ifr_mtu >= 68 && ioctl(s, SIOCSIFMTU, &ifr) != 0)
		goto fail;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", kp->ifname);
	if (ioctl(s, SIOCGIFINDEX, &ifr) != 0)
		goto fail;
	kp->ifindex = ifr.ifr_ifindex;
	if (cp->has_ipv4 && set_ipv4(s, kp->ifname, &cp->ipv4) != 0)
		goto fail;
	rc = if_up(s, kp->ifname);
	if (rc != 0) {
		errno = -rc;
		goto fail;
	}
	if (cp->has_ipv6 && set_ipv6(s6, kp->ifindex, &cp->ipv6) != 0)
		goto fail;
	return 0;
fail:
	rc = -errno;
	KIF_LOG(ERR, "%s: setting up the kernel interface: %s\n", cp->name, strerror(errno));
	return rc;
}

/* What the kernel's interface of port p should show: admin up, and a link not known down. */
static int
carrier_want(uint16_t p)
{
	return !rsw_dp.ports[p].admin_down && rsw_port_link(p) != RSW_LINK_DOWN;
}

static void
carrier_update(void)
{
	uint16_t p;

	for (p = 0; p < kif.n_ports; p++) {
		struct kif_port *kp = &kif.port[p];
		int want = carrier_want(p);

		if (kp->fd < 0 || kp->carrier == want)
			continue;
		if (ioctl(kp->fd, TUNSETCARRIER, &want) != 0) {
			KIF_LOG(WARNING, "%s: TUNSETCARRIER: %s\n", kp->ifname, strerror(errno));
			kp->errors++;
		}
		kp->carrier = want;
	}
}

static void
kif_close(void)
{
	uint16_t p;

	for (p = 0; p < RSW_MAX_PORTS; p++) {
		if (kif.port[p].fd >= 0)
			close(kif.port[p].fd);
		kif.port[p].fd = -1;
	}
	if (kif.netns_fd >= 0)
		close(kif.netns_fd);
	kif.netns_fd = -1;
	kif.on = false;
}

static int
kif_init(const struct rsw_config *cfg)
{
	const struct rsw_cfg_control *ctl = &cfg->control;
	int saved, s = -1, s6 = -1, rc;
	struct rsw_punt_rates pr;
	bool created;
	uint16_t p;

	/* The neighbours ask us about link-local next hops through a hook: no call back. */
	rsw_ctl_neigh_set_ll_source(rsw_kif_ll_neighbor);
	for (p = 0; p < RSW_MAX_PORTS; p++)
		kif.port[p].fd = -1;
	/* The punt policers run with or without kernel interfaces. */
	rsw_parse_lldp = ctl->has_kif;
	rsw_config_punt_rates(cfg, &pr);
	rsw_punt_configure(pr.pps, pr.burst, rte_get_tsc_hz(), ctl->bgp_peers, ctl->n_bgp_peers,
			   ctl->has_kif);
	if (!ctl->has_kif)
		return 0;
	kif.tc = rsw_config_kif_tc(cfg);
	kif.n_ports = cfg->n_ports;
	rc = netns_open(ctl->kif_netns, &created);
	if (rc < 0) {
		KIF_LOG(ERR, "namespace %s: %s\n", ctl->kif_netns, strerror(-rc));
		return rc;
	}
	kif.netns_fd = rc;
	rc = rsw_kif_netns_enter(&saved);
	if (rc != 0) {
		KIF_LOG(ERR, "entering namespace %s: %s\n", ctl->kif_netns, strerror(-rc));
		kif_close();
		return rc;
	}
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	s6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	rc = s < 0 || s6 < 0 ? -errno : if_up(s, "lo");
	if (rc != 0)
		KIF_LOG(ERR, "namespace %s: lo up: %s\n", ctl->kif_netns, strerror(-rc));
	for (p = 0; rc == 0 && p < cfg->n_ports; p++)
		rc = tap_make(p, s, s6);
	if (s >= 0)
		close(s);
	if (s6 >= 0)
		close(s6);
	rsw_kif_netns_leave(saved);
	if (rc != 0) {
		kif_close();
		return rc;
	}
	kif.on = true;
	carrier_update();
	KIF_LOG(INFO, "%u kernel interfaces in namespace %s%s, their frames in TC %u\n",
		cfg->n_ports, ctl->kif_netns, created ? " (created)" : "", kif.tc);
	return 0;
}

/* Whether the kernel's frame f (len bytes) from port p's TAP stays in: see the file comment. */
static bool
from_kernel_ok(uint16_t p, const uint8_t *f, size_t len)
{
	const struct rsw_cfg_port *cp = &rsw_ctl.cfg->ports[p];
	uint16_t type;

	if (len < RTE_ETHER_HDR_LEN)
		return false;
	type = (uint16_t)(f[12] << 8 | f[13]);
	if (type == ETH_TYPE_PAUSE)
		return false;
	if (type == RTE_ETHER_TYPE_ARP && len >= RTE_ETHER_HDR_LEN + sizeof(struct rte_arp_hdr)) {
		const struct rte_arp_hdr *a = (const struct rte_arp_hdr *)(f + RTE_ETHER_HDR_LEN);

		return !(a->arp_opcode == RTE_BE16(RTE_ARP_OP_REPLY) && cp->has_ipv4 &&
			 memcmp(&a->arp_data.arp_sip, cp->ipv4.ip.addr, 4) == 0);
	}
	if (type == RTE_ETHER_TYPE_IPV6 && len >= RTE_ETHER_HDR_LEN + 40 + 24) {
		const uint8_t *ip = f + RTE_ETHER_HDR_LEN, *icmp = ip + 40;

		/* An NA's target is at offset 8 of the ICMPv6 header. */
		return !(ip[6] == IPPROTO_ICMPV6 && icmp[0] == ND_TYPE_NA && cp->has_ipv6 &&
			 memcmp(icmp + 8, cp->ipv6.ip.addr, 16) == 0);
	}
	return true;
}

static unsigned int
kif_poll(uint64_t now_ms)
{
	static uint64_t carrier_ms;
	unsigned int work = 0, i;
	uint16_t p;

	if (!kif.on)
		return 0;
	if (now_ms - carrier_ms >= KIF_CARRIER_MS) {
		carrier_ms = now_ms;
		carrier_update();
	}
	for (p = 0; p < kif.n_ports; p++) {
		struct kif_port *kp = &kif.port[p];

		for (i = 0; i < KIF_RX_BURST; i++) {
			ssize_t len = read(kp->fd, frame_buf, sizeof(frame_buf));
			struct rte_mbuf *m;
			char *d;

			if (len < 0) {
				if (errno != EAGAIN && errno != EINTR)
					kp->errors++;
				break;
			}
			work++;
			if (!from_kernel_ok(p, frame_buf, (size_t)len)) {
				kp->filtered++;
				continue;
			}
			m = rte_pktmbuf_alloc(rsw_ctl.pool);
			d = m != NULL && len <= rte_pktmbuf_tailroom(m)
				    ? rte_pktmbuf_append(m, (uint16_t)len)
				    : NULL;
			if (d == NULL) {
				rte_pktmbuf_free(m);
				kp->errors++;
				continue;
			}
			memcpy(d, frame_buf, (size_t)len);
			memset(rsw_meta(m), 0, sizeof(struct rsw_mbuf_meta));
			rsw_meta(m)->in_port = (uint8_t)p;
			rsw_meta(m)->out_port = p;
			rsw_meta(m)->tc = kif.tc;
			rsw_meta(m)->l3_off = RTE_ETHER_HDR_LEN;
			kp->from_kernel++;
			rsw_ctl_send(p, kif.tc, m);
		}
	}
	return work;
}

/* Remember the link-local source of an ND message or RA in f on port p (BGP unnumbered). */
static void
ll_learn(uint16_t p, const uint8_t *f, uint32_t len)
{
	struct kif_port *kp = &kif.port[p];
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	struct kif_ll *slot = NULL, *oldest = &kp->ll[0];
	uint64_t now = rsw_now_ms();
	unsigned int i;

	if (len < RTE_ETHER_HDR_LEN + 40 + 4 || f[12] != 0x86 || f[13] != 0xdd ||
	    ip[6] != IPPROTO_ICMPV6 || ip[40] < ND_TYPE_FIRST || ip[40] > ND_TYPE_LAST ||
	    ip[8] != 0xfe || (ip[9] & 0xc0) != 0x80 || (f[6] & 1) ||
	    memcmp(f + 6, rsw_dp.ports[p].mac.addr_bytes, 6) == 0)
		return;
	for (i = 0; i < KIF_LL_SLOTS; i++) {
		if (kp->ll[i].seen_ms != 0 && memcmp(kp->ll[i].ip, ip + 8, 16) == 0) {
			slot = &kp->ll[i];
			break;
		}
		if (kp->ll[i].seen_ms < oldest->seen_ms)
			oldest = &kp->ll[i];
	}
	if (slot == NULL) {
		slot = oldest;
		memcpy(slot->ip, ip + 8, 16);
		kif.ll_heard++; /* an unnumbered next hop may resolve now (fpm.c rebuilds) */
	}
	memcpy(slot->mac, f + 6, 6);
	slot->seen_ms = now;
	/* A next hop the tables want (BGP unnumbered) resolves from what the kernel hears too. */
	{
		struct rsw_ip a = {.family = RSW_AF_INET6};

		memcpy(a.addr, slot->ip, 16);
		rsw_ctl_neigh_learn(&a, p, slot->mac, false);
	}
}

void
rsw_kif_deliver(uint16_t p, const struct rte_mbuf *m)
{
	struct kif_port *kp;
	const uint8_t *f;
	uint32_t len;

	if (!kif.on || p >= kif.n_ports || kif.port[p].fd < 0)
		return;
	kp = &kif.port[p];
	len = rte_pktmbuf_pkt_len(m);
	if (len > sizeof(frame_buf)) {
		kp->errors++;
		return;
	}
	f = rte_pktmbuf_read(m, 0, len, frame_buf);
	if (f == NULL) {
		kp->errors++;
		return;
	}
	ll_learn(p, f, len);
	if (write(kp->fd, f, len) != (ssize_t)len) {
		kp->errors++;
		return;
	}
	kp->to_kernel++;
}

int
rsw_kif_port_of_ifindex(int ifindex)
{
	uint16_t p;

	for (p = 0; kif.on && p < kif.n_ports; p++)
		if (kif.port[p].ifindex == ifindex)
			return p;
	return -1;
}

int
rsw_kif_ll_neighbor(uint16_t p, const uint8_t *ip, uint8_t *ip_out, uint8_t *mac)
{
	const struct kif_ll *best = NULL;
	unsigned int i;

	if (!kif.on || p >= kif.n_ports)
		return -ENOENT;
	for (i = 0; i < KIF_LL_SLOTS; i++) {
		const struct kif_ll *l = &kif.port[p].ll[i];

		if (l->seen_ms == 0 || (ip != NULL && memcmp(l->ip, ip, 16) != 0))
			continue;
		if (best == NULL || l->seen_ms > best->seen_ms)
			best = l;
	}
	if (best == NULL)
		return -ENOENT;
	if (ip_out != NULL)
		memcpy(ip_out, best->ip, 16);
	if (mac != NULL)
		memcpy(mac, best->mac, 6);
	return 0;
}

uint64_t
rsw_kif_ll_heard(void)
{
	return kif.ll_heard;
}

void
rsw_kif_counters(uint16_t p, uint64_t c[RSW_N_KIF_CTRS])
{
	const struct kif_port *kp = &kif.port[p < RSW_MAX_PORTS ? p : 0];
	bool on = kif.on && p < RSW_MAX_PORTS;

	c[RSW_KIF_to_kernel] = on ? kp->to_kernel : 0;
	c[RSW_KIF_from_kernel] = on ? kp->from_kernel : 0;
	c[RSW_KIF_filtered] = on ? kp->filtered : 0;
	c[RSW_KIF_errors] = on ? kp->errors : 0;
}

static const char *const kif_ctr_names[RSW_N_KIF_CTRS] = {
#define RSW_X_KIF_NAME(name) #name,
	RSW_FOREACH_KIF_CTR(RSW_X_KIF_NAME)
#undef RSW_X_KIF_NAME
};

json_t *
rsw_kif_json(void)
{
	json_t *a = json_array();
	uint16_t p;

	/* A row per port; without kernel interfaces their ifname is "" and carrier false. */
	for (p = 0; a != NULL && rsw_ctl.cfg != NULL && p < rsw_ctl.cfg->n_ports; p++) {
		const struct kif_port *kp = &kif.port[p];
		uint64_t c[RSW_N_KIF_CTRS];
		json_t *row;
		unsigned int k;

		row = json_pack("{s:s, s:s, s:i, s:b}", "port", rsw_ctl.cfg->ports[p].name,
				"ifname", kif.on ? kp->ifname : "", "ifindex",
				kif.on ? kp->ifindex : 0, "carrier", kif.on && kp->carrier == 1);
		rsw_kif_counters(p, c);
		for (k = 0; row != NULL && k < RSW_N_KIF_CTRS; k++)
			json_object_set_new(
				row, kif_ctr_names[k],
				json_integer((json_int_t)(c[k] >= rsw_ctl.kif_base[p][k]
								  ? c[k] - rsw_ctl.kif_base[p][k]
								  : 0)));
		json_array_append_new(a, row);
	}
	return a;
}

static void
kif_fini(void)
{
	kif_close();
	rsw_parse_lldp = false;
}

static struct rsw_module kif_module = {
	.name = "kif",
	.order = RSW_MODULE_ORDER_KIF,
	.init = kif_init,
	.poll = kif_poll,
	.fini = kif_fini,
};

RSW_MODULE_REGISTER(kif_module);
