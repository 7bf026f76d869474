# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""`devtools/fabric-lab.sh up --cbfc` on config/fabric-lab.yaml: credit-based flow
control on every leaf-spine link (both memif ends), TC 3 (DSCP 26) lossless.
Every fabric port shows `state: active` in `railctl show cbfc`, the hosts ping
across the fabric in the lossless class, and the leaves' uplinks spent credits
for those echoes. Its own state directory and tag (the pytest PID), as
test_fabric_lab.py; about 15 s."""

import os
import time

import pytest

import railsw
from test_fabric_lab import TOPO, Lab, clear_stale, script


@pytest.fixture(scope="module")
def lab(build):
    if os.geteuid() != 0:
        pytest.skip("needs root")
    clear_stale(build)
    lab = Lab(build)
    try:
        r = script(lab.env, "up", "--cbfc", TOPO, timeout=180)
        assert r.returncode == 0, f"fabric-lab.sh up --cbfc failed ({r.returncode}):\n" \
            f"{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        yield lab
    finally:
        r = script(lab.env, "down", timeout=120)
        assert r.returncode == 0, f"fabric-lab.sh down failed:\n{r.stdout}\n{r.stderr}"


def fabric_ports(lab):
    """{switch: [its leaf-spine ports]} from the plan."""
    out = {}
    for ln in lab.fabric:
        out.setdefault(ln["a"], []).append(ln["a_port"])
        out.setdefault(ln["b"], []).append(ln["b_port"])
    return out


def cbfc_rows(lab, sw):
    return {r["port"]: r for r in lab.ctl(sw, "show", "cbfc")["cbfc"] if r["vc"] == 3}


def test_cbfc_fabric_active_and_pings(lab):
    """Steps: `fabric-lab.sh up --cbfc` (fixture); wait up to 10 s for the
    handshakes; ping each way between the hosts with DSCP 26 (ToS 0x68: lossless
    TC 3), 5 echoes.
    Verify: every leaf-spine port of every switch shows `state: active` on VC 3
    and the server ports show `off`; every ping is answered; the leaves' uplinks
    spent credits (credits_consumed grew), and no switch dropped a lossless frame
    or sent a PFC frame on a fabric link."""
    fab = fabric_ports(lab)
    assert len(fab) == 4 and sum(len(v) for v in fab.values()) == 8, fab
    deadline = time.monotonic() + 10
    while True:
        rows = {sw: cbfc_rows(lab, sw) for sw in fab}
        bad = [f"{sw}:{p} {rows[sw].get(p, {}).get('state')}" for sw, ports in fab.items()
               for p in ports if rows[sw].get(p, {}).get("state") != "active"]
        if not bad or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert not bad, f"fabric ports not active: {bad}\n{lab.logs()}"
    for leaf in lab.leaves:
        for p, r in cbfc_rows(lab, leaf).items():
            if p not in fab[leaf]:
                assert r["state"] == "off", (leaf, r)
    before = {leaf: sum(cbfc_rows(lab, leaf)[p]["credits_consumed"] for p in fab[leaf])
              for leaf in lab.leaves}
    servers = sorted(lab.hosts)
    for src, dst in ((servers[0], servers[1]), (servers[1], servers[0])):
        r = railsw.run(["ip", "netns", "exec", lab.ns(src), "ping", "-n", "-c", "5", "-i", "0.2",
                        "-Q", "0x68", "-w", "15", lab.ip(dst)], timeout=30, check=False)
        assert r.returncode == 0, f"{src} ping {lab.ip(dst)}:\n{r.stdout}{r.stderr}\n{lab.logs()}"
    for leaf in lab.leaves:
        after = sum(cbfc_rows(lab, leaf)[p]["credits_consumed"] for p in fab[leaf])
        # 10 echoes and 10 replies leave each leaf through its uplinks: 2 credits of
        # 64 B each for a 98-byte frame.
        assert after - before[leaf] >= 20, (leaf, before[leaf], after)
    for sw, ports in fab.items():
        lost = {r["reason"]: r["packets"] for r in lab.ctl(sw, "show", "drops")["drops"]
                if r["packets"] and r["reason"] == "lossless_drops"}
        assert not lost, (sw, lost)
        for p in ports:
            row = next(r for r in lab.ctl(sw, "show", "pfc", p)["pfc"] if r["priority"] == 3)
            assert row["tx_xoff"] == 0 and row["rx_xoff"] == 0, (sw, p, row)
