# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""`railctl top` (docs/cli.md): rates per port, drops per second by reason, per
(port, TC) queue activity, from two reads of the same counters.

The switch is the three-port topology of topo.py; a thread sends a steady stream
of routed frames (h0 -> 10.20.0.5, out of p1) and of frames with no route
(dropped, `no_route`) while railctl top runs.
"""

import json
import os
import threading
import time

import pytest

import railsw
import topo

ROUTED_PER_TICK = 20  # every 0.1 s: 200 frames/s routed p0 -> p1
UNROUTED_PER_TICK = 5  # and 50 frames/s dropped for no_route
PAYLOAD = b"railsw-test top ".ljust(64, b".")


@pytest.fixture
def sw(make_switch):
    return make_switch(topo.three_ports())


class Stream:
    """Steady traffic from a thread until stopped."""

    def __init__(self, sw):
        self.sw = sw
        self.stop = threading.Event()
        self.sent = 0
        self.inj = railsw.Injector()
        routed = topo.udp4(sw, "p0", "10.20.0.5", payload=PAYLOAD)
        lost = topo.udp4(sw, "p0", "10.99.0.5", payload=PAYLOAD)
        self.frames = [routed] * ROUTED_PER_TICK + [lost] * UNROUTED_PER_TICK
        self.size = len(bytes(routed))
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        tick = time.monotonic()
        while not self.stop.is_set():
            self.inj.send(self.sw.tap["p0"], self.frames)
            self.sent += len(self.frames)
            tick += 0.1
            self.stop.wait(max(0.0, tick - time.monotonic()))

    def close(self):
        self.stop.set()
        self.thread.join(5)
        self.inj.close()


def top(sw, *args, timeout=20):
    r = sw.ctl_raw("top", *args, json_out=False, timeout=timeout)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def rates(before, after, seconds):
    """Per-second deltas of the counters top reports, from two `show ports` reads."""
    return {n: {k: (after[n][k] - before[n][k]) / seconds
                for k in ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "no_route")}
            for n in after}


def close_to(got, want, rel=0.35):
    return abs(got - want) <= rel * want


def test_top_rates_match_counter_deltas(sw):
    """Steps: steady traffic (200 frames/s routed p0 -> p1, 50 frames/s with no
    route); read show ports, run `railctl top --interval 1 --count 2 --json`,
    read show ports again; stop the traffic; run `top --count 1 --json` again.
    Verify: two frames of about 1 s each; in each, p0's rx_pps, p1's tx_pps, p0's
    drop_pps and the no_route drop rate equal the counters' deltas per second
    over the run (within 35 %: the stream is steady, not exact); bits per second
    are 8 x the byte rate (rx_bps / rx_pps is 8 x the frame size); ports without
    traffic show 0; the one worker's rx_pps and tx_pps equal the ports' (it hands
    nothing off) and its busy % is above 0 and below 100; once the traffic stops, every
    rate is 0.
    """
    stream = Stream(sw)
    try:
        time.sleep(0.5)
        c0, t0 = {n: p for n, p in sw.ports().items()}, time.monotonic()
        out = top(sw, "--interval", "1", "--count", "2", "--json")
        c1, t1 = {n: p for n, p in sw.ports().items()}, time.monotonic()
    finally:
        stream.close()
    want = rates(c0, c1, t1 - t0)
    assert want["p0"]["rx_packets"] > 100, want
    frames = [json.loads(line) for line in out.splitlines()]
    assert len(frames) == 2, out
    for f in frames:
        assert 0.9 <= f["interval_s"] <= 1.5, f
        ports = {p["name"]: p for p in f["ports"]}
        drops = {d["reason"]: d["pps"] for d in f["drops"]}
        assert close_to(ports["p0"]["rx_pps"], want["p0"]["rx_packets"]), (f, want)
        assert close_to(ports["p1"]["tx_pps"], want["p1"]["tx_packets"]), (f, want)
        assert close_to(ports["p0"]["rx_bps"], 8 * want["p0"]["rx_bytes"]), (f, want)
        assert close_to(ports["p1"]["tx_bps"], 8 * want["p1"]["tx_bytes"]), (f, want)
        assert close_to(ports["p0"]["drop_pps"], want["p0"]["no_route"]), (f, want)
        assert close_to(drops["no_route"], want["p0"]["no_route"]), (f, want)
        assert ports["p0"]["rx_bps"] == pytest.approx(8 * stream.size * ports["p0"]["rx_pps"],
                                                      rel=0.01), f
        assert ports["p2"]["rx_pps"] == ports["p2"]["tx_pps"] == 0, f
        assert {q["port"] for q in f["queues"]} == {"p0", "p1", "p2"}
        assert len(f["queues"]) == 24
        # one worker: it received and sent every frame; it polls, so it is rarely busy
        wk = f["workers"]
        assert [(w["worker"], w["lcore"]) for w in wk] == [(0, 1)], f
        assert close_to(wk[0]["rx_pps"], sum(c["rx_packets"] for c in want.values())), (f, want)
        assert close_to(wk[0]["tx_pps"], sum(c["tx_packets"] for c in want.values())), (f, want)
        assert wk[0]["handed_off_ps"] == 0 and 0 < wk[0]["busy_pct"] < 100, f
    time.sleep(0.3)
    idle = json.loads(top(sw, "--interval", "0.5", "--count", "1", "--json"))
    assert all(p[k] == 0 for p in idle["ports"]
               for k in ("rx_pps", "tx_pps", "rx_bps", "tx_bps", "drop_pps")), idle
    assert all(d["pps"] == 0 for d in idle["drops"]), idle


def test_top_text_fits_80_columns(sw):
    """Steps: traffic as above; `railctl top --interval 0.5 --count 2` (not a
    terminal: no escape sequences). Verify: two frames, every line at most 80
    columns, no escape character; each frame has the port table (PORT header,
    rows p0 p1 p2 with their link state), a drops/s line naming no_route, the
    queue summary and the worker table (worker 0 on lcore 1); p0's RX pkt/s is
    not 0."""
    stream = Stream(sw)
    try:
        time.sleep(0.3)
        out = top(sw, "--interval", "0.5", "--count", "2")
    finally:
        stream.close()
    assert "\033" not in out
    assert all(len(line) <= 80 for line in out.splitlines()), out
    assert out.count("frame ") == 2 and "frame 2 of 2" in out, out
    rows = [line.split() for line in out.splitlines()]
    p0 = [r for r in rows if r and r[0] == "p0"]
    assert len(p0) == 2 and all(r[1] != "0" and r[-1] == "up" for r in p0), out
    assert sum(1 for r in rows if r and r[0] == "PORT") == 2, out
    assert out.count("drops/s:") == 2 and "no_route" in out, out
    wk = [r for r in rows if len(r) == 6 and r[:2] == ["0", "1"]]
    assert sum(1 for r in rows if r and r[0] == "WORKER") == 2 and len(wk) == 2, out


def test_top_usage_and_unreachable(build, tmp_path):
    """Verify: a bad --count or --interval is a usage error (exit 2, message);
    an unreachable socket exits 2 naming the socket."""
    railctl = os.path.join(build, "control", "railctl")
    for args in (["--count", "0"], ["--interval", "0"], ["--count", "x"], ["--bogus"]):
        r = railsw.run([railctl, "top"] + args, check=False)
        assert r.returncode == 2 and "top" in r.stderr, (args, r.stderr)
    sock = str(tmp_path / "none.sock")
    r = railsw.run([railctl, "-s", sock, "top", "--count", "1"], check=False)
    assert r.returncode == 2 and sock in r.stderr, r.stderr


def test_show_ports_long_devargs_keep_columns(make_switch, tmp_path):
    """`railctl show ports` on a switch with a memif port whose devargs are long.

    Steps: a switch with two TAPs and a memif server port (socket in a deep
    scratch directory: devargs of ~100 characters); `railctl show ports`,
    `railctl help`. Verify: one block holds every port (the header line names
    t0, t1 and m0), no line of it is wider than 120 columns, the devargs follow the
    block one port per line, in full (the only lines that may be wider);
    `help` lists plan and top.
    """
    deep = tmp_path / ("d" * 40)
    deep.mkdir()
    devargs = f"net_memif0,role=server,socket={deep}/m0.sock"
    assert len(devargs) > 80
    sw = make_switch({"ports": [{"name": "t0", "ipv4": "10.1.0.254/24"},
                                {"name": "t1", "ipv4": "10.2.0.254/24"},
                                {"name": "m0", "devargs": devargs,
                                 "mac": "02:00:00:00:0e:02", "ipv4": "10.9.0.254/24"}]})
    r = sw.ctl_raw("show", "ports", json_out=False)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["name", "t0", "t1", "m0"], r.stdout
    assert sum(1 for ln in lines if ln.split()[:1] == ["name"]) == 1, r.stdout
    i = lines.index("devargs:")
    assert all(len(ln) <= 120 for ln in lines[:i]), r.stdout
    assert lines[i + 3].split() == ["m0", devargs], r.stdout
    rx = [ln for ln in lines if ln.startswith("rx_packets")]
    assert len(rx) == 1 and len(rx[0]) <= 80, r.stdout
    h = sw.ctl_raw("help", json_out=False).stdout
    assert any(ln.startswith("plan FILE") for ln in h.splitlines()), h
    assert any(ln.startswith("top [") for ln in h.splitlines()), h
