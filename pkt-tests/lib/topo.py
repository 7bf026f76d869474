# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""The test topology shared by the packet tests, and frame helpers.

    host h0 (10.1.0.1, fd00:1::1) -- p0 10.1.0.254/24 fd00:1::fe/64
    host h1 (10.2.0.1, fd00:2::1) -- p1 10.2.0.254/24 fd00:2::fe/64
    host h2 (10.3.0.1, fd00:3::1) -- p2 10.3.0.254/24 fd00:3::fe/64

Hosts are static neighbours (so the switch never has to ARP in these
tests); static routes 10.20.0.0/16 -> h1, 10.30.0.0/16 -> h2,
fd00:20::/48 -> h1, fd00:30::/48 -> h2.
"""

import contextlib
import itertools

from scapy.all import IP, UDP, Ether, IPv6, Raw, conf

import railsw

conf.verb = 0

HOST_MAC = {"p0": "02:aa:00:00:01:01", "p1": "02:aa:00:00:02:01", "p2": "02:aa:00:00:03:01"}
HOST_IP = {"p0": "10.1.0.1", "p1": "10.2.0.1", "p2": "10.3.0.1"}
HOST_IP6 = {"p0": "fd00:1::1", "p1": "fd00:2::1", "p2": "fd00:3::1"}
SW_IP = {"p0": "10.1.0.254", "p1": "10.2.0.254", "p2": "10.3.0.254"}
SW_IP6 = {"p0": "fd00:1::fe", "p1": "fd00:2::fe", "p2": "fd00:3::fe"}


def three_ports(neighbors=True, routes=True, **extra):
    """The config of the topology above (a dict for railsw.Switch)."""
    cfg = {
        "switch": {"role": "leaf"},
        "ports": [
            {"name": p, "ipv4": SW_IP[p] + "/24", "ipv6": SW_IP6[p] + "/64"}
            for p in ("p0", "p1", "p2")
        ],
    }
    if neighbors:
        cfg["neighbors"] = [{"ip": HOST_IP[p], "mac": HOST_MAC[p], "port": p}
                            for p in ("p0", "p1", "p2")] + \
                           [{"ip": HOST_IP6[p], "mac": HOST_MAC[p], "port": p}
                            for p in ("p0", "p1", "p2")]
    if routes:
        cfg["routes"] = [
            {"prefix": "10.20.0.0/16", "nexthops": [HOST_IP["p1"]]},
            {"prefix": "10.30.0.0/16", "nexthops": [HOST_IP["p2"]]},
            {"prefix": "fd00:20::/48", "nexthops": [HOST_IP6["p1"]]},
            {"prefix": "fd00:30::/48", "nexthops": [HOST_IP6["p2"]]},
        ]
    cfg.update(extra)
    return cfg


@contextlib.contextmanager
def running(build, config):
    """A switch for a whole test module: started, yielded, then stopped with
    the checks of Switch.stop() (exit 0, socket removed) and cleaned up."""
    sw = railsw.Switch(build, config, start=False)
    try:
        sw.start()
        yield sw
        sw.stop()
    finally:
        sw.cleanup()


_marks = itertools.count(1)


def marker(tag="pkt"):
    """A unique payload, so each test can find its own frames."""
    return f"railsw-test {tag} {next(_marks):06d} ".encode().ljust(32, b".")


def udp4(sw, port, dst, src=None, ttl=64, sport=1234, dport=5678, payload=None, **ip):
    """A UDP/IPv4 frame a host on `port` sends to the switch's MAC."""
    return Ether(dst=sw.mac[port], src=HOST_MAC[port]) / \
        IP(src=src or HOST_IP[port], dst=dst, ttl=ttl, **ip) / \
        UDP(sport=sport, dport=dport) / Raw(payload or marker())


def udp6(sw, port, dst, src=None, hlim=64, sport=1234, dport=5678, payload=None):
    return Ether(dst=sw.mac[port], src=HOST_MAC[port]) / \
        IPv6(src=src or HOST_IP6[port], dst=dst, hlim=hlim) / \
        UDP(sport=sport, dport=dport) / Raw(payload or marker())


def routed(frame, out_port, sw, nh_mac=None):
    """The frame the switch must transmit for `frame` routed out of
    `out_port`: a copy with dst MAC = next hop, src MAC = egress port MAC,
    TTL/hop limit - 1 and (IPv4) the header checksum recomputed."""
    exp = Ether(bytes(frame))
    exp[Ether].dst = nh_mac or HOST_MAC[out_port]
    exp[Ether].src = sw.mac[out_port]
    if IP in exp:
        exp[IP].ttl -= 1
        exp[IP].chksum = None
    else:
        exp[IPv6].hlim -= 1
    return bytes(exp)


def flow_of(data):
    """The flow of an Ethernet frame: its addresses, protocol and ports when it is IP (what
    RSS and the kernel's TAP queue choice hash), else its EtherType."""
    e = Ether(data)
    ip = e[IP] if IP in e else e[IPv6] if IPv6 in e else None
    if ip is None:
        return (e.type,)
    l4 = ip.payload
    return (ip.src, ip.dst, getattr(l4, "sport", None), getattr(l4, "dport", None))


def by_flow(frames):
    """[(port, bytes)] grouped per (port, flow), each group in its order: what several workers
    keep of the order of frames (sorted groups, to compare two such lists)."""
    groups = {}
    for port, data in frames:
        groups.setdefault((port, repr(flow_of(data))), []).append(data)
    return sorted(groups.items())


def ipv4_checksum_ok(data):
    """True if the IPv4 header checksum in an Ethernet frame verifies."""
    ihl = (data[14] & 0x0F) * 4
    hdr = data[14:14 + ihl]
    total = sum(int.from_bytes(hdr[i:i + 2], "big") for i in range(0, ihl, 2))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total == 0xFFFF


def describe(frames):
    """Readable summary of captured (iface, bytes) frames for assertion messages."""
    out = []
    for iface, data in frames:
        out.append(f"  {iface}: {len(data)} bytes {Ether(data).summary()}")
    return "\n".join(out) or "  (nothing)"


def send_and_place(sw, injector, frames, members, nh_mac, in_port="p0"):
    """Send frames on in_port and capture them on it and the members: every frame must come
    out once, as the routed copy (routed(), next hop nh_mac[member]) for the member it left
    by. Returns ({frame index: member port}, the captured (iface, bytes))."""
    with railsw.Capture([sw.tap[p] for p in (in_port,) + tuple(members)]) as cap:
        injector.send(sw.tap[in_port], frames)
        got = cap.collect(count=len(frames), timeout=10)
    by_iface = {sw.tap[p]: p for p in (in_port,) + tuple(members)}
    assert len(got) == len(frames), f"sent {len(frames)}, {len(got)} came out:\n" + describe(got)
    expected = {}
    for i, f in enumerate(frames):
        for p in members:
            expected[routed(f, p, sw, nh_mac=nh_mac[p])] = (i, p)
    placed = {}
    for iface, data in got:
        assert data in expected, "unexpected frame:\n" + describe([(iface, data)])
        i, p = expected[data]
        assert by_iface[iface] == p, f"frame {i} for {p} came out on {iface}"
        assert i not in placed, f"frame {i} came out twice"
        placed[i] = p
    return placed, got


def deltas(before, after):
    """{port: {counter: after-before}} keeping only non-zero deltas."""
    d = {}
    for port, ctrs in after.items():
        for k, v in ctrs.items():
            diff = v - before.get(port, {}).get(k, 0)
            if diff:
                d.setdefault(port, {})[k] = diff
    return d
