# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Routed forwarding: IPv4 and IPv6 to the right port with rewritten MACs,
TTL / hop limit decremented, IPv4 checksum valid; no route, TTL expiry and
frames not for the switch are dropped with the right counter and come out
nowhere."""

import pytest
from scapy.all import ICMP, IP, UDP, Dot1Q, Ether, IPv6, IPv6ExtHdrHopByHop, Raw
from scapy.layers.inet import IPOption_NOP

import railsw
import topo
from topo import HOST_IP, HOST_IP6, HOST_MAC, describe, deltas, routed, udp4, udp6

PORTS = ("p0", "p1", "p2")


@pytest.fixture(scope="module")
def sw(build):
    with topo.running(build, topo.three_ports()) as s:
        yield s


@pytest.fixture
def cap(sw):
    with railsw.Capture([sw.tap[p] for p in PORTS]) as c:
        yield c


def tap_of(sw, iface):
    return {v: k for k, v in sw.tap.items()}[iface]


def send_and_expect(sw, injector, cap, in_port, frames, expected):
    """Send frames on in_port; expect exactly `expected` ([(port, bytes)]) to
    come out, in that order per port and flow (in that order per port with one
    worker), and nothing else anywhere."""
    before = sw.counters()
    injector.send(sw.tap[in_port], frames)
    got = cap.collect(count=len(expected), timeout=3)
    got_ports = [(tap_of(sw, i), d) for i, d in got]
    # Distinct flows may be received by distinct workers: ordered per flow only.
    order = topo.by_flow if railsw.test_workers() > 1 else list
    assert order(got_ports) == order(expected), (
        f"expected:\n{describe([(sw.tap[p], d) for p, d in expected])}\n"
        f"got:\n{describe(got)}")
    return before, sw.counters()


def fwd_deltas(in_port, out_port, frames, expected_bytes):
    n = len(frames)
    return {
        in_port: {"rx_packets": n, "rx_bytes": sum(len(bytes(f)) for f in frames)},
        out_port: {"tx_packets": n, "tx_bytes": sum(len(b) for b in expected_bytes)},
    }


@pytest.mark.parametrize("dst,out", [
    (HOST_IP["p1"], "p1"),       # connected subnet, static neighbour
    (HOST_IP["p2"], "p2"),
    ("10.20.7.9", "p1"),         # static route
    ("10.30.0.1", "p2"),
])
def test_ipv4_forward(sw, injector, cap, dst, out):
    """IPv4 is routed to the right port with MACs rewritten and TTL - 1.

    Steps: a host on p0 sends one UDP/IPv4 frame (TTL 64) to the switch's
    MAC for `dst`.
    Verify: exactly one frame comes out, on `out`, equal byte for byte to the
    input with dst MAC = next hop's, src MAC = egress port's, TTL 63 and a
    recomputed header checksum; nothing else on any port; counters: p0
    rx +1 frame/bytes, `out` tx +1 frame/bytes, nothing else moves.
    """
    f = udp4(sw, "p0", dst)
    exp = routed(f, out, sw)
    before, after = send_and_expect(sw, injector, cap, "p0", [f], [(out, exp)])
    assert topo.ipv4_checksum_ok(exp)
    assert deltas(before, after) == fwd_deltas("p0", out, [f], [exp])


@pytest.mark.parametrize("dst,out", [
    (HOST_IP6["p1"], "p1"),
    (HOST_IP6["p2"], "p2"),
    ("fd00:20::5", "p1"),
    ("fd00:30:0:1::9", "p2"),
])
def test_ipv6_forward(sw, injector, cap, dst, out):
    """IPv6 is routed to the right port with MACs rewritten and hop limit - 1.

    Steps: a host on p0 sends one UDP/IPv6 frame (hop limit 64) for `dst`.
    Verify: exactly the expected frame (copy of the input, MACs rewritten,
    hop limit 63) on `out`, nothing elsewhere, exact counter deltas.
    """
    f = udp6(sw, "p0", dst)
    exp = routed(f, out, sw)
    before, after = send_and_expect(sw, injector, cap, "p0", [f], [(out, exp)])
    assert deltas(before, after) == fwd_deltas("p0", out, [f], [exp])


def test_ipv4_checksum_many(sw, injector, cap):
    """The incremental checksum update is right for many header values.

    Steps: send 64 frames p1 -> 10.30.0.0/16 whose TTL, TOS, ID and length
    vary (so the checksum takes many values, 0xffff/0x0000 edges included).
    Verify: every frame comes out on p2 in order, equal to its expected copy;
    each checksum verifies.
    """
    frames, exp = [], []
    for i in range(64):
        f = udp4(sw, "p1", f"10.30.{i}.{255 - i}", ttl=2 + (i * 37) % 253, tos=(i * 4) % 256,
                 id=(i * 1031) % 65536, payload=topo.marker("csum") + b"x" * i)
        frames.append(f)
        exp.append(("p2", routed(f, "p2", sw)))
    before, after = send_and_expect(sw, injector, cap, "p1", frames, exp)
    for _, data in exp:
        assert topo.ipv4_checksum_ok(data)
    assert deltas(before, after) == fwd_deltas("p1", "p2", frames, [d for _, d in exp])


def test_ipv4_options_forwarded(sw, injector, cap):
    """IPv4 with options (IHL 6) is routed like any other packet.

    Steps: send a UDP/IPv4 frame with two NOP options and an EOL (IHL 6).
    Verify: it comes out on p2 with the options intact, TTL - 1, valid checksum.
    """
    f = Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) / \
        IP(src=HOST_IP["p0"], dst=HOST_IP["p2"], options=[IPOption_NOP()] * 4) / \
        UDP(sport=9, dport=9) / Raw(topo.marker("opts"))
    f = Ether(bytes(f))
    assert f[IP].ihl == 6
    exp = routed(f, "p2", sw)
    send_and_expect(sw, injector, cap, "p0", [f], [("p2", exp)])
    assert topo.ipv4_checksum_ok(exp)


def test_ttl_2_forwarded_with_1(sw, injector, cap):
    """The TTL boundary: TTL 2 is forwarded and leaves with TTL 1.

    Steps: send UDP/IPv4 TTL 2 and UDP/IPv6 hop limit 2 from p0 to hosts on p1.
    Verify: both come out on p1 with TTL / hop limit 1.
    """
    f4 = udp4(sw, "p0", HOST_IP["p1"], ttl=2)
    f6 = udp6(sw, "p0", HOST_IP6["p1"], hlim=2)
    send_and_expect(sw, injector, cap, "p0", [f4, f6],
                    [("p1", routed(f4, "p1", sw)), ("p1", routed(f6, "p1", sw))])


def test_vlan_tagged_frame(sw, injector, cap):
    """An 802.1Q-tagged frame is parsed, not a parse error; if routed, it
    keeps its tag and PCP (DESIGN 3.6 "PCP copy if tagged").

    Steps: send a tagged UDP/IPv4 frame (VID 10, PCP 3) to p0's MAC for a
    host on p1.
    Verify: anything transmitted is exactly the routed copy on p1 (tag kept,
    MACs rewritten, TTL - 1); `parse_errors` does not move.
    """
    f = Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) / Dot1Q(vlan=10, prio=3) / \
        IP(src=HOST_IP["p0"], dst=HOST_IP["p1"]) / UDP() / Raw(topo.marker("vlan"))
    before = sw.counters()
    injector.send(sw.tap["p0"], f)
    got = cap.collect(count=None, timeout=1)
    after = sw.counters()
    exp = routed(f, "p1", sw)
    assert all(i == sw.tap["p1"] and d == exp for i, d in got), describe(got)
    assert deltas(before, after).get("p0", {}).get("parse_errors", 0) == 0


def assert_nothing_out(sw, cap, in_port, allow_icmp_back=None, allow_icmp6_back=None):
    """Nothing comes out of any port but, on the ingress port, ICMP errors of
    type allow_icmp_back (ICMPv6: allow_icmp6_back) addressed to the sender
    (a router may send them)."""
    got = cap.collect(count=None, timeout=1.0)
    bad = []
    for iface, data in got:
        e = Ether(data)
        back = iface == sw.tap[in_port] and e[Ether].dst == HOST_MAC[in_port]
        ok4 = (back and allow_icmp_back is not None and ICMP in e
               and e[ICMP].type == allow_icmp_back and e[IP].dst == HOST_IP[in_port])
        ok6 = (back and allow_icmp6_back is not None and IPv6 in e and e[IPv6].nh == 58
               and bytes(e[IPv6].payload)[0] == allow_icmp6_back
               and e[IPv6].dst == HOST_IP6[in_port])
        if not (ok4 or ok6):
            bad.append((iface, data))
    assert not bad, "dropped frames came out:\n" + describe(bad)


def test_no_route_dropped(sw, injector, cap):
    """A destination without a route is dropped and counted.

    Steps: send 5 IPv4 frames to 192.0.2.1 and 3 IPv6 frames to 2001:db8::1
    (no route, no default route) from p0.
    Verify: `no_route` on p0 +8 exactly, rx +8; no frame comes out on p1 or
    p2 (on p0 only an ICMP destination unreachable to the sender is allowed).
    """
    frames = [udp4(sw, "p0", "192.0.2.1", sport=1000 + i) for i in range(5)] + \
             [udp6(sw, "p0", "2001:db8::1", sport=2000 + i) for i in range(3)]
    before = sw.counters()
    injector.send(sw.tap["p0"], frames)
    assert_nothing_out(sw, cap, "p0", allow_icmp_back=3, allow_icmp6_back=1)
    d = deltas(before, sw.counters())
    assert d["p0"]["no_route"] == 8, d
    assert d["p0"]["rx_packets"] == 8, d
    for p in ("p1", "p2"):
        assert "tx_packets" not in d.get(p, {}), d


@pytest.mark.parametrize("ttl", [1, 0])
def test_ttl_expired_not_forwarded(sw, injector, cap, ttl):
    """TTL <= 1 is not forwarded and is counted as `ttl_expired`.

    Steps: send 3 UDP/IPv4 frames with TTL `ttl` and 2 UDP/IPv6 frames with
    that hop limit from p0 to hosts on p1 (routable).
    Verify: `ttl_expired` on p0 +5 exactly; nothing comes out on p1/p2 (only
    an ICMP time exceeded back to the sender on p0 is allowed).
    """
    frames = [udp4(sw, "p0", HOST_IP["p1"], ttl=ttl, sport=3000 + i) for i in range(3)] + \
             [udp6(sw, "p0", HOST_IP6["p1"], hlim=ttl, sport=4000 + i) for i in range(2)]
    before = sw.counters()
    injector.send(sw.tap["p0"], frames)
    got = cap.collect(count=None, timeout=1.0)
    out = [(i, d) for i, d in got if i != sw.tap["p0"]]
    assert not out, "expired frames were forwarded:\n" + describe(out)
    for i, d in got:
        e = Ether(d)
        ok = (IP in e and ICMP in e and e[ICMP].type == 11 and e[IP].dst == HOST_IP["p0"]) or \
             (IPv6 in e and e[IPv6].nh == 58 and bytes(e[IPv6].payload)[0] == 3)
        assert ok, "unexpected frame on p0:\n" + describe([(i, d)])
    d = deltas(before, sw.counters())
    assert d["p0"]["ttl_expired"] == 5, d


def test_not_for_us_and_l2_control(sw, injector, cap):
    """Frames not addressed to the switch are dropped under named counters.

    Steps: from p0 send 4 unicast frames to another MAC, then 2 IPv4
    multicast (01:00:5e:00:00:fb), 2 IPv4 broadcast (ff:ff:ff:ff:ff:ff, UDP),
    1 IPv6 multicast (33:33:00:00:00:01) and 1 LLDP (01:80:c2:00:00:0e) frame,
    all carrying routable destinations.
    Verify: `not_for_us` +4 and `l2_control` +6 exactly on p0; nothing comes
    out on any port.
    """
    other = "02:99:99:99:99:99"
    uni = [Ether(dst=other, src=HOST_MAC["p0"]) / IP(src=HOST_IP["p0"], dst=HOST_IP["p1"]) /
           UDP(sport=5000 + i) / Raw(topo.marker("nfu")) for i in range(3)]
    uni.append(Ether(dst=other, src=HOST_MAC["p0"]) /
               IPv6(src=HOST_IP6["p0"], dst=HOST_IP6["p1"]) / UDP() / Raw(topo.marker("nfu6")))
    mc = [Ether(dst="01:00:5e:00:00:fb", src=HOST_MAC["p0"]) /
          IP(src=HOST_IP["p0"], dst="224.0.0.251", ttl=255) / UDP(sport=5353, dport=5353) /
          Raw(topo.marker("mc")) for _ in range(2)]
    mc += [Ether(dst="ff:ff:ff:ff:ff:ff", src=HOST_MAC["p0"]) /
           IP(src=HOST_IP["p0"], dst="255.255.255.255") / UDP(sport=68, dport=67) /
           Raw(topo.marker("bc")) for _ in range(2)]
    mc.append(Ether(dst="33:33:00:00:00:01", src=HOST_MAC["p0"]) /
              IPv6(src="fe80::1", dst="ff02::1") / UDP() / Raw(topo.marker("mc6")))
    mc.append(Ether(dst="01:80:c2:00:00:0e", src=HOST_MAC["p0"], type=0x88CC) /
              Raw(b"\x02\x07\x04" + bytes.fromhex(HOST_MAC["p0"].replace(":", "")) +
                  b"\x04\x03\x05p0\x06\x02\x00\x78\x00\x00" + b"\x00" * 20))
    before = sw.counters()
    injector.send(sw.tap["p0"], uni + mc)
    got = cap.collect(count=None, timeout=1.0)
    assert not got, "frames not for the switch came out:\n" + describe(got)
    d = deltas(before, sw.counters())
    assert d["p0"].get("not_for_us") == 4, d
    assert d["p0"].get("l2_control") == 6, d
    assert d["p0"].get("rx_packets") == 10, d
    for p in ("p1", "p2"):
        assert "tx_packets" not in d.get(p, {}), d


def test_hop_by_hop_ipv6_routed(sw, injector, cap):
    """IPv6 with an extension header first is routed on its addresses.

    Steps: send UDP/IPv6 with a hop-by-hop header (PadN) to fd00:30::7.
    Verify: the expected copy (hop limit - 1) comes out on p2.
    """
    f = Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) / \
        IPv6(src=HOST_IP6["p0"], dst="fd00:30::7") / IPv6ExtHdrHopByHop() / \
        UDP(sport=7, dport=7) / Raw(topo.marker("hbh"))
    send_and_expect(sw, injector, cap, "p0", [f], [("p2", routed(f, "p2", sw))])
