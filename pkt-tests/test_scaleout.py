# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Forwarding with several workers (docs/architecture.md "Workers and queues"):
every worker transmits, straight on its own tx queue of an idle port or queued
for the port's owner. Many flows both ways between two TAP ports (the kernel
spreads the flows of a TAP over its queues, so frames of one direction are
received by several workers and sent by several), on a lossless class: every
frame comes out once, in order per flow, the totals add up and no mbuf is
left behind; and a shaped port holds its rate while several workers feed it.

Meant to run with RAILSW_TEST_WORKERS=4 (devtools/test.sh does); with the
default two lcores (one worker) they check the same on one worker.
"""

import os
import struct
import time

from scapy.all import IP, UDP, Ether, Raw

import railsw
import topo
from topo import HOST_IP, HOST_MAC

N_FLOWS = 48  # per direction
PER_FLOW = 12
PER_SHAPED = 20  # frames per flow into the shaped port


def config(speed=None, **qos):
    cfg = topo.three_ports()
    if speed:
        for p in cfg["ports"]:
            p["speed"] = speed
    cfg["qos"] = {
        "trust": "dscp",
        "dscp_to_tc": {26: 3},
        "lossless": [3],
        "buffer": {"total": "8MB", "queue_limit": "4MB",
                   "pfc": {"xoff": "1MB", "xon": "512KB", "headroom": "1MB",
                           "quanta": 65535}},
        "pfc_watchdog": {"action": "off"},
    }
    cfg["qos"].update(qos)
    return cfg


def frame(sw, src, dst, flow, seq, size=200, dscp=26):
    """A UDP frame of flow `flow` (its source port) from the host on src to the host on dst;
    the payload carries the flow and the sequence number."""
    head = struct.pack("!HI", flow, seq)
    f = Ether(dst=sw.mac[src], src=HOST_MAC[src]) / \
        IP(src=HOST_IP[src], dst=HOST_IP[dst], tos=dscp << 2, ttl=64) / \
        UDP(sport=10000 + flow, dport=4791) / Raw(head)
    return f / Raw(b"\0" * (size - len(f)))


def ident(data):
    """(flow, seq) of a captured test frame, or None."""
    if len(data) < 48 or data[12:14] != b"\x08\x00" or data[23] != 17:
        return None
    ihl = (data[14] & 0x0F) * 4
    off = 14 + ihl + 8
    return struct.unpack("!HI", data[off:off + 6])


def test_flows_both_ways_in_order(make_switch, injector):
    """Many flows both ways between p0 and p1 on lossless TC 3 reach the other side complete,
    in order per flow, byte for byte as routed.

    Steps: the hosts on p0 and p1 each send 48 flows (distinct UDP source ports) of 12 frames
    of 200 bytes to each other, the flows interleaved, both directions at once.
    Verify: every frame comes out once on the other port, in its flow's order, as routed;
    `show ports` tx_packets of p0 and p1 count them; no drop in `show queues`; the totals of
    `show drops` add up; every mbuf is returned.
    """
    sw = make_switch(config())
    sent = {}
    for src, dst in (("p0", "p1"), ("p1", "p0")):
        sent[src] = [frame(sw, src, dst, f, s) for s in range(PER_FLOW) for f in range(N_FLOWS)]
    before = {p: sw.port_counters(p) for p in ("p0", "p1")}
    with railsw.no_mbuf_leak(sw, "flows both ways"), \
            railsw.Capture([sw.tap["p0"], sw.tap["p1"]]) as cap:
        for k in range(0, len(sent["p0"]), 48):
            injector.send(sw.tap["p0"], sent["p0"][k:k + 48])
            injector.send(sw.tap["p1"], sent["p1"][k:k + 48])
        n = 2 * N_FLOWS * PER_FLOW
        got = cap.collect(count=n, timeout=20, match=lambda i, d: ident(d) is not None)
    for src, dst in (("p0", "p1"), ("p1", "p0")):
        out = [d for i, d in got if i == sw.tap[dst] and ident(d) is not None]
        assert len(out) == N_FLOWS * PER_FLOW, f"{src}->{dst}: {len(out)} came out"
        want = {bytes(topo.routed(f, dst, sw)) for f in sent[src]}
        assert set(out) == want, f"{src}->{dst}: not the frames sent, routed"
        per_flow = {}
        for d in out:
            flow, seq = ident(d)
            per_flow.setdefault(flow, []).append(seq)
        for flow, seqs in per_flow.items():
            assert seqs == list(range(PER_FLOW)), f"{src}->{dst} flow {flow}: order {seqs}"
        after = sw.port_counters(dst)
        assert after["tx_packets"] - before[dst]["tx_packets"] >= N_FLOWS * PER_FLOW
    for q in sw.ctl("show", "queues")["queues"]:
        assert q["lossless_drops"] == 0 and q["dropped_packets"] == 0, q
    railsw.assert_conserved(sw)


def test_shaper_rate_with_workers(make_switch, injector):
    """A shaped port holds its rate while the flows feeding it come through several workers.

    Steps: p1 at 2 Mbit/s; the host on p0 sends 48 flows of 1000-byte frames to the host on
    p1, 960 KB in all, far faster than 2 Mbit/s (a backlog builds in the 4 MB queue); read
    p1's tx_bytes and tx_packets in `show ports` twice, 1.5 s apart, while the backlog lasts.
    Verify: the wire rate between the reads (frame + 24 bytes) is at most 2 Mbit/s + 5 %, and
    at least 2 Mbit/s - 5 % unless the machine is overloaded (load average above its CPUs:
    the owner then misses tokens); in the end every frame came out, in order per flow.
    """
    sw = make_switch(config(speed="2M"))
    frames = [frame(sw, "p0", "p1", f, s, size=1000, dscp=0)
              for s in range(PER_SHAPED) for f in range(N_FLOWS)]
    with railsw.Capture([sw.tap["p1"]]) as cap:
        injector.send(sw.tap["p0"], frames)

        def used():
            return sw.ctl("show", "buffer")["buffer"]["used"]

        railsw.wait_until(lambda: used() > 500_000, 10, what="a backlog on p1")
        c0, t0 = sw.port_counters("p1"), time.monotonic()
        time.sleep(1.5)
        c1, t1 = sw.port_counters("p1"), time.monotonic()
        assert used() > 0, "the backlog ran out during the measure"
        got = cap.collect(count=len(frames), timeout=30, quiet=0.3,
                          match=lambda i, d: ident(d) is not None)
    wire = (c1["tx_bytes"] - c0["tx_bytes"]) + 24 * (c1["tx_packets"] - c0["tx_packets"])
    rate = wire * 8 / (t1 - t0)
    # Never above the rate, however many workers send. Below it only when the owner did not
    # run for longer than its bucket lasts (3 KB at 2 Mbit/s: 12 ms), which a machine with more
    # runnable threads than CPUs does: the lower bound holds on a machine that is not.
    assert rate <= 1.05 * 2e6, f"p1 sent {rate / 1e6:.3f} Mbit/s, shaped to 2"
    if os.getloadavg()[0] <= os.cpu_count():
        assert rate >= 0.95 * 2e6, f"p1 sent {rate / 1e6:.3f} Mbit/s, shaped to 2"
    out = [ident(d) for i, d in got if ident(d) is not None]
    assert len(out) == len(frames)
    per_flow = {}
    for flow, seq in out:
        per_flow.setdefault(flow, []).append(seq)
    assert all(seqs == list(range(PER_SHAPED)) for seqs in per_flow.values())
