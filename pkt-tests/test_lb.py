# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Load balancing of AI traffic (docs/load-balancing.md) on TAP ports: a route
with four next hops on four uplinks p1..p4 (static neighbours), fed from p0.

One elephant flow (one 5-tuple) is sprayed round-robin evenly over the four
uplinks, stays on one uplink in hash mode, keeps its uplink within a flowlet
and may move between flowlets, avoids an uplink shaped 10x slower in adaptive
mode, and is sprayed or hashed by traffic class under `per_tc`. `railctl port
NAME down|up` takes an uplink out of a hashed group and back with resilient
hashing (only its flows move, nothing is lost), and a group with every member
down drops and counts `group_empty`. Wire counts are checked against `show lb`.
"""

import collections
import struct
import time

import pytest
from scapy.all import IP, UDP, Ether, Raw

import railsw
import topo
from topo import describe

UPLINKS = ("p1", "p2", "p3", "p4")
NH = {p: f"10.{i + 2}.0.1" for i, p in enumerate(UPLINKS)}
NH_MAC = {p: f"02:dd:00:00:0{i + 2}:01" for i, p in enumerate(UPLINKS)}
H0_MAC = "02:aa:00:00:01:01"
H0_IP = "10.1.0.1"
FLOWLET_US = 30000  # tens of ms: Scapy's timing jitters by milliseconds

# Shared switch: one route (group) per mode, all over the same four uplinks.
SPRAY, HASH, FLOWLET, PER_TC = "10.100.0.0/16", "10.101.0.0/16", "10.102.0.0/16", \
    "10.103.0.0/16"
DST = {SPRAY: "10.100.0.42", HASH: "10.101.0.42", FLOWLET: "10.102.0.42",
       PER_TC: "10.103.0.42"}
MAGIC = b"LBT1"


def base_config(speeds=None):
    """p0 (the sender's port) and the four uplinks, each with a static next hop."""
    ports = [{"name": "p0", "ipv4": "10.1.0.254/24"}]
    for i, p in enumerate(UPLINKS):
        port = {"name": p, "ipv4": f"10.{i + 2}.0.254/24"}
        if speeds and p in speeds:
            port["speed"] = speeds[p]
        ports.append(port)
    return {
        "switch": {"role": "leaf"},
        "ports": ports,
        "neighbors": [{"ip": H0_IP, "mac": H0_MAC, "port": "p0"}] +
                     [{"ip": NH[p], "mac": NH_MAC[p], "port": p} for p in UPLINKS],
    }


def shared_config():
    cfg = base_config()
    nexthops = [NH[p] for p in UPLINKS]
    cfg["routes"] = [
        {"prefix": SPRAY, "nexthops": nexthops, "lb": "spray"},
        {"prefix": HASH, "nexthops": nexthops, "lb": "hash"},
        {"prefix": FLOWLET, "nexthops": nexthops, "lb": "flowlet"},
        {"prefix": PER_TC, "nexthops": nexthops},
    ]
    cfg["load_balance"] = {"mode": "hash", "per_tc": {3: "spray"}, "spray": "round-robin",
                           "flowlet_timeout_us": FLOWLET_US}
    cfg["qos"] = {"trust": "dscp", "dscp_to_tc": {26: 3}}
    return cfg


@pytest.fixture(scope="module")
def sw(build):
    with topo.running(build, shared_config()) as s:
        yield s


def frame(sw, dst, seq, sport=40000, dport=5001, dscp=0, size=128, tag=0):
    """A UDP/IPv4 frame from h0 of `size` bytes; the payload carries a tag
    (burst or round) and a sequence number."""
    f = Ether(dst=sw.mac["p0"], src=H0_MAC) / \
        IP(src=H0_IP, dst=dst, tos=dscp << 2, ttl=64) / \
        UDP(sport=sport, dport=dport) / Raw(MAGIC + struct.pack("!II", tag, seq))
    return Ether(bytes(f) + b"\0" * (size - len(f)))


def ident(data):
    """(tag, seq) of a frame built by frame(), or None."""
    if len(data) < 54 or data[42:46] != MAGIC:
        return None
    return struct.unpack("!II", data[46:54])


def check_routed(sw, sent, got):
    """Every sniffed frame is the routed copy of one sent frame, for the uplink
    it left on, and came out once. Returns {(tag, seq): uplink}."""
    by_iface = {sw.tap[p]: p for p in ("p0",) + UPLINKS}
    by_id = {ident(bytes(f)): f for f in sent}
    placed = {}
    for iface, data in got:
        key = ident(data)
        assert key in by_id, "unexpected frame:\n" + describe([(iface, data)])
        port = by_iface[iface]
        assert port in UPLINKS, "frame came back out of p0:\n" + describe([(iface, data)])
        assert data == topo.routed(by_id[key], port, sw, nh_mac=NH_MAC[port]), \
            f"frame {key} on {port} is not the routed copy:\n" + describe([(iface, data)])
        assert key not in placed, f"frame {key} came out twice"
        placed[key] = port
    return placed


def send_and_sniff(sw, injector, frames, timeout=10):
    """Send frames on p0; return {(tag, seq): uplink} once every one came out."""
    with railsw.Capture([sw.tap[p] for p in ("p0",) + UPLINKS]) as cap:
        injector.send(sw.tap["p0"], frames)
        got = cap.collect(count=len(frames), timeout=timeout,
                          match=lambda i, d: ident(d) is not None)
    got = [(i, d) for i, d in got if ident(d) is not None]
    placed = check_routed(sw, frames, got)
    assert len(placed) == len(frames), f"sent {len(frames)}, {len(placed)} came out"
    return placed


def lb_members(sw, prefix):
    """{port: member} of the group of prefix in `show lb`."""
    groups = [g for g in sw.ctl("show", "lb")["groups"] if g["prefix"] == prefix]
    assert len(groups) == 1, sw.ctl("show", "lb")
    return {m["port"]: m for m in groups[0]["members"]}


def lb_deltas(before, after):
    return {p: after[p]["packets"] - before[p]["packets"] for p in UPLINKS}


def drops(sw):
    return {d["reason"]: d["packets"] for d in sw.ctl("show", "drops")["drops"]}


def test_spray_round_robin_even(sw, injector):
    """An elephant flow sprayed round-robin over four uplinks.

    Steps: send 2000 frames of one UDP flow to a route with `lb: spray`
    (round-robin), four next hops on p1..p4.
    Verify: every frame comes out once, as its routed copy; each uplink carries
    25 % ± 2 % of them (500 ± 40; one worker: exactly 500); `show lb` counted
    on each member exactly what was sniffed there, all members `up`.
    """
    n = 2000
    frames = [frame(sw, DST[SPRAY], i) for i in range(n)]
    before = lb_members(sw, SPRAY)
    placed = send_and_sniff(sw, injector, frames)
    per = collections.Counter(placed.values())
    for p in UPLINKS:
        assert abs(per[p] - n / 4) <= n * 0.02, f"uplink shares {dict(per)}"
    after = lb_members(sw, SPRAY)
    assert lb_deltas(before, after) == {p: per[p] for p in UPLINKS}, (before, after)
    assert all(after[p]["up"] for p in UPLINKS), after
    assert {g["prefix"]: g["mode"] for g in sw.ctl("show", "lb")["groups"]}[SPRAY] == "spray"


def test_hash_elephant_one_uplink(sw, injector):
    """The same kind of elephant flow in hash mode stays on one uplink.

    Steps: send 2000 frames of one UDP flow to the `lb: hash` route.
    Verify: all 2000 leave on a single uplink, as routed copies; `show lb`
    counts 2000 on that member and 0 on the others.
    """
    n = 2000
    frames = [frame(sw, DST[HASH], i) for i in range(n)]
    before = lb_members(sw, HASH)
    placed = send_and_sniff(sw, injector, frames)
    used = set(placed.values())
    assert len(used) == 1, f"one flow over {collections.Counter(placed.values())}"
    (port,) = used
    after = lb_members(sw, HASH)
    assert lb_deltas(before, after) == {p: n if p == port else 0 for p in UPLINKS}


def test_per_tc_override(sw, injector):
    """per_tc {3: spray} over a hash default, observed on the wire.

    Steps: to the route without `lb:`, send 400 frames of one flow with DSCP 26
    (TC 3), then 400 frames of one flow with DSCP 0 (TC 0).
    Verify: the TC 3 frames are spread over all four uplinks, 25 % ± 2 % each;
    the TC 0 frames all leave on one uplink; `show lb` says so per TC (`tc_modes`):
    spray for TC 3 and hash for the others on this group, spray for all eight on the
    route with `lb: spray`.
    """
    groups = {g["prefix"]: g for g in sw.ctl("show", "lb")["groups"]}
    assert groups[PER_TC]["tc_modes"] == ["hash"] * 3 + ["spray"] + ["hash"] * 4, groups[PER_TC]
    assert groups[SPRAY]["tc_modes"] == ["spray"] * 8, groups[SPRAY]
    n = 400
    tc3 = [frame(sw, DST[PER_TC], i, dscp=26, tag=3) for i in range(n)]
    placed = send_and_sniff(sw, injector, tc3)
    per = collections.Counter(placed.values())
    for p in UPLINKS:
        assert abs(per[p] - n / 4) <= n * 0.02, f"TC 3 uplink shares {dict(per)}"
    tc0 = [frame(sw, DST[PER_TC], i, dscp=0, tag=0) for i in range(n)]
    placed = send_and_sniff(sw, injector, tc0)
    per = collections.Counter(placed.values())
    assert len(per) == 1, f"TC 0 flow over {dict(per)}"


def test_flowlet_bursts(sw, injector):
    """Flowlets: a burst keeps its uplink, a gap lets the flow move.

    Steps: to the `lb: flowlet` route (flowlet_timeout_us 30000), send 10
    bursts of 16 frames of one flow, each burst sent back to back, with gaps
    of 150 ms (5x the timeout) between bursts.
    Verify: every frame comes out once; within each burst all frames leave on
    one uplink (bursts whose sending took longer than a third of the timeout,
    when the host stalled, are not judged); over the bursts the flow used more
    than one uplink; `show lb` agrees with the wire.
    """
    bursts, size, gap = 10, 16, 5 * FLOWLET_US / 1e6
    before = lb_members(sw, FLOWLET)
    sent, slow = [], set()
    with railsw.Capture([sw.tap[p] for p in ("p0",) + UPLINKS]) as cap:
        for b in range(bursts):
            fr = [frame(sw, DST[FLOWLET], i, tag=b) for i in range(size)]
            t0 = time.monotonic()
            injector.send(sw.tap["p0"], fr)
            if time.monotonic() - t0 > FLOWLET_US / 3e6:
                slow.add(b)
            sent += fr
            cap.collect(timeout=gap)  # the gap, sniffing meanwhile
        got = cap.collect(count=len(sent), timeout=5,
                          match=lambda i, d: ident(d) is not None)
    got = [(i, d) for i, d in got if ident(d) is not None]
    placed = check_routed(sw, sent, got)
    assert len(placed) == len(sent), f"sent {len(sent)}, {len(placed)} came out"
    members = collections.defaultdict(set)
    for (b, _), p in placed.items():
        members[b].add(p)
    judged = [b for b in range(bursts) if b not in slow]
    assert len(judged) >= bursts - 3, f"the host stalled in bursts {sorted(slow)}"
    for b in judged:
        assert len(members[b]) == 1, f"burst {b} switched uplinks: {members[b]}"
    used = set().union(*members.values())
    assert len(used) > 1, f"the flow never moved between flowlets: {dict(members)}"
    after = lb_members(sw, FLOWLET)
    per = collections.Counter(placed.values())
    assert lb_deltas(before, after) == {p: per[p] for p in UPLINKS}, (before, after)


def test_adaptive_avoids_slow_uplink(make_switch, injector):
    """Adaptive: an uplink shaped 10x slower gets clearly less of a flow.

    Steps: p1 shaped to 1 Mbit/s, p2..p4 to 10 Mbit/s, load_balance.mode
    adaptive; send 2000 frames of 1000 bytes of one flow, paced at about
    20 Mbit/s (batches of 10 every 4 ms), so p1's queue builds while the fast
    ones keep draining.
    Verify: every frame comes out once; p1 carries less than half its fair
    share (< 250 of 2000) and less than each fast uplink; `show lb` agrees
    with the wire.
    """
    cfg = base_config(speeds={"p1": "1M", "p2": "10M", "p3": "10M", "p4": "10M"})
    cfg["routes"] = [{"prefix": SPRAY, "nexthops": [NH[p] for p in UPLINKS]}]
    cfg["load_balance"] = {"mode": "adaptive"}
    s = make_switch(cfg)
    n, batch, period = 2000, 10, 0.004
    frames = [frame(s, DST[SPRAY], i, size=1000) for i in range(n)]
    before = lb_members(s, SPRAY)
    with railsw.Capture([s.tap[p] for p in ("p0",) + UPLINKS]) as cap:
        for k in range(0, n, batch):
            t0 = time.monotonic()
            injector.send(s.tap["p0"], frames[k:k + batch])
            # No catching up after a host stall: a burst would fill every queue at once.
            cap.collect(timeout=t0 + period - time.monotonic())
        got = cap.collect(count=n, timeout=15, match=lambda i, d: ident(d) is not None)
    got = [(i, d) for i, d in got if ident(d) is not None]
    placed = check_routed(s, frames, got)
    assert len(placed) == n, f"sent {n}, {len(placed)} came out"
    per = collections.Counter(placed.values())
    assert per["p1"] < n / 4 / 2, f"slow uplink p1 got {per['p1']} of {n}: {dict(per)}"
    for p in UPLINKS[1:]:
        assert per[p] > per["p1"], dict(per)
    after = lb_members(s, SPRAY)
    assert lb_deltas(before, after) == {p: per[p] for p in UPLINKS}, (before, after)
    assert {g["prefix"]: g["mode"] for g in s.ctl("show", "lb")["groups"]}[SPRAY] == "adaptive"


def hashed_config():
    cfg = base_config()
    cfg["routes"] = [{"prefix": HASH, "nexthops": [NH[p] for p in UPLINKS]}]
    cfg["load_balance"] = {"mode": "hash"}
    return cfg


def flows(sw, n=64, tag=0):
    """One frame for each of n flows (distinct source ports) to the hash route."""
    return [frame(sw, DST[HASH], i, sport=30000 + i, tag=tag) for i in range(n)]


def test_port_down_resilient(make_switch, injector):
    """`port NAME down|up` on a member of a hashed group.

    Steps: send one frame for each of 64 flows and note each flow's uplink;
    `railctl port X down` on the uplink X carrying most flows; send the 64
    flows again; send a frame to X's connected next hop; `port X up`; send the
    64 flows a third time.
    Verify: `port` answers ok; while down, `show ports` has X admin_up false,
    `show lb` has X's member up false and the others true; every flow still
    comes out (nothing lost), none on X, flows that were on other uplinks
    stay where they were and X's flows moved; the frame for X's own next hop
    is dropped as `port_down`; after `up`, admin_up and up are true again and
    every flow is back on its first uplink.
    """
    s = make_switch(hashed_config())
    first = {k[1]: p for k, p in send_and_sniff(s, injector, flows(s, tag=1)).items()}
    per = collections.Counter(first.values())
    down = max(UPLINKS, key=lambda p: per[p])
    assert per[down] > 0

    assert s.ctl("port", down, "down") == {"ok": True}
    assert s.ports()[down]["admin_up"] is False
    members = lb_members(s, HASH)
    assert {p: m["up"] for p, m in members.items()} == {p: p != down for p in UPLINKS}

    second = {k[1]: p for k, p in send_and_sniff(s, injector, flows(s, tag=2)).items()}
    for i, p in first.items():
        if p == down:
            assert second[i] != down, f"flow {i} still on the down port"
        else:
            assert second[i] == p, f"flow {i} moved from live {p} to {second[i]}"

    d0 = drops(s)
    with railsw.Capture([s.tap[p] for p in UPLINKS]) as cap:
        f = Ether(dst=s.mac["p0"], src=H0_MAC) / IP(src=H0_IP, dst=NH[down]) / \
            UDP(sport=1, dport=2) / Raw(MAGIC + b"\0" * 8)
        injector.send(s.tap["p0"], f)
        assert railsw.wait_until(lambda: drops(s)["port_down"] - d0["port_down"] == 1, 5,
                                 what="port_down to count the frame")
        got = cap.collect(timeout=0.3)
    assert not got, "a frame left a down port:\n" + describe(got)

    assert s.ctl("port", down, "up") == {"ok": True}
    assert s.ports()[down]["admin_up"] is True
    assert all(m["up"] for m in lb_members(s, HASH).values())
    third = {k[1]: p for k, p in send_and_sniff(s, injector, flows(s, tag=3)).items()}
    assert third == first


def test_group_empty(make_switch, injector):
    """A group whose members are all down drops and counts `group_empty`.

    Steps: `port X down` for all four uplinks; send 50 frames to the hashed
    route; then bring the uplinks up and send 50 again.
    Verify: while down, nothing comes out of any port, `show drops` counts
    group_empty +50 (and port_down unchanged), `show lb` has every member up
    false; after `up`, all 50 come out and group_empty does not grow.
    """
    s = make_switch(hashed_config())
    for p in UPLINKS:
        assert s.ctl("port", p, "down") == {"ok": True}
    assert not any(m["up"] for m in lb_members(s, HASH).values())
    d0 = drops(s)
    frames = flows(s, n=50, tag=4)
    with railsw.Capture([s.tap[p] for p in ("p0",) + UPLINKS]) as cap:
        injector.send(s.tap["p0"], frames)
        railsw.wait_until(lambda: drops(s)["group_empty"] - d0["group_empty"] >= 50, 5,
                          what="group_empty to count 50 frames")
        got = cap.collect(timeout=0.3)
    got = [(i, d) for i, d in got if ident(d) is not None]
    assert not got, "frames left an empty group:\n" + describe(got)
    d1 = drops(s)
    assert d1["group_empty"] - d0["group_empty"] == 50, (d0, d1)
    assert d1["port_down"] == d0["port_down"], (d0, d1)

    for p in UPLINKS:
        assert s.ctl("port", p, "up") == {"ok": True}
    send_and_sniff(s, injector, flows(s, n=50, tag=5))
    assert drops(s)["group_empty"] == d1["group_empty"]


def test_hash_algorithm_nic_without_nic_hash(make_switch, injector):
    """`load_balance.hash_algorithm: nic` on ports whose frames carry no NIC hash (TAPs,
    one queue each).

    Steps: the hashed group with hash_algorithm nic, then the same with crc32; send one frame
    for each of 64 flows to each.
    Verify: `show lb` says the flows take `crc32` (no port gives the NIC's hash) both times;
    every flow comes out, each on the uplink railsw's CRC32 gives it (the same uplinks as with
    hash_algorithm crc32), and the flows spread over more than one uplink.
    """
    cfg = hashed_config()
    cfg["load_balance"]["hash_algorithm"] = "nic"
    s = make_switch(cfg)
    assert {g["hash"] for g in s.ctl("show", "lb")["groups"]} == {"crc32"}
    nic = {k[1]: p for k, p in send_and_sniff(s, injector, flows(s, tag=1)).items()}
    s.stop()
    c = make_switch(hashed_config())
    assert {g["hash"] for g in c.ctl("show", "lb")["groups"]} == {"crc32"}
    crc = {k[1]: p for k, p in send_and_sniff(c, injector, flows(c, tag=1)).items()}
    assert len(nic) == 64 and nic == crc
    assert len(set(nic.values())) > 1
