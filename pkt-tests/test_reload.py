# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Live reload: `railctl reload [FILE]` and SIGHUP publish new tables while
traffic flows (nothing on an unchanged route is lost), a bad file or a change
that needs a restart is refused with a clear error and the old configuration
keeps running."""

import json
import os
import signal
import threading
import time

import pytest

import railsw
import topo
from topo import HOST_IP, marker, udp4


@pytest.fixture(scope="module")
def sw(build):
    with topo.running(build, topo.three_ports()) as s:
        yield s


def write_config(sw, name, mutate):
    """Write a variant of the running config (JSON is YAML) and return its path."""
    cfg = json.loads(json.dumps(sw.config))
    mutate(cfg)
    path = os.path.join(sw.tmp, name)
    with open(path, "w") as f:
        json.dump(cfg, f, indent=1)
    return path


def prefixes(sw):
    return [r["prefix"] for r in sw.ctl("show routes")["routes"]]


def test_reload_adds_route_and_counts_generation(sw):
    """A reload with one more route.

    Steps: reload a file with 10.40.0.0/16 added; then reload the original.
    Verify: {"ok": true, "generation": N+1}; the route is in `show routes`, then gone.
    """
    path = write_config(sw, "more.yaml", lambda c: c["routes"].append(
        {"prefix": "10.40.0.0/16", "nexthops": [HOST_IP["p2"]]}))
    r1 = sw.ctl("reload", path)
    assert r1["ok"] is True
    assert "10.40.0.0/16" in prefixes(sw)
    r2 = sw.ctl("reload", sw.conf)
    assert r2 == {"ok": True, "generation": r1["generation"] + 1}
    assert "10.40.0.0/16" not in prefixes(sw)


def test_reload_under_traffic_loses_nothing(sw, injector):
    """Reloads while a steady stream crosses an unchanged route.

    Steps: send 2000 marked frames to 10.20.0.0/16 (via p1) in 40 paced bursts
    while 6 reloads alternate between two files.
    Verify: all 2000 arrive on p1, each once; every reload answered ok.
    """
    path = write_config(sw, "alt.yaml", lambda c: c["routes"].append(
        {"prefix": "10.41.0.0/16", "nexthops": [HOST_IP["p2"]]}))
    tag = marker("reload")
    frames = [udp4(sw, "p0", "10.20.1.1", sport=1000 + (i % 50),
                   payload=tag + b"%06d" % i) for i in range(2000)]
    replies = []

    def reloads():
        for i in range(6):
            replies.append(sw.ctl("reload", path if i % 2 == 0 else sw.conf))
            time.sleep(0.05)

    with railsw.Capture([sw.tap["p1"]]) as cap:
        t = threading.Thread(target=reloads)
        t.start()
        for i in range(0, 2000, 50):
            injector.send(sw.tap["p0"], frames[i:i + 50])
            time.sleep(0.01)
        t.join(timeout=60)
        got = cap.collect(count=2000, timeout=15, match=lambda i, d: tag in d)
    seqs = sorted(int(d[d.index(tag) + len(tag):][:6]) for _, d in got if tag in d)
    assert len(replies) == 6 and all(r.get("ok") for r in replies), replies
    assert seqs == list(range(2000)), f"{len(seqs)} of 2000 arrived"


def test_reload_bad_file_keeps_running(sw, injector):
    """A file with a YAML error is refused with FILE:LINE; the old config runs.

    Verify: railctl exits 1 with `FILE:2:` on stderr; routes unchanged; a frame
    still crosses the switch.
    """
    bad = os.path.join(sw.tmp, "bad.yaml")
    with open(bad, "w") as f:
        f.write("switch: { name: x\nports: [\n")
    before = prefixes(sw)
    r = sw.ctl_raw("reload", bad, json_out=False)
    assert r.returncode == 1
    assert f"{bad}:" in r.stderr, r.stderr
    assert prefixes(sw) == before
    tag = marker("after-bad")
    with railsw.Capture([sw.tap["p1"]]) as cap:
        injector.send(sw.tap["p0"], [udp4(sw, "p0", "10.20.2.2", payload=tag)])
        got = cap.collect(count=1, timeout=3, match=lambda i, d: tag in d)
    assert len([d for _, d in got if tag in d]) == 1


@pytest.mark.parametrize("mutate,key", [
    (lambda c: c["ports"][0].__setitem__("mtu", 9000), "ports.p0.mtu"),
    (lambda c: c["ports"][1].__setitem__("ipv4", "10.2.9.254/24"), "ports.p1.ipv4"),
    (lambda c: c.setdefault("qos", {}).__setitem__("lossless", [3]), "qos.lossless"),
    (lambda c: c["ports"].append({"name": "p3", "devargs": "net_null0,no-rx=1",
                                  "ipv4": "10.4.0.254/24"}), "ports"),
])
def test_reload_refuses_restart_keys(sw, mutate, key):
    """Changes that need a restart are refused, naming the key.

    Verify: {"error": "requires restart: KEY"}, exit 1; generation unchanged.
    """
    path = write_config(sw, "restart.yaml", mutate)
    gen = sw.ctl("reload", sw.conf)["generation"]
    r = sw.ctl_raw("reload", path)
    assert r.returncode == 1
    assert json.loads(r.stdout) == {"error": f"requires restart: {key}"}
    assert sw.ctl("reload", sw.conf)["generation"] == gen + 1


def test_sighup_reloads_running_file(sw):
    """SIGHUP reloads the file the switch runs.

    Steps: rewrite the running file with 10.42.0.0/16 added; SIGHUP; then put
    the file back and SIGHUP again.
    Verify: the route appears, then disappears (polled, bounded).
    """
    original = open(sw.conf).read()
    try:
        path = write_config(sw, "hup.yaml", lambda c: c["routes"].append(
            {"prefix": "10.42.0.0/16", "nexthops": [HOST_IP["p1"]]}))
        os.replace(path, sw.conf)
        os.kill(sw.proc.pid, signal.SIGHUP)
        railsw.wait_until(lambda: "10.42.0.0/16" in prefixes(sw), 5, what="SIGHUP reload")
    finally:
        with open(sw.conf, "w") as f:
            f.write(original)
        os.kill(sw.proc.pid, signal.SIGHUP)
    railsw.wait_until(lambda: "10.42.0.0/16" not in prefixes(sw), 5, what="second reload")
