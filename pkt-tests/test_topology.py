# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""The fabric planner and the example fabric configs: `railctl plan FILE`
(no switch running) in JSON and for people, its errors and exit codes, and
`railsw --check` on each example in config/. No traffic, no TAP created.
The addresses asserted are the hand-computed ones of docs/topology.md."""

import json
import os
import shutil
import tempfile

import pytest

import railsw

EXAMPLES = ["fabric-2su-leaf.yaml", "fabric-2su-spine.yaml", "rail-only-leaf.yaml"]


def example(name):
    return os.path.join(railsw.REPO, "config", name)


def railctl(build, *args):
    return railsw.run([os.path.join(build, "control", "railctl")] + list(args), check=False)


def plan_json(build, path):
    r = railctl(build, "plan", path, "--json")
    assert r.returncode == 0, f"rc={r.returncode}\n{r.stdout}\n{r.stderr}"
    assert r.stderr == ""
    assert len(r.stdout.splitlines()) == 1, "one JSON document on one line"
    return json.loads(r.stdout)


@pytest.fixture
def cfgdir():
    d = tempfile.mkdtemp(prefix=f"rswt-{os.getpid()}-0.topo.")
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.mark.parametrize("name", EXAMPLES)
def test_check_examples(build, name):
    """Steps: `railsw -c config/NAME --check` for each example fabric config.
    Verify: exit 0, nothing on stderr that looks like an error.
    """
    r = railsw.run([os.path.join(build, "control", "railsw"), "-c", example(name), "--check"],
                   timeout=20, check=False)
    assert r.returncode == 0, f"rc={r.returncode}\n{r.stdout}\n{r.stderr}"
    assert "error" not in r.stderr.lower()


def test_plan_rail_optimized_json(build):
    """Steps: `railctl plan config/fabric-2su-leaf.yaml --json`, no switch running.
    Verify: tiers (8 leaves of 6 ports at 2:1, 2 spines of 8 ports), the file's own
    switch, 48 cables, and the derived addresses of leaf-su0-r1 and its spines.
    """
    p = plan_json(build, example("fabric-2su-leaf.yaml"))
    assert p["design"] == "rail-optimized"
    assert p["this"] == "leaf-su0-r1"
    assert p["servers"] == 8 and p["server_nics"] == 32
    leaf, spine = p["tiers"]
    assert (leaf["tier"], leaf["count"], leaf["ports_used"], leaf["radix"]) == ("leaf", 8, 6, 64)
    assert leaf["oversubscription"] == 2.0 and leaf["ratio"] == "2:1"
    assert (spine["tier"], spine["count"], spine["ports_used"]) == ("spine", 2, 8)
    assert spine["oversubscription"] is None
    names = [s["name"] for s in p["switches"]]
    assert names == [f"leaf-su{su}-r{r}" for su in range(2) for r in range(4)] + [
        "spine-0", "spine-1"]
    assert len(p["links"]) == 48
    links = {(ln["a"], ln["a_port"]): ln for ln in p["links"]}
    assert links[("leaf-su0-r1", "down2")]["a_ip"] == "10.0.1.254/24"
    assert links[("leaf-su0-r1", "down2")]["b"] == "server-su0-2"
    assert links[("leaf-su0-r1", "down2")]["b_port"] == "nic1"
    assert links[("leaf-su0-r1", "down2")]["b_ip"] == "10.0.1.3/24"
    up1 = links[("leaf-su0-r1", "up1")]
    assert (up1["a_ip"], up1["b"], up1["b_port"], up1["b_ip"]) == (
        "172.16.32.3/31", "spine-1", "down1", "172.16.32.2/31")
    last = links[("leaf-su1-r3", "up0")]
    assert (last["a_ip"], last["b"], last["b_port"], last["b_ip"]) == (
        "172.16.0.15/31", "spine-0", "down7", "172.16.0.14/31")
    fabric_ips = [ip for ln in p["links"] if ln["kind"] == "fabric"
                  for ip in (ln["a_ip"], ln["b_ip"])]
    assert len(fabric_ips) == len(set(fabric_ips)) == 32


def test_plan_spine_and_rail_only(build):
    """Steps: plan the spine example and the rail-only example.
    Verify: the same fabric from the spine's file; rail-only packs each rail's
    uplinks on one spine spine-r<rail>-0 of 4 ports (parallel links), with the
    /31s of rail 2's planes.
    """
    p = plan_json(build, example("fabric-2su-spine.yaml"))
    assert p["this"] == "spine-0"
    assert len(p["links"]) == 48

    p = plan_json(build, example("rail-only-leaf.yaml"))
    assert p["design"] == "rail-only"
    assert p["this"] == "leaf-su1-r2"
    spine = p["tiers"][1]
    # A rail's 2 SUs x 2 uplinks fit one spine of radix 64: 4 spines of 4 ports.
    assert (spine["count"], spine["ports_used"]) == (4, 4)
    assert [s["name"] for s in p["switches"] if s["tier"] == "spine"] == [
        f"spine-r{r}-0" for r in range(4)]
    links = {(ln["a"], ln["a_port"]): ln for ln in p["links"]}
    assert links[("leaf-su1-r2", "up0")]["a_ip"] == "172.16.128.3/31"
    up1 = links[("leaf-su1-r2", "up1")]
    assert (up1["b"], up1["b_port"], up1["b_ip"]) == ("spine-r2-0", "down3", "172.16.160.2/31")
    assert p["speeds"]["downlink_bps"] == 400_000_000_000


def test_plan_text(build):
    """Steps: `railctl plan FILE` without --json.
    Verify: exit 0; the summary, the tier table and cables as switch:port <-> switch:port.
    """
    r = railctl(build, "plan", example("fabric-2su-leaf.yaml"))
    assert r.returncode == 0, r.stderr
    assert "rail-optimized fabric: 2 SUs x 4 servers, 4 rails, 2 spines" in r.stdout
    assert "this file's switch: leaf-su0-r1" in r.stdout
    assert "cables (48):" in r.stdout
    line = next(ln for ln in r.stdout.splitlines() if "leaf-su0-r1:up1" in ln)
    assert line.split() == ["leaf-su0-r1:up1", "172.16.32.3/31", "<->", "spine-1:down1",
                            "172.16.32.2/31"]


def test_plan_topology_only(build, cfgdir):
    """Steps: plan a file holding only `topology:` (no switch, no `this`).
    Verify: exit 0, `this` is null.
    """
    path = os.path.join(cfgdir, "fabric.yaml")
    with open(path, "w") as f:
        f.write("topology: { sus: 4, servers_per_su: 8, rails: 8, spines: 4 }\n")
    p = plan_json(build, path)
    assert p["this"] is None
    assert p["tiers"][0]["count"] == 32 and p["tiers"][1]["ports_used"] == 32
    assert p["tiers"][0]["ratio"] == "2:1"


@pytest.mark.parametrize("text,line,msg", [
    ("topology:\n  sus: 2\n  servers_per_su: 4\n  rails: 8\n  spines: 2\n  radix: 8\n", 6,
     "spine 0 needs 16 ports: radix is 8"),
    ("topology:\n  sus: 2\n  servers_per_su: 4\n  rails: 0\n  spines: 2\n", 4,
     "'rails' must be between 1 and 256 (got 0)"),
    ("topology:\n  sus: 2\n  servers_per_su: 4\n  rails: 4\n  spines: 2\n"
     "  gpu_prefix: 10.0.0.0/16\n", 6, "'gpu_prefix' must be a /8"),
    ("topology:\n  sus: 2\n  servers_per_su: 4\n  rails: 4\n  spines: 2\n  colour: red\n", 6,
     "unknown key 'colour' in 'topology'"),
    ("switch: { name: a }\nports: [{ name: p0, devargs: t0 }]\n", None,
     "missing required key 'topology'"),
])
def test_plan_errors(build, cfgdir, text, line, msg):
    """Steps: plan bad files.
    Verify: exit 1, `FILE:LINE: message` on stderr; with --json also {"error": ...}.
    """
    path = os.path.join(cfgdir, "bad.yaml")
    with open(path, "w") as f:
        f.write(text)
    where = f"{path}:{line}: " if line else f"{path}: "
    r = railctl(build, "plan", path)
    assert r.returncode == 1, r.stdout
    assert where + msg in r.stderr
    r = railctl(build, "--json", "plan", path)
    assert r.returncode == 1
    assert (where + msg) in json.loads(r.stdout)["error"]


def test_plan_usage(build, cfgdir):
    """Steps: `railctl plan` without FILE, with two files, with a missing file.
    Verify: usage errors exit 2; a missing file exits 1 and names it.
    """
    assert railctl(build, "plan").returncode == 2
    assert railctl(build, "plan", "a.yaml", "b.yaml").returncode == 2
    missing = os.path.join(cfgdir, "none.yaml")
    r = railctl(build, "plan", missing)
    assert r.returncode == 1
    assert f"{missing}: No such file or directory" in r.stderr
