# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Soak (docs/reliability.md "Soak"): mixed traffic for a while with
`railctl reload` running repeatedly and counters read every second.

One switch, three TAP ports at 10 Mbit/s; TC 3 (DSCP 26) lossless, TC 0
lossy, CNPs in strict TC 6, PFC watchdog `drop`. Every 50 ms tick a sender
thread injects:
  - RoCEv2 data (UDP 4791, BTH RC SEND ONLY with a rolling PSN), TC 3:
    p0 -> p2 and p1 -> p2;
  - lossy bulk, TC 0, p1 -> p2, in bursts above queue_limit (tail drops);
  - RoCEv2 CNPs (BTH opcode 0x81), p0 -> p2;
  - malformed frames (truncated IPv4, bad version, truncated UDP) on p1;
  - ARP requests for the switch's address, ICMP echo to it, on p0 / p1;
  - every 10th tick, on p2: a PFC XOFF for priority 3 (10 ms), a pause for a
    lossy priority (ignored), a malformed PFC, then an XON the next tick;
    every 40th tick an 802.3x PAUSE of 100 quanta.
The TC 3 load (~2.6 Mbit/s of a 10 Mbit/s port, DWRR weight 4 against 1)
stays well inside xoff + headroom even though the Scapy senders ignore the
PFC the switch sends them, so a single lossless drop is a bug.

Meanwhile a reload thread alternates two valid configs (routes, ECN
thresholds, DWRR weights differ) every RAILSW_SOAK_RELOAD_MS (500) ms, and
the test reads `show ports`, `show queues` and `show pfc` every second.

Asserts: the switch process stays alive and answers; the `show drops` totals
stay within a few bursts of received = forwarded + consumed + queued + dropped
at every read (frames in flight), and add up exactly at rest
(railsw.assert_conserved); every reload answers ok
with a generation one higher; no counter of show ports / queues / pfc ever
goes backwards between two reads, and most reads saw counters move (at least
three); `lossless_drops` stays 0 (queues and
buffer) and every TC 3 frame sent is enqueued and transmitted on p2; every
traffic kind was seen (counters moved); at the end, at rest, mbufs_in_use is
back to its value before the soak.

Duration: RAILSW_SOAK_SECONDS (default 60, what CI runs). A long run:
    RAILSW_SOAK_SECONDS=3600 RAILSW_BUILD=build python3 -m pytest -v pkt-tests/test_soak.py
"""

import json
import os
import struct
import threading
import time

import pytest
from scapy.all import ARP, ICMP, IP, UDP, Ether, Raw

import railsw
import topo
from railsw import no_mbuf_leak, wait_until
from topo import HOST_IP, HOST_MAC, SW_IP

SECONDS = float(os.environ.get("RAILSW_SOAK_SECONDS", "60"))
RELOAD_S = float(os.environ.get("RAILSW_SOAK_RELOAD_MS", "500")) / 1000
TICK = 0.05
PFC_DST = bytes.fromhex("0180c2000001")

# Fields that are gauges or identities, not counters (booleans are skipped too).
NOT_COUNTERS = {"id", "tc", "priority", "speed_bps", "mtu", "depth_bytes"}

pytestmark = pytest.mark.soak


def config():
    cfg = topo.three_ports()
    for p in cfg["ports"]:
        p["speed"] = "10M"
    cfg["qos"] = {
        "trust": "dscp",
        "dscp_to_tc": {26: 3, 48: 6},
        "default_tc": 0,
        "scheduler": {"strict": [6], "dwrr": {0: 1, 3: 4}},
        "lossless": [3],
        "buffer": {"total": "4MB", "queue_limit": "32KB",
                   "pfc": {"xoff": "32KB", "xon": "16KB", "headroom": "96KB",
                           "quanta": 4000}},
        "ecn": {3: {"kmin": "16KB", "kmax": "64KB", "pmax": 0.2}},
        "cnp": {"tc": 6},
        "pfc_watchdog": {"detect_ms": 200, "restore_ms": 200, "action": "drop"},
    }
    return cfg


def alt_config(cfg):
    """The second valid config: one more route, other ECN thresholds and DWRR weights
    (all live-reloadable)."""
    alt = json.loads(json.dumps(cfg))
    alt["routes"].append({"prefix": "10.77.0.0/16", "nexthops": [HOST_IP["p2"]]})
    alt["qos"]["ecn"] = {"3": {"kmin": "24KB", "kmax": "80KB", "pmax": 0.1}}
    alt["qos"]["scheduler"]["dwrr"] = {"0": 1, "3": 6}
    return alt


@pytest.fixture(scope="module")
def sw(build):
    with topo.running(build, config()) as s:
        yield s


# --------------------------------------------------------------------------
# frames (bytes, built once: Scapy is too slow to build them per tick)


def pad(f, size):
    b = bytes(f)
    return b + b"\0" * (size - len(b))


def roce(sw, src, psn, size=1000, qp=0x12):
    """RoCEv2 RC SEND ONLY (opcode 0x04) with PSN psn, DSCP 26 (TC 3), ECT(0)."""
    bth = struct.pack("!BBHII", 0x04, 0x40, 0xFFFF, qp, psn & 0xFFFFFF)
    f = Ether(dst=sw.mac[src], src=HOST_MAC[src]) / \
        IP(src=HOST_IP[src], dst=HOST_IP["p2"], tos=26 << 2 | 2) / \
        UDP(sport=0xC000 + qp, dport=4791) / Raw(bth + b"RSWSOAK" + bytes([int(src[1])]))
    return pad(f, size)


def cnp(sw, qp):
    bth = bytes([0x81, 0x00, 0xFF, 0xFF, 0x40]) + qp.to_bytes(3, "big") + bytes(4) + bytes(16)
    return bytes(Ether(dst=sw.mac["p0"], src=HOST_MAC["p0"]) /
                 IP(src=HOST_IP["p0"], dst=HOST_IP["p2"]) /
                 UDP(sport=0xC000 + qp, dport=4791) / Raw(bth))


def bulk(sw, i):
    f = Ether(dst=sw.mac["p1"], src=HOST_MAC["p1"]) / \
        IP(src=HOST_IP["p1"], dst=HOST_IP["p2"]) / UDP(sport=5000 + i % 32, dport=6000)
    return pad(f, 1000)


def malformed(sw):
    g = bytes(Ether(dst=sw.mac["p1"], src=HOST_MAC["p1"]) /
              IP(src=HOST_IP["p1"], dst=HOST_IP["p2"]) / UDP() / Raw(b"x" * 32))
    return [g[:14 + 12], g[:14] + b"\x65" + g[15:], g[:14 + 20 + 4]]


def pfc(src_mac, vector, times, opcode=0x0101, reserved=0):
    t = list(times) + [0] * (8 - len(times))
    return (PFC_DST + bytes.fromhex(src_mac.replace(":", "")) + b"\x88\x08" +
            struct.pack("!HBB8H", opcode, reserved, vector, *t)).ljust(60, b"\0")


def pause(src_mac, quanta):
    return (PFC_DST + bytes.fromhex(src_mac.replace(":", "")) + b"\x88\x08" +
            struct.pack("!HH", 1, quanta)).ljust(60, b"\0")


class Traffic(threading.Thread):
    """The sender: one tick of mixed traffic every TICK seconds until stopped."""

    ROCE_P0, ROCE_P1, BULK, CNPS = 10, 6, 40, 2

    def __init__(self, sw):
        super().__init__(daemon=True)
        self.sw = sw
        self.stop = threading.Event()
        self.error = None
        self.roce_sent = 0
        self.ticks = 0
        h2 = HOST_MAC["p2"]
        self.roce = {p: [roce(sw, p, n, qp=0x12 + int(p[1])) for n in range(256)]
                     for p in ("p0", "p1")}
        self.bulk = [bulk(sw, i) for i in range(self.BULK)]
        self.cnps = [cnp(sw, 0x40 + i) for i in range(self.CNPS)]
        self.bad = malformed(sw)
        self.arp = bytes(Ether(dst="ff:ff:ff:ff:ff:ff", src=HOST_MAC["p0"]) /
                         ARP(op=1, hwsrc=HOST_MAC["p0"], psrc=HOST_IP["p0"], pdst=SW_IP["p0"]))
        self.echo = bytes(Ether(dst=sw.mac["p1"], src=HOST_MAC["p1"]) /
                          IP(src=HOST_IP["p1"], dst=SW_IP["p1"]) / ICMP(id=1) / Raw(b"e" * 32))
        self.xoff = [pfc(h2, 0x08, [0, 0, 0, 195]),        # 10 ms on lossless TC 3
                     pfc(h2, 0x02, [0, 300]),              # lossy priority 1: ignored
                     pfc(h2, 0x08, [0, 0, 0, 10], reserved=1)]  # malformed
        self.xon = pfc(h2, 0x08, [0, 0, 0, 0])
        self.pause = pause(h2, 100)

    def tick(self, inj):
        t, sw = self.ticks, self.sw
        for p, n in (("p0", self.ROCE_P0), ("p1", self.ROCE_P1)):
            frames = self.roce[p]
            inj.send(sw.tap[p], [frames[(t * n + k) % len(frames)] for k in range(n)])
            self.roce_sent += n
        inj.send(sw.tap["p1"], self.bulk)
        inj.send(sw.tap["p0"], self.cnps + [self.arp])
        inj.send(sw.tap["p1"], self.bad + [self.echo])
        if t % 10 == 0:
            inj.send(sw.tap["p2"], self.xoff)
        elif t % 10 == 1:
            inj.send(sw.tap["p2"], self.xon)
        if t % 40 == 20:
            inj.send(sw.tap["p2"], self.pause)
        self.ticks += 1

    def run(self):
        inj = railsw.Injector()
        try:
            nxt = time.monotonic()
            while not self.stop.is_set():
                self.tick(inj)
                nxt += TICK
                delay = nxt - time.monotonic()
                if delay > 0:
                    self.stop.wait(delay)
                else:
                    nxt = time.monotonic()   # behind (a busy machine): do not catch up in bursts
        except Exception as e:  # reported by the test
            self.error = e
        finally:
            inj.close()


class Reloader(threading.Thread):
    """`railctl reload` alternating two files every RELOAD_S seconds."""

    def __init__(self, sw, files):
        super().__init__(daemon=True)
        self.sw, self.files = sw, files
        self.stop = threading.Event()
        self.replies = []
        self.error = None

    def run(self):
        try:
            i = 0
            while not self.stop.wait(RELOAD_S):
                self.replies.append(self.sw.ctl("reload", self.files[i % 2]))
                i += 1
        except Exception as e:
            self.error = e


# --------------------------------------------------------------------------


def tap_tx_dropped(sw, port):
    """Frames the kernel dropped on the TAP toward railsw (its queue full)."""
    with open(f"/sys/class/net/{sw.tap[port]}/statistics/tx_dropped") as f:
        return int(f.read())


def snapshot(sw):
    """{(table, row key, field): value} of every counter in show ports / queues / pfc."""
    out = {}
    for p in sw.ctl("show", "ports")["ports"]:
        for k, v in p.items():
            if isinstance(v, int) and not isinstance(v, bool) and k not in NOT_COUNTERS:
                out[("ports", p["name"], k)] = v
    for q in sw.ctl("show", "queues")["queues"]:
        for k, v in q.items():
            if isinstance(v, int) and not isinstance(v, bool) and k not in NOT_COUNTERS:
                out[("queues", f"{q['port']}/{q['tc']}", k)] = v
    for r in sw.ctl("show", "pfc")["pfc"]:
        for k, v in r.items():
            if isinstance(v, int) and not isinstance(v, bool) and k not in NOT_COUNTERS:
                out[("pfc", f"{r['port']}/{r['priority']}", k)] = v
    return out


def test_soak(sw):
    """Mixed traffic + repeated reloads + counters read every second for
    RAILSW_SOAK_SECONDS (see the module docstring for what is asserted)."""
    alt = os.path.join(sw.tmp, "soak-alt.yaml")
    with open(alt, "w") as f:
        json.dump(alt_config(sw.config), f)
    sw.ctl("clear", "counters")
    backwards, lossless, reads, moving, skew = [], [], 0, 0, 0
    kdrop0 = {p: tap_tx_dropped(sw, p) for p in ("p0", "p1")}
    with no_mbuf_leak(sw, "soak", timeout=20):
        gen0 = sw.ctl("reload", sw.conf)["generation"]
        traffic, reloader = Traffic(sw), Reloader(sw, [alt, sw.conf])
        prev = snapshot(sw)
        traffic.start()
        reloader.start()
        try:
            end = time.monotonic() + SECONDS
            while time.monotonic() < end:
                time.sleep(1)
                assert sw.running(), "railsw died\n" + sw.log_tail()
                now = snapshot(sw)
                reads += 1
                # a read that saw traffic counters move compared live counters
                moving += any(v > prev.get(key, v) for key, v in now.items())
                for key, v in now.items():
                    if key in prev and v < prev[key]:
                        backwards.append((key, prev[key], v))
                    if key[2] == "lossless_drops" and v:
                        lossless.append((key, v))
                t = sw.ctl("show", "drops")["totals"]
                skew = max(skew, abs(t["received"] - t["forwarded"] - t["consumed"] -
                                     t["queued"] - t["dropped"]))
                for pg in sw.ctl("show", "buffer")["pgs"]:
                    if pg["lossless_drops"]:
                        lossless.append((("buffer", pg["port"], pg["pg"]), pg["lossless_drops"]))
                prev = now
                assert not traffic.error and not reloader.error, \
                    f"traffic: {traffic.error!r}, reload: {reloader.error!r}"
        finally:
            traffic.stop.set()
            reloader.stop.set()
            traffic.join(10)
            reloader.join(15)
        assert not traffic.is_alive() and not reloader.is_alive(), "a soak thread hung"
        assert traffic.error is None, repr(traffic.error)
        assert reloader.error is None, repr(reloader.error)
        # Let the last frames and pauses drain before counting.
        wait_until(lambda: sw.ctl("show", "buffer")["buffer"]["used"] == 0, 10,
                   what="the buffer to drain")
        final = snapshot(sw)
        totals = railsw.assert_conserved(sw)
    assert sw.running() and sw.ports(), "railsw stopped answering"
    for key, v in final.items():
        if key in prev and v < prev[key]:
            backwards.append((key, prev[key], v))
    replies = reloader.replies
    print(f"soak: {SECONDS:.0f} s, {traffic.ticks} ticks, {traffic.roce_sent} RoCE frames, "
          f"{len(replies)} reloads, {reads} counter reads ({moving} saw counters move); totals at rest {totals}, "
          f"in flight at most {skew} frames")
    # Under traffic the totals lag by the frames between two counters: a few bursts.
    assert skew <= 512, skew
    assert not backwards, f"counters went backwards: {backwards[:20]}"
    assert not lossless, f"lossless drops: {lossless[:20]}"
    assert len(replies) >= max(1, int(SECONDS / RELOAD_S) // 2), len(replies)
    assert all(r.get("ok") is True for r in replies), [r for r in replies if not r.get("ok")]
    assert [r["generation"] for r in replies] == \
        list(range(gen0 + 1, gen0 + 1 + len(replies))), "generations not consecutive"
    # What the reads saw, not how many fit in the time (a busy machine reads less often):
    # several reads, and most of them compared counters that had moved since the one before.
    assert reads >= 3 and moving >= max(3, reads // 2), (reads, moving)
    # Lossless: every TC 3 frame sent went out on p2. A frame the kernel's TAP queue
    # dropped before railsw could read it (a starved machine) never reached the switch:
    # then only require that nothing beyond those went missing.
    kdrop = sum(tap_tx_dropped(sw, p) - kdrop0[p] for p in ("p0", "p1"))
    q3 = {k: final[("queues", "p2/3", k)] for k in
          ("enqueued_packets", "dequeued_packets", "dropped_packets", "lossless_drops")}
    assert q3["dropped_packets"] == 0 and q3["lossless_drops"] == 0, q3
    assert q3["dequeued_packets"] == q3["enqueued_packets"], q3
    if kdrop == 0:
        assert q3["enqueued_packets"] == traffic.roce_sent, (q3, traffic.roce_sent)
    else:
        print(f"soak: the kernel dropped {kdrop} frames on the TAP queues of p0/p1")
        assert traffic.roce_sent - kdrop <= q3["enqueued_packets"] <= traffic.roce_sent, \
            (q3, traffic.roce_sent, kdrop)
    # Every kind of traffic was exercised.
    moved = {
        "CNPs forwarded": final[("ports", "p2", "cnp_tx")],
        "malformed counted": final[("ports", "p1", "parse_errors")],
        "punted (ARP, echo)": final[("ports", "p0", "punted")] + final[("ports", "p1", "punted")],
        "PFC honoured": final[("pfc", "p2/3", "rx_xoff")],
        "PFC for a lossy priority ignored": final[("pfc", "p2/1", "rx_ignored")],
        "lossy tail drops": final[("queues", "p2/0", "dropped_packets")],
    }
    assert all(moved.values()), moved
    print("soak counters:", moved, "TC 3:", q3)
