# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""ECMP: a route with four next hops on four ports hashes flows over every
member, keeps each flow on one member, spreads them fairly, and `show lb`
counts what each member carried."""

import collections

import pytest
from scapy.all import IP, UDP, Ether, IPv6, Raw

import topo

MEMBERS = ("p1", "p2", "p3", "p4")
NH = {p: f"10.{i + 2}.0.1" for i, p in enumerate(MEMBERS)}
NH6 = {p: f"fd00:{i + 2}::1" for i, p in enumerate(MEMBERS)}
NH_MAC = {p: f"02:dd:00:00:0{i + 2}:01" for i, p in enumerate(MEMBERS)}
FLOWS = 256


def config():
    ports = [{"name": "p0", "ipv4": "10.1.0.254/24", "ipv6": "fd00:1::fe/64"}]
    ports += [{"name": p, "ipv4": f"10.{i + 2}.0.254/24", "ipv6": f"fd00:{i + 2}::fe/64"}
              for i, p in enumerate(MEMBERS)]
    neigh = [{"ip": NH[p], "mac": NH_MAC[p], "port": p} for p in MEMBERS]
    neigh += [{"ip": NH6[p], "mac": NH_MAC[p], "port": p} for p in MEMBERS]
    return {
        "switch": {"role": "leaf"},
        "ports": ports,
        "neighbors": neigh,
        "routes": [
            {"prefix": "10.100.0.0/16", "nexthops": [NH[p] for p in MEMBERS]},
            {"prefix": "fd00:100::/48", "nexthops": [NH6[p] for p in MEMBERS]},
        ],
        "load_balance": {"mode": "hash",
                         "hash_fields": ["src_ip", "dst_ip", "proto", "src_port", "dst_port"]},
    }


@pytest.fixture(scope="module")
def sw(build):
    with topo.running(build, config()) as s:
        yield s


def flow_frames(sw, v6=False):
    """One UDP frame per flow; flows differ only in their source port."""
    frames = []
    for i in range(FLOWS):
        l3 = IPv6(src="fd00:1::1", dst="fd00:100::42") if v6 else \
            IP(src="10.1.0.1", dst="10.100.0.42")
        f = Ether(dst=sw.mac["p0"], src="02:aa:00:00:01:01") / l3 / \
            UDP(sport=20000 + i, dport=5001) / Raw((b"flow %04d " % i).ljust(40, b"."))
        frames.append(Ether(bytes(f)))
    return frames


def send_round(sw, injector, frames):
    """Send every flow once; return {flow index: member port} from what was
    sniffed, checking each frame is the expected routed copy."""
    return topo.send_and_place(sw, injector, frames, MEMBERS, NH_MAC)


def lb_group(sw, prefix):
    groups = [g for g in sw.ctl("show", "lb")["groups"] if g["prefix"] == prefix]
    assert len(groups) == 1, sw.ctl("show", "lb")
    return {m["port"]: m for m in groups[0]["members"]}


@pytest.mark.parametrize("family", ["ipv4", "ipv6"])
def test_ecmp_spread_and_stick(sw, injector, family):
    """256 flows over a 4-member hash group.

    Steps: send one frame for each of 256 UDP flows (distinct source ports)
    to a prefix routed over 4 next hops on p1..p4, then send all 256 again.
    Verify: every frame comes out once, as the routed copy for the member it
    left on; each flow leaves on the same member both times; every member
    carries at least one flow and none more than 2x its fair share (128);
    `show lb` member packet and byte counters grew by exactly what was
    sniffed on each member's port.
    """
    prefix = "10.100.0.0/16" if family == "ipv4" else "fd00:100::/48"
    frames = flow_frames(sw, v6=(family == "ipv6"))
    lb_before = lb_group(sw, prefix)
    first, got1 = send_round(sw, injector, frames)
    second, got2 = send_round(sw, injector, frames)
    assert first == second, "flows moved between members: " + str(
        {i: (first[i], second[i]) for i in first if first[i] != second[i]})

    per_member = collections.Counter(first.values())
    fair = FLOWS / len(MEMBERS)
    for p in MEMBERS:
        assert 0 < per_member[p] <= 2 * fair, f"member load {dict(per_member)}"

    lb_after = lb_group(sw, prefix)
    by_iface = {sw.tap[p]: p for p in MEMBERS}
    sniffed_bytes = collections.Counter()
    for iface, data in got1 + got2:
        sniffed_bytes[by_iface[iface]] += len(data)
    for p in MEMBERS:
        assert lb_after[p]["packets"] - lb_before[p]["packets"] == 2 * per_member[p], \
            (p, lb_before[p], lb_after[p], dict(per_member))
        assert lb_after[p]["bytes"] - lb_before[p]["bytes"] == sniffed_bytes[p], \
            (p, lb_before[p], lb_after[p], dict(sniffed_bytes))


def test_show_lb_shape(sw):
    """`show lb` describes each group with the fields of docs/cli.md.

    Steps: read `railctl --json show lb`.
    Verify: the IPv4 and IPv6 groups exist with mode hash and four members
    whose next hops and ports match the config, each with packets and bytes.
    """
    groups = {g["prefix"]: g for g in sw.ctl("show", "lb")["groups"]}
    for prefix, nh in (("10.100.0.0/16", NH), ("fd00:100::/48", NH6)):
        g = groups[prefix]
        assert g["mode"] == "hash" and "id" in g, g
        members = {(m["nexthop"], m["port"]) for m in g["members"]}
        assert members == {(nh[p], p) for p in MEMBERS}, g
        for m in g["members"]:
            assert isinstance(m["packets"], int) and isinstance(m["bytes"], int), m
