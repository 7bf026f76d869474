# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""The walk-through of docs/fabric-lab.md, "Your own fabric: 4 leaves, 2 spines": a
topology-only file (taken from that page) → `fabric-lab.sh up FILE` → every server pings
every other across the spines → `show lb` → `impair` a link and `off` → `down`. Also a
rail-only rail of two spines, `up FILE` to `down`: every leaf reaches every spine.

The lab has its own state directory and tag (the pytest PID), so a lab someone runs by
hand is never touched."""

import json
import os
import re

import pytest

import railsw
from test_fabric_lab import running, script

DOC = os.path.join(railsw.REPO, "docs", "fabric-lab.md")
STATE_PREFIX = "/run/railsw/fabtest-4l-"


def topology_from_doc():
    """The heredoc of the walk-through's first block (`cat > /tmp/fabric4.yaml <<'EOF'`)."""
    with open(DOC) as f:
        text = f.read()
    m = re.search(r"^cat > /tmp/fabric4\.yaml <<'EOF'\n(.*?)^EOF$", text, re.S | re.M)
    assert m, f"{DOC}: no `cat > /tmp/fabric4.yaml <<'EOF'` block"
    return m.group(1)


def env_of(build, pid):
    return dict(os.environ, RAILSW_BUILD=build, RAILSW_LAB_STATE=f"{STATE_PREFIX}{pid}",
                RAILSW_LAB_TAG=("f4" + str(pid))[-8:])


@pytest.fixture(scope="module")
def lab4(build, tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("needs root")
    # A lab a killed run left: its state directory names a dead pytest.
    for name in os.listdir("/run/railsw") if os.path.isdir("/run/railsw") else []:
        tail = name[len("fabtest-4l-"):]
        if name.startswith("fabtest-4l-") and tail.isdigit() and \
                not railsw.pid_alive(int(tail)):
            script(env_of(build, int(tail)), "down", timeout=60)
    topo = tmp_path_factory.mktemp("fabric4") / "fabric4.yaml"
    topo.write_text(topology_from_doc())
    env = env_of(build, os.getpid())
    plan = json.loads(railsw.run([os.path.join(build, "control", "railctl"), "plan", str(topo),
                                  "--json"]).stdout)
    try:
        r = script(env, "up", str(topo), timeout=180)
        assert r.returncode == 0, f"fabric-lab.sh up failed ({r.returncode}):\n" \
            f"{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        yield env, plan
    finally:
        r = script(env, "down", timeout=120)
        assert r.returncode == 0, f"fabric-lab.sh down failed:\n{r.stdout}\n{r.stderr}"


def ctl(env, switch, *words):
    r = railsw.run([os.path.join(env["RAILSW_BUILD"], "control", "railctl"), "-s",
                    os.path.join(env["RAILSW_LAB_STATE"], f"{switch}.sock"), "--json"] +
                   list(words), timeout=10, check=False)
    assert r.returncode == 0, f"railctl {' '.join(words)} on {switch}: {r.stdout}{r.stderr}"
    return json.loads(r.stdout)


# A rail whose 3 SUs x 4 uplinks exceed radix 8: two spines, each leaf's uplinks round-robin.
RAIL_ONLY_2 = """topology:
  design: rail-only
  sus: 3
  servers_per_su: 1
  rails: 1
  spines: 4
  radix: 8
"""


def test_rail_only_two_spines_per_rail(build, tmp_path):
    """Steps: a rail-only file whose rail needs two spines (3 SUs x 4 uplinks,
    radix 8) → `fabric-lab.sh up FILE` → `ping` → `show lb` on spine-r0-1 →
    `down`.
    Verify: the plan has 3 leaves and 2 spines, each leaf with 2 links to each
    spine; `up` and `ping` exit 0 with 6 PING OK (every server to the 2 others,
    leaf-spine-leaf) and ECMP over all 4 uplinks of leaf-su0-r0; spine-r0-1
    routes each leaf's /24 over its 2 parallel links, all up; `down` exits 0."""
    if os.geteuid() != 0:
        pytest.skip("needs root")
    prefix = "/run/railsw/fabtest-ro-"
    for name in os.listdir("/run/railsw") if os.path.isdir("/run/railsw") else []:
        tail = name[len("fabtest-ro-"):]
        if name.startswith("fabtest-ro-") and tail.isdigit() and \
                not railsw.pid_alive(int(tail)):
            script(dict(os.environ, RAILSW_BUILD=build, RAILSW_LAB_STATE=prefix + tail,
                        RAILSW_LAB_TAG=("ro" + tail)[-8:]), "down", timeout=60)
    topo = tmp_path / "rail-only-2.yaml"
    topo.write_text(RAIL_ONLY_2)
    plan = json.loads(railsw.run([os.path.join(build, "control", "railctl"), "plan", str(topo),
                                  "--json"]).stdout)
    links = {}
    for ln in plan["links"]:
        if ln["kind"] == "fabric":
            links[(ln["a"], ln["b"])] = links.get((ln["a"], ln["b"]), 0) + 1
    assert links == {(f"leaf-su{su}-r0", f"spine-r0-{sp}"): 2
                     for su in range(3) for sp in range(2)}, links
    env = dict(os.environ, RAILSW_BUILD=build, RAILSW_LAB_STATE=f"{prefix}{os.getpid()}",
               RAILSW_LAB_TAG=("ro" + str(os.getpid()))[-8:])
    try:
        r = script(env, "up", str(topo), timeout=180)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        r = script(env, "ping", timeout=180)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "PING FAIL" not in r.stdout and r.stdout.count("PING OK") == 6, r.stdout
        assert "ECMP OK: the flows used all 4 uplinks of leaf-su0-r0" in r.stdout, r.stdout
        groups = {g["prefix"]: g for g in ctl(env, "spine-r0-1", "show", "lb")["groups"]}
        for su in range(3):
            members = groups[f"10.{su}.0.0/24"]["members"]
            assert len(members) == 2 and all(m["up"] for m in members), members
    finally:
        r = script(env, "down", timeout=120)
        assert r.returncode == 0, f"fabric-lab.sh down failed:\n{r.stdout}\n{r.stderr}"


def test_walkthrough(lab4):
    """Steps: `up` the 4-leaf, 2-spine file of docs/fabric-lab.md (fixture);
    `fabric-lab.sh ping`; `show lb` on leaf-su0-r0; `impair leaf-su0-r0--spine-0
    loss 1`, 32 UDP flows from server-su0-0 to server-su1-0, `impair ... off`;
    `fabric-lab.sh ping` again; `down` (fixture).
    Verify: 6 switches and 4 servers as planned, each railsw running; `ping`
    exits 0 with 12 PING OK (every server to each of the 3 others, all across
    the spines) and ECMP OK; leaf-su0-r0's 10.0.0.0/8 group has its two
    uplinks as members, up, both having carried packets; while impaired, up0 of
    leaf-su0-r0 counts impair_dropped and spine-0's down0 nothing new received
    from it; after `off`, `ping` passes again; `down` leaves nothing behind
    (checked by test_fabric_lab's fixture rules: exit 0)."""
    env, plan = lab4
    state = env["RAILSW_LAB_STATE"]
    leaves = [s["name"] for s in plan["switches"] if s["tier"] == "leaf"]
    spines = [s["name"] for s in plan["switches"] if s["tier"] == "spine"]
    servers = [ln["b"] for ln in plan["links"] if ln["kind"] == "server"]
    assert len(leaves) == 4 and len(spines) == 2 and len(servers) == 4, plan["switches"]
    for sw in leaves + spines:
        pid = int(open(os.path.join(state, f"{sw}.pid")).read())
        assert running(pid), sw

    r = script(env, "ping", timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PING FAIL" not in r.stdout and r.stdout.count("PING OK") == 12, r.stdout
    assert "ECMP OK: the flows used all 2 uplinks of leaf-su0-r0" in r.stdout, r.stdout

    groups = [g for g in ctl(env, "leaf-su0-r0", "show", "lb")["groups"]
              if g["prefix"] == "10.0.0.0/8"]
    assert len(groups) == 1, groups
    members = {m["port"]: m for m in groups[0]["members"]}
    assert sorted(members) == ["up0", "up1"], members
    assert all(m["up"] and m["packets"] > 0 for m in members.values()), members

    def port(sw, name):
        return [p for p in ctl(env, sw, "show", "ports")["ports"] if p["name"] == name][0]

    r = script(env, "impair", "leaf-su0-r0--spine-0", "loss", "1", timeout=30)
    assert r.returncode == 0, r.stdout + r.stderr
    try:
        up0, down0 = port("leaf-su0-r0", "up0"), port("spine-0", "down0")
        code = ("import socket\n"
                "for p in range(6001, 6033):\n"
                "    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                "    s.connect(('10.1.0.1', p))\n"
                "    [s.send(b'x') for _ in range(5)]\n")
        railsw.run(["ip", "netns", "exec", f"{env['RAILSW_LAB_TAG']}-server-su0-0",
                    "/usr/bin/python3", "-c", code], timeout=30)
        railsw.wait_until(lambda: port("leaf-su0-r0", "up0")["impair_dropped"] >
                          up0["impair_dropped"], 10, interval=0.2,
                          what="leaf-su0-r0 up0 to drop what it sends")
        assert port("spine-0", "down0")["rx_packets"] == down0["rx_packets"], down0
    finally:
        r = script(env, "impair", "leaf-su0-r0--spine-0", "off", timeout=30)
        assert r.returncode == 0, r.stdout + r.stderr
    r = script(env, "ping", timeout=180)
    assert r.returncode == 0 and r.stdout.count("PING OK") == 12, r.stdout + r.stderr
