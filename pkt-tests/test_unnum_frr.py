# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Multipath over two unnumbered eBGP sessions to ONE FRR router (RFC 8950), with real FRR.

railsw (AS 65000; its own zebra with dplane_fpm_nl and bgpd in its kernel interfaces'
namespace rswuk<pid>) has two links, p0 and p2, to one FRR router (zebra + bgpd, AS 65001,
namespace rswur<pid>), an interface session on each (`neighbor p0 interface`,
`maximum-paths 16`). The router's two interfaces have ONE link-local address, fe80::1 on
both (set explicitly, no EUI-64 one), and each its own MAC: the case where railsw's
neighbour table must tell the two peers apart by port. The router announces 10.88.0.0/24;
zebra hands it to railsw as one RTA_MULTIPATH with 169.254.0.1 on-link over each port.
h1 (Scapy, root namespace) sends many UDP flows to it through p1; what leaves p0 and p2 is
captured inside the router's namespace, on the wire.

    h1 (Scapy) -- p1 [railsw AS 65000] p0 ===== unnumbered, router fe80::1 ===== [router
                                       p2 ===== unnumbered, router fe80::1 =====  AS 65001]
"""

import contextlib
import ctypes
import os
import time

import pytest
from scapy.all import IP, UDP, Ether

import railsw
from frr import Frr, bgp_route, frr_lab, have_bgp
from topo import HOST_MAC, udp4

pytestmark = pytest.mark.skipif(
    not have_bgp(), reason="FRR (zebra, bgpd, vtysh, dplane_fpm_nl) is not installed")

PREFIX = "10.88.0.0/24"
ROUTER_LL = "fe80::1"
FLOWS = 64
LINKS = ("p0", "p2")

RSW_BGPD = """hostname rsw
router bgp 65000
 bgp router-id 10.1.0.254
 no bgp ebgp-requires-policy
 timers bgp 3 9
 neighbor p0 interface remote-as 65001
 neighbor p0 timers connect 2
 neighbor p2 interface remote-as 65001
 neighbor p2 timers connect 2
 address-family ipv4 unicast
  maximum-paths 16
 exit-address-family
"""

ROUTER_BGPD = """hostname router
router bgp 65001
 bgp router-id 10.1.0.1
 no bgp ebgp-requires-policy
 no bgp network import-check
 timers bgp 3 9
 neighbor {t0} interface remote-as 65000
 neighbor {t0} timers connect 2
 neighbor {t0} advertisement-interval 0
 neighbor {t2} interface remote-as 65000
 neighbor {t2} timers connect 2
 neighbor {t2} advertisement-interval 0
 address-family ipv4 unicast
  network 10.88.0.0/24
 exit-address-family
"""

CLONE_NEWNET = 0x40000000


def fast_ra(ifaces):
    """zebra lines: router advertisements every second on ifaces, so an interface peer is
    found again soon after its link comes back."""
    return "".join(f"interface {i}\n ipv6 nd ra-interval 1\n no ipv6 nd suppress-ra\n"
                   for i in ifaces)


@contextlib.contextmanager
def in_netns(ns):
    """This thread inside namespace ns for the block (sockets made there stay there)."""
    libc = ctypes.CDLL(None, use_errno=True)
    back = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    fd = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {ns}")
        yield
    finally:
        libc.setns(back, CLONE_NEWNET)
        os.close(fd)
        os.close(back)


def resolved(sw, n):
    r = bgp_route(sw, PREFIX)
    return r is not None and r["active"] and r["resolved"] == n


@pytest.fixture(scope="module")
def lab(build):
    sh = railsw.sh
    with frr_lab(build, "rswu") as (sw, fpm_port, kns, rns, frrs):
        railsw.run(["ip", "netns", "add", rns], check=False)
        sh(f"ip -n {rns} link set lo up")
        for p in LINKS:
            t = sw.tap[p]
            sw.netns[t] = rns
            sh(f"ip link set {t} netns {rns}")
            # fe80::1 on both links, and no other link-local address; a MAC per link.
            sh(f"ip netns exec {rns} sysctl -q -w net.ipv6.conf.{t}.disable_ipv6=0")
            sh(f"ip -n {rns} link set {t} addrgenmode none")
            sh(f"ip -n {rns} link set {t} address {HOST_MAC[p]}")
            sh(f"ip -n {rns} -6 addr add {ROUTER_LL}/64 dev {t} nodad")
            sh(f"ip -n {rns} link set {t} up")
        sh(f"ip -n {rns} addr add 10.88.0.1/32 dev lo")
        router = Frr(rns, ROUTER_BGPD.format(t0=sw.tap["p0"], t2=sw.tap["p2"]),
                     zebra_extra=fast_ra(sw.tap[p] for p in LINKS))
        frrs.append(router)
        router.start()
        rsw_frr = Frr(kns, RSW_BGPD, fpm_port=fpm_port, zebra_extra=fast_ra(LINKS))
        frrs.append(rsw_frr)
        rsw_frr.start()
        yield sw, router, rns


def flows():
    """FLOWS UDP flows from h1 to the router's prefix (distinct source ports)."""
    return [(40000 + i, f"10.88.0.{1 + i % 200}") for i in range(FLOWS)]


def send_flows(sw, injector, cap):
    """One frame of every flow into p1; {flow: (link, frame)} of what left p0 and p2."""
    cap.frames.clear()
    frames = [udp4(sw, "p1", dst, sport=sport) for sport, dst in flows()]
    injector.send(sw.tap["p1"], frames)
    got = cap.collect(count=FLOWS, timeout=3, quiet=0.3,
                      match=lambda i, d: UDP in Ether(d) and Ether(d)[UDP].dport == 5678)
    tap2link = {sw.tap[p]: p for p in LINKS}
    out = {}
    for iface, data in got:
        f = Ether(data)
        if IP in f and UDP in f and f[UDP].dport == 5678:
            out[(f[UDP].sport, f[IP].dst)] = (tap2link[iface], f)
    cap.frames.clear()
    return out


def check_wire(sw, out, links):
    """Every flow arrived once, on one of links, from that port's MAC to the peer's MAC
    on that link (HOST_MAC of the port: fe80::1 is a different router port per link)."""
    assert sorted(out) == sorted(flows()), f"{len(out)} of {FLOWS} flows arrived"
    for link, f in out.values():
        assert link in links, f"a flow left by {link}"
        assert (f[Ether].src, f[Ether].dst) == (sw.mac[link], HOST_MAC[link]), \
            f"on {link}: {f[Ether].src} -> {f[Ether].dst}"
        assert f[IP].ttl == 63


def per_link(out):
    return {p: sum(1 for link, _ in out.values() if link == p) for p in LINKS}


def test_unnumbered_multipath_same_ll(lab, injector):
    """**Steps**: both routers' bgpds run (timers 3 9, connect 2 s); the router's links have
    the same link-local address fe80::1 and two MACs; h1 sends 64 UDP flows to 10.88.0.0/24;
    `port p2 down` (FRR's session over p2 ends, the path is withdrawn); the 64 flows again;
    `port p2 up` (the session comes back); the flows again.
    **Verify**: both sessions Established; 10.88.0.0/24 in `show routes` from bgp with
    169.254.0.1 twice, active, resolved 2; every flow leaves once, flows on both links,
    each frame from the egress port's MAC to the router's MAC on that link, TTL 63;
    `show neighbors` has fe80::1 on p0 and on p2 with the MAC of the router's port on that
    link; with p2 down every flow leaves by p0 at once, and still after zebra withdrew the
    p2 path (resolved 1); with p2 up again both links carry flows."""
    sw, router, rns = lab
    railsw.wait_until(lambda: sum(1 for k, (s, _) in router.peers().items()
                                  if k.startswith("ipv4") and s == "Established") >= 2, 40,
                      interval=0.5, what=f"two sessions up: {router.peers()}")
    railsw.wait_until(lambda: resolved(sw, 2), 20, interval=0.3,
                      what=f"{PREFIX} over both links: {bgp_route(sw, PREFIX)}")
    assert bgp_route(sw, PREFIX)["nexthops"] == ["169.254.0.1", "169.254.0.1"]
    time.sleep(0.3)
    with in_netns(rns):
        cap = railsw.Capture([sw.tap[p] for p in LINKS])
    with cap:
        out = send_flows(sw, injector, cap)
        check_wire(sw, out, LINKS)
        spread = per_link(out)
        assert all(spread[p] > 0 for p in LINKS), spread
        neigh = {(n["ip"], n["port"]): n for n in sw.ctl("show", "neighbors")["neighbors"]}
        for p in LINKS:
            n = neigh.get((ROUTER_LL, p))
            assert n is not None and n["mac"] == HOST_MAC[p], (p, sorted(neigh))

        t0 = time.monotonic()
        sw.ctl("port", "p2", "down")
        out = send_flows(sw, injector, cap)
        check_wire(sw, out, ("p0",))
        railsw.wait_until(lambda: resolved(sw, 1), 15, interval=0.2,
                          what=f"the p2 path withdrawn: {bgp_route(sw, PREFIX)}")
        withdrawn_s = time.monotonic() - t0
        out = send_flows(sw, injector, cap)
        check_wire(sw, out, ("p0",))

        t0 = time.monotonic()
        sw.ctl("port", "p2", "up")
        railsw.wait_until(lambda: resolved(sw, 2), 30, interval=0.3,
                          what=f"{PREFIX} over both links again: {bgp_route(sw, PREFIX)}")
        back_s = time.monotonic() - t0
        out = send_flows(sw, injector, cap)
        check_wire(sw, out, LINKS)
        spread2 = per_link(out)
        assert all(spread2[p] > 0 for p in LINKS), spread2
    print(f"flows per link {spread}, after p2 up {spread2}; p2 path withdrawn "
          f"{withdrawn_s:.2f} s after port down, back {back_s:.2f} s after port up")
