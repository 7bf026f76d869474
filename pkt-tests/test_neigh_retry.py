# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Neighbours that come back: a next hop that failed to resolve is asked again,
now and then with a back-off and at once on traffic to it, and its route comes
back when it answers (docs/routing.md, "Neighbour resolution")."""

import time

from scapy.all import ARP, Ether

import railsw
import topo
from topo import HOST_IP, SW_IP


def is_request_for(data, sw, target):
    e = Ether(data)
    return ARP in e and e[ARP].op == 1 and e[ARP].pdst == target and \
        e[ARP].psrc == SW_IP["p1"] and e.src.lower() == sw.mac["p1"].lower() and \
        e.dst == "ff:ff:ff:ff:ff:ff"


def state_of(sw, ip):
    n = [x for x in sw.neighbors() if x["ip"] == ip]
    return n[0]["state"] if n else ""


def test_late_host_reachable(make_switch):
    """A host configured 10 s after railsw starts, which never sends first,
    is reachable through the route whose next hop it is.

    Steps: railsw with p0 (host h0 in a namespace, 10.1.0.1, default via
    10.1.0.254) and p1 (nothing behind it yet); one route, 10.20.0.0/16 via
    10.2.0.1 on p1. Wait until `show neighbors` lists 10.2.0.1 as failed
    (three ARP requests unanswered); capture p1 for the next 7 s; then, 10 s
    or more after start, move p1's TAP into namespace h1 with 10.2.0.1/24
    (IPv6 off: it sends nothing by itself), 10.20.0.1/32 on its loopback and
    a default route via 10.2.0.254; h0 pings 10.20.0.1 at once, 3 echoes.
    Verify: in the 7 s after failing, railsw asked for 10.2.0.1 again (ARP
    who-has from p1, back-off: two requests, 2 s and 6 s after failing), and
    nothing but those requests came out of p1; the entry is still failed
    right before the ping (h1 did not send), so traffic asked it again; all
    3 echoes are answered; afterwards 10.2.0.1 is reachable and no frame was
    dropped as group_empty or neigh_unresolved.
    """
    late = HOST_IP["p1"]
    cfg = topo.three_ports(neighbors=False, routes=False)
    cfg["routes"] = [{"prefix": "10.20.0.0/16", "nexthops": [late]}]
    t_start = time.monotonic()
    sw = make_switch(cfg)
    h0, h1 = railsw.lab_netns("h0"), railsw.lab_netns("h1")
    sw.move_to_netns("p0", h0, addr=HOST_IP["p0"] + "/24", gw=SW_IP["p0"],
                     mac="02:00:00:00:01:01")

    railsw.wait_until(lambda: state_of(sw, late) == "failed", 15, interval=0.1,
                      what=f"{late} to fail to resolve")
    t_failed = time.monotonic()
    with railsw.Capture([sw.tap["p1"]]) as cap:
        # The back-off's first two retries (2 s and 6 s after failing), nothing else.
        got = cap.collect(count=None, timeout=7)
    requests = [d for _, d in got if is_request_for(d, sw, late)]
    assert len(requests) == len(got), "only ARP requests for the next hop on p1:\n" + \
        "\n".join(Ether(d).summary() for _, d in got)
    assert len(requests) == 2, f"{len(requests)} requests for {late} in the 7 s after failing"

    # 10 s after start at least, and before the back-off's third retry (14 s after failing).
    time.sleep(max(0.0, t_start + 10 - time.monotonic()))
    assert time.monotonic() - t_failed < 12, "too slow a machine for the schedule"
    before = sw.counters()
    sw.move_to_netns("p1", h1, addr=late + "/24", gw=SW_IP["p1"], mac="02:00:00:00:02:01")
    railsw.run(["ip", "netns", "exec", h1, "ip", "addr", "add", "10.20.0.1/32", "dev", "lo"])
    assert state_of(sw, late) == "failed", sw.neighbors()
    r = railsw.run(["ip", "netns", "exec", h0, "ping", "-n", "-c", "3", "-i", "0.2", "-w", "5",
                    "10.20.0.1"], timeout=15, check=False)
    assert r.returncode == 0 and " 3 received" in r.stdout, r.stdout + r.stderr
    n = [x for x in sw.neighbors() if x["ip"] == late]
    assert n and n[0]["state"] == "reachable" and n[0]["mac"].lower() == "02:00:00:00:02:01", n
    after = sw.counters()
    for port in ("p0", "p1"):
        for c in ("group_empty", "neigh_unresolved"):
            assert after[port][c] - before[port][c] == 0, (port, c, before[port], after[port])
