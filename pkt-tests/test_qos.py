# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Lossless QoS on TAP ports (docs/qos.md): every port is
shaped to 10 Mbit/s so a Scapy sender congests it. PFC generation on a 2->1
incast (XOFF then XON on both ingress ports, nothing lost, order kept), PFC
and 802.3x PAUSE reception (a paused class holds while others flow, for the
quanta time; quanta 0 releases; lossy priorities and malformed frames are
counted), ECN marking on the WRED curve (CE with a valid checksum; Not-ECT
dropped on a lossy class; a class without ECN untouched), strict priority and
DWRR shares, and the PFC watchdog (a pause storm is detected, its queue
dropped, and the class restored after the storm).

Scapy senders do not honour PFC: the incast test sizes the headroom for
everything it sends, so `lossless_drops` must stay 0.
"""

import struct
import time

import pytest
from scapy.all import IP, UDP, Ether, Raw

import railsw
import topo
from topo import HOST_IP, HOST_MAC

SPEED = 10_000_000
QUANTUM_S = 512 / SPEED  # one pause quantum at 10M: 51.2 us
PFC_DST = "01:80:c2:00:00:01"
DSCP = {0: 0, 1: 8, 2: 16, 3: 26, 6: 48}  # TC -> DSCP sent (config maps them back)


def qos_config(**qos):
    """topo.three_ports() with every port at 10M and a qos: section
    (defaults below, overridden by keyword)."""
    cfg = topo.three_ports()
    for p in cfg["ports"]:
        p["speed"] = "10M"
    base = {
        "trust": "dscp",
        "dscp_to_tc": {26: 3, 8: 1, 16: 2, 48: 6},
        "scheduler": {"strict": [6], "dwrr": {0: 1, 1: 1, 2: 3, 3: 1}},
        "lossless": [3],
        "buffer": {"total": "4MB", "queue_limit": "512KB",
                   "pfc": {"xoff": "16KB", "xon": "8KB", "headroom": "128KB",
                           "quanta": 65535}},
        "pfc_watchdog": {"action": "off"},
    }
    base.update(qos)
    cfg["qos"] = base
    return cfg


def frame(sw, port, tc, seq, size=1000, ecn=0, sender=None, dst_port="p2"):
    """A UDP/IPv4 frame of `size` bytes from the host on `port` to the host on
    `dst_port`, DSCP of `tc`, ECN field `ecn`; the payload carries the
    sender, the TC and a sequence number."""
    head = struct.pack("!BBI", sender if sender is not None else int(port[1]), tc, seq)
    f = Ether(dst=sw.mac[port], src=HOST_MAC[port]) / \
        IP(src=HOST_IP[port], dst=HOST_IP[dst_port], tos=DSCP[tc] << 2 | ecn, ttl=64) / \
        UDP(sport=4000 + tc, dport=5000) / Raw(head)
    pad = size - len(f)
    assert pad >= 0
    return Ether(bytes(f) + b"\0" * pad)


def tag(data):
    """(sender, tc, seq) of a frame built by frame()."""
    return struct.unpack("!BBI", data[42:48])


def is_ip(data):
    return len(data) >= 48 and data[12:14] == b"\x08\x00"


def pfc_frame(src, vector, times, opcode=0x0101, reserved=0):
    """A MAC Control frame (60 bytes, no FCS): PFC by default."""
    t = list(times) + [0] * (8 - len(times))
    body = struct.pack("!HBB8H", opcode, reserved, vector, *t)
    return (bytes.fromhex(PFC_DST.replace(":", "")) + bytes.fromhex(src.replace(":", ""))
            + b"\x88\x08" + body).ljust(60, b"\0")


def pause_frame(src, quanta):
    """An 802.3x PAUSE frame (opcode 0x0001)."""
    return (bytes.fromhex(PFC_DST.replace(":", "")) + bytes.fromhex(src.replace(":", ""))
            + b"\x88\x08" + struct.pack("!HH", 1, quanta)).ljust(60, b"\0")


def parse_pfc(data):
    """(opcode, reserved, vector, [8 times]) of a captured MAC Control frame, else None."""
    if len(data) < 34 or data[12:14] != b"\x88\x08":
        return None
    opcode, reserved, vector = struct.unpack("!HBB", data[14:18])
    return opcode, reserved, vector, list(struct.unpack("!8H", data[18:34]))


def pfc_rows(sw, port):
    return {r["priority"]: r for r in sw.ctl("show", "pfc", port)["pfc"]}


def queue_rows(sw, port):
    return {q["tc"]: q for q in sw.ctl("show", "queues", port)["queues"]}


def wait_paused(sw, port, prios):
    """Until `show pfc` counts the pause just injected on `port` (rx_xoff of each of prios):
    the worker that polls the port's rx queue took it, so frames sent next find it in force.
    With several workers, frames on another port may otherwise be sent by another worker
    before that one polls the pause."""
    railsw.wait_until(lambda: all(pfc_rows(sw, port)[p]["rx_xoff"] >= 1 for p in prios), 1,
                      interval=0.005, what=f"the pause on {port} to be received")


def wait_drained(sw, timeout=5):
    """Until the switch buffers nothing (show buffer used == 0)."""
    railsw.wait_until(lambda: sw.ctl("show", "buffer")["buffer"]["used"] == 0, timeout,
                      what="the buffer to drain")


def timed(cap, duration, stop=None):
    """Poll a Capture for up to `duration` s; return [(t, iface, data)] of the
    frames that arrived, t = time.monotonic() when seen (10 ms resolution).
    Stops early once stop(list) is true."""
    seen = len(cap.frames)
    out = []
    deadline = time.monotonic() + duration
    while time.monotonic() < deadline:
        frames = cap.collect(timeout=0.01)
        now = time.monotonic()
        out.extend((now, i, d) for i, d in frames[seen:])
        seen = len(frames)
        if stop is not None and stop(out):
            break
    return out


@pytest.fixture
def qsw(make_switch):
    """make_switch for a qos_config()."""
    def start(**qos):
        return make_switch(qos_config(**qos))
    return start


# --------------------------------------------------------------------------
# (a) PFC generation on a 2 -> 1 incast


def test_incast_pfc_lossless(qsw, injector):
    """A 2->1 incast on lossless TC 3 makes PFC on both ingress ports and loses nothing.

    Steps: hosts on p0 and p1 each send 40 frames of 1000 bytes (DSCP 26,
    TC 3), interleaved, to the host on p2 (80 KB into a 10M port; xoff 16KB,
    xon 8KB, headroom 128KB, quanta 4000).
    Verify: on p0 and p1 the switch sends PFC: 60-byte frames to
    01:80:c2:00:00:01 from the port's MAC, EtherType 0x8808, opcode 0x0101,
    reserved octet 0, class-enable vector 0x0008, time[3] = 4000 and the
    other times 0, padding zero; at least one XOFF, and the last one is an
    XON (time 0) once the queue drained. All 80 frames come out on p2, byte
    for byte as routed, in per-sender order. `show pfc` tx_xoff / tx_xon equal
    the frames seen; lossless_drops 0 in `show queues` and `show buffer`;
    the buffer is empty afterwards and the PG watermark reached xoff.
    """
    sw = qsw(buffer={"total": "4MB", "queue_limit": "512KB",
                     "pfc": {"xoff": "16KB", "xon": "8KB", "headroom": "128KB",
                             "quanta": 4000}})
    frames = {p: [frame(sw, p, 3, i) for i in range(40)] for p in ("p0", "p1")}
    with railsw.Capture([sw.tap[p] for p in ("p0", "p1", "p2")]) as cap:
        interleaved = [f for pair in zip(frames["p0"], frames["p1"]) for f in pair]
        for i, f in enumerate(interleaved):
            injector.send(sw.tap["p0" if i % 2 == 0 else "p1"], f)

        def xon_on_both():
            rows = [pfc_rows(sw, p)[3] for p in ("p0", "p1")]
            return all(r["tx_xon"] >= 1 for r in rows)

        railsw.wait_until(xon_on_both, 10, what="XON on p0 and p1")
        got = cap.collect(count=80, timeout=5, quiet=0.3,
                          match=lambda i, d: i == sw.tap["p2"])
    out = [d for i, d in got if i == sw.tap["p2"]]
    assert len(out) == 80, f"{len(out)} of 80 frames arrived"
    for p in ("p0", "p1"):
        mine = [d for d in out if tag(d)[0] == int(p[1])]
        assert [tag(d)[2] for d in mine] == list(range(40)), f"{p}: order or loss"
        assert mine == [topo.routed(f, "p2", sw) for f in frames[p]]
    rows = {p: pfc_rows(sw, p) for p in ("p0", "p1", "p2")}
    for p in ("p0", "p1"):
        pfc = [d for i, d in got if i == sw.tap[p] and parse_pfc(d)]
        assert all(not parse_pfc(d) for i, d in got if i == sw.tap[p] and d not in pfc)
        assert pfc, f"no PFC on {p}"
        xoff = xon = 0
        for d in pfc:
            op, res, vec, times = parse_pfc(d)
            assert len(d) == 60
            assert d[0:6] == bytes.fromhex("0180c2000001")
            assert d[6:12] == bytes.fromhex(sw.mac[p].replace(":", ""))
            assert (op, res, vec) == (0x0101, 0, 0x08)
            assert times[:3] == [0, 0, 0] and times[4:] == [0, 0, 0, 0]
            assert times[3] in (4000, 0)
            assert d[34:] == b"\0" * 26
            xoff += times[3] == 4000
            xon += times[3] == 0
        assert parse_pfc(pfc[0])[3][3] == 4000, "the first PFC frame is an XOFF"
        assert parse_pfc(pfc[-1])[3][3] == 0, "the last PFC frame is an XON"
        assert rows[p][3]["tx_xoff"] == xoff
        assert rows[p][3]["tx_xon"] == xon
        for prio in range(8):
            if prio != 3:
                assert rows[p][prio]["tx_xoff"] == 0 and rows[p][prio]["tx_xon"] == 0
    # The egress port sent no PFC (its own PGs held nothing).
    assert not [d for i, d in got if i == sw.tap["p2"] and parse_pfc(d)]
    assert rows["p2"][3]["tx_xoff"] == 0
    wait_drained(sw)
    for q in sw.ctl("show", "queues")["queues"]:
        assert q["lossless_drops"] == 0, q
        assert q["dropped_packets"] == 0, q
        assert q["depth_bytes"] == 0, q
    p2q = queue_rows(sw, "p2")[3]
    assert p2q["enqueued_packets"] == 80 and p2q["dequeued_packets"] == 80
    assert p2q["enqueued_bytes"] == 80 * 1000 and p2q["dequeued_bytes"] == 80 * 1000
    buf = sw.ctl("show", "buffer")
    assert buf["buffer"]["used"] == 0
    for pg in buf["pgs"]:
        assert pg["lossless_drops"] == 0 and pg["bytes"] == 0, pg
        if pg["pg"] == 3 and pg["port"] in ("p0", "p1"):
            assert pg["watermark"] >= 16 * 1024
            assert pg["xoff_threshold"] == 16 * 1024


# --------------------------------------------------------------------------
# (b) PFC and PAUSE reception


def test_pfc_rx_holds_tc(qsw, injector):
    """A PFC XOFF received on the egress port holds that class for the quanta time.

    Steps: inject on p2 a PFC XOFF for priority 3 with 5859 quanta (299.98 ms
    at 10M), then send 5 TC 3 and 5 TC 0 frames from p0 to p2.
    Verify: the TC 0 frames arrive at once (< 150 ms after sent); no TC 3 frame before
    250 ms; all TC 3 frames by 800 ms, in order. `show pfc p2` priority 3:
    rx_xoff 1, rx_xon 0, paused_ns = 299980800 (+-1 us); other priorities 0.
    The injected PFC frame is not forwarded (no MAC Control frame anywhere).
    """
    sw = qsw()
    with railsw.Capture([sw.tap[p] for p in ("p0", "p1", "p2")]) as cap:
        t0 = time.monotonic()
        injector.send(sw.tap["p2"], pfc_frame(HOST_MAC["p2"], 0x08, [0, 0, 0, 5859]))
        wait_paused(sw, "p2", [3])
        t_sent = time.monotonic()
        for i in range(5):
            injector.send(sw.tap["p0"], [frame(sw, "p0", 3, i, 500), frame(sw, "p0", 0, i, 500)])
        got = timed(cap, 1.5, stop=lambda o: len([x for x in o if is_ip(x[2])]) >= 10)
    tc0 = [t - t_sent for t, i, d in got if is_ip(d) and tag(d)[1] == 0]
    tc3 = [(t - t0, tag(d)[2]) for t, i, d in got if is_ip(d) and tag(d)[1] == 3]
    assert len(tc0) == 5 and max(tc0) < 0.15, tc0
    assert [s for _, s in tc3] == list(range(5))
    assert min(t for t, _ in tc3) >= 0.25, tc3
    assert max(t for t, _ in tc3) <= 0.8, tc3
    assert not [d for _, _, d in got if parse_pfc(d)], "a PFC frame was forwarded or sent"
    rows = pfc_rows(sw, "p2")
    assert rows[3]["rx_xoff"] == 1 and rows[3]["rx_xon"] == 0
    assert abs(rows[3]["paused_ns"] - 5859 * 51200) <= 1000, rows[3]
    for prio in range(8):
        if prio != 3:
            assert rows[prio]["rx_xoff"] == 0 and rows[prio]["paused_ns"] == 0
    assert sw.port_counters("p2")["pfc_rx_frames"] == 1


def test_pfc_rx_xon_releases(qsw, injector):
    """Quanta 0 (XON) releases a paused class at once.

    Steps: XOFF priority 3 on p2 with 65535 quanta (3.36 s); send 5 TC 3 frames
    p0 -> p2; watch 300 ms; send 3 TC 0 frames; then send XON (time 0).
    Verify: no TC 3 frame during the 300 ms while the TC 0 frames pass; after
    XON all TC 3 frames arrive within 150 ms. rx_xoff 1, rx_xon 1; paused_ns
    is the time actually paused (0.3 s to 1 s), not the 3.36 s announced.
    """
    sw = qsw()
    with railsw.Capture([sw.tap["p2"]]) as cap:
        injector.send(sw.tap["p2"], pfc_frame(HOST_MAC["p2"], 0x08, [0, 0, 0, 65535]))
        wait_paused(sw, "p2", [3])
        injector.send(sw.tap["p0"], [frame(sw, "p0", 3, i, 500) for i in range(5)])
        held = timed(cap, 0.3)
        injector.send(sw.tap["p0"], [frame(sw, "p0", 0, i, 500) for i in range(3)])
        held += timed(cap, 2, stop=lambda o: len(o) >= 3)
        assert [tag(d)[1] for _, _, d in held] == [0, 0, 0], "TC 3 leaked or TC 0 held"
        t0 = time.monotonic()
        injector.send(sw.tap["p2"], pfc_frame(HOST_MAC["p2"], 0x08, [0, 0, 0, 0]))
        rel = timed(cap, 1.5, stop=lambda o: len(o) >= 5)
    assert [tag(d)[1:] for _, _, d in rel] == [(3, i) for i in range(5)]
    assert max(t for t, _, _ in rel) - t0 < 0.15
    r = pfc_rows(sw, "p2")[3]
    assert r["rx_xoff"] == 1 and r["rx_xon"] == 1
    assert 0.3e9 <= r["paused_ns"] <= 1.0e9, r


def test_pause_holds_all(qsw, injector):
    """An 802.3x PAUSE holds every class of the port.

    Steps: inject on p2 a PAUSE (opcode 0x0001) of 5859 quanta (~300 ms);
    send 3 TC 0 and 3 TC 3 frames p0 -> p2.
    Verify: nothing before 250 ms, all 6 by 800 ms; rx_xoff 1 on each of the
    8 priorities of p2.
    """
    sw = qsw()
    with railsw.Capture([sw.tap["p2"]]) as cap:
        t0 = time.monotonic()
        injector.send(sw.tap["p2"], pause_frame(HOST_MAC["p2"], 5859))
        wait_paused(sw, "p2", range(8))
        for i in range(3):
            injector.send(sw.tap["p0"], [frame(sw, "p0", 0, i, 500), frame(sw, "p0", 3, i, 500)])
        got = timed(cap, 1.5, stop=lambda o: len(o) >= 6)
    assert len(got) == 6
    assert min(t for t, _, _ in got) - t0 >= 0.25
    assert max(t for t, _, _ in got) - t0 <= 0.8
    rows = pfc_rows(sw, "p2")
    assert [rows[p]["rx_xoff"] for p in range(8)] == [1] * 8


def test_pfc_rx_lossy_and_malformed(qsw, injector):
    """A pause for a lossy priority is ignored; malformed MAC Control frames are counted.

    Steps: on p2 inject a PFC XOFF for priority 0 (lossy) with 65535 quanta and
    send 3 TC 0 frames p0 -> p2; then inject on p2 five bad MAC Control frames:
    17 bytes (opcode and one byte), a PFC cut at 24 bytes, opcode 0x0102,
    opcode 0x0101 with the reserved octet set, opcode 0x0000.
    Verify: the TC 0 frames pass at once; `show pfc p2` priority 0 rx_ignored 1,
    rx_xoff 0, paused_ns 0. The bad frames: p2 rx_packets +5, parse_errors +5,
    pfc_rx_frames +4 (the 17-byte one never parses as MAC Control), nothing
    paused (TC 3 frames then pass), nothing forwarded, the switch answers.
    """
    sw = qsw()
    src = HOST_MAC["p2"]
    with railsw.Capture([sw.tap[p] for p in ("p0", "p1", "p2")]) as cap:
        injector.send(sw.tap["p2"], pfc_frame(src, 0x01, [65535]))
        t0 = time.monotonic()
        injector.send(sw.tap["p0"], [frame(sw, "p0", 0, i, 500) for i in range(3)])
        got = timed(cap, 1, stop=lambda o: len(o) >= 3)
        assert len(got) == 3 and max(t for t, _, _ in got) - t0 < 0.15
        r = pfc_rows(sw, "p2")[0]
        assert (r["rx_ignored"], r["rx_xoff"], r["paused_ns"]) == (1, 0, 0)

        before = sw.ports()  # every counter of show ports, pfc_rx_frames included
        good = pfc_frame(src, 0x08, [0, 0, 0, 65535])
        bad = [
            good[:17],
            good[:24],
            pfc_frame(src, 0x08, [0, 0, 0, 65535], opcode=0x0102),
            pfc_frame(src, 0x08, [0, 0, 0, 65535], reserved=1),
            pfc_frame(src, 0x08, [0, 0, 0, 65535], opcode=0x0000),
        ]
        injector.send(sw.tap["p2"], bad)
        railsw.wait_until(lambda: sw.port_counters("p2")["rx_packets"] -
                          before["p2"]["rx_packets"] >= 5, 3, what="the bad frames")
        p2 = sw.port_counters("p2")
        assert p2["parse_errors"] - before["p2"]["parse_errors"] == 5
        assert p2["pfc_rx_frames"] - before["p2"]["pfc_rx_frames"] == 4
        assert p2["rx_packets"] - before["p2"]["rx_packets"] == 5
        rows = pfc_rows(sw, "p2")
        assert all(rows[p]["rx_xoff"] == 0 and rows[p]["rx_xon"] == 0 for p in range(8))
        t0 = time.monotonic()
        injector.send(sw.tap["p0"], [frame(sw, "p0", 3, i, 500) for i in range(3)])
        more = timed(cap, 1, stop=lambda o: len(o) >= 3)
    assert [tag(d)[1:] for _, _, d in more] == [(3, i) for i in range(3)]
    assert max(t for t, _, _ in more) - t0 < 0.15
    assert not [d for _, _, d in got + more if parse_pfc(d)]
    assert sw.running()


# --------------------------------------------------------------------------
# (c) ECN


def ecn_config():
    return dict(
        ecn={1: {"kmin": "4KB", "kmax": "20KB", "pmax": 1.0},
             3: {"kmin": "4KB", "kmax": "20KB", "pmax": 1.0}},
        ecn_mark_point="dequeue",
        buffer={"total": "4MB", "queue_limit": "256KB",
                "pfc": {"xoff": "200KB", "xon": "100KB", "headroom": "256KB",
                        "quanta": 65535}},
    )


def blast(sw, injector, cap, tc, ecn, n=60, size=1000):
    """Send n frames of TC tc with ECN field ecn p0 -> p2 as fast as possible;
    return (sent frames, frames captured on p2 in order) once p2 is quiet."""
    frames = [frame(sw, "p0", tc, i, size, ecn=ecn) for i in range(n)]
    injector.send(sw.tap["p0"], frames)
    got = cap.collect(count=n, timeout=3, quiet=0.4)
    out = [d for i, d in got if is_ip(d) and tag(d)[1] == tc]
    cap.frames.clear()
    wait_drained(sw)
    return frames, out


def with_ce(data):
    """A routed frame with ECN set to CE and the IPv4 checksum recomputed."""
    e = Ether(data)
    e[IP].tos |= 3
    e[IP].chksum = None
    return bytes(e)


def test_ecn_marking(qsw, injector):
    """ECT packets into a congested ECN class come out partly CE, on the curve.

    Steps: with ECN kmin 4KB, kmax 20KB, pmax 1.0 (marked at dequeue) on TC 1
    (lossy) and TC 3 (lossless), send from p0 to p2 in turn: 60 x 1000-byte
    ECT(0) frames on TC 1; 60 Not-ECT on TC 1; 60 ECT(0) on TC 0 (no ECN);
    60 Not-ECT on TC 3.
    Verify: (1) all 60 arrive in order; each equals its routed copy, or that
    copy with CE and a recomputed (valid) checksum; the last 4 (at most 3000
    bytes behind them, below kmin) are never CE; the CE share is between
    0.3 and 56/60 and the queue watermark passed kmax; ecn_marked equals the
    CE frames seen. (2) some Not-ECT frames are dropped instead:
    dropped_packets = 60 - arrived (and the queue's ecn_drops, and `show drops` ecn_drops as
    much, queue_drops +0), ecn_marked +0,
    the survivors unchanged and in order. (3) TC 0 untouched: 60 arrive exactly as routed, no drop, no
    mark. (4) lossless TC 3: Not-ECT passes, 60 arrive unchanged.
    """
    sw = qsw(**ecn_config())
    with railsw.Capture([sw.tap["p2"]]) as cap:
        # (1) ECT(0) on the lossy ECN class.
        q0 = queue_rows(sw, "p2")[1]
        sent, out = blast(sw, injector, cap, 1, 2)
        assert [tag(d)[2] for d in out] == list(range(60))
        ce = 0
        for f, d in zip(sent, out):
            exp = topo.routed(f, "p2", sw)
            assert topo.ipv4_checksum_ok(d)
            if d[15] & 3 == 3:
                assert d == with_ce(exp)
                ce += 1
            else:
                assert d == exp
        assert all(d[15] & 3 == 2 for d in out[-4:])
        q1 = queue_rows(sw, "p2")[1]
        assert q1["ecn_marked"] - q0["ecn_marked"] == ce
        assert q1["watermark_bytes"] > 20 * 1024
        assert 0.3 * 60 <= ce <= 56, ce

        # (2) Not-ECT on the lossy ECN class: dropped on the same curve.
        drops = lambda: {d["reason"]: d["packets"] for d in sw.ctl("show", "drops")["drops"]}
        d1 = drops()
        sent, out = blast(sw, injector, cap, 1, 0)
        q2 = queue_rows(sw, "p2")[1]
        assert 0 < len(out) < 60
        assert q2["dropped_packets"] - q1["dropped_packets"] == 60 - len(out)
        assert q2["ecn_drops"] - q1["ecn_drops"] == 60 - len(out)
        # ... and named switch-wide, by cause: show drops' ecn_drops moved by as many.
        d2 = drops()
        assert d2["ecn_drops"] - d1["ecn_drops"] == 60 - len(out), (d1, d2)
        assert d2["queue_drops"] == d1["queue_drops"], (d1, d2)
        assert d2["lossless_drops"] == d1["lossless_drops"]
        assert q2["ecn_marked"] == q1["ecn_marked"]
        seqs = [tag(d)[2] for d in out]
        assert seqs == sorted(seqs) and seqs[-4:] == [56, 57, 58, 59]
        for d in out:
            assert d == topo.routed(sent[tag(d)[2]], "p2", sw)

        # (3) A class without ECN is untouched.
        sent, out = blast(sw, injector, cap, 0, 2)
        assert out == [topo.routed(f, "p2", sw) for f in sent]
        q = queue_rows(sw, "p2")[0]
        assert q["ecn_marked"] == 0 and q["dropped_packets"] == 0

        # (4) Not-ECT on a lossless ECN class passes.
        sent, out = blast(sw, injector, cap, 3, 0)
        assert out == [topo.routed(f, "p2", sw) for f in sent]
        q = queue_rows(sw, "p2")[3]
        assert q["ecn_marked"] == 0 and q["dropped_packets"] == 0 and q["lossless_drops"] == 0


# --------------------------------------------------------------------------
# (d) Strict priority and DWRR


def test_dwrr_shares_and_strict(qsw, injector):
    """Two backlogged DWRR classes share the port by weight; a strict class goes first.

    Steps: (1) send 120 TC 1 (weight 1) and 120 TC 2 (weight 3) frames of 1000
    bytes, interleaved, p0 -> p2. (2) send 80 TC 1 frames then 10 TC 6
    (strict) frames.
    Verify: (1) over output frames 10..129 (both classes backlogged) TC 2 has
    0.75 of the bytes +-10%; every frame arrives, each class in order.
    (2) the 10 TC 6 frames come out back to back, in order, ahead of at
    least 50 of the TC 1 frames queued before them.
    """
    sw = qsw(scheduler={"strict": [6], "dwrr": {0: 1, 1: 1, 2: 3, 3: 1}})
    with railsw.Capture([sw.tap["p2"]]) as cap:
        frames = [frame(sw, "p0", 1 + (i % 2), i // 2) for i in range(240)]
        injector.send(sw.tap["p0"], frames)
        got = cap.collect(count=240, timeout=5, quiet=0.4)
        out = [tag(d) for _, d in got if is_ip(d)]
        assert len(out) == 240
        for tc in (1, 2):
            assert [s for _, t, s in out if t == tc] == list(range(120))
        window = out[10:130]
        share = sum(1 for _, t, _ in window if t == 2) / len(window)
        assert 0.75 * 0.9 <= share <= 0.75 * 1.1, share
        cap.frames.clear()
        wait_drained(sw)

        frames = [frame(sw, "p0", 1, i) for i in range(80)] + \
                 [frame(sw, "p0", 6, i) for i in range(10)]
        injector.send(sw.tap["p0"], frames)
        got = cap.collect(count=90, timeout=5, quiet=0.4)
    out = [tag(d) for _, d in got if is_ip(d)]
    assert len(out) == 90
    first6 = [k for k, (_, t, _) in enumerate(out) if t == 6]
    assert first6 == list(range(first6[0], first6[0] + 10))
    assert [out[k][2] for k in first6] == list(range(10))
    assert sum(1 for _, t, _ in out[first6[-1]:] if t == 1) >= 50
    assert [s for _, t, s in out if t == 1] == list(range(80))


# --------------------------------------------------------------------------
# (e) PFC watchdog


def test_pfc_watchdog_storm(qsw, injector):
    """A pause storm trips the watchdog; action drop flushes the queue; restore after it ends.

    Steps: watchdog detect_ms 200, restore_ms 200, action drop. The peer on p2
    sends PFC XOFF for priority 3 (2000 quanta, 102 ms) every 50 ms; 20 TC 3
    frames p0 -> p2 wait behind the pause. Once the storm is detected, 5 more
    TC 3 frames are sent; the storm goes on for 300 ms more, then stops.
    Verify: pfcwd_storms p2/3 becomes 1 no sooner than 200 ms after the
    first XOFF (and within 1.5 s); the 20 queued frames are dropped
    (dropped_packets), and so are the 5 sent during the storm; no TC 3 frame
    comes out during the storm; pfcwd_restores becomes 1 no sooner than 200 ms
    after the last XOFF; afterwards TC 3 traffic flows again (5 frames arrive
    in order within 300 ms); lossless_drops 0; `clear counters` zeroes
    pfcwd_storms and pfcwd_restores.
    """
    sw = qsw(pfc_watchdog={"detect_ms": 200, "restore_ms": 200, "action": "drop"})
    xoff = pfc_frame(HOST_MAC["p2"], 0x08, [0, 0, 0, 2000])
    q0 = queue_rows(sw, "p2")[3]
    with railsw.Capture([sw.tap["p2"]]) as cap:
        t_first = time.monotonic()
        injector.send(sw.tap["p2"], xoff)
        injector.send(sw.tap["p0"], [frame(sw, "p0", 3, i, 500) for i in range(20)])
        last = t_first
        detected = None
        while time.monotonic() - t_first < 1.5:
            if time.monotonic() - last >= 0.05:
                injector.send(sw.tap["p2"], xoff)
                last = time.monotonic()
            if pfc_rows(sw, "p2")[3]["pfcwd_storms"] >= 1:
                detected = time.monotonic()
                break
            time.sleep(0.01)
        assert detected is not None, "no storm detected within 1.5 s"
        assert detected - t_first >= 0.2
        injector.send(sw.tap["p0"], [frame(sw, "p0", 3, 100 + i, 500) for i in range(5)])
        end = time.monotonic() + 0.3
        while time.monotonic() < end:
            if time.monotonic() - last >= 0.05:
                injector.send(sw.tap["p2"], xoff)
                last = time.monotonic()
            time.sleep(0.01)
        stopped = last
        q1 = queue_rows(sw, "p2")[3]
        assert q1["dropped_packets"] - q0["dropped_packets"] == 25
        assert q1["dequeued_packets"] == q0["dequeued_packets"]
        assert q1["depth_bytes"] == 0
        assert not [d for _, d in cap.collect(timeout=0.05) if is_ip(d)]
        row = pfc_rows(sw, "p2")[3]
        assert row["pfcwd_storms"] == 1 and row["pfcwd_restores"] == 0
        assert row["rx_ignored"] >= 1  # pause frames seen while stormed

        railsw.wait_until(lambda: pfc_rows(sw, "p2")[3]["pfcwd_restores"] >= 1, 2,
                          interval=0.01, what="watchdog restore")
        assert time.monotonic() - stopped >= 0.2
        row = pfc_rows(sw, "p2")[3]
        assert row["pfcwd_storms"] == 1 and row["pfcwd_restores"] == 1
        cap.frames.clear()
        t0 = time.monotonic()
        injector.send(sw.tap["p0"], [frame(sw, "p0", 3, 200 + i, 500) for i in range(5)])
        got = timed(cap, 1, stop=lambda o: len(o) >= 5)
    assert [tag(d)[2] for _, _, d in got if is_ip(d)] == [200 + i for i in range(5)]
    assert max(t for t, _, _ in got) - t0 < 0.3
    assert queue_rows(sw, "p2")[3]["lossless_drops"] == 0
    # The watchdog's counts have a `clear counters` baseline like every counter.
    assert sw.ctl("clear", "counters") == {"ok": True}
    row = pfc_rows(sw, "p2")[3]
    assert row["pfcwd_storms"] == 0 and row["pfcwd_restores"] == 0, row


def test_control_frames_counted(qsw, injector):
    """Frames the control thread sends go through the queues and count on both sides.

    Steps: a host on p0 sends an ARP request for the switch's address; the
    switch answers from its control thread through p0's highest strict queue.
    Verify: the ARP reply arrives; in `show queues p0` every TC has
    enqueued_packets = dequeued_packets and enqueued_bytes = dequeued_bytes,
    and TC 6 (the strict TC) counts the reply on both sides.
    """
    from scapy.all import ARP
    sw = qsw()
    req = Ether(dst="ff:ff:ff:ff:ff:ff", src=HOST_MAC["p0"]) / \
        ARP(op=1, hwsrc=HOST_MAC["p0"], psrc=HOST_IP["p0"], pdst=topo.SW_IP["p0"])
    with railsw.Capture([sw.tap["p0"]]) as cap:
        injector.send(sw.tap["p0"], req)
        got = cap.collect(count=1, timeout=3)
    assert [d for _, d in got if d[12:14] == b"\x08\x06"], "no ARP reply"
    railsw.wait_until(lambda: queue_rows(sw, "p0")[6]["dequeued_packets"] >= 1, 3,
                      what="the reply to be counted")
    for tc, q in queue_rows(sw, "p0").items():
        assert q["enqueued_packets"] == q["dequeued_packets"], q
        assert q["enqueued_bytes"] == q["dequeued_bytes"], q
    assert queue_rows(sw, "p0")[6]["enqueued_packets"] >= 1
