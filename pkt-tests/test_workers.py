# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""`railctl show workers` with two workers: the rx queues each polls, the frames each
received, sent and handed to the other, busy %, `clear counters`, and the same rows in
`describe`, Prometheus and DPDK telemetry.

Two net_pcap ports on veth pairs (one rx and one tx queue each: one sender per port) take N
frames each, routed out of the other port, so every frame crosses from one worker to the
other."""

import os

import pytest
from scapy.all import Ether, IP, UDP, Raw

import railsw

N = 20
BATCH = 5
MAC = ["02:00:00:00:0a:00", "02:00:00:00:0a:01"]
NEIGH = ["02:aa:00:00:0a:00", "02:aa:00:00:0a:01"]
PAYLOAD = b"railsw-test workers".ljust(40, b".")


@pytest.fixture
def veths():
    """Two veth pairs in the root namespace: railsw's pcap port p reads and writes
    rt<PID>w<p>a, the test sends on rt<PID>w<p>b."""
    pairs = []
    try:
        for p in (0, 1):
            a, b = "rt%dw%da" % (os.getpid(), p), "rt%dw%db" % (os.getpid(), p)
            railsw.run(["ip", "link", "add", a, "type", "veth", "peer", "name", b])
            pairs.append((a, b))
            railsw.quiet_link(a)
            railsw.quiet_link(b)
        yield pairs
    finally:
        for a, _ in pairs:
            railsw.run(["ip", "link", "del", a], check=False)


@pytest.fixture
def two(make_switch, veths):
    """A switch on lcores 0 (control), 1 and 2 (workers); N frames into each port, p0's
    routed out of p1 and p1's out of p0."""
    cfg = {
        "ports": [{"name": "p%d" % p, "devargs": "net_pcap%d,rx_iface_in=%s,tx_iface=%s" %
                   (p, veths[p][0], veths[p][0]), "mac": MAC[p],
                   "ipv4": "10.%d.0.254/24" % (10 + p)} for p in (0, 1)],
        "neighbors": [{"ip": "10.%d.0.1" % (10 + p), "mac": NEIGH[p], "port": "p%d" % p}
                      for p in (0, 1)],
        "routes": [{"prefix": "10.%d.0.0/16" % (11 - p), "nexthops": ["10.%d.0.1" % (11 - p)]}
                   for p in (0, 1)],
        "control": {"telemetry": True},
    }
    # worker lcore 2 shares CPU 0 with the control thread
    sw = make_switch(cfg, lcores="0@0,1@1,2@0")
    inj = railsw.Injector()
    try:
        # in batches, each once the last is counted: libpcap's socket on a veth loses frames
        # (rx_missed) when a burst arrives while a CPU-sharing worker waits for its turn
        for k in range(0, N, BATCH):
            for p in (0, 1):
                inj.send(veths[p][1], [
                    Ether(dst=MAC[p], src="02:bb:00:00:00:0%d" % p) /
                    IP(src="10.%d.0.1" % (10 + p), dst="10.%d.1.%d" % (11 - p, 2 + i)) /
                    UDP(sport=1000 + i, dport=5000) / Raw(PAYLOAD) for i in range(k, k + BATCH)])
            railsw.wait_until(lambda: all(x["rx_packets"] + x["rx_missed"] >= k + BATCH
                                          for x in sw.ports().values()), 10,
                              what="a batch to be received")
    finally:
        inj.close()
    try:
        railsw.wait_until(lambda: sum(p["tx_packets"] for p in sw.ports().values()) >= 2 * N,
                          20, what="both ports' frames to cross the switch")
    except TimeoutError:
        raise AssertionError((sw.ports(), sw.ctl("show", "drops"), sw.ctl("show", "workers")))
    return sw


def test_show_workers_two_workers(two):
    """**Steps**: two workers, two single-queue pcap ports, N frames in on each, routed
    out of the other port; then `clear counters`.
    **Verify**: two rows (worker 0 on lcore 1, worker 1 on lcore 2); worker 0 polls p0:0 and
    worker 1 p1:0; each received N frames in at least one burst, sent N (the frames of the
    other, as its port's one sender) and handed off N (its own, to the other's port); the
    workers' totals equal `show ports`; busy_pct is busy_loops / loops; after `clear
    counters` the counters restart from 0."""
    sw = two
    rows = sw.ctl("show", "workers")["workers"]
    assert [(r["worker"], r["lcore"], r["rx_queues"]) for r in rows] == [
        (0, 1, ["p0:0"]), (1, 2, ["p1:0"])], rows
    ports = sw.ports()
    for r in rows:
        assert r["rx_packets"] == N and 1 <= r["bursts"] <= N, r
        assert r["tx_packets"] == N and r["handed_off"] == N, r
        assert 0 < r["busy_loops"] <= r["loops"], r
        assert r["busy_pct"] == round(100 * r["busy_loops"] / r["loops"])
    assert sum(r["rx_packets"] for r in rows) == sum(p["rx_packets"] for p in ports.values())
    assert sum(r["tx_packets"] for r in rows) == sum(p["tx_packets"] for p in ports.values())
    sw.ctl("clear", "counters")
    after = sw.ctl("show", "workers")["workers"]
    for r in after:
        assert (r["rx_packets"], r["tx_packets"], r["handed_off"], r["bursts"]) == (0, 0, 0, 0)
        assert 0 <= r["busy_pct"] <= 100


def test_workers_in_describe_metrics_telemetry(two):
    """**Steps**: `describe` and the telemetry command /railsw/workers (Prometheus:
    test_observability.py).
    **Verify**: describe lists `show workers` / `workers` with the fields of the socket's
    rows, counters and the gauge busy_pct typed as documented; telemetry's /railsw/workers
    has one entry per worker with the socket's values and rx_queues joined by commas."""
    sw = two
    tables = {(t["command"], t["key"]): t for t in sw.ctl("describe")["tables"]}
    t = tables[("show workers", "workers")]
    kinds = {f["name"]: f["kind"] for f in t["fields"]}
    rows = sw.ctl("show", "workers")["workers"]
    assert list(kinds) == list(rows[0].keys())
    assert kinds["rx_packets"] == kinds["handed_off"] == "counter"
    assert kinds["busy_pct"] == "gauge" and kinds["worker"] == "label"

    def tel():
        return railsw.telemetry(sw, "/railsw/workers")

    railsw.wait_until(lambda: tel().get("1", {}).get("tx_packets") == N, 5,
                      what="the telemetry snapshot")
    got = tel()
    assert sorted(got) == ["0", "1"]
    for r in rows:
        g = got[str(r["worker"])]
        assert g["rx_queues"] == ",".join(r["rx_queues"])
        for k in ("lcore", "rx_packets", "tx_packets", "handed_off", "bursts"):
            assert g[k] == r[k], k
