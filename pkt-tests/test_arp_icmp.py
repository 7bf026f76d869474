# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""ARP and ICMP on the switch's own addresses: ARP replies from the port
MAC, echo replies, learning senders, and resolving next hops on connected
subnets (request, hold, forward once answered)."""

import pytest
from scapy.all import ARP, ICMP, IP, Ether, Raw
from scapy.utils import checksum

import railsw
import topo
from topo import HOST_IP, HOST_MAC, SW_IP, describe, deltas, routed, udp4

BCAST = "ff:ff:ff:ff:ff:ff"


def same_frame(data, expected):
    """A frame equals `expected` but for Ethernet padding (zeros to 60 bytes)."""
    exp = bytes(expected)
    return data[:len(exp)] == exp and not data[len(exp):].strip(b"\0") and \
        len(data) <= max(60, len(exp))


def arp_reply_from(sw, port, ip, to_mac, to_ip):
    return Ether(dst=to_mac, src=sw.mac[port]) / \
        ARP(op=2, hwsrc=sw.mac[port], psrc=ip, hwdst=to_mac, pdst=to_ip)


def is_arp_request(data, sw, port, target):
    e = Ether(data)
    return (ARP in e and e[ARP].op == 1 and e[ARP].pdst == target
            and e[Ether].src == sw.mac[port] and e[ARP].hwsrc == sw.mac[port]
            and e[ARP].psrc == SW_IP[port] and e[Ether].dst == BCAST)


@pytest.fixture
def sw(make_switch):
    return make_switch(topo.three_ports())


@pytest.fixture
def cap(sw):
    with railsw.Capture([sw.tap[p] for p in ("p0", "p1", "p2")]) as c:
        yield c


@pytest.mark.parametrize("eth_dst", ["broadcast", "unicast"])
def test_arp_reply_and_learn(sw, injector, cap, eth_dst):
    """The switch answers ARP for its address and learns the asker.

    Steps: a new host 10.1.0.77 on p0 asks who-has 10.1.0.254 (broadcast, or
    unicast to the port MAC as Linux re-checks do); then a host on p1 sends a
    UDP frame to 10.1.0.77.
    Verify: exactly one ARP reply on p0: Ethernet dst = asker, src = p0 MAC;
    ARP is-at hwsrc = p0 MAC, psrc 10.1.0.254, hwdst/pdst = asker; nothing on
    other ports. `show neighbors` lists 10.1.0.77 with the asker's MAC on p0;
    the UDP frame is then forwarded to that MAC without any ARP request.
    """
    mac, ip = "02:bb:00:00:00:77", "10.1.0.77"
    req = Ether(dst=BCAST if eth_dst == "broadcast" else sw.mac["p0"], src=mac) / \
        ARP(op=1, hwsrc=mac, psrc=ip, hwdst="00:00:00:00:00:00", pdst=SW_IP["p0"])
    injector.send(sw.tap["p0"], req)
    got = cap.collect(count=1, timeout=3)
    assert len(got) == 1 and got[0][0] == sw.tap["p0"], describe(got)
    exp = arp_reply_from(sw, "p0", SW_IP["p0"], mac, ip)
    assert same_frame(got[0][1], exp), \
        f"expected {exp.summary()} got:\n{describe(got)}\n{Ether(got[0][1]).show(dump=True)}"

    learned = [n for n in sw.neighbors() if n["ip"] == ip]
    assert len(learned) == 1, sw.neighbors()
    assert learned[0]["mac"].lower() == mac and learned[0]["port"] == "p0", learned
    assert learned[0]["state"] in ("reachable", "stale"), learned

    cap.frames.clear()
    f = udp4(sw, "p1", ip)
    injector.send(sw.tap["p1"], f)
    got = cap.collect(count=1, timeout=3)
    assert got == [(sw.tap["p0"], routed(f, "p0", sw, nh_mac=mac))], describe(got)


def test_arp_for_other_address_ignored(sw, injector, cap):
    """ARP requests for addresses the switch does not own get no answer.

    Steps: on p0, ask who-has 10.1.0.99 (an address nobody owns) and wait 1 s.
    Verify: nothing comes out on any port.
    """
    mac = "02:bb:00:00:00:78"
    req = Ether(dst=BCAST, src=mac) / ARP(op=1, hwsrc=mac, psrc="10.1.0.78", pdst="10.1.0.99")
    injector.send(sw.tap["p0"], req)
    got = cap.collect(count=None, timeout=1.0)
    assert not got, describe(got)


@pytest.mark.parametrize("target", [SW_IP["p0"], SW_IP["p2"]])
def test_icmp_echo_reply(sw, injector, cap, target):
    """The switch answers ICMP echo requests for its addresses.

    Steps: host 10.1.0.1 (static neighbour on p0) pings `target` (p0's own
    address, or p2's address through p0) with id 0x1234, seq 7, 56 bytes.
    Verify: exactly one frame, on p0: Ethernet dst = host, src = p0 MAC;
    IPv4 src = target, dst = host, valid header checksum; ICMP echo reply
    (type 0 code 0) with the same id, seq and payload and a valid checksum.
    """
    payload = topo.marker("echo").ljust(56, b"e")
    req = Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) / \
        IP(src=HOST_IP["p0"], dst=target, ttl=64, id=99) / \
        ICMP(type=8, id=0x1234, seq=7) / Raw(payload)
    before = sw.counters()
    injector.send(sw.tap["p0"], req)
    got = cap.collect(count=1, timeout=3)
    assert len(got) == 1 and got[0][0] == sw.tap["p0"], describe(got)
    e = Ether(got[0][1])
    assert e[Ether].dst == HOST_MAC["p0"] and e[Ether].src == sw.mac["p0"], e.summary()
    assert IP in e and ICMP in e, e.summary()
    assert (e[IP].src, e[IP].dst) == (target, HOST_IP["p0"]), e.summary()
    assert (e[ICMP].type, e[ICMP].code, e[ICMP].id, e[ICMP].seq) == (0, 0, 0x1234, 7)
    assert bytes(e[ICMP].payload)[:len(payload)] == payload
    assert topo.ipv4_checksum_ok(got[0][1])
    ip_len = e[IP].len - e[IP].ihl * 4
    assert checksum(bytes(e[IP].payload)[:ip_len]) == 0, "bad ICMP checksum"
    d = deltas(before, sw.counters())
    assert d["p0"]["rx_packets"] == 1 and d["p0"]["tx_packets"] == 1, d


@pytest.mark.parametrize("dst,nexthop", [
    ("10.2.0.1", "10.2.0.1"),      # a host on p1's connected subnet
    ("10.20.3.4", "10.2.0.1"),     # a static route whose next hop is unresolved
])
def test_resolve_next_hop(make_switch, injector, dst, nexthop):
    """The switch resolves an unknown next hop with ARP and forwards the
    packets it held once the answer comes.

    Steps: switch without static neighbours on p1 (and, for the static
    route case, only that route, so the switch may already be resolving its
    next hop); a host on p0 sends one UDP frame for `dst`; answer the
    switch's ARP request from a Scapy host (MAC 02:cc:00:00:02:01) on p1;
    then send a second frame.
    Verify: on p1, an ARP who-has `nexthop` tell 10.2.0.254 from p1's MAC
    to broadcast (retries allowed, all well formed, nothing else); after the
    reply, the held frame and the second one come out on p1 in order, each
    the expected copy with dst MAC = the learned MAC; `neigh_unresolved`
    stays 0; `show neighbors` lists the next hop as reachable on p1.
    """
    cfg = topo.three_ports(neighbors=False, routes=False)
    cfg["neighbors"] = [{"ip": HOST_IP["p0"], "mac": HOST_MAC["p0"], "port": "p0"}]
    if dst != nexthop:
        cfg["routes"] = [{"prefix": "10.20.0.0/16", "nexthops": [nexthop]}]
    sw = make_switch(cfg)
    nh_mac = "02:cc:00:00:02:01"
    with railsw.Capture([sw.tap[p] for p in ("p0", "p1", "p2")]) as cap:
        before = sw.counters()
        f1 = udp4(sw, "p0", dst, sport=1111)
        injector.send(sw.tap["p0"], f1)
        got = cap.collect(count=1, timeout=5)
        assert got, "no ARP request came out"
        assert all(i == sw.tap["p1"] and is_arp_request(d, sw, "p1", nexthop) for i, d in got), \
            "expected only ARP who-has on p1:\n" + describe(got)

        cap.frames.clear()
        reply = Ether(dst=sw.mac["p1"], src=nh_mac) / \
            ARP(op=2, hwsrc=nh_mac, psrc=nexthop, hwdst=sw.mac["p1"], pdst=SW_IP["p1"])
        injector.send(sw.tap["p1"], reply)
        exp1 = routed(f1, "p1", sw, nh_mac=nh_mac)
        got = cap.collect(count=1, timeout=3, match=lambda i, d: d == exp1)
        held = [(i, d) for i, d in got if not is_arp_request(d, sw, "p1", nexthop)]
        assert held == [(sw.tap["p1"], exp1)], \
            "held frame not forwarded after the ARP reply:\n" + describe(got)

        cap.frames.clear()
        f2 = udp4(sw, "p0", dst, sport=2222)
        injector.send(sw.tap["p0"], f2)
        got = cap.collect(count=1, timeout=3)
        assert got == [(sw.tap["p1"], routed(f2, "p1", sw, nh_mac=nh_mac))], describe(got)

    d = deltas(before, sw.counters())
    assert d.get("p0", {}).get("neigh_unresolved", 0) == 0, d
    n = [x for x in sw.neighbors() if x["ip"] == nexthop]
    assert len(n) == 1 and n[0]["mac"].lower() == nh_mac and n[0]["port"] == "p1", n
    assert n[0]["state"] == "reachable", n


def test_unresolved_next_hop_dropped(make_switch, injector):
    """A next hop that never answers: the held packets are dropped and
    counted, and the switch's ARP retries are bounded.

    Steps: switch without static neighbours on p1; send 2 UDP frames from p0
    to 10.2.0.9 (nobody answers).
    Verify: within 15 s `neigh_unresolved` on p0 reaches 2 exactly; only ARP
    who-has 10.2.0.9 frames come out (on p1), at most 10 of them; no UDP frame
    comes out anywhere.
    """
    cfg = topo.three_ports(neighbors=False, routes=False)
    cfg["neighbors"] = [{"ip": HOST_IP["p0"], "mac": HOST_MAC["p0"], "port": "p0"}]
    sw = make_switch(cfg)
    with railsw.Capture([sw.tap[p] for p in ("p0", "p1", "p2")]) as cap:
        before = sw.counters()
        injector.send(sw.tap["p0"], [udp4(sw, "p0", "10.2.0.9", sport=s) for s in (1, 2)])
        railsw.wait_until(
            lambda: deltas(before, sw.counters()).get("p0", {}).get("neigh_unresolved", 0) >= 2,
            15, interval=0.2, what="neigh_unresolved to reach 2")
        got = cap.collect(count=None, timeout=0.5)
    d = deltas(before, sw.counters())
    assert d["p0"]["neigh_unresolved"] == 2, d
    assert all(i == sw.tap["p1"] and is_arp_request(x, sw, "p1", "10.2.0.9") for i, x in got), \
        describe(got)
    assert 1 <= len(got) <= 10, describe(got)
