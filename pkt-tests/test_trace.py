# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""`railctl trace`: the next N frames received are recorded with each step's decision.

A forwarded frame (sent straight), a frame queued behind a PFC pause, a dropped frame with its
reason, a punted ARP; with four workers, the budget is shared (exactly N frames, whichever
worker received them). Bad words get the usage and exit 2 (railctl) or an error (socket)."""

import json
import struct
import time

import pytest
from scapy.all import ARP, Ether

import railsw
import topo
from topo import HOST_IP, HOST_MAC, SW_IP

PFC_DST = "01:80:c2:00:00:01"


def trace_config():
    """topo.three_ports() with DSCP 26 -> TC 3 lossless, p2 at 10M (a long pause)."""
    cfg = topo.three_ports()
    cfg["ports"][2]["speed"] = "10M"
    cfg["qos"] = {
        "trust": "dscp",
        "dscp_to_tc": {26: 3},
        "lossless": [3],
        "buffer": {"total": "8MB", "queue_limit": "4MB",
                   "pfc": {"xoff": "1MB", "xon": "512KB", "headroom": "1MB",
                           "quanta": 65535}},
        "pfc_watchdog": {"action": "off"},
    }
    return cfg


@pytest.fixture(scope="module")
def sw(build):
    with topo.running(build, trace_config()) as s:
        yield s


def pfc_frame(src, vector, times):
    t = list(times) + [0] * (8 - len(times))
    body = struct.pack("!HBB8H", 0x0101, 0, vector, *t)
    return (bytes.fromhex(PFC_DST.replace(":", "")) + bytes.fromhex(src.replace(":", ""))
            + b"\x88\x08" + body).ljust(60, b"\0")


def traced(sw, pred, n=1, timeout=3):
    """The entries of `trace show` that satisfy pred, once n of them are there."""
    got = []

    def enough():
        got[:] = [e for e in sw.ctl("trace", "show")["trace"] if pred(e)]
        return len(got) >= n
    railsw.wait_until(enough, timeout, what=f"{n} traced frame(s)")
    return got


def step(entry, name):
    steps = [s for s in entry["steps"] if s["step"] == name]
    assert len(steps) == 1, (name, entry)
    return steps[0]


def start(sw, *args):
    assert sw.ctl("trace", "clear") == {"ok": True}
    assert sw.ctl("trace", "start", *args) == {"ok": True}


def test_forwarded(sw, injector):
    """A routed frame is traced through every step and ends sent on its egress port.

    Steps: `trace start --port p0 --count 5`; a host on p0 sends one UDP frame to 10.20.7.9
    (static route 10.20.0.0/16 via h1 on p1).
    Verify: the frame comes out of p1; its entry has rx_port p0, its length, the steps parse
    (ipv4, src, dst, ports), classify (tc 0), lookup (prefix 10.20.0.0/16, member 0, port p1),
    rewrite (h1's MAC, p1's MAC, TTL 63), admit (p1, queue 0, sent), end sent on p1 with a tx
    queue, no reason; its seq and ts_ns are set.
    """
    start(sw, "--port", "p0", "--count", "5")
    f = topo.udp4(sw, "p0", "10.20.7.9", sport=4242, dport=4791)
    with railsw.Capture([sw.tap["p1"]]) as cap:
        injector.send(sw.tap["p0"], [f])
        got = cap.collect(count=1, timeout=3)
    assert [d for _, d in got] == [topo.routed(f, "p1", sw)]
    t0 = time.time_ns()
    [e] = traced(sw, lambda e: "10.20.7.9:4791" in e["summary"])
    assert e["rx_port"] == "p0" and e["len"] == len(bytes(f)) and e["worker"] >= 0
    assert e["seq"] >= 1 and abs(e["ts_ns"] - t0) < 30e9
    p = step(e, "parse")
    assert (p["result"], p["src"], p["dst"], p["sport"], p["dport"], p["ttl"]) == \
        ("ipv4", HOST_IP["p0"], "10.20.7.9", 4242, 4791, 64)
    assert step(e, "classify")["tc"] == 0
    lk = step(e, "lookup")
    assert (lk["result"], lk["prefix"], lk["member"], lk["port"]) == \
        ("route", "10.20.0.0/16", 0, "p1")
    assert isinstance(lk["group"], int)
    rw = step(e, "rewrite")
    assert (rw["dst_mac"], rw["src_mac"], rw["ttl"]) == (HOST_MAC["p1"], sw.mac["p1"], 63)
    ad = step(e, "admit")
    assert (ad["port"], ad["queue"], ad["decision"], ad["ecn"], ad["trimmed"]) == \
        ("p1", 0, "sent", "none", False)
    assert [s["step"] for s in e["steps"]] == ["parse", "classify", "lookup", "rewrite", "admit"]
    assert (e["end"], e["tx_port"], e["reason"]) == ("sent", "p1", None)
    assert isinstance(e["tx_queue"], int) and e["tx_queue"] >= 0
    sw.ctl("trace", "stop")


def test_queued(sw, injector):
    """A frame whose TC is paused on its egress port waits in an egress queue: queued.

    Steps: h2 pauses priority 3 of p2 (65535 quanta at 10M: 3.4 s); `trace start --port p0`;
    h0 sends one DSCP 26 (TC 3) frame to h2; then h2 sends XON.
    Verify: the entry's classify tc 3; admit p2, queue 3, decision queued; end queued on p2,
    tx_queue null; the frame comes out of p2 only after the XON.
    """
    injector.send(sw.tap["p2"], pfc_frame(HOST_MAC["p2"], 0x08, [0, 0, 0, 65535]))
    railsw.wait_until(lambda: sw.ctl("show", "pfc", "p2")["pfc"][3]["rx_xoff"] >= 1, 2,
                      interval=0.005, what="the pause")
    start(sw, "--port", "p0", "--count", "5")
    f = topo.udp4(sw, "p0", HOST_IP["p2"], sport=4343, dport=4791, tos=26 << 2)
    with railsw.Capture([sw.tap["p2"]]) as cap:
        injector.send(sw.tap["p0"], [f])
        [e] = traced(sw, lambda e: f"{HOST_IP['p2']}:4791" in e["summary"])
        assert cap.collect(count=None, timeout=0.3) == []
        injector.send(sw.tap["p2"], pfc_frame(HOST_MAC["p2"], 0x08, [0, 0, 0, 0]))
        got = cap.collect(count=1, timeout=3)
    assert [d for _, d in got] == [topo.routed(f, "p2", sw)]
    assert step(e, "classify")["tc"] == 3
    lk = step(e, "lookup")
    assert (lk["result"], lk["prefix"], lk["port"]) == ("connected", "10.3.0.0/24", "p2")
    ad = step(e, "admit")
    assert (ad["port"], ad["queue"], ad["decision"]) == ("p2", 3, "queued")
    assert ad["bytes"] >= 0
    assert (e["end"], e["tx_port"], e["tx_queue"], e["reason"]) == ("queued", "p2", None, None)


@pytest.mark.parametrize("dst,ttl,reason", [
    ("192.0.2.7", 64, "no_route"),
    ("10.20.7.9", 1, "ttl_expired"),
])
def test_dropped(sw, injector, dst, ttl, reason):
    """A frame that is not forwarded ends dropped, with the reason `show drops` counts.

    Steps: `trace start --port p0`; h0 sends one frame to `dst` with TTL `ttl`.
    Verify: its entry ends dropped with `reason`, tx_port null; no rewrite or admit step;
    `show drops` counts that reason once more.
    """
    drops = {d["reason"]: d["packets"] for d in sw.ctl("show", "drops")["drops"]}
    start(sw, "--port", "p0")
    f = topo.udp4(sw, "p0", dst, ttl=ttl, sport=4444)
    injector.send(sw.tap["p0"], [f])
    [e] = traced(sw, lambda e: f"{dst}:5678" in e["summary"])
    assert (e["end"], e["reason"], e["tx_port"], e["tx_queue"]) == ("dropped", reason, None, None)
    names = [s["step"] for s in e["steps"]]
    assert "rewrite" not in names and "admit" not in names
    after = {d["reason"]: d["packets"] for d in sw.ctl("show", "drops")["drops"]}
    assert after[reason] == drops[reason] + 1


def test_punted_arp(sw, injector):
    """An ARP request for the switch's address is punted, class arp.

    Steps: `trace start --port p1 --count 3`; h1 sends an ARP request for p1's address.
    Verify: its entry: parse result arp, a punt step of class arp, end punted, reason arp.
    """
    start(sw, "--port", "p1", "--count", "3")
    a = Ether(dst="ff:ff:ff:ff:ff:ff", src=HOST_MAC["p1"]) / \
        ARP(op=1, hwsrc=HOST_MAC["p1"], psrc=HOST_IP["p1"], pdst=SW_IP["p1"])
    injector.send(sw.tap["p1"], [a])
    [e] = traced(sw, lambda e: e["summary"].startswith("arp"))
    assert e["rx_port"] == "p1"
    assert step(e, "parse")["result"] == "arp"
    assert step(e, "punt")["class"] == "arp"
    assert (e["end"], e["reason"]) == ("punted", "arp")


def test_count_stop_clear(sw, injector):
    """--count bounds what is recorded; stop keeps the records; clear empties them.

    Steps: `trace start --port p0 --count 3`; h0 sends 6 frames.
    Verify: exactly 3 entries, seq increasing, the first three frames (with several workers:
    three of the six); a 4th frame after
    `trace stop` adds nothing; `trace clear` leaves none.
    """
    start(sw, "--port", "p0", "--count", "3")
    frames = [topo.udp4(sw, "p0", "10.30.0.%d" % (i + 1), sport=5000 + i) for i in range(6)]
    injector.send(sw.tap["p0"], frames)
    es = traced(sw, lambda e: True, n=3)
    time.sleep(0.3)
    es = sw.ctl("trace", "show")["trace"]
    srcs = [e["summary"].split()[2] for e in es]
    if railsw.test_workers() == 1:
        assert srcs == ["10.1.0.1:5000", "10.1.0.1:5001", "10.1.0.1:5002"]
    else:  # flows may be received by several workers: three of the six, each once
        assert len(set(srcs)) == 3 and set(srcs) <= {"10.1.0.1:%d" % (5000 + i)
                                                      for i in range(6)}
    assert [e["seq"] for e in es] == sorted(e["seq"] for e in es)
    assert sw.ctl("trace", "stop") == {"ok": True}
    injector.send(sw.tap["p0"], [topo.udp4(sw, "p0", "10.30.0.9")])
    time.sleep(0.3)
    assert len(sw.ctl("trace", "show")["trace"]) == 3
    assert sw.ctl("trace", "clear") == {"ok": True}
    assert sw.ctl("trace", "show") == {"trace": []}


@pytest.mark.parametrize("words", [
    ("trace",), ("trace", "bogus"), ("trace", "start", "--count"),
    ("trace", "start", "--count", "0"), ("trace", "start", "--count", "x"),
    ("trace", "start", "--count", "1025"), ("trace", "start", "--bogus"),
    ("trace", "show", "extra"), ("trace", "stop", "now"),
])
def test_bad_words(sw, words):
    """Bad words: railctl prints the usage and exits 2; the socket answers an error object."""
    r = sw.ctl_raw(*words)
    assert r.returncode == 2, r
    assert "usage: railctl trace start [--port PORT] [--count N]" in r.stderr
    reply = json.loads(sw.request(" ".join(words) + "\n"))
    assert set(reply) == {"error"} and reply["error"]


def test_unknown_port(sw):
    """An unknown port is the switch's error (railctl exit 1)."""
    r = sw.ctl_raw("trace", "start", "--port", "nope")
    assert r.returncode == 1 and "unknown port 'nope'" in r.stdout + r.stderr


def test_table(sw, injector):
    """Without --json, `trace show` is a table people read: one row per frame, its end."""
    start(sw, "--port", "p0", "--count", "1")
    injector.send(sw.tap["p0"], [topo.udp4(sw, "p0", "10.20.1.1", sport=4646)])
    traced(sw, lambda e: "10.20.1.1" in e["summary"])
    r = sw.ctl_raw("trace", "show", json_out=False)
    assert r.returncode == 0, r
    lines = r.stdout.splitlines()
    assert lines[0].startswith("#") and "p0:" in lines[0] and "10.20.1.1:5678" in lines[0]
    assert any(ln.split()[:2] == ["lookup", "result=route"] and "prefix=10.20.0.0/16" in ln
               for ln in lines), r.stdout
    assert lines[-1].split()[:4] == ["end", "sent", "on", "p1"], r.stdout


def test_four_workers(make_switch, injector, monkeypatch):
    """With four workers (two CPUs), the budget is shared: exactly N frames in all.

    Steps: a switch with 4 workers (lcores 0@0,1@1,2@0,3@1, control on 4); `trace start
    --count 8`; 24 frames of 24 flows from h0 and h1 to h2.
    Verify: exactly 8 entries, distinct seq, each on a worker 0..3, rx queue valid, each sent
    or queued on p2; every frame comes out of p2.
    """
    monkeypatch.setenv("RAILSW_TEST_WORKERS", "4")
    s = make_switch(trace_config())
    assert "--lcores" in s.cmdline() and "0@" in " ".join(s.cmdline())
    workers = s.ctl("show", "workers")["workers"]
    assert len(workers) == 4
    start(s, "--count", "8")
    frames = [topo.udp4(s, p, HOST_IP["p2"], sport=6000 + i) for p in ("p0", "p1")
              for i in range(12)]
    with railsw.Capture([s.tap["p2"]]) as cap:
        for f in frames:
            injector.send(s.tap[f.src == HOST_MAC["p0"] and "p0" or "p1"], [f])
        got = cap.collect(count=24, timeout=5)
    assert len(got) == 24
    es = traced(s, lambda e: f"{HOST_IP['p2']}:5678" in e["summary"], n=8)
    time.sleep(0.3)
    es = s.ctl("trace", "show")["trace"]
    assert len(es) == 8
    assert len({e["seq"] for e in es}) == 8
    lcores = {w["worker"]: w["lcore"] for w in workers}
    for e in es:
        assert 0 <= e["worker"] < 4 and lcores[e["worker"]] == e["lcore"]
        assert e["rx_port"] in ("p0", "p1") and e["rx_queue"] >= 0
        assert e["end"] in ("sent", "queued") and e["tx_port"] == "p2", e
