# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Local proxy ARP between the servers of one leaf (docs/topology.md, RFC 1027).

A rail-optimized leaf's downlinks share one /24 (10.0.1.0/24 on leaf su 0 rail 1); a
server asks ARP for another server of the same leaf straight on its link, and the switch,
which routes rather than bridges, answers for it with the asking port's MAC, so the
traffic comes through it. It does not answer for the asker's own address, for addresses
of the subnet that are no server of this leaf, or on an uplink.
"""

from scapy.all import ARP, Ether, IP, UDP, Raw

import railsw

SERVER_MAC = ["02:5e:00:00:00:%02x" % (s + 1) for s in range(4)]


def server_ip(s):
    """Server s of SU 0 on rail 1: 10.<su>.<rail>.<server + 1> (docs/topology.md)."""
    return f"10.0.1.{s + 1}"


def leaf_config():
    return {
        "switch": {"role": "leaf"},
        "ports": [{"name": f"d{i}", "role": "downlink"} for i in range(4)] +
                 [{"name": f"u{i}", "role": "uplink"} for i in range(2)],
        "topology": {"design": "rail-optimized", "sus": 2, "servers_per_su": 4, "rails": 4,
                     "spines": 2, "radix": 64, "this": {"su": 0, "rail": 1},
                     "gpu_prefix": "10.0.0.0/8", "fabric_prefix": "172.16.0.0/12"},
    }


def arp_request(src_server, target_ip):
    return Ether(dst="ff:ff:ff:ff:ff:ff", src=SERVER_MAC[src_server]) / \
        ARP(op=1, hwsrc=SERVER_MAC[src_server], psrc=server_ip(src_server), pdst=target_ip)


def arp_replies(frames):
    out = []
    for _, d in frames:
        e = Ether(d)
        if ARP in e and e[ARP].op == 2:
            out.append(e)
    return out


def test_proxy_arp_between_servers(build, injector):
    """Steps: a leaf (4 downlinks, 2 uplinks, topology-derived addresses). Server 0 on d0
    asks ARP for server 2 (10.0.1.3), for itself (10.0.1.1), for 10.0.1.200 (in the
    subnet, no server) and for the leaf (10.0.1.254); an uplink peer asks for 10.0.1.3
    on u0. Then server 0 sends a UDP frame to server 2 through the switch, and server 2
    answers the switch's ARP request on d2.
    Verify: exactly two replies on d0: 10.0.1.3 and 10.0.1.254, both from d0's MAC to
    server 0 (the proxy answer is the asking port's own MAC); nothing on u0; server 0 is
    a learned neighbour on d0; the UDP frame leaves on d2 routed (d2's MAC to server 2's,
    TTL - 1, payload intact).
    """
    sw = railsw.Switch(build, leaf_config())
    try:
        d0, d2, u0 = sw.tap["d0"], sw.tap["d2"], sw.tap["u0"]
        with railsw.Capture([d0, u0]) as cap:
            for target in (server_ip(2), server_ip(0), "10.0.1.200", "10.0.1.254"):
                injector.send(d0, arp_request(0, target))
            injector.send(u0, Ether(dst="ff:ff:ff:ff:ff:ff", src="02:5e:00:00:00:99") /
                          ARP(op=1, hwsrc="02:5e:00:00:00:99", psrc="172.16.0.1",
                              pdst=server_ip(2)))
            got = cap.collect(count=2, timeout=3, quiet=0.5,
                              match=lambda i, d: d[12:14] == b"\x08\x06")
        on_d0 = arp_replies([f for f in got if f[0] == d0])
        on_u0 = arp_replies([f for f in got if f[0] == u0])
        assert sorted(r[ARP].psrc for r in on_d0) == sorted([server_ip(2), "10.0.1.254"]), on_d0
        for r in on_d0:
            assert r[Ether].src == sw.mac["d0"] and r[ARP].hwsrc == sw.mac["d0"], r.summary()
            assert r[Ether].dst == SERVER_MAC[0] and r[ARP].hwdst == SERVER_MAC[0]
            assert r[ARP].pdst == server_ip(0)
        assert on_u0 == [], [r.summary() for r in on_u0]
        neigh = sw.ctl("show", "neighbors")["neighbors"]
        assert any(n["ip"] == server_ip(0) and n["port"] == "d0" and
                   n["mac"].lower() == SERVER_MAC[0] for n in neigh), neigh

        # The traffic the proxy answer attracts is routed to server 2.
        frame = Ether(dst=sw.mac["d0"], src=SERVER_MAC[0]) / \
            IP(src=server_ip(0), dst=server_ip(2), ttl=64) / UDP(sport=4000, dport=5000) / \
            Raw(b"proxy-arp")
        with railsw.Capture([d2]) as cap:
            injector.send(d0, frame)
            req = cap.collect(count=1, timeout=3,
                              match=lambda i, d: d[12:14] == b"\x08\x06")
            reqs = [Ether(d) for _, d in req if d[12:14] == b"\x08\x06"]
            assert reqs and reqs[0][ARP].pdst == server_ip(2), [r.summary() for r in reqs]
            injector.send(d2, Ether(dst=sw.mac["d2"], src=SERVER_MAC[2]) /
                          ARP(op=2, hwsrc=SERVER_MAC[2], psrc=server_ip(2),
                              hwdst=sw.mac["d2"], pdst=reqs[0][ARP].psrc))
            got = cap.collect(count=1, timeout=3,
                              match=lambda i, d: d[12:14] == b"\x08\x00")
        ip = [Ether(d) for _, d in got if d[12:14] == b"\x08\x00"]
        assert len(ip) == 1, [e.summary() for e in ip]
        e = ip[0]
        assert (e[Ether].src, e[Ether].dst) == (sw.mac["d2"], SERVER_MAC[2])
        assert e[IP].ttl == 63 and e[IP].dst == server_ip(2)
        assert bytes(e[Raw].load) == b"proxy-arp"
        sw.stop()
    finally:
        sw.cleanup()
