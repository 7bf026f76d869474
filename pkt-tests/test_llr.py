# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Injected faults and Link-Level Retry between two railsw (docs/link.md).

    host -- s0 [leaf] up ==memif== down [spine] d0 -- destination

The leaf's uplink and the spine's downlink are joined by memif; both may run
LLR (`ports[].llr`) and inject faults into what they transmit
(`ports[].impair`, `port NAME impair ...`). A Scapy host sends FRAMES
numbered UDP frames into the leaf; the destination TAP captures what the
spine forwards.

- LLR on, 1 % loss both ways (data one way, ACK/NACK the other): every frame
  arrives once and in order; the leaf replayed, the spine NACKed; nothing
  is lost.
- LLR off, 1 % loss set at run time: the frames missing at the destination
  are exactly the leaf's `impair_dropped`, also a `show drops` reason.
- impairments with zero loss: nothing changes; `impair off` removes them.
- a peer without LLR: the leaf stays `state: init`, sends INIT, and its
  frames go out without the shim (fallback best-effort): all arrive.
- a busy machine: the 1 % loss test again, with two busy loops pinned to
  each CPU while the frames flow, several rounds: every frame once, in order,
  no FLUSH (the replay timer follows the measured round trip).
"""

import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

import pytest
from scapy.all import IP, UDP, Ether, Raw

import railsw
from railsw import free_tcp_port, telemetry, wait_until

PID = os.getpid()
FRAMES = int(os.environ.get("RAILSW_LLR_FRAMES", "1500"))
SIZE = 300
MAGIC = b"RSWLLR"
HOST_MAC, HOST_IP = "02:aa:00:00:20:01", "10.1.0.1"
DST_MAC, DST_IP = "02:aa:00:00:90:02", "10.9.0.1"
LEAF_UP_MAC, SPINE_DOWN_MAC = "02:00:00:00:0c:20", "02:00:00:00:0d:20"


@pytest.fixture
def scratch():
    """A scratch directory for the memif socket; named so cleanup_stale() finds it."""
    d = tempfile.mkdtemp(prefix=f"rswt-{PID}-0.llr.")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def chain(make_switch, scratch, leaf_port=None, spine_port=None, leaf_control=None):
    """The leaf (TAP s0, memif server `up`) and the spine (memif client `down`,
    TAP d0); leaf_port and spine_port are added to the memif ports' configs,
    leaf_control is the leaf's `control:`."""
    sock = os.path.join(scratch, "up.sock")
    up = {"name": "up", "devargs": f"net_memif0,role=server,socket={sock}",
          "mac": LEAF_UP_MAC, "ipv4": "10.255.0.1/30"}
    down = {"name": "down", "devargs": f"net_memif0,role=client,socket={sock}",
            "mac": SPINE_DOWN_MAC, "ipv4": "10.255.0.2/30"}
    up.update(leaf_port or {})
    down.update(spine_port or {})
    leaf_cfg = {
        "switch": {"role": "leaf"},
        "ports": [{"name": "s0", "ipv4": "10.1.0.254/24"}, up],
        "neighbors": [{"ip": HOST_IP, "mac": HOST_MAC, "port": "s0"},
                      {"ip": "10.255.0.2", "mac": SPINE_DOWN_MAC, "port": "up"}],
        "routes": [{"prefix": "10.9.0.0/24", "nexthops": ["10.255.0.2"]}],
    }
    if leaf_control:
        leaf_cfg["control"] = dict(leaf_control)
    leaf = make_switch(leaf_cfg)
    spine = make_switch({
        "switch": {"role": "spine"},
        "ports": [down, {"name": "d0", "ipv4": "10.9.0.254/24"}],
        "neighbors": [{"ip": DST_IP, "mac": DST_MAC, "port": "d0"},
                      {"ip": "10.255.0.1", "mac": LEAF_UP_MAC, "port": "down"}],
        "routes": [{"prefix": "10.1.0.0/16", "nexthops": ["10.255.0.1"]}],
    })
    for sw, p in ((leaf, "up"), (spine, "down")):
        wait_until(lambda: sw.ports()[p]["link_up"], 10, what=f"memif {p} up")
    return leaf, spine


def frame(leaf, seq):
    f = Ether(dst=leaf.mac["s0"], src=HOST_MAC) / \
        IP(src=HOST_IP, dst=DST_IP, ttl=64) / \
        UDP(sport=4791, dport=5000) / Raw(MAGIC + struct.pack("!I", seq))
    return bytes(f) + b"\0" * (SIZE - len(f))


def tag(data):
    i = data.find(MAGIC)
    if i < 0:
        return None
    return struct.unpack("!I", data[i + len(MAGIC):i + len(MAGIC) + 4])[0]


def run(leaf, spine, frames=FRAMES, timeout=20, pkts=None, rate=None):
    """Send frames 0..frames-1 into the leaf (pkts: those frames, built already;
    rate: at most that many a second, in bursts of 10, else as fast as they are
    built); return the sequence numbers seen at the destination, in arrival order
    (after nothing came for a second)."""
    if pkts is None:
        pkts = (frame(leaf, i) for i in range(frames))
    inj = railsw.Injector()
    try:
        with railsw.Capture([spine.tap["d0"]]) as cap:
            nxt = time.monotonic()
            for i, f in enumerate(pkts):
                if rate is not None and i % 10 == 0:
                    # Behind (a busy machine): go on from now, without a catch-up burst.
                    nxt = max(nxt + 10 / rate, time.monotonic())
                    time.sleep(max(0.0, nxt - time.monotonic()))
                inj.send(leaf.tap["s0"], f)
            got = cap.collect(count=frames, timeout=timeout, quiet=1.0,
                              match=lambda _i, d: tag(d) is not None)
    finally:
        inj.close()
    return [tag(d) for _, d in got if tag(d) is not None]


# The busy-machine test: rounds of frames, each with BUSY_PER_CPU busy loops on every CPU.
BUSY_ROUNDS = int(os.environ.get("RAILSW_LLR_BUSY_ROUNDS", "4"))
BUSY_FRAMES = int(os.environ.get("RAILSW_LLR_BUSY_FRAMES", "2000"))
# Frames a second (0: as fast as the socket takes them, and then the host's TAP queue toward a
# descheduled leaf overflows: frames lost before the switch, not on the link).
BUSY_RATE = int(os.environ.get("RAILSW_LLR_BUSY_RATE", "2000"))
BUSY_PER_CPU = 2
BUSY_LIMIT_S = 300  # a busy loop stops by itself after this long, whatever happens to the test
BUSY_LOOP = """
import os, sys, time
os.sched_setaffinity(0, {int(sys.argv[1])})
end = time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    pass
"""


def busy_start():
    """BUSY_PER_CPU busy loops pinned to each CPU this process may use; their Popen objects."""
    procs = []
    try:
        for cpu in sorted(os.sched_getaffinity(0)):
            for _ in range(BUSY_PER_CPU):
                procs.append(subprocess.Popen(
                    [sys.executable, "-c", BUSY_LOOP, str(cpu), str(BUSY_LIMIT_S)],
                    stdin=subprocess.DEVNULL))
    except BaseException:
        busy_stop(procs)
        raise
    return procs


def busy_stop(procs):
    """Stop the busy loops by PID (bounded wait)."""
    for p in procs:
        if p.poll() is None:
            p.kill()
    for p in procs:
        p.wait(timeout=10)


def llr_row(sw, port):
    rows = sw.ctl("show", "llr", port)["llr"]
    assert len(rows) == 1 and rows[0]["port"] == port, rows
    return rows[0]


def metric(port, name, label):
    """The value of the Prometheus sample name{label} on 127.0.0.1:port, or None."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET /metrics HTTP/1.0\r\nHost: railsw\r\n\r\n")
        resp = b""
        while chunk := s.recv(65536):
            resp += chunk
    m = re.search(rf"^{re.escape(name + '{' + label + '}')} (\S+)$", resp.decode(), re.M)
    return float(m.group(1)) if m else None


def drops(sw):
    return {r["reason"]: r["packets"] for r in sw.ctl("show", "drops")["drops"]}


def test_llr_recovers_losses(make_switch, scratch):
    """LLR on both memif ends, 1 % loss both ways.

    Verify: every frame arrives exactly once and in order; both ends reach
    `state: advance`; the leaf lost frames on the wire (`impair_dropped` > 0)
    and replayed them (`tx_replayed` > 0, after a NACK or the replay timer), the spine
    acknowledged; the spine discarded duplicates or frames after a gap, named
    in `show drops`; both count what LLR originated and consumed; the replay
    buffer and the shared buffer empty. The leaf measured a round trip
    (`rtt_us` > 0, `rto_us` at least it), and telemetry (`/railsw/llr,up`) and
    Prometheus (`railsw_llr_rtt_us{port="up"}`, `railsw_llr_rto_us`) say the same;
    the port without LLR shows 0 for both.
    """
    im = {"loss": 0.01, "seed": 11}
    mport = free_tcp_port()
    leaf, spine = chain(make_switch, scratch,
                        {"llr": True, "impair": im}, {"llr": True, "impair": dict(im, seed=12)},
                        {"metrics_listen": f"127.0.0.1:{mport}"})
    wait_until(lambda: llr_row(leaf, "up")["state"] == "advance" and
               llr_row(spine, "down")["state"] == "advance", 10, what="LLR handshake")
    leaf.ctl("clear", "counters")
    spine.ctl("clear", "counters")
    tags = run(leaf, spine)
    lr, sr = llr_row(leaf, "up"), llr_row(spine, "down")
    lp, sp = leaf.ports()["up"], spine.ports()["down"]
    summary = f"arrived {len(tags)}/{FRAMES}; leaf {lr} {lp}; spine {sr} {sp}"
    assert tags == list(range(FRAMES)), summary
    assert lp["impair_dropped"] > 0, summary
    assert lr["tx_replayed"] > 0 and lr["nacks_rx"] + lr["tx_replay_timeouts"] > 0, summary
    assert sr["acks_tx"] > 0 and lr["acks_rx"] > 0, summary
    assert sr["rx_frames"] == FRAMES, summary
    assert lr["tx_flushes"] == 0 and lr["tx_flushed_frames"] == 0, summary
    assert lp["llr_originated"] >= lr["tx_replayed"], summary
    assert sp["llr_originated"] >= sr["acks_tx"] + sr["nacks_tx"], summary
    assert lp["llr_consumed"] >= lr["acks_rx"] + lr["nacks_rx"], summary
    # Replays of frames that did arrive (their ACK was lost, or a NACK went back
    # further) are discarded as duplicates; a gap makes the following frames
    # missing until the replay: both are `show drops` reasons.
    sd = drops(spine)
    discards = sr["rx_duplicate_seq"] + sr["rx_missing_seq"]
    assert discards > 0, summary
    assert sd["llr_rx_duplicate_seq"] + sd["llr_rx_missing_seq"] == discards, sd
    wait_until(lambda: llr_row(leaf, "up")["replay_buffer_frames"] == 0, 5,
               what="the leaf's replay buffer emptied")
    # The replay ring's bytes were charged to the buffer and are released.
    wait_until(lambda: leaf.ctl("show", "buffer")["buffer"]["used"] == 0, 5,
               what="the leaf's buffer empty")
    # The replay timer: a round trip was measured, the timer is at least it; at rest
    # (nothing to acknowledge) railctl, telemetry and Prometheus give the same values.
    lr = llr_row(leaf, "up")
    assert 0 < lr["rtt_us"] <= lr["rto_us"], lr
    wait_until(lambda: {k: telemetry(leaf, "/railsw/llr,up")["up"][k]
                        for k in ("rtt_us", "rto_us")} ==
               {"rtt_us": lr["rtt_us"], "rto_us": lr["rto_us"]}, 5,
               what="telemetry's rtt_us and rto_us")
    for k in ("rtt_us", "rto_us"):
        assert metric(mport, "railsw_llr_" + k, 'port="up"') == lr[k], k
    # A port without LLR shows 0 for both.
    s0 = llr_row(leaf, "s0")
    assert s0["state"] == "off" and s0["rtt_us"] == 0 and s0["rto_us"] == 0, s0


def test_impair_without_llr(make_switch, scratch):
    """No LLR; impairments set and changed at run time on the leaf's uplink.

    Verify: with `port up impair loss 0` every frame arrives and
    `impair_dropped` stays 0; with `port up impair loss 0.01 seed 5`, frames
    are missing and their count equals `impair_dropped` in `show ports` and in
    `show drops`; `port up impair off` stops the losses; bad words are refused; a
    reload whose file sets `impair: { loss: 1 }` on the port applies it (all lost).
    """
    leaf, spine = chain(make_switch, scratch)
    assert leaf.ctl("port", "up", "impair", "loss", "0") == {"ok": True}
    leaf.ctl("clear", "counters")
    tags = run(leaf, spine, 300)
    assert tags == list(range(300))
    assert leaf.ports()["up"]["impair_dropped"] == 0

    assert leaf.ctl("port", "up", "impair", "loss", "0.01", "seed", "5") == {"ok": True}
    leaf.ctl("clear", "counters")
    tags = run(leaf, spine)
    lost = leaf.ports()["up"]["impair_dropped"]
    summary = f"arrived {len(tags)}/{FRAMES}, impair_dropped {lost}"
    assert len(set(tags)) == len(tags), summary
    assert tags == sorted(tags), summary
    assert 0 < lost == FRAMES - len(tags), summary
    assert drops(leaf)["impair_dropped"] == lost

    assert leaf.ctl("port", "up", "impair", "off") == {"ok": True}
    leaf.ctl("clear", "counters")
    assert run(leaf, spine, 300) == list(range(300))
    assert leaf.ports()["up"]["impair_dropped"] == 0
    for words in (("loss", "2"), ("loss",), ("jitter", "1"), ("delay_us", "-1")):
        r = leaf.ctl_raw("port", "up", "impair", *words)
        assert r.returncode != 0 and "impair" in r.stdout + r.stderr, (words, r)

    # A reload whose file gives the port impairments applies them.
    cfg = json.loads(json.dumps(leaf.config))
    next(p for p in cfg["ports"] if p["name"] == "up")["impair"] = {"loss": 1.0}
    path = os.path.join(scratch, "leaf2.yaml")
    with open(path, "w") as f:
        f.write(railsw.to_yaml(cfg) + "\n")
    assert leaf.ctl("reload", path)["ok"] is True
    leaf.ctl("clear", "counters")
    assert run(leaf, spine, 50, timeout=2) == []
    assert leaf.ports()["up"]["impair_dropped"] == 50


def test_llr_peer_without_llr(make_switch, scratch):
    """The leaf enables LLR, the spine does not.

    Verify: the leaf stays in `state: init` and keeps sending INIT; its frames
    go without the shim (fallback best-effort, `tx_fallback_plain`), and all
    arrive; a reload that turns `llr` off is refused (`requires restart`); the
    spine's row says `state: off` with zero counters.
    """
    leaf, spine = chain(make_switch, scratch, {"llr": True})
    # The leaf sends INIT every few milliseconds for as long as it runs: the spine's
    # counters (l2_control drops) never settle, so the conservation check skips it.
    spine.unconserved = "its LLR peer keeps sending INIT: its counters never settle"
    time.sleep(0.05)
    leaf.ctl("clear", "counters")
    tags = run(leaf, spine, 300)
    lr = llr_row(leaf, "up")
    assert tags == list(range(300)), lr
    assert lr["state"] == "init", lr
    assert lr["inits_tx"] > 0 and lr["init_echoes_rx"] == 0 and lr["tx_frames"] == 0, lr
    assert lr["tx_fallback_plain"] >= 300, lr
    # Turning LLR off needs a restart: a reload says so and changes nothing.
    cfg = json.loads(json.dumps(leaf.config))
    next(p for p in cfg["ports"] if p["name"] == "up")["llr"] = False
    path = os.path.join(scratch, "leaf2.yaml")
    with open(path, "w") as f:
        f.write(railsw.to_yaml(cfg) + "\n")
    r = leaf.ctl_raw("reload", path)
    assert r.returncode != 0 and "requires restart: ports.up.llr" in r.stdout + r.stderr, r
    assert llr_row(leaf, "up")["state"] == "init"
    sr = llr_row(spine, "down")
    assert sr["state"] == "off" and sr["rx_frames"] == 0 and sr["acks_tx"] == 0, sr
    assert spine.ports()["down"]["l2_control"] >= lr["inits_tx"] - 5, spine.ports()["down"]


def test_llr_busy_machine(make_switch, scratch):
    """LLR on both memif ends, 1 % loss both ways, on a machine kept busy.

    Steps: BUSY_ROUNDS rounds; in each, start BUSY_PER_CPU busy loops pinned to
    every CPU (by PID), send BUSY_FRAMES frames through the leaf, collect them at
    the destination, stop the loops (by PID).
    Verify, every round: the busy loops were still running when the last frame
    arrived; every frame arrives exactly once and in order; neither end
    flushed (`tx_flushes`, `tx_flushed_frames` 0) and both stay in `advance`;
    the spine accepted each frame once; losses happened and were replayed. The
    round trip was measured (`rtt_us` > 0) and the replay timer in force
    (`rto_us`) is at least the measured round trip.
    """
    im = {"loss": 0.01, "seed": 21}
    leaf, spine = chain(make_switch, scratch,
                        {"llr": True, "impair": im}, {"llr": True, "impair": dict(im, seed=22)})
    wait_until(lambda: llr_row(leaf, "up")["state"] == "advance" and
               llr_row(spine, "down")["state"] == "advance", 10, what="LLR handshake")
    pkts = [frame(leaf, i) for i in range(BUSY_FRAMES)]  # built before the loops start
    for rnd in range(BUSY_ROUNDS):
        leaf.ctl("clear", "counters")
        spine.ctl("clear", "counters")
        busy = busy_start()
        t0 = time.monotonic()
        try:
            tags = run(leaf, spine, BUSY_FRAMES, timeout=60, pkts=pkts, rate=BUSY_RATE or None)
            running = sum(p.poll() is None for p in busy)
        finally:
            busy_stop(busy)
        took = time.monotonic() - t0
        lr, sr = llr_row(leaf, "up"), llr_row(spine, "down")
        lp = leaf.ports()["up"]
        ld = {k: v for k, v in drops(leaf).items() if v}
        summary = (f"round {rnd}: arrived {len(tags)}/{BUSY_FRAMES}, "
                   f"{len(tags) - len(set(tags))} twice; leaf drops {ld}; leaf {lr} {lp}; "
                   f"spine {sr}")
        print(f"round {rnd} ({took:.1f} s): leaf rtt_us {lr['rtt_us']} rto_us {lr['rto_us']} "
              f"tx_replay_timeouts {lr['tx_replay_timeouts']} tx_replayed {lr['tx_replayed']} "
              f"nacks_rx {lr['nacks_rx']} spine rx_duplicate_seq {sr['rx_duplicate_seq']} "
              f"impair_dropped {lp['impair_dropped']}")
        assert running == len(busy), f"round {rnd}: only {running}/{len(busy)} busy loops ran"
        assert tags == list(range(BUSY_FRAMES)), summary
        for r in (lr, sr):
            assert r["tx_flushes"] == 0 and r["tx_flushed_frames"] == 0, summary
            assert r["state"] == "advance", summary
        assert sr["rx_frames"] == BUSY_FRAMES, summary
        assert lp["impair_dropped"] > 0 and lr["tx_replayed"] > 0, summary
        assert lr["rtt_us"] > 0 and lr["rto_us"] >= lr["rtt_us"], summary
        wait_until(lambda: llr_row(leaf, "up")["replay_buffer_frames"] == 0, 5,
                   what="the leaf's replay buffer emptied")
