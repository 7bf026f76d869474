# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Zero loss across two chained switches (docs/reliability.md "Chained lossless").

    sender 0 -- s0 \\
    sender 1 -- s1 -- leaf -- up ==memif== down -- spine -- d0 (10M) -- destination
    sender 2 -- s2 /         (100M)          (100M)

A 3:1 incast on TC 3 (DSCP 26): three Scapy senders, which do not honour
PFC, each send a burst into the leaf at once; the leaf's uplink (100M) is
faster than the spine's egress toward the destination (10M), so the spine's
ingress PG on its memif port passes a small xoff and the spine sends PFC
XOFF to the leaf over memif. The leaf pauses its uplink TC 3 queue, which
grows while paused and drains after the XON; the leaf's own ingress PGs
absorb the burst (its headroom is sized for everything a sender sends).

Lossless (TC 3 in `qos.lossless` on both switches): the spine sent XOFF on
its memif port, the leaf received it on its uplink and paused, the leaf's
uplink queue held frames, and every frame reaches the destination once, in
per-sender order; no drop anywhere. Lossy (the same run with TC 3 removed
from `lossless`): no PFC, the spine's egress tail-drops at queue_limit, so
frames are lost and `dropped_packets` accounts for every missing one. The
lossy case proves the test can fail.

RAILSW_CHAIN_FRAMES (default 60) sets the frames per sender; the headroom
scales with it.
"""

import os
import shutil
import struct
import tempfile
import time

import pytest
from scapy.all import IP, UDP, Ether, Raw

import railsw
from railsw import wait_until

PID = os.getpid()
SENDERS = 3
FRAMES = int(os.environ.get("RAILSW_CHAIN_FRAMES", "60"))
SIZE = 1000
MAGIC = b"RSWCHAIN"
HOST_MAC = ["02:aa:00:00:10:%02x" % (i + 1) for i in range(SENDERS)]
HOST_IP = ["10.1.%d.1" % i for i in range(SENDERS)]
DST_MAC, DST_IP = "02:aa:00:00:90:01", "10.9.0.1"
LEAF_UP_MAC, SPINE_DOWN_MAC = "02:00:00:00:0c:10", "02:00:00:00:0d:10"


def qos(lossless, xoff, headroom):
    q = {
        "trust": "dscp",
        "dscp_to_tc": {26: 3},
        "buffer": {"total": "8MB", "queue_limit": "32KB",
                   "pfc": {"xoff": xoff, "xon": "4KB", "headroom": headroom,
                           "quanta": 65535}},
        "pfc_watchdog": {"action": "off"},
    }
    if lossless:
        q["lossless"] = [3]
    return q


def kb(n):
    return f"{(n + 1023) // 1024}KB"


@pytest.fixture
def scratch():
    """A scratch directory for the memif socket; named so cleanup_stale() finds it."""
    d = tempfile.mkdtemp(prefix=f"rswt-{PID}-0.chain.")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def chain(make_switch, scratch, lossless):
    """The leaf (TAP s0..s2 at 1G, memif server `up` at 100M) and the spine
    (memif client `down` at 100M, TAP d0 at 10M), both TC 3 lossless or not.
    Leaf: xoff 16KB, headroom sized for a whole sender burst. Spine: xoff 8KB
    (pauses the leaf early), headroom 256KB (what the leaf sends at 100M
    before it reacts)."""
    sock = os.path.join(scratch, "up.sock")
    burst = FRAMES * SIZE
    leaf = make_switch({
        "switch": {"role": "leaf"},
        "ports": [{"name": f"s{i}", "ipv4": f"10.1.{i}.254/24", "speed": "1G",
                   "role": "downlink"} for i in range(SENDERS)] + [
            {"name": "up", "devargs": f"net_memif0,role=server,socket={sock}",
             "mac": LEAF_UP_MAC, "ipv4": "10.255.0.1/30", "speed": "100M",
             "role": "uplink"}],
        "neighbors": [{"ip": HOST_IP[i], "mac": HOST_MAC[i], "port": f"s{i}"}
                      for i in range(SENDERS)] +
                     [{"ip": "10.255.0.2", "mac": SPINE_DOWN_MAC, "port": "up"}],
        "routes": [{"prefix": "10.9.0.0/24", "nexthops": ["10.255.0.2"]}],
        "qos": qos(lossless, "16KB", kb(burst + 16 * 1024)),
    })
    spine = make_switch({
        "switch": {"role": "spine"},
        "ports": [
            {"name": "down", "devargs": f"net_memif0,role=client,socket={sock}",
             "mac": SPINE_DOWN_MAC, "ipv4": "10.255.0.2/30", "speed": "100M"},
            {"name": "d0", "ipv4": "10.9.0.254/24", "speed": "10M"},
        ],
        "neighbors": [{"ip": DST_IP, "mac": DST_MAC, "port": "d0"},
                      {"ip": "10.255.0.1", "mac": LEAF_UP_MAC, "port": "down"}],
        "routes": [{"prefix": "10.1.0.0/16", "nexthops": ["10.255.0.1"]}],
        "qos": qos(lossless, "8KB", "256KB"),
    })
    for sw, p in ((leaf, "up"), (spine, "down")):
        wait_until(lambda: sw.ports()[p]["link_up"], 10, what=f"memif {p} up")
    leaf.ctl("clear", "counters")
    spine.ctl("clear", "counters")
    return leaf, spine


def frame(leaf, sender, seq):
    f = Ether(dst=leaf.mac[f"s{sender}"], src=HOST_MAC[sender]) / \
        IP(src=HOST_IP[sender], dst=DST_IP, tos=26 << 2, ttl=64) / \
        UDP(sport=4791, dport=5000 + sender) / Raw(MAGIC + struct.pack("!BI", sender, seq))
    return bytes(f) + b"\0" * (SIZE - len(f))


def tag(data):
    """(sender, seq) of a frame built by frame(), or None."""
    i = data.find(MAGIC)
    if i < 0:
        return None
    return struct.unpack("!BI", data[i + len(MAGIC):i + len(MAGIC) + 5])


def pfc3(sw, port):
    return next(r for r in sw.ctl("show", "pfc", port)["pfc"] if r["priority"] == 3)


def queue(sw, port, tc=3):
    return next(q for q in sw.ctl("show", "queues", port)["queues"] if q["tc"] == tc)


def all_queues(sw):
    return sw.ctl("show", "queues")["queues"]


@pytest.mark.parametrize("lossless", [True, False], ids=["lossless", "lossy"])
def test_chain_incast(make_switch, scratch, lossless):
    """3:1 incast through leaf -> memif -> spine -> 10M port.

    Steps: build every frame first, then send them interleaved (sender 0, 1,
    2, 0, 1, 2, ...), FRAMES x 1000 bytes from each sender, DSCP 26; capture
    on the destination TAP until all arrived or nothing came for a while;
    poll the leaf's uplink TC 3 depth meanwhile.
    Verify (lossless): every frame arrives exactly once and each sender's
    sequence numbers are in order; spine `show pfc down` tx_xoff > 0 and
    tx_xon > 0; leaf `show pfc up` rx_xoff > 0 and paused_ns > 0; the leaf's
    uplink TC 3 queue grew (watermark above the spine's xoff, and more than
    twice the spine's ingress PG watermark: the backlog waited in the paused
    leaf) and drained (depth 0); no dropped_packets or lossless_drops on
    either switch.
    Verify (lossy): fewer frames arrive; dropped_packets > 0; the missing
    frames equal the drops counted on both switches; no PFC sent.
    """
    leaf, spine = chain(make_switch, scratch, lossless)
    total = SENDERS * FRAMES
    frames = [frame(leaf, s, i) for i in range(FRAMES) for s in range(SENDERS)]
    inj = railsw.Injector()
    depths = []
    try:
        with railsw.Capture([spine.tap["d0"]]) as cap:
            for n, f in enumerate(frames):
                inj.send(leaf.tap[f"s{n % SENDERS}"], f)

            last = {"n": 0, "t": time.monotonic()}

            def done():
                """All arrived, or (lossy) both switches empty and nothing new for 1 s."""
                cap.collect(timeout=0.02)
                depths.append(queue(leaf, "up")["depth_bytes"])
                n = sum(1 for _, d in cap.frames if tag(d))
                if n >= total:
                    return True
                if n != last["n"]:
                    last.update(n=n, t=time.monotonic())
                    return False
                return time.monotonic() - last["t"] >= 1.0 and all(
                    sw.ctl("show", "buffer")["buffer"]["used"] == 0 for sw in (leaf, spine))
            # 180 KB at 10 Mbit/s is 0.15 s; allow for a busy machine.
            wait_until(done, 15, interval=0.01, what=f"{total} frames or the switches to drain")
            got = cap.collect(count=None, timeout=0.5)
    finally:
        inj.close()
    tags = [tag(d) for _, d in got if tag(d)]
    lq, sq = all_queues(leaf), all_queues(spine)
    dropped = sum(q["dropped_packets"] + q["lossless_drops"] for q in lq + sq)
    tx, rx = pfc3(spine, "down"), pfc3(leaf, "up")
    up = queue(leaf, "up")
    spine_pg = next(pg for pg in spine.ctl("show", "buffer")["pgs"]
                    if pg["port"] == "down" and pg["pg"] == 3)
    summary = (f"arrived {len(tags)}/{total}, dropped {dropped}, spine tx {tx}, leaf rx {rx}, "
               f"leaf up TC3 {up}, depths seen {max(depths, default=0)}, spine PG {spine_pg}")
    print(summary)
    print("drops by queue:", [(sw, q["port"], q["tc"], q["dropped_packets"], q["lossless_drops"])
                              for sw, qs in (("leaf", lq), ("spine", sq)) for q in qs
                              if q["dropped_packets"] or q["lossless_drops"]])
    if lossless:
        assert len(tags) == total, summary
        for s in range(SENDERS):
            assert [q for p, q in tags if p == s] == list(range(FRAMES)), f"sender {s}: {summary}"
        assert tx["tx_xoff"] > 0 and tx["tx_xon"] > 0, summary
        assert rx["rx_xoff"] > 0 and rx["paused_ns"] > 0 and rx["rx_ignored"] == 0, summary
        assert up["watermark_bytes"] > 8 * 1024, summary
        # The backlog sat in the paused leaf, not in the spine (whose PG stops near xoff).
        assert spine_pg["watermark"] < up["watermark_bytes"] // 2, summary
        wait_until(lambda: queue(leaf, "up")["depth_bytes"] == 0, 5, what="leaf uplink drained")
        assert dropped == 0, summary
        for q in lq + sq:
            assert q["lossless_drops"] == 0 and q["dropped_packets"] == 0, q
        for sw in (leaf, spine):
            for pg in sw.ctl("show", "buffer")["pgs"]:
                assert pg["lossless_drops"] == 0, pg
    else:
        assert len(tags) < total, summary
        assert dropped > 0, summary
        assert len(tags) + dropped == total, summary
        assert len(set(tags)) == len(tags), "a frame arrived twice"
        assert tx["tx_xoff"] == 0, summary
