# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""UEC credit-based flow control between two railsw (docs/link.md).

    host0 -- s0 \\
                 [A] up ==memif== down [B] d0 (1 Mb/s)  -- destination
    host1 -- s1 /

Two Scapy hosts send numbered UDP frames of the lossless TC 3 (DSCP 26) into
switch A at once; A forwards both streams over memif to switch B, whose port d0
is shaped to 1 Mb/s: B's buffer for what `down` receives would overflow, and
without CBFC B would pause A with PFC.

- CBFC on both memif ends: every frame arrives, nothing is dropped, no PFC frame
  crosses the memif link; at rest B's `credits_granted` equals A's
  `credits_consumed` + `credits_tx_available`.
- A peer without CBFC: A falls back (`state: fallback`), B pauses A with PFC
  again.
- CBFC and LLR on both ends, 1 % loss both ways: credit messages are lost too
  (they are never sequenced by LLR) and heal; every frame arrives once.
- CBFC and LLR on both ends, A's link losing everything for a while: LLR FLUSHes
  frames A spent credits on; their credits come back with the next traffic.
- A reload that changes `cbfc` is refused: `requires restart: ports.up.cbfc`.
"""

import errno
import json
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
PER_HOST = int(os.environ.get("RAILSW_CBFC_FRAMES", "150"))
SIZE = 1000
MAGIC = b"RSWCBF"
HOST_MAC = {"s0": "02:aa:00:00:21:01", "s1": "02:aa:00:00:22:01"}
HOST_IP = {"s0": "10.1.0.1", "s1": "10.2.0.1"}
DST_MAC, DST_IP = "02:aa:00:00:90:02", "10.9.0.1"
A_UP_MAC, B_DOWN_MAC = "02:00:00:00:0c:21", "02:00:00:00:0d:21"
QOS = {"dscp_to_tc": {26: 3}, "lossless": [3]}


@pytest.fixture
def scratch():
    """A scratch directory for the memif socket; named so cleanup_stale() finds it."""
    d = tempfile.mkdtemp(prefix=f"rswt-{PID}-0.cbfc.")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def pair(make_switch, scratch, a_port=None, b_port=None):
    """Switch A (TAPs s0, s1, memif server `up`) and B (memif client `down`, TAP d0
    at 10 Mb/s); a_port and b_port are added to the memif ports' configs."""
    sock = os.path.join(scratch, "up.sock")
    up = {"name": "up", "devargs": f"net_memif0,role=server,socket={sock}",
          "mac": A_UP_MAC, "ipv4": "10.255.0.1/30"}
    down = {"name": "down", "devargs": f"net_memif0,role=client,socket={sock}",
            "mac": B_DOWN_MAC, "ipv4": "10.255.0.2/30"}
    up.update(a_port or {})
    down.update(b_port or {})
    a = make_switch({
        "switch": {"role": "leaf"},
        "ports": [{"name": "s0", "ipv4": "10.1.0.254/24"},
                  {"name": "s1", "ipv4": "10.2.0.254/24"}, up],
        "neighbors": [{"ip": HOST_IP["s0"], "mac": HOST_MAC["s0"], "port": "s0"},
                      {"ip": HOST_IP["s1"], "mac": HOST_MAC["s1"], "port": "s1"},
                      {"ip": "10.255.0.2", "mac": B_DOWN_MAC, "port": "up"}],
        "routes": [{"prefix": "10.9.0.0/24", "nexthops": ["10.255.0.2"]}],
        "qos": QOS,
    })
    b = make_switch({
        "switch": {"role": "spine"},
        "ports": [down, {"name": "d0", "ipv4": "10.9.0.254/24", "speed": "1M"}],
        "neighbors": [{"ip": DST_IP, "mac": DST_MAC, "port": "d0"},
                      {"ip": "10.255.0.1", "mac": A_UP_MAC, "port": "down"}],
        "routes": [{"prefix": "10.0.0.0/8", "nexthops": ["10.255.0.1"]}],
        "qos": QOS,
    })
    for sw, p in ((a, "up"), (b, "down")):
        wait_until(lambda: sw.ports()[p]["link_up"], 10, what=f"memif {p} up")
    return a, b


def frame(a, port, seq):
    f = Ether(dst=a.mac[port], src=HOST_MAC[port]) / \
        IP(src=HOST_IP[port], dst=DST_IP, ttl=64, tos=26 << 2) / \
        UDP(sport=4791, dport=5000) / Raw(MAGIC + struct.pack("!BI", port == "s1", seq))
    return bytes(f) + b"\0" * (SIZE - len(f))


def tag(data):
    i = data.find(MAGIC)
    if i < 0:
        return None
    return struct.unpack("!BI", data[i + len(MAGIC):i + len(MAGIC) + 5])


def send(inj, iface, data, tries=200):
    """inj.send, waiting out a full socket queue (ENOBUFS on a busy machine): every frame
    is sent, so the test can count them at the other end."""
    for _ in range(tries):
        try:
            inj.send(iface, data)
            return
        except OSError as e:
            if e.errno != errno.ENOBUFS:
                raise
            time.sleep(0.005)
    raise TimeoutError(f"{iface}: the socket stayed full")


def incast(a, b, per_host=PER_HOST, timeout=30):
    """Both hosts send per_host frames, interleaved; return the (host, seq) tags seen at
    the destination in arrival order."""
    inj = railsw.Injector()
    try:
        with railsw.Capture([b.tap["d0"]]) as cap:
            for i in range(per_host):
                send(inj, a.tap["s0"], frame(a, "s0", i))
                send(inj, a.tap["s1"], frame(a, "s1", i))
            got = cap.collect(count=2 * per_host, timeout=timeout, quiet=1.5,
                              match=lambda _i, d: tag(d) is not None)
    finally:
        inj.close()
    return [tag(d) for _, d in got if tag(d) is not None]


def cbfc_row(sw, port, vc=3):
    rows = [r for r in sw.ctl("show", "cbfc", port)["cbfc"] if r["vc"] == vc]
    assert len(rows) == 1 and rows[0]["port"] == port, rows
    return rows[0]


def pfc(sw, port, prio=3):
    return next(r for r in sw.ctl("show", "pfc", port)["pfc"] if r["priority"] == prio)


# Drop reasons a lossless incast must never see (the kernel's own chatter on the hosts'
# TAPs may be counted under others, such as l2_control).
LOSS = ("queue_drops", "lossless_drops", "tx_dropped", "cbfc_rx_bad", "watchdog_drops")


def drops(sw):
    return {r["reason"]: r["packets"] for r in sw.ctl("show", "drops")["drops"]
            if r["packets"] and r["reason"] in LOSS}


def assert_all_arrived(tags, per_host=PER_HOST, what=""):
    for h in (0, 1):
        seqs = [s for hh, s in tags if hh == h]
        assert seqs == list(range(per_host)), f"host {h}: {len(seqs)}/{per_host} {what}"


def assert_credits_at_rest(a, b):
    """At rest B's grant is what A spent plus what A may still spend: since `clear counters`
    (both switches, before the traffic), B granted exactly the credits A consumed, and A may
    spend B's whole buffer again."""
    def settled():
        ar, br = cbfc_row(a, "up"), cbfc_row(b, "down")
        return (br["credits_granted"] == ar["credits_consumed"] and
                ar["credits_tx_available"] == br["buffer_bytes"] // br["bytes_per_credit"])
    wait_until(settled, 5, what="credits at rest")


def test_cbfc_incast_lossless(make_switch, scratch):
    """CBFC on both memif ends; two hosts incast into B's 1 Mb/s port.

    Verify: both ends `state: active`; every frame arrives, in order per host; no
    drop on either switch; no PFC frame on the memif link (B sent none on `down`, A
    received none on `up`); A's sender stalled for credit (`stalled_ns` > 0) and
    spent credits, B granted them and sent credit messages; at rest B's
    `credits_granted` = A's `credits_consumed` + `credits_tx_available`, and the
    buffers are empty.
    """
    a, b = pair(make_switch, scratch, {"cbfc": True}, {"cbfc": True})
    wait_until(lambda: cbfc_row(a, "up")["state"] == "active" and
               cbfc_row(b, "down")["state"] == "active", 10, what="CBFC handshake")
    a.ctl("clear", "counters")
    b.ctl("clear", "counters")
    tags = incast(a, b)
    ar, br = cbfc_row(a, "up"), cbfc_row(b, "down")
    summary = f"A {ar}; B {br}; A drops {drops(a)}; B drops {drops(b)}"
    assert_all_arrived(tags, what=summary)
    assert drops(a) == {} and drops(b) == {}, summary
    assert pfc(b, "down")["tx_xoff"] == 0 and pfc(a, "up")["rx_xoff"] == 0, summary
    assert ar["stalled_ns"] > 0 and ar["credits_consumed"] > 0, summary
    assert br["credits_granted"] > br["buffer_bytes"] // br["bytes_per_credit"], summary
    assert br["credit_msgs_tx"] > 0 and ar["credit_msgs_rx"] > 0, summary
    assert br["peer_synced"] is True and ar["gated"] is True, summary
    assert_credits_at_rest(a, b)
    for sw in (a, b):
        wait_until(lambda: sw.ctl("show", "buffer")["buffer"]["used"] == 0, 5,
                   what="buffer empty")
    assert a.ports()["up"]["cbfc_originated"] > 0 and b.ports()["down"]["cbfc_consumed"] > 0


def test_cbfc_peer_without_cbfc(make_switch, scratch):
    """A enables CBFC, B does not.

    Verify: A's handshake times out into `state: fallback` (no answer, `fallback`
    pfc), its VC not gated; B (`state: off`) guards its buffer with PFC again: XOFF
    frames cross the memif link (B sends them on `down`, A receives them on `up`).
    Nothing more is promised here: PFC over a software link lets the frames already
    in the memif ring overrun a headroom sized for a wire, which CBFC does not.
    """
    a, b = pair(make_switch, scratch, {"cbfc": True}, {})
    # A keeps sending INIT now and then: B's counters (l2_control) never settle.
    b.unconserved = "its CBFC peer keeps sending INIT: its counters never settle"
    wait_until(lambda: cbfc_row(a, "up")["state"] == "fallback", 10, what="fallback")
    ar = cbfc_row(a, "up")
    assert ar["fallback"] == "pfc" and ar["credit_msgs_rx"] == 0, ar
    assert cbfc_row(b, "down")["state"] == "off"
    a.ctl("clear", "counters")
    b.ctl("clear", "counters")
    tags = incast(a, b, timeout=8)
    summary = f"A {cbfc_row(a, 'up')}; B pfc {pfc(b, 'down')}; A pfc {pfc(a, 'up')}"
    assert len(tags) > PER_HOST, summary
    assert pfc(b, "down")["tx_xoff"] > 0 and pfc(a, "up")["rx_xoff"] > 0, summary
    ar = cbfc_row(a, "up")
    assert ar["state"] == "fallback" and ar["gated"] is False and ar["inits_tx"] > 0, ar


def test_cbfc_heals_lost_credit_messages(make_switch, scratch):
    """CBFC and LLR on both ends, 1 % loss on both memif ends.

    Verify: credit messages were lost (every frame a port transmits may be, and
    they are not LLR's to replay) yet the incast completes: every frame once, in
    order per host, no PFC on the memif link, no lossless drop; every frame
    arrived, so no credit was healed (a frame LLR replays is counted once); at
    rest the credits add up again.
    """
    im = {"loss": 0.01, "seed": 21}
    a, b = pair(make_switch, scratch, {"cbfc": True, "llr": True, "impair": im},
                {"cbfc": True, "llr": True, "impair": dict(im, seed=22)})
    wait_until(lambda: cbfc_row(a, "up")["state"] == "active" and
               cbfc_row(b, "down")["state"] == "active", 10, what="CBFC handshake")
    a.ctl("clear", "counters")
    b.ctl("clear", "counters")
    tags = incast(a, b, timeout=40)
    ar, br = cbfc_row(a, "up"), cbfc_row(b, "down")
    summary = f"A {ar}; B {br}; drops {drops(a)} {drops(b)}"
    assert_all_arrived(tags, what=summary)
    # Credit messages were lost both ways: CREDIT from B, CONSUMED from A.
    assert ar["credit_msgs_rx"] < br["credit_msgs_tx"], summary
    assert br["credit_msgs_rx"] < ar["credit_msgs_tx"], summary
    assert pfc(b, "down")["tx_xoff"] == 0, summary
    assert drops(a) == {} and drops(b) == {}, summary
    assert_credits_at_rest(a, b)
    assert cbfc_row(b, "down")["credits_healed"] == 0, summary


def llr_row(sw, port):
    rows = sw.ctl("show", "llr", port)["llr"]
    assert len(rows) == 1, rows
    return rows[0]


def test_cbfc_llr_flush_heals(make_switch, scratch):
    """CBFC and LLR on both ends; A's `up` loses everything it sends while 20 frames
    of TC 3 go out, until LLR FLUSHes them; then the loss stops and 20 more frames
    follow.

    Verify: A FLUSHed (`tx_flushes` >= 1); the second frames all arrive; B returned
    exactly the credits of the 20 lost frames (`credits_healed`); at rest B's grant
    is A's consumed count and A may spend the whole buffer again (the credits of
    frames a FLUSH dropped stay spent no longer).
    """
    a, b = pair(make_switch, scratch, {"cbfc": True, "llr": True},
                {"cbfc": True, "llr": True})
    wait_until(lambda: cbfc_row(a, "up")["state"] == "active" and
               cbfc_row(b, "down")["state"] == "active" and
               llr_row(a, "up")["state"] == "advance", 10, what="CBFC and LLR handshakes")
    a.ctl("clear", "counters")
    b.ctl("clear", "counters")
    assert a.ctl("port", "up", "impair", "loss", "1") == {"ok": True}
    inj = railsw.Injector()
    try:
        for i in range(20):
            send(inj, a.tap["s0"], frame(a, "s0", i))
    finally:
        inj.close()
    wait_until(lambda: llr_row(a, "up")["tx_flushes"] >= 1, 10, what="LLR FLUSH")
    assert a.ctl("port", "up", "impair", "off") == {"ok": True}
    tags = incast(a, b, per_host=10, timeout=20)
    ar, br, lr = cbfc_row(a, "up"), cbfc_row(b, "down"), llr_row(a, "up")
    summary = f"A {ar}; B {br}; A llr {lr}"
    assert sorted(tags) == [(h, i) for h in (0, 1) for i in range(10)], summary
    assert lr["tx_flushed_frames"] >= 20, summary
    assert_credits_at_rest(a, b)
    per_frame = -(-SIZE // br["bytes_per_credit"])
    assert cbfc_row(b, "down")["credits_healed"] == 20 * per_frame, summary


def test_cbfc_reload_refused(make_switch, scratch):
    """A reload that turns `cbfc` off is refused and changes nothing."""
    a, b = pair(make_switch, scratch, {"cbfc": True}, {"cbfc": True})
    wait_until(lambda: cbfc_row(a, "up")["state"] == "active", 10, what="CBFC handshake")
    cfg = json.loads(json.dumps(a.config))
    next(p for p in cfg["ports"] if p["name"] == "up")["cbfc"] = False
    path = os.path.join(scratch, "a2.yaml")
    with open(path, "w") as f:
        f.write(railsw.to_yaml(cfg) + "\n")
    r = a.ctl_raw("reload", path)
    assert r.returncode != 0 and "requires restart: ports.up.cbfc" in r.stdout + r.stderr, r
    assert cbfc_row(a, "up")["state"] == "active"
