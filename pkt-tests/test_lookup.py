# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""`railctl lookup`: what the workers would do with a frame, from the live
tables: a connected host, a static route, an ECMP group whose member the
lookup predicts and the wire confirms, a local address, no route; and bad
words refused with a usage message."""

import os

import pytest
from scapy.all import IP, UDP, Ether, IPv6, Raw

import railsw
import topo
from topo import describe

MEMBERS = ("p1", "p2", "p3", "p4")
NH = {p: f"10.{i + 2}.0.1" for i, p in enumerate(MEMBERS)}
NH6 = {p: f"fd00:{i + 2}::1" for i, p in enumerate(MEMBERS)}
NH_MAC = {p: f"02:dd:00:00:0{i + 2}:01" for i, p in enumerate(MEMBERS)}
HOST = "10.1.0.1"
HOST_MAC = "02:aa:00:00:01:01"
FLOWS = 24


def config():
    ports = [{"name": "p0", "ipv4": "10.1.0.254/24", "ipv6": "fd00:1::fe/64"}]
    ports += [{"name": p, "ipv4": f"10.{i + 2}.0.254/24", "ipv6": f"fd00:{i + 2}::fe/64"}
              for i, p in enumerate(MEMBERS)]
    neigh = [{"ip": HOST, "mac": HOST_MAC, "port": "p0"}]
    neigh += [{"ip": NH[p], "mac": NH_MAC[p], "port": p} for p in MEMBERS]
    neigh += [{"ip": NH6[p], "mac": NH_MAC[p], "port": p} for p in MEMBERS]
    return {
        "switch": {"role": "leaf"},
        "ports": ports,
        "neighbors": neigh,
        "routes": [
            {"prefix": "10.50.0.0/16", "nexthops": [NH["p2"]]},
            {"prefix": "10.100.0.0/16", "nexthops": [NH[p] for p in MEMBERS]},
            {"prefix": "fd00:100::/48", "nexthops": [NH6[p] for p in MEMBERS]},
            {"prefix": "10.200.0.0/16", "nexthops": [NH[p] for p in MEMBERS], "lb": "spray"},
        ],
        "load_balance": {"mode": "hash", "hash_seed": 7,
                         "hash_fields": ["src_ip", "dst_ip", "proto", "src_port", "dst_port",
                                         "roce_qp"]},
        "qos": {"trust": "dscp", "dscp_to_tc": {26: 3}},
    }


@pytest.fixture(scope="module")
def sw(build):
    with topo.running(build, config()) as s:
        yield s


def lookup(sw, *words):
    return sw.ctl("lookup", *[str(w) for w in words])["lookup"]


def test_lookup_connected_host(sw):
    """Steps: `lookup 10.1.0.1` (a static neighbour on p0's subnet) and
    `lookup 10.1.0.77` (a host of the subnet with no entry).
    Verify: the first forwards on p0 by the connected route 10.1.0.0/24
    (distance 0) to the neighbour's MAC, state static, no group; the second is
    punted for its neighbour (`neigh_unresolved`), its neighbour state none.
    """
    r = lookup(sw, HOST)
    assert r["action"] == "forward" and r["reason"] is None and r["port"] == "p0", r
    assert r["route"] == {"prefix": "10.1.0.0/24", "source": "connected", "distance": 0}, r
    assert r["group"] is None and r["member"] is None, r
    assert r["neighbor"] == {"ip": HOST, "mac": HOST_MAC, "state": "static"}, r
    assert r["dst"] == HOST and r["tc"] == 0, r
    r = lookup(sw, "10.1.0.77")
    assert r["action"] == "punt" and r["reason"] == "neigh_unresolved" and r["port"] == "p0", r
    assert r["neighbor"]["state"] == "none" and r["neighbor"].get("mac") is None, r


def test_lookup_static_route(sw):
    """Steps: `lookup 10.50.1.2 --dscp 26 --src 10.1.0.1`.
    Verify: the static route 10.50.0.0/16 (distance 1), a group of one member
    (10.3.0.1 on p2) that is the member, its MAC, action forward on p2, TC 3
    from dscp_to_tc, ingress p0 (the port whose subnet holds the source).
    """
    r = lookup(sw, "10.50.1.2", "--dscp", 26, "--src", HOST)
    assert r["route"] == {"prefix": "10.50.0.0/16", "source": "static", "distance": 1}, r
    assert [(m["nexthop"], m["port"]) for m in r["group"]["members"]] == [(NH["p2"], "p2")], r
    assert r["member"]["nexthop"] == NH["p2"] and r["member"]["port"] == "p2", r
    assert r["member"]["mac"] == NH_MAC["p2"], r
    assert r["action"] == "forward" and r["port"] == "p2" and r["tc"] == 3, r
    assert r["in"] == "p0" and r["src"] == HOST, r


def test_lookup_local_and_no_route(sw):
    """Steps: `lookup 10.1.0.254` (p0's own address) and `lookup 192.0.2.1`.
    Verify: local, by the local route 10.1.0.254/32; then drop with reason
    `no_route` (as `show drops` names it), route, group, member and port null.
    """
    r = lookup(sw, "10.1.0.254")
    assert r["action"] == "local" and r["route"]["source"] == "local", r
    assert r["route"]["prefix"] == "10.1.0.254/32", r
    r = lookup(sw, "192.0.2.1")
    assert r["action"] == "drop" and r["reason"] == "no_route", r
    assert r["route"] is None and r["group"] is None and r["member"] is None, r
    assert r["port"] is None, r


@pytest.mark.parametrize("family", ["ipv4", "ipv6", "roce"])
def test_lookup_ecmp_member_matches_wire(sw, injector, family):
    """Steps: for 24 flows (distinct source ports; RoCEv2 flows to UDP 4791
    with distinct dest QPs too) to a prefix routed over 4 members, ask
    `lookup` which member each takes; then send one frame of each flow on p0
    and capture which port it leaves by.
    Verify: every frame leaves, as the routed copy, by exactly the member the
    lookup named (port and next hop); the lookup names the route, the group
    of 4 members in hash mode, and the flows use at least 2 members.
    """
    v6 = family == "ipv6"
    src, dst = ("fd00:1::1", "fd00:100::42") if v6 else (HOST, "10.100.0.42")
    frames, predicted = [], []
    for i in range(FLOWS):
        sport = 20000 + 97 * i
        dport, qp = (4791, 0x100 + i) if family == "roce" else (5001, 0)
        words = [dst, "--src", src, "--sport", sport, "--dport", dport]
        if family == "roce":
            words += ["--qp", qp]
        r = lookup(sw, *words)
        assert r["group"]["mode"] == "hash" and len(r["group"]["members"]) == 4, r
        assert r["route"]["prefix"] == ("fd00:100::/48" if v6 else "10.100.0.0/16"), r
        assert r["action"] == "forward" and r["port"] == r["member"]["port"], r
        nh = NH6 if v6 else NH
        assert r["member"]["nexthop"] == nh[r["port"]], r
        predicted.append(r["port"])
        l3 = IPv6(src=src, dst=dst) if v6 else IP(src=src, dst=dst)
        payload = b""
        if family == "roce":  # a BTH: opcode, flags, pkey, reserved, dest QP, PSN
            payload = bytes([0x04, 0x40, 0xff, 0xff, 0]) + qp.to_bytes(3, "big") + bytes(4)
        f = Ether(dst=sw.mac["p0"], src=HOST_MAC) / l3 / UDP(sport=sport, dport=dport) / \
            Raw(payload + (b"lookup %04d " % i).ljust(40, b"."))
        frames.append(Ether(bytes(f)))
    assert len(set(predicted)) >= 2, predicted
    seen, _ = topo.send_and_place(sw, injector, frames, MEMBERS, NH_MAC)
    assert [seen.get(i) for i in range(FLOWS)] == predicted


def test_lookup_spray_next_member(sw, injector):
    """Steps: with one worker, a route in round-robin spray over 4 members: 8
    times, ask `lookup` for the member, send one frame to the prefix on p0 and
    capture the port it leaves by.
    Verify: mode spray; each frame leaves by the member the lookup named just
    before it (the worker's next in turn), and the 8 frames use all 4 members.
    """
    assert sw.lcores == "0,1"  # one worker: its round-robin is the switch's
    used = []
    for i in range(8):
        r = lookup(sw, "10.200.0.9", "--src", HOST, "--sport", 3000 + i)
        assert r["group"]["mode"] == "spray" and r["action"] == "forward", r
        assert r["member"] is not None and r["port"] == r["member"]["port"], r
        f = Ether(dst=sw.mac["p0"], src=HOST_MAC) / IP(src=HOST, dst="10.200.0.9") / \
            UDP(sport=3000 + i, dport=5001) / Raw((b"spray %04d " % i).ljust(40, b"."))
        with railsw.Capture([sw.tap[p] for p in MEMBERS]) as cap:
            injector.send(sw.tap["p0"], [f])
            got = cap.collect(count=1, timeout=10)
        assert len(got) == 1, describe(got)
        out = {sw.tap[p]: p for p in MEMBERS}[got[0][0]]
        assert out == r["port"], (i, r["port"], out)
        assert got[0][1] == topo.routed(f, out, sw, nh_mac=NH_MAC[out])
        used.append(out)
    assert set(used) == set(MEMBERS), used


def test_lookup_member_down(sw):
    """Steps: `port p1 down`, then look up flows of the ECMP prefix; `port p1 up`.
    Verify: while p1 is down the group shows p1's member not up and no lookup
    names p1; afterwards flows may take p1 again (the group is whole).
    """
    sw.ctl("port", "p1", "down")
    try:
        railsw.wait_until(lambda: not [m for m in lookup(sw, "10.100.0.42")["group"]["members"]
                                       if m["port"] == "p1"][0]["up"], 5, what="p1 down")
        for i in range(FLOWS):
            r = lookup(sw, "10.100.0.42", "--src", HOST, "--sport", 20000 + 97 * i)
            assert r["port"] != "p1" and r["action"] == "forward", r
    finally:
        sw.ctl("port", "p1", "up")
    railsw.wait_until(lambda: all(m["up"] for m in lookup(sw, "10.100.0.42")["group"]["members"]),
                      5, what="p1 up")


@pytest.mark.parametrize("words", [
    ["lookup"],
    ["lookup", "10.1.0.999"],
    ["lookup", "10.1.0.1", "--dscp", "64"],
    ["lookup", "10.1.0.1", "--proto", "icmpx"],
    ["lookup", "10.1.0.1", "--sport"],
    ["lookup", "10.1.0.1", "--bogus", "1"],
    ["lookup", "10.1.0.1", "--src", "fd00::1"],
], ids=["no-dst", "bad-dst", "dscp-range", "bad-proto", "no-value", "unknown-option",
        "family-mix"])
def test_lookup_bad_words(sw, words):
    """Steps: railctl lookup with a missing or bad destination, an out-of-range
    DSCP, an unknown protocol, an option without its value, an unknown option,
    a source of the other family.
    Verify: exit 2 and a usage message naming `lookup` on stderr, nothing on
    stdout; the switch's own answer to the same line is an error naming the
    usage.
    """
    ctl = os.path.join(sw.build, "control", "railctl")
    r = railsw.run([ctl, "-s", sw.sock, "--json"] + words, check=False)
    assert r.returncode == 2, r
    assert "usage:" in r.stderr and "lookup DST" in r.stderr and not r.stdout, r
    reply = sw.request(" ".join(words) + "\n").decode()
    assert "usage: lookup DST" in reply, reply
    r = lookup(sw, HOST)  # the switch is still fine
    assert r["action"] == "forward"
