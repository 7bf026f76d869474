#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Link-Level Retry measured between two railsw over memif (docs/link.md "Measured").

    sudo flock /tmp/railsw-net.lock perf/llr.py [--build build] [--frames N] [--size B]

A leaf and a spine joined by memif, a TAP at each end (as pkt-tests/test_llr.py; the TAPs
take frames of at most 1514 bytes, so 4 KiB frames are not measured here: docs/link.md
works their overhead out from the counters). Numbered UDP frames go into the leaf in pairs (the second right after the first, so that a lost first
frame is found by the gap and NACKed), the destination TAP timestamps them. For each loss
rate, with and without LLR on the memif ports (loss injected on both ends' transmit):

- frames lost end to end;
- the latency of frames that were recovered (lost once on the wire, replayed) against the
  others: the extra time is the link's recovery (a NACK's round trip and the replay, or the
  replay timer for a lost tail frame);
- the wire overhead of LLR: 16 bytes of shim per sequenced frame and the ACK/NACK frames
  (60 bytes + 24 of preamble, FCS and gap), per byte of the frames;
- the replay buffer's peak.

It prints a table and writes JSON (--out). Not a timed test: the TAP and Scapy side are
slow, so the rates are low; the latencies include the kernel's TAP path on both sides.
"""

import argparse
import json
import os
import shutil
import socket
import statistics
import struct
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "pkt-tests", "lib"))
import railsw  # noqa: E402
from railsw import wait_until  # noqa: E402

MAGIC = b"RSWLLRP"
HOST_MAC, HOST_IP = "02:aa:00:00:30:01", "10.1.0.1"
DST_MAC, DST_IP = "02:aa:00:00:90:03", "10.9.0.1"
LEAF_UP_MAC, SPINE_DOWN_MAC = "02:00:00:00:0c:30", "02:00:00:00:0d:30"
SO_TIMESTAMPNS = 35  # Linux: struct timespec of the frame's arrival, in the ancillary data


def chain(build, scratch, loss, llr, seed):
    sock = os.path.join(scratch, "up.sock")
    extra = {}
    if llr:
        extra["llr"] = True
    up = dict({"name": "up", "devargs": f"net_memif0,role=server,socket={sock}",
               "mac": LEAF_UP_MAC, "ipv4": "10.255.0.1/30"}, **extra)
    down = dict({"name": "down", "devargs": f"net_memif0,role=client,socket={sock}",
                 "mac": SPINE_DOWN_MAC, "ipv4": "10.255.0.2/30"}, **extra)
    if loss > 0:
        up["impair"] = {"loss": loss, "seed": seed}
        down["impair"] = {"loss": loss, "seed": seed + 1}
    leaf = railsw.Switch(build, {
        "switch": {"role": "leaf", "idle_sleep_us": 10},
        "ports": [{"name": "s0", "ipv4": "10.1.0.254/24"}, up],
        "neighbors": [{"ip": HOST_IP, "mac": HOST_MAC, "port": "s0"},
                      {"ip": "10.255.0.2", "mac": SPINE_DOWN_MAC, "port": "up"}],
        "routes": [{"prefix": "10.9.0.0/24", "nexthops": ["10.255.0.2"]}],
    }, lcores="0,1")
    spine = railsw.Switch(build, {
        "switch": {"role": "spine", "idle_sleep_us": 10},
        "ports": [down, {"name": "d0", "ipv4": "10.9.0.254/24"}],
        "neighbors": [{"ip": DST_IP, "mac": DST_MAC, "port": "d0"},
                      {"ip": "10.255.0.1", "mac": LEAF_UP_MAC, "port": "down"}],
        "routes": [{"prefix": "10.1.0.0/16", "nexthops": ["10.255.0.1"]}],
    }, lcores="0,1")
    for sw, p in ((leaf, "up"), (spine, "down")):
        wait_until(lambda: sw.ports()[p]["link_up"], 10, what=f"memif {p} up")
    if llr:
        wait_until(lambda: all(r["state"] == "advance" for sw, p in ((leaf, "up"),
                                                                      (spine, "down"))
                               for r in sw.ctl("show", "llr", p)["llr"]), 10,
                   what="LLR handshake")
    return leaf, spine


def frame(leaf_mac, seq, size):
    from scapy.all import IP, UDP, Ether, Raw
    f = Ether(dst=leaf_mac, src=HOST_MAC) / IP(src=HOST_IP, dst=DST_IP, ttl=64) / \
        UDP(sport=4791, dport=5000) / Raw(MAGIC + struct.pack("!I", seq))
    b = bytes(f)
    return b + b"\0" * (size - len(b))


def one(build, loss, llr, frames, size, seed):
    scratch = tempfile.mkdtemp(prefix=f"rswt-{os.getpid()}-0.llrp.")
    leaf = spine = None
    try:
        leaf, spine = chain(build, scratch, loss, llr, seed)
        leaf.ctl("clear", "counters")
        spine.ctl("clear", "counters")
        tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        tx.bind((leaf.tap["s0"], 0))
        rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
        rx.bind((spine.tap["d0"], 0))
        rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
        rx.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        rx.setblocking(False)
        sent, got = {}, {}
        pkts = [frame(leaf.mac["s0"], i, size) for i in range(frames)]

        def drain():
            while True:
                try:
                    d, anc, _f, _a = rx.recvmsg(16384, 256)
                except BlockingIOError:
                    return
                i = d.find(MAGIC)
                if i < 0:
                    continue
                seq = struct.unpack("!I", d[i + len(MAGIC):i + len(MAGIC) + 4])[0]
                t = time.time()  # the kernel's receive time, when it gives one
                for lvl, typ, data in anc:
                    if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS and len(data) >= 16:
                        sec, nsec = struct.unpack("qq", data[:16])
                        t = sec + nsec / 1e9
                got.setdefault(seq, t)
        for i in range(0, frames, 2):
            for k in (i, i + 1):
                if k < frames:
                    sent[k] = time.time()
                    tx.send(pkts[k])
            time.sleep(0.002)  # pairs 2 ms apart: each recovery is on its own
            drain()
        t_end = time.monotonic() + 2
        while time.monotonic() < t_end and len(got) < frames:
            drain()
            time.sleep(0.01)
        lat = {k: (got[k] - sent[k]) * 1e6 for k in got}
        lp, sp = leaf.ports()["up"], spine.ports()["down"]
        rows = {"leaf": leaf.ctl("show", "llr", "up")["llr"][0],
                "spine": spine.ctl("show", "llr", "down")["llr"][0]}
        tx.close()
        rx.close()
    finally:
        for sw in (leaf, spine):
            if sw is not None:
                sw.stop()
                sw.cleanup()
        shutil.rmtree(scratch, ignore_errors=True)
    vals = sorted(lat.values())
    med = statistics.median(vals) if vals else 0
    # A recovered frame took far longer than the median one (the kernel's TAP path is noisy:
    # 150 µs above the median and 3 times it).
    slow = [v for v in vals if v > med + 150 and v > 3 * med]
    fast = [v for v in vals if v not in slow]
    lr = rows["leaf"]
    ctl = sum(rows[s][k] for s in rows for k in ("acks_tx", "nacks_tx", "inits_tx",
                                                 "init_echoes_tx"))
    seqd = lr["tx_frames"]
    return {
        "loss": loss, "llr": llr, "size": size, "frames": frames,
        "delivered": len(got), "lost_end_to_end": frames - len(got),
        "in_order": sorted(got, key=lambda k: got[k]) == sorted(got),
        "lost_on_wire": lp["impair_dropped"] + sp["impair_dropped"],
        "median_us": round(med, 1),
        "recovered": len(slow),
        "recovered_median_us": round(statistics.median(slow), 1) if slow else None,
        "extra_us": round(statistics.median(slow) - statistics.median(fast), 1)
        if slow and fast else None,
        "replayed": lr["tx_replayed"], "nacks": rows["spine"]["nacks_tx"],
        "replay_timeouts": lr["tx_replay_timeouts"], "flushes": lr["tx_flushes"],
        "replay_peak": lr["replay_buffer_peak"],
        "overhead": round((16 * seqd + 84 * ctl) / (seqd * (size + 24)), 4) if seqd else 0,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--frames", type=int, default=2000)
    ap.add_argument("--size", type=int, default=1400,
                    help="frame bytes (default 1400: the TAP ends take at most 1514)")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    res = []
    for loss in (1e-3, 1e-2):
        for llr in (False, True):
            r = one(a.build, loss, llr, a.frames, a.size, seed=7)
            print(json.dumps(r), flush=True)
            res.append(r)
    print()
    print("| loss | LLR | lost on the wire | lost end to end | in order | median latency µs |"
          " recovered frames | their median µs | extra µs | replays | NACKs | replay timeouts"
          " | replay peak | shim + ACK overhead |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in res:
        print(f"| {r['loss']:g} | {'on' if r['llr'] else 'off'} | {r['lost_on_wire']} | "
              f"{r['lost_end_to_end']} | {r['in_order']} | {r['median_us']} | "
              f"{r['recovered']} | {r['recovered_median_us']} | {r['extra_us']} | "
              f"{r['replayed']} | {r['nacks']} | {r['replay_timeouts']} | {r['replay_peak']} | "
              f"{r['overhead'] * 100:.2f} % |")
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
