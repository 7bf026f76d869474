# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""A single railsw speaking BGP through its kernel interfaces (control.kernel_interfaces).

railsw makes a TAP per port in namespace rswk<pid>, where its own zebra (dplane_fpm_nl, FPM
listener opened inside that namespace) and bgpd run. An FRR router (zebra + bgpd, AS 65001)
in namespace rswr<pid> holds the far ends of railsw's p0 (numbered sessions over IPv4 and
IPv6) and p2 (an unnumbered session over IPv6 link-local addresses, RFC 8950); p1 stays in
the root namespace, where Scapy plays host h1. Every daemon has its own config, pid and vty
files and is stopped by its pid; never the packaged frr service.

    h1 (Scapy) -- p1 [railsw AS 65000] p0 ====== numbered v4+v6 ====== [router AS 65001]
                                       p2 ====== unnumbered ========== (10.77/24 numbered,
                                                                        10.88/24 unnumbered,
                                                                        fd00:77::/48 over v6)
"""

import time

import pytest
from scapy.all import ARP, ICMP, IP, TCP, Ether, ICMPv6EchoReply, ICMPv6EchoRequest, IPv6

import railsw
from frr import Frr, bgp_route, frr_lab, have_bgp
from topo import HOST_IP, HOST_IP6, HOST_MAC, SW_IP, SW_IP6

pytestmark = pytest.mark.skipif(
    not have_bgp(), reason="FRR (zebra, bgpd, vtysh, dplane_fpm_nl) is not installed")

RSW_BGPD = """hostname rsw
router bgp 65000
 bgp router-id 10.1.0.254
 no bgp ebgp-requires-policy
 timers bgp 3 9
 neighbor 10.1.0.1 remote-as 65001
 neighbor 10.1.0.1 timers connect 5
 neighbor fd00:1::1 remote-as 65001
 neighbor fd00:1::1 timers connect 5
 neighbor p2 interface remote-as 65001
 neighbor p2 timers connect 5
 address-family ipv4 unicast
  no neighbor fd00:1::1 activate
 exit-address-family
 address-family ipv6 unicast
  neighbor fd00:1::1 activate
 exit-address-family
"""

ROUTER_BGPD = """hostname router
ip prefix-list NUM seq 5 permit 10.77.0.0/24
ip prefix-list UNN seq 5 permit 10.88.0.0/24
router bgp 65001
 bgp router-id 10.1.0.1
 no bgp ebgp-requires-policy
 no bgp network import-check
 timers bgp 3 9
 neighbor 10.1.0.254 remote-as 65000
 neighbor 10.1.0.254 timers connect 5
 neighbor fd00:1::fe remote-as 65000
 neighbor fd00:1::fe timers connect 5
 neighbor {unn} interface remote-as 65000
 neighbor {unn} timers connect 5
 address-family ipv4 unicast
  network 10.77.0.0/24
  network 10.88.0.0/24
  neighbor 10.1.0.254 prefix-list NUM out
  neighbor {unn} prefix-list UNN out
  no neighbor fd00:1::fe activate
 exit-address-family
 address-family ipv6 unicast
  network fd00:77::/48
  neighbor fd00:1::fe activate
 exit-address-family
"""


@pytest.fixture(scope="module")
def lab(build):
    sh = railsw.sh
    with frr_lab(build, "rsw") as (sw, fpm_port, kns, rns, frrs):
        t2 = sw.tap["p2"]
        sw.move_to_netns("p0", rns, addr="10.1.0.1/24", addr6="fd00:1::1/64",
                         gw="10.1.0.254", gw6="fd00:1::fe", mac=HOST_MAC["p0"])
        # p2: IPv6 link-local only (the unnumbered session), its own MAC.
        sw.netns[t2] = rns
        sh(f"ip link set {t2} netns {rns}")
        sh(f"ip -n {rns} link set {t2} address {HOST_MAC['p2']}")
        sh(f"ip -n {rns} link set {t2} up")
        # The announced prefixes' addresses on the router's lo (no dummy module needed).
        for a in ("10.77.0.1/32", "10.88.0.1/32"):
            sh(f"ip -n {rns} addr add {a} dev lo")
        sh(f"ip -n {rns} -6 addr add fd00:77::1/128 dev lo")
        # Replies to h1 go back by p0 whichever link the request came in on.
        for k in ("all", "default"):
            sh(f"ip netns exec {rns} sysctl -q -w net.ipv4.conf.{k}.rp_filter=0")
        router = Frr(rns, ROUTER_BGPD.format(unn=t2))
        frrs.append(router)
        router.start()
        rsw_frr = Frr(kns, RSW_BGPD, fpm_port=fpm_port)
        frrs.append(rsw_frr)
        rsw_frr.start()
        yield sw, rsw_frr, router, kns, rns


@pytest.fixture
def cap(lab):
    sw = lab[0]
    with railsw.Capture([sw.tap["p1"]]) as c:
        yield c


def ping4(sw, dst, seq=1):
    return (Ether(dst=sw.mac["p1"], src=HOST_MAC["p1"]) /
            IP(src=HOST_IP["p1"], dst=dst) / ICMP(id=0x4242, seq=seq))


def ping6(sw, dst, seq=1):
    return (Ether(dst=sw.mac["p1"], src=HOST_MAC["p1"]) /
            IPv6(src=HOST_IP6["p1"], dst=dst) / ICMPv6EchoRequest(id=0x4242, seq=seq))


def replies(cap, kind, src, timeout=2):
    got = cap.collect(timeout=timeout, quiet=0.3)
    n = 0
    for _, data in got:
        f = Ether(data)
        if kind == 4 and IP in f and ICMP in f and f[ICMP].type == 0 and f[IP].src == src:
            n += 1
        if kind == 6 and ICMPv6EchoReply in f and f[IPv6].src == src:
            n += 1
    cap.frames.clear()
    return n


def ip_link(ns, name):
    return railsw.run(["ip", "-n", ns, "link", "show", name]).stdout


def test_kernel_interfaces(lab, injector, cap):
    """**Steps**: railsw starts with kernel_interfaces in a namespace that does not exist;
    `port p1 down`, then up; h1 asks for 10.2.0.254 by ARP.
    **Verify**: the namespace exists with lo up and p0, p1, p2 in it, each with its port's
    MAC and addresses; p1's carrier goes off while the port is down and back on; the ARP
    request gets exactly one reply (railsw's: the kernel's is filtered, and counted), and the
    kernel learnt h1 from the copy it got (its neighbour table holds 10.2.0.1)."""
    sw, _, _, kns, _ = lab
    assert "UP" in ip_link(kns, "lo")
    for p in ("p0", "p1", "p2"):
        assert sw.mac[p] in ip_link(kns, p)
    addrs = railsw.run(["ip", "-n", kns, "addr", "show", "p1"]).stdout
    assert f"{SW_IP['p1']}/24" in addrs and f"{SW_IP6['p1']}/64" in addrs
    assert "LOWER_UP" in ip_link(kns, "p1")
    sw.ctl("port", "p1", "down")
    railsw.wait_until(lambda: "NO-CARRIER" in ip_link(kns, "p1"), 3, what="carrier off")
    sw.ctl("port", "p1", "up")
    railsw.wait_until(lambda: "LOWER_UP" in ip_link(kns, "p1"), 3, what="carrier on")
    time.sleep(0.5)
    cap.frames.clear()
    before = {r["port"]: r for r in sw.ctl("show", "kif")["kernel_interfaces"]}
    injector.send(sw.tap["p1"], Ether(dst="ff:ff:ff:ff:ff:ff", src=HOST_MAC["p1"]) /
                  ARP(op=1, hwsrc=HOST_MAC["p1"], psrc=HOST_IP["p1"], pdst=SW_IP["p1"]))
    got = [Ether(d) for _, d in cap.collect(timeout=1.5, quiet=0.5)]
    arp = [f for f in got if ARP in f and f[ARP].op == 2]
    assert len(arp) == 1 and arp[0][ARP].psrc == SW_IP["p1"], [f.summary() for f in got]
    after = {r["port"]: r for r in sw.ctl("show", "kif")["kernel_interfaces"]}
    assert after["p1"]["filtered"] >= before["p1"]["filtered"] + 1
    assert after["p1"]["to_kernel"] >= before["p1"]["to_kernel"] + 1
    neigh = railsw.run(["ip", "-n", kns, "neigh", "show", "dev", "p1"]).stdout
    assert HOST_IP["p1"] in neigh and HOST_MAC["p1"] in neigh.lower(), neigh
    cap.frames.clear()


def test_bgp_routes_and_traffic(lab, injector, cap):
    """**Steps**: both bgpds run (timers 3 9, connect 5 s); the router announces 10.77.0.0/24
    over the numbered IPv4 session, fd00:77::/48 over the IPv6 one and 10.88.0.0/24 over the
    unnumbered one.
    **Verify**: the three sessions reach Established on the router; the three prefixes reach
    `show routes` (source bgp, distance 20, active); h1's pings to 10.77.0.1, fd00:77::1 and
    10.88.0.1 are answered through railsw, the last one leaving by p2 (the unnumbered link:
    169.254.0.1 on-link resolved to the router's link-local neighbour)."""
    sw, _, router, _, _ = lab
    railsw.wait_until(lambda: sum(1 for s, _ in router.peers().values()
                                  if s == "Established") >= 3, 60,
                      interval=0.5, what=f"three sessions up: {router.peers()}")
    railsw.wait_until(lambda: all(bgp_route(sw, p) is not None and bgp_route(sw, p)["active"]
                                  for p in ("10.77.0.0/24", "fd00:77::/48", "10.88.0.0/24")),
                      30, interval=0.3, what="BGP routes in railsw")
    r = bgp_route(sw, "10.77.0.0/24")
    assert (r["distance"], r["nexthops"]) == (20, [HOST_IP["p0"]])
    assert bgp_route(sw, "10.88.0.0/24")["nexthops"] == ["169.254.0.1"]
    time.sleep(0.5)
    cap.frames.clear()
    injector.send(sw.tap["p1"], ping4(sw, "10.77.0.1"))
    assert replies(cap, 4, "10.77.0.1") == 1
    injector.send(sw.tap["p1"], ping6(sw, "fd00:77::1"))
    assert replies(cap, 6, "fd00:77::1") == 1
    tx2 = sw.port_counters("p2")["tx_packets"]
    for seq in range(5):
        injector.send(sw.tap["p1"], ping4(sw, "10.88.0.1", seq=seq))
    assert replies(cap, 4, "10.88.0.1") == 5
    assert sw.port_counters("p2")["tx_packets"] >= tx2 + 5


FLOOD = """
import socket, sys, time
frame = bytes.fromhex(sys.argv[2])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
n, end = 0, time.monotonic() + float(sys.argv[3])
while time.monotonic() < end:
    for _ in range(500):
        try:
            s.send(frame)
            n += 1
        except OSError:
            time.sleep(0.0005)
print(n)
"""


def test_syn_flood_is_policed(lab, injector, cap):
    """**Steps**: with the sessions up, the router's side of p0 (the link the numbered
    sessions use, from the peer's own address) floods TCP SYNs to 10.1.0.254 port 22 for 12 s
    (longer than the 9 s hold time).
    **Verify**: no session went down (Established, no new connection on the router);
    `show punt` counts policed frames in class other and none in class bgp, and its bgp
    class counts the keepalives; `show drops` has them under punt_policed."""
    sw, _, router, _, rns = lab
    railsw.wait_until(lambda: sum(1 for s, _ in router.peers().values()
                                  if s == "Established") >= 3, 60, interval=0.5,
                      what="sessions up")
    peers0 = router.peers()
    punt0 = {r["class"]: r for r in sw.ctl("show", "punt")["punt"]}
    syn = bytes(Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) /
                IP(src=HOST_IP["p0"], dst=SW_IP["p0"]) / TCP(sport=40000, dport=22, flags="S"))
    r = railsw.run(["ip", "netns", "exec", rns, "/usr/bin/python3", "-c", FLOOD,
                    sw.tap["p0"], syn.hex(), "12"], timeout=40)
    sent = int(r.stdout.strip() or 0)
    cap.frames.clear()
    peers1 = router.peers()
    assert all(peers1[k][0] == "Established" and peers1[k][1] == peers0[k][1]
               for k in peers0), (peers0, peers1)
    punt1 = {r["class"]: r for r in sw.ctl("show", "punt")["punt"]}
    policed_other = punt1["other"]["policed"] - punt0["other"]["policed"]
    assert policed_other > 0, f"{sent} SYNs sent, none policed: {punt1['other']}"
    assert punt1["bgp"]["policed"] == punt0["bgp"]["policed"]
    assert punt1["bgp"]["packets"] > punt0["bgp"]["packets"]
    drops = {d["reason"]: d["packets"] for d in sw.ctl("show", "drops")["drops"]}
    assert drops["punt_policed"] >= policed_other


def test_withdrawal_removes_routes(lab, injector, cap):
    """**Steps**: the router stops announcing 10.77.0.0/24 (`no network`).
    **Verify**: the prefix leaves `show routes`; a ping to 10.77.0.1 is no longer answered;
    fd00:77::/48 and 10.88.0.0/24 stay."""
    sw, _, router, _, _ = lab
    railsw.wait_until(lambda: bgp_route(sw, "10.77.0.0/24") is not None, 60, interval=0.5,
                      what="10.77.0.0/24 in railsw")
    router.vtysh("configure terminal", "router bgp 65001", "address-family ipv4 unicast",
                 "no network 10.77.0.0/24")
    railsw.wait_until(lambda: bgp_route(sw, "10.77.0.0/24") is None, 15, interval=0.3,
                      what="10.77.0.0/24 withdrawn")
    cap.frames.clear()
    injector.send(sw.tap["p1"], ping4(sw, "10.77.0.1"))
    assert replies(cap, 4, "10.77.0.1", timeout=1) == 0
    assert bgp_route(sw, "fd00:77::/48") is not None
    assert bgp_route(sw, "10.88.0.0/24") is not None
