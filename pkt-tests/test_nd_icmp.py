# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""IPv6 Neighbor Discovery, ICMPv6 echo and the ICMP/ICMPv6 errors of the
control thread: NA for the switch's addresses, resolving IPv6 next hops by
NS, echo replies, time exceeded, unreachable (rate-limited), fragmentation
needed / packet too big, and the cases where no error may be sent."""

import ipaddress
import struct

import pytest
from scapy.all import ICMP, IP, UDP, Ether, IPv6, Raw
from scapy.layers.inet6 import (ICMPv6EchoRequest, ICMPv6ND_NA, ICMPv6ND_NS,
                                ICMPv6NDOptDstLLAddr, ICMPv6NDOptSrcLLAddr)

import railsw
import topo
from topo import HOST_IP, HOST_IP6, HOST_MAC, SW_IP, SW_IP6, describe, deltas, routed, udp4, udp6

NEW_MAC, NEW_IP6 = "02:bb:00:00:00:77", "fd00:1::77"


# ---------------------------------------------------------------------------
# Independent checks (not Scapy's): RFC 1071 sum and the IPv6 pseudo-header.


def inet_sum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def icmp4_ok(ip_bytes):
    """IPv4 header and ICMP checksums of an IPv4 datagram both verify."""
    ihl = (ip_bytes[0] & 0xF) * 4
    tot = struct.unpack("!H", ip_bytes[2:4])[0]
    return inet_sum(ip_bytes[:ihl]) == 0xFFFF and inet_sum(ip_bytes[ihl:tot]) == 0xFFFF


def icmp6_ok(ip6_bytes):
    """The ICMPv6 checksum over the RFC 8200 §8.1 pseudo-header verifies."""
    plen = struct.unpack("!H", ip6_bytes[4:6])[0]
    pseudo = ip6_bytes[8:40] + struct.pack("!IxxxB", plen, 58)
    return inet_sum(pseudo + ip6_bytes[40:40 + plen]) == 0xFFFF


def l3(data):
    """The IP packet of an untagged Ethernet frame, without padding."""
    ip = data[14:]
    if ip[0] >> 4 == 4:
        return ip[:struct.unpack("!H", ip[2:4])[0]]
    return ip[:40 + struct.unpack("!H", ip[4:6])[0]]


def icmp_stats(sw):
    return sw.ctl("show", "icmp")["icmp"]


def icmp_delta(before, after):
    return {k: after[k] - before[k] for k in before
            if isinstance(before[k], int) and not isinstance(before[k], bool)
            and after[k] != before[k]}


def solicited_node(addr):
    b = ipaddress.IPv6Address(addr).packed
    return str(ipaddress.IPv6Address(bytes.fromhex("ff0200000000000000000001ff") + b[13:]))


def sn_mac(addr):
    b = ipaddress.IPv6Address(solicited_node(addr)).packed
    return "33:33:" + ":".join(f"{x:02x}" for x in b[12:])


@pytest.fixture
def sw(make_switch):
    return make_switch(topo.three_ports())


@pytest.fixture
def cap(sw):
    with railsw.Capture([sw.tap[p] for p in ("p0", "p1", "p2")]) as c:
        yield c


# ---------------------------------------------------------------------------
# Neighbor Discovery


def ns_frame(sw, unicast, hlim=255, src=NEW_IP6, mac=NEW_MAC, target=SW_IP6["p0"], opt=True):
    dst = target if unicast else solicited_node(target)
    f = Ether(dst=sw.mac["p0"] if unicast else sn_mac(target), src=mac) / \
        IPv6(src=src, dst=dst, hlim=hlim) / ICMPv6ND_NS(tgt=target)
    if opt:
        f = f / ICMPv6NDOptSrcLLAddr(lladdr=mac)
    return f


@pytest.mark.parametrize("unicast", [False, True], ids=["solicited-node", "unicast"])
def test_ns_answered_with_na(sw, injector, cap, unicast):
    """The switch answers an NS for its port address and learns the asker.

    Steps: a new host fd00:1::77 (MAC 02:bb:00:00:00:77) on p0 sends an NS
    for fd00:1::fe with a source link-layer address option, to the
    solicited-node group ff02::1:ff00:fe (33:33:ff:00:00:fe) or unicast to
    the port MAC; then a host on p1 sends UDP to fd00:1::77.
    Verify: exactly one frame, on p0: Ethernet dst = asker, src = p0 MAC;
    IPv6 fd00:1::fe -> fd00:1::77, hop limit 255; NA code 0 with R, S, O
    set, target fd00:1::fe and one target link-layer address option = p0
    MAC; checksum right (checked independently). `show icmp` nd_ns_rx and
    nd_na_tx +1; `show neighbors` lists fd00:1::77 with its MAC on p0, and the
    UDP frame is forwarded to that MAC without any NS.
    """
    before = icmp_stats(sw)
    injector.send(sw.tap["p0"], ns_frame(sw, unicast))
    got = cap.collect(count=1, timeout=3)
    assert len(got) == 1 and got[0][0] == sw.tap["p0"], describe(got)
    data = got[0][1]
    e = Ether(data)
    assert (e[Ether].dst, e[Ether].src, e[Ether].type) == (NEW_MAC, sw.mac["p0"], 0x86DD)
    assert (e[IPv6].src, e[IPv6].dst, e[IPv6].hlim, e[IPv6].nh) == \
        (SW_IP6["p0"], NEW_IP6, 255, 58), e.summary()
    assert ICMPv6ND_NA in e, e.show(dump=True)
    na = e[ICMPv6ND_NA]
    assert (na.code, na.R, na.S, na.O, na.tgt) == (0, 1, 1, 1, SW_IP6["p0"]), na.show(dump=True)
    assert ICMPv6NDOptDstLLAddr in e and e[ICMPv6NDOptDstLLAddr].lladdr == sw.mac["p0"]
    assert icmp6_ok(l3(data)), "bad ICMPv6 checksum"
    assert len(l3(data)) == 40 + 32, len(l3(data))
    d = icmp_delta(before, icmp_stats(sw))
    assert d.get("nd_ns_rx") == 1 and d.get("nd_na_tx") == 1, d

    learned = [n for n in sw.neighbors() if n["ip"] == NEW_IP6]
    assert len(learned) == 1 and learned[0]["mac"].lower() == NEW_MAC, sw.neighbors()
    assert learned[0]["port"] == "p0" and learned[0]["state"] == "reachable", learned

    cap.frames.clear()
    f = udp6(sw, "p1", NEW_IP6)
    injector.send(sw.tap["p1"], f)
    got = cap.collect(count=1, timeout=3)
    assert got == [(sw.tap["p0"], routed(f, "p0", sw, nh_mac=NEW_MAC))], describe(got)


def test_ns_for_duplicate_address_detection(sw, injector, cap):
    """An NS from :: (duplicate address detection) for the switch's address
    is answered to all-nodes.

    Steps: on p0 send an NS from :: to ff02::1:ff00:fe for fd00:1::fe
    without options.
    Verify: one NA on p0 to ff02::1 (33:33:00:00:00:01) with R and O set and
    S clear, target option = p0 MAC; nothing is learned.
    """
    f = Ether(dst=sn_mac(SW_IP6["p0"]), src=NEW_MAC) / \
        IPv6(src="::", dst=solicited_node(SW_IP6["p0"]), hlim=255) / \
        ICMPv6ND_NS(tgt=SW_IP6["p0"])
    injector.send(sw.tap["p0"], f)
    got = cap.collect(count=1, timeout=3)
    assert len(got) == 1 and got[0][0] == sw.tap["p0"], describe(got)
    e = Ether(got[0][1])
    assert e[Ether].dst == "33:33:00:00:00:01" and e[IPv6].dst == "ff02::1", e.summary()
    na = e[ICMPv6ND_NA]
    assert (na.R, na.S, na.O) == (1, 0, 1), na.show(dump=True)
    assert icmp6_ok(l3(got[0][1]))
    assert not [n for n in sw.neighbors() if n["ip"] == "::"], sw.neighbors()


def _bad_checksum(f):
    f = Ether(bytes(f))
    f[ICMPv6ND_NS].cksum = (f[ICMPv6ND_NS].cksum + 1) & 0xFFFF
    return f


def _zero_length_option(f):
    raw = bytearray(bytes(f))
    raw[14 + 40 + 24 + 1] = 0  # the option's length byte
    e = Ether(bytes(raw))
    e[ICMPv6ND_NS].cksum = None  # a right checksum: only the option is wrong
    return Ether(bytes(e))


def _code_1(f):
    f = Ether(bytes(f))
    f[ICMPv6ND_NS].code = 1
    f[ICMPv6ND_NS].cksum = None
    return Ether(bytes(f))


def _truncated_option(f):
    e = Ether(bytes(f))
    e[ICMPv6NDOptSrcLLAddr].len = 2  # 16 bytes claimed, 8 present
    e[ICMPv6ND_NS].cksum = None
    return Ether(bytes(e))


@pytest.mark.parametrize("mangle,invalid", [
    (lambda sw: ns_frame(sw, False, hlim=64), True),
    (lambda sw: _bad_checksum(ns_frame(sw, False)), True),
    (lambda sw: _zero_length_option(ns_frame(sw, False)), True),
    (lambda sw: _truncated_option(ns_frame(sw, False)), True),
    (lambda sw: _code_1(ns_frame(sw, False)), True),
    (lambda sw: ns_frame(sw, False, target="fd00:1::99"), False),
    (lambda sw: ns_frame(sw, False, target=SW_IP6["p1"]), False),
], ids=["hop-limit-64", "bad-checksum", "option-length-0", "option-overrun", "code-1",
        "other-target", "other-port-address"])
def test_bad_ns_not_answered(sw, injector, cap, mangle, invalid):
    """NS that fail RFC 4861 §7.1.1 or are not for the port's address get
    no answer and teach nothing.

    Steps: on p0 send one NS: hop limit 64; wrong checksum; an option of
    length 0; an option longer than the message; code 1; for an address
    nobody owns; for p1's address (not on this link).
    Verify: nothing comes out within 1 s; fd00:1::77 is not learned;
    `show icmp` nd_invalid +1 for the malformed ones, nd_na_tx +0.
    """
    before = icmp_stats(sw)
    injector.send(sw.tap["p0"], mangle(sw))
    got = cap.collect(count=None, timeout=1.0)
    assert not got, describe(got)
    assert not [n for n in sw.neighbors() if n["ip"] == NEW_IP6], sw.neighbors()
    d = icmp_delta(before, icmp_stats(sw))
    assert d.get("nd_invalid", 0) == (1 if invalid else 0), d
    assert d.get("nd_na_tx", 0) == 0, d


def is_ns_for(data, sw, port, target):
    e = Ether(data)
    return (ICMPv6ND_NS in e and e[ICMPv6ND_NS].tgt == target
            and e[Ether].src == sw.mac[port] and e[Ether].dst == sn_mac(target)
            and e[IPv6].src == SW_IP6[port] and e[IPv6].dst == solicited_node(target)
            and e[IPv6].hlim == 255 and e[ICMPv6ND_NS].code == 0
            and ICMPv6NDOptSrcLLAddr in e and e[ICMPv6NDOptSrcLLAddr].lladdr == sw.mac[port]
            and icmp6_ok(l3(data)))


@pytest.mark.parametrize("dst,nexthop", [
    ("fd00:2::1", "fd00:2::1"),    # a host on p1's connected subnet
    ("fd00:20::5", "fd00:2::1"),   # a static route whose next hop is unresolved
])
def test_resolve_ipv6_next_hop(make_switch, injector, dst, nexthop):
    """The switch resolves an IPv6 next hop with NS and forwards the packets
    it held once a (Scapy) NA comes.

    Steps: switch without static IPv6 neighbours on p1; a host on p0 sends
    one UDP/IPv6 frame for `dst`; answer the switch's NS with a solicited NA
    (target link-layer option 02:cc:00:00:02:01) to fd00:2::fe; then send a
    second frame.
    Verify: on p1 an NS for `nexthop` from fd00:2::fe / p1's MAC to its
    solicited-node group, hop limit 255, source link-layer option = p1 MAC,
    checksum right (retries allowed, nothing else); after the NA, the held
    frame and then the second come out on p1 routed to the learned MAC;
    `neigh_unresolved` stays 0; `show neighbors` lists the next hop as
    reachable on p1; `show icmp` nd_ns_tx >= 1, nd_na_rx +1.
    """
    cfg = topo.three_ports(neighbors=False, routes=False)
    cfg["neighbors"] = [{"ip": HOST_IP6["p0"], "mac": HOST_MAC["p0"], "port": "p0"}]
    if dst != nexthop:
        cfg["routes"] = [{"prefix": "fd00:20::/48", "nexthops": [nexthop]}]
    sw = make_switch(cfg)
    nh_mac = "02:cc:00:00:02:01"
    with railsw.Capture([sw.tap[p] for p in ("p0", "p1", "p2")]) as cap:
        before = sw.counters()
        ibefore = icmp_stats(sw)
        f1 = udp6(sw, "p0", dst, sport=1111)
        injector.send(sw.tap["p0"], f1)
        got = cap.collect(count=1, timeout=5)
        assert got, "no NS came out"
        assert all(i == sw.tap["p1"] and is_ns_for(d, sw, "p1", nexthop) for i, d in got), \
            "expected only NS on p1:\n" + describe(got)

        cap.frames.clear()
        na = Ether(dst=sw.mac["p1"], src=nh_mac) / \
            IPv6(src=nexthop, dst=SW_IP6["p1"], hlim=255) / \
            ICMPv6ND_NA(tgt=nexthop, R=0, S=1, O=1) / ICMPv6NDOptDstLLAddr(lladdr=nh_mac)
        injector.send(sw.tap["p1"], na)
        exp1 = routed(f1, "p1", sw, nh_mac=nh_mac)
        got = cap.collect(count=1, timeout=3, match=lambda i, d: d == exp1)
        held = [(i, d) for i, d in got if not is_ns_for(d, sw, "p1", nexthop)]
        assert held == [(sw.tap["p1"], exp1)], \
            "held frame not forwarded after the NA:\n" + describe(got)

        cap.frames.clear()
        f2 = udp6(sw, "p0", dst, sport=2222)
        injector.send(sw.tap["p0"], f2)
        got = cap.collect(count=1, timeout=3)
        assert got == [(sw.tap["p1"], routed(f2, "p1", sw, nh_mac=nh_mac))], describe(got)

    d = deltas(before, sw.counters())
    assert d.get("p0", {}).get("neigh_unresolved", 0) == 0, d
    n = [x for x in sw.neighbors() if x["ip"] == nexthop]
    assert len(n) == 1 and n[0]["mac"].lower() == nh_mac and n[0]["port"] == "p1", n
    assert n[0]["state"] == "reachable", n
    di = icmp_delta(ibefore, icmp_stats(sw))
    assert di.get("nd_ns_tx", 0) >= 1 and di.get("nd_na_rx") == 1, di


# ---------------------------------------------------------------------------
# ICMPv6 echo


@pytest.mark.parametrize("target", [SW_IP6["p0"], SW_IP6["p2"]])
def test_icmp6_echo_reply(sw, injector, cap, target):
    """The switch answers ICMPv6 echo requests for its addresses.

    Steps: host fd00:1::1 (static neighbour on p0) pings `target` (p0's own
    address, or p2's through p0): id 0x4321, seq 9, 56 bytes of data.
    Verify: exactly one frame, on p0: Ethernet dst = host, src = p0 MAC;
    IPv6 src = target, dst = host; echo reply (type 129, code 0) with the
    same id, seq and data; ICMPv6 checksum right (independent check);
    `show icmp` echo_replies +1.
    """
    payload = topo.marker("echo6").ljust(56, b"e")
    req = Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) / \
        IPv6(src=HOST_IP6["p0"], dst=target, hlim=64) / \
        ICMPv6EchoRequest(id=0x4321, seq=9) / Raw(payload)
    before = icmp_stats(sw)
    injector.send(sw.tap["p0"], req)
    got = cap.collect(count=1, timeout=3)
    assert len(got) == 1 and got[0][0] == sw.tap["p0"], describe(got)
    data = got[0][1]
    e = Ether(data)
    assert (e[Ether].dst, e[Ether].src) == (HOST_MAC["p0"], sw.mac["p0"]), e.summary()
    assert (e[IPv6].src, e[IPv6].dst, e[IPv6].nh) == (target, HOST_IP6["p0"], 58)
    icmp = l3(data)[40:]
    assert icmp[0:2] == b"\x81\x00", icmp[:8].hex()
    assert icmp[4:8] == struct.pack("!HH", 0x4321, 9) and icmp[8:] == payload
    assert icmp6_ok(l3(data)), "bad ICMPv6 checksum"
    assert icmp_delta(before, icmp_stats(sw)).get("echo_replies") == 1


# ---------------------------------------------------------------------------
# ICMP errors


def check_error4(data, sw, port, orig, typ, code, src=None, word=0):
    """An ICMPv4 error on `port` to the sender of `orig` (an Ethernet frame)
    quoting the original IP packet as received."""
    e = Ether(data)
    assert (e[Ether].dst, e[Ether].src) == (Ether(bytes(orig))[Ether].src, sw.mac[port])
    ip = l3(data)
    assert icmp4_ok(ip), "bad IPv4/ICMP checksum"
    assert (e[IP].src, e[IP].dst, e[IP].proto) == (src or SW_IP[port],
                                                   Ether(bytes(orig))[IP].src, 1), e.summary()
    ihl = (ip[0] & 0xF) * 4
    icmp = ip[ihl:]
    assert (icmp[0], icmp[1]) == (typ, code), icmp[:8].hex()
    assert struct.unpack("!I", icmp[4:8])[0] == word, icmp[:8].hex()
    o = l3(bytes(orig))
    quoted = icmp[8:]
    assert len(ip) <= 576 and len(quoted) == min(len(o), 576 - 28), (len(ip), len(quoted))
    assert quoted == o[:len(quoted)], "quote differs from the original"
    return e


def check_error6(data, sw, port, orig, typ, code, word=0):
    e = Ether(data)
    assert (e[Ether].dst, e[Ether].src) == (Ether(bytes(orig))[Ether].src, sw.mac[port])
    ip = l3(data)
    assert icmp6_ok(ip), "bad ICMPv6 checksum"
    assert (e[IPv6].src, e[IPv6].dst, e[IPv6].nh) == (SW_IP6[port],
                                                      Ether(bytes(orig))[IPv6].src, 58)
    icmp = ip[40:]
    assert (icmp[0], icmp[1]) == (typ, code), icmp[:8].hex()
    assert struct.unpack("!I", icmp[4:8])[0] == word, icmp[:8].hex()
    o = l3(bytes(orig))
    quoted = icmp[8:]
    assert len(ip) <= 1280 and len(quoted) == min(len(o), 1280 - 48), (len(ip), len(quoted))
    assert quoted == o[:len(quoted)], "quote differs from the original"
    return e


@pytest.mark.parametrize("family", [4, 6])
def test_time_exceeded(sw, injector, cap, family):
    """TTL 1 / hop limit 1 is answered with time exceeded from the ingress
    port's address, quoting the original (traceroute shows the hop).

    Steps: a host on p0 sends UDP with TTL (hop limit) 1 to a host on p1.
    Verify: nothing on p1/p2; one frame on p0 to the sender's MAC: IPv4 ICMP
    type 11 code 0 from 10.1.0.254 / ICMPv6 type 3 code 0 from fd00:1::fe,
    whose data is the original IP packet as received, checksums right;
    `ttl_expired` +1 on p0, `show icmp` time_exceeded +1.
    """
    f = udp4(sw, "p0", HOST_IP["p1"], ttl=1) if family == 4 else \
        udp6(sw, "p0", HOST_IP6["p1"], hlim=1)
    before, ibefore = sw.counters(), icmp_stats(sw)
    injector.send(sw.tap["p0"], f)
    got = cap.collect(count=1, timeout=3)
    assert len(got) == 1 and got[0][0] == sw.tap["p0"], describe(got)
    if family == 4:
        check_error4(got[0][1], sw, "p0", f, 11, 0)
    else:
        check_error6(got[0][1], sw, "p0", f, 3, 0)
    assert deltas(before, sw.counters())["p0"]["ttl_expired"] == 1
    assert icmp_delta(ibefore, icmp_stats(sw)).get("time_exceeded") == 1


def test_time_exceeded_from_router_id(make_switch, injector):
    """With switch.router_id set, IPv4 errors come from it.

    Steps: switch with router_id 10.255.0.1; UDP with TTL 1 from p0 to p1.
    Verify: the time exceeded on p0 has IPv4 source 10.255.0.1.
    """
    cfg = topo.three_ports()
    cfg["switch"]["router_id"] = "10.255.0.1"
    sw = make_switch(cfg)
    with railsw.Capture([sw.tap["p0"]]) as cap:
        f = udp4(sw, "p0", HOST_IP["p1"], ttl=1)
        injector.send(sw.tap["p0"], f)
        got = cap.collect(count=1, timeout=3)
    assert len(got) == 1, describe(got)
    check_error4(got[0][1], sw, "p0", f, 11, 0, src="10.255.0.1")


def test_unreachable_rate_limited(make_switch, injector):
    """No route is answered with destination unreachable, at most rate_pps
    a second.

    Steps: switch with icmp_unreachable {enable: true, rate_pps: 10}; from
    p0 send one UDP/IPv6 frame to 2001:db8::1, wait for its answer, then send
    50 UDP/IPv4 frames to 192.0.2.1 in one burst (no route anywhere).
    Verify: the IPv6 one gets an ICMPv6 type 1 code 0 quoting it (one token
    of the shared bucket). The burst gets between 8 and 16 answers (what is
    left of the bucket of 10, plus what refills while they are sent), each
    ICMP type 3 code 0 quoting its packet;
    `no_route` +51; `show icmp` unreachable = answers, rate_limited = the rest.
    """
    cfg = topo.three_ports()
    cfg["switch"]["icmp_unreachable"] = {"enable": True, "rate_pps": 10}
    sw = make_switch(cfg)
    with railsw.Capture([sw.tap[p] for p in ("p0", "p1", "p2")]) as cap:
        before, ibefore = sw.counters(), icmp_stats(sw)
        f6 = udp6(sw, "p0", "2001:db8::1")
        injector.send(sw.tap["p0"], f6)
        got = cap.collect(count=1, timeout=3)
        assert len(got) == 1 and got[0][0] == sw.tap["p0"], describe(got)
        check_error6(got[0][1], sw, "p0", f6, 1, 0)

        cap.frames.clear()
        frames = [udp4(sw, "p0", "192.0.2.1", sport=5000 + i) for i in range(50)]
        injector.send(sw.tap["p0"], frames)
        got = cap.collect(count=None, timeout=1.5)
    assert all(i == sw.tap["p0"] for i, _ in got), describe(got)
    assert 8 <= len(got) <= 16, f"{len(got)} answers to 50 packets at 10/s:\n" + describe(got)
    by_sport = {f[UDP].sport: f for f in frames}
    for _, data in got:
        orig = by_sport[UDP(l3(data)[28 + 20:28 + 28]).sport]
        check_error4(data, sw, "p0", orig, 3, 0)
    d = deltas(before, sw.counters())
    assert d["p0"]["no_route"] == 51, d
    di = icmp_delta(ibefore, icmp_stats(sw))
    assert di.get("unreachable") == len(got) + 1, di
    assert di.get("rate_limited") == 50 - len(got), di


def test_unreachable_disabled(make_switch, injector):
    """With icmp_unreachable false, no route is only dropped.

    Steps: switch with icmp_unreachable {enable: false}; 3 UDP frames from
    p0 to 192.0.2.1.
    Verify: nothing comes out in 1 s; `no_route` +3.
    """
    cfg = topo.three_ports()
    cfg["switch"]["icmp_unreachable"] = {"enable": False}
    sw = make_switch(cfg)
    with railsw.Capture([sw.tap[p] for p in ("p0", "p1", "p2")]) as cap:
        before = sw.counters()
        injector.send(sw.tap["p0"], [udp4(sw, "p0", "192.0.2.1", sport=s) for s in (1, 2, 3)])
        got = cap.collect(count=None, timeout=1.0)
    assert not got, describe(got)
    assert deltas(before, sw.counters())["p0"]["no_route"] == 3


@pytest.fixture
def sw_mtu(make_switch):
    """p1 with a 1280-byte MTU."""
    cfg = topo.three_ports()
    cfg["ports"][1]["mtu"] = 1280
    return make_switch(cfg)


def test_frag_needed(sw_mtu, injector):
    """An IPv4 packet over the egress MTU with DF gets fragmentation needed
    with the MTU; without DF it is only dropped (railsw does not fragment).

    Steps: p1 MTU 1280; from p0 send a 1400-byte UDP/IPv4 packet with DF to
    a host on p1, then one without DF.
    Verify: nothing on p1; exactly one frame on p0: ICMP type 3 code 4, the
    next-hop MTU 1280 in the low 16 bits of the second word, quoting 548
    bytes of the original (576 in all); `mtu_exceeded` +2; `show icmp`
    too_big +1.
    """
    sw = sw_mtu
    with railsw.Capture([sw.tap[p] for p in ("p0", "p1", "p2")]) as cap:
        before, ibefore = sw.counters(), icmp_stats(sw)
        df = udp4(sw, "p0", HOST_IP["p1"], flags="DF", payload=b"d" * (1400 - 28))
        nodf = udp4(sw, "p0", HOST_IP["p1"], payload=b"n" * (1400 - 28))
        assert len(l3(bytes(df))) == 1400
        injector.send(sw.tap["p0"], [df, nodf])
        got = cap.collect(count=None, timeout=1.5)
    assert len(got) == 1 and got[0][0] == sw.tap["p0"], describe(got)
    check_error4(got[0][1], sw, "p0", df, 3, 4, word=1280)
    assert len(l3(got[0][1])) == 576
    assert deltas(before, sw.counters())["p0"]["mtu_exceeded"] == 2
    assert icmp_delta(ibefore, icmp_stats(sw)).get("too_big") == 1


def test_packet_too_big(sw_mtu, injector):
    """An IPv6 packet over the egress MTU gets packet too big with the MTU.

    Steps: p1 MTU 1280; from p0 send a 1400-byte UDP/IPv6 packet to a host
    on p1.
    Verify: nothing on p1; one frame on p0: ICMPv6 type 2 code 0, MTU 1280,
    quoting 1232 bytes of the original (1280 in all), checksum right.
    """
    sw = sw_mtu
    with railsw.Capture([sw.tap[p] for p in ("p0", "p1", "p2")]) as cap:
        f = udp6(sw, "p0", HOST_IP6["p1"], payload=b"b" * (1400 - 48))
        injector.send(sw.tap["p0"], f)
        got = cap.collect(count=1, timeout=3)
    assert len(got) == 1 and got[0][0] == sw.tap["p0"], describe(got)
    check_error6(got[0][1], sw, "p0", f, 2, 0, word=1280)
    assert len(l3(got[0][1])) == 1280


def test_no_error_about_errors(sw, injector, cap):
    """No ICMP error is sent about an ICMP error, or from a multicast or
    unspecified source; an echo request that expires is answered.

    Steps: from p0 with TTL/hop limit 1 toward p1: an ICMP time exceeded
    (type 11), an ICMP destination unreachable (type 3), an ICMPv6 time
    exceeded (type 3), an ICMPv6 packet too big (type 2), a UDP packet from
    0.0.0.0 and one from ::; then an ICMP echo request with TTL 1.
    Verify: the first six get nothing (`show icmp` suppressed +6); the echo
    request gets one time exceeded quoting it.
    """
    quoted = bytes(IP(src=HOST_IP["p1"], dst="10.9.9.9") / UDP(sport=1, dport=2))
    quoted6 = bytes(IPv6(src=HOST_IP6["p1"], dst="fd00:9::9") / UDP(sport=1, dport=2))
    eth = Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"])
    silent = [
        eth / IP(src=HOST_IP["p0"], dst=HOST_IP["p1"], ttl=1) / ICMP(type=11) / Raw(quoted),
        eth / IP(src=HOST_IP["p0"], dst=HOST_IP["p1"], ttl=1) / ICMP(type=3, code=1) /
        Raw(quoted),
        eth / IPv6(src=HOST_IP6["p0"], dst=HOST_IP6["p1"], hlim=1) /
        Raw(bytes([3, 0, 0, 0, 0, 0, 0, 0]) + quoted6),
        eth / IPv6(src=HOST_IP6["p0"], dst=HOST_IP6["p1"], hlim=1) /
        Raw(bytes([2, 0, 0, 0, 0, 0, 5, 0]) + quoted6),
        udp4(sw, "p0", HOST_IP["p1"], src="0.0.0.0", ttl=1),
        udp6(sw, "p0", HOST_IP6["p1"], src="::", hlim=1),
    ]
    for f in silent[2:4]:  # fill in the ICMPv6 checksum
        f[IPv6].nh = 58
    silent = [Ether(bytes(f)) for f in silent]
    before = icmp_stats(sw)
    injector.send(sw.tap["p0"], silent)
    got = cap.collect(count=None, timeout=1.0)
    assert not got, "answered an ICMP error or a bad source:\n" + describe(got)
    assert icmp_delta(before, icmp_stats(sw)).get("suppressed") == 6

    echo = eth / IP(src=HOST_IP["p0"], dst=HOST_IP["p1"], ttl=1) / ICMP(type=8, id=7) / \
        Raw(topo.marker("expire"))
    injector.send(sw.tap["p0"], echo)
    got = cap.collect(count=1, timeout=3)
    assert len(got) == 1, describe(got)
    check_error4(got[0][1], sw, "p0", echo, 11, 0)


def test_show_icmp_cli(sw):
    """`railctl show icmp` answers every counter, text and JSON.

    Verify: the JSON object has the counters of docs/cli.md, integers;
    the table output names them.
    """
    o = icmp_stats(sw)
    for k in ("echo_replies", "time_exceeded", "unreachable", "too_big", "rate_limited",
              "suppressed", "nd_ns_rx", "nd_na_rx", "nd_na_tx", "nd_ns_tx", "nd_invalid",
              "rate_pps"):
        assert isinstance(o.get(k), int), o
    r = sw.ctl_raw("show", "icmp", json_out=False)
    assert r.returncode == 0 and "time_exceeded" in r.stdout, r.stdout + r.stderr
