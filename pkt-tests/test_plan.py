# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""`railctl plan`'s output forms on the shipped topologies, each read back by the
tool it is meant for: the per-switch configurations of `--configs DIR` by `railsw
--check` (once a test fills the devargs placeholders) and, with `--bgp`, FRR's
own parser (`vtysh --dryrun`); `--dot` by Graphviz's `dot`; `--containerlab` by
containerlab's published JSON schema (a copy in pkt-tests/containerlab/, with its
licence); `--csv` by Python's csv module. Also `--summary`, `--switch NAME` and the
usage errors. No switch runs, no traffic, no TAP created; a few seconds."""

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest
import yaml

import railsw

TOPOLOGIES = ["fabric-2su-leaf.yaml", "fabric-2su-spine.yaml", "rail-only-leaf.yaml",
              "fabric-lab.yaml"]
SCHEMA = os.path.join(railsw.REPO, "pkt-tests", "containerlab", "clab.schema.json")


def example(name):
    return os.path.join(railsw.REPO, "config", name)


def railctl(build, *args, timeout=20):
    return railsw.run([os.path.join(build, "control", "railctl")] + list(args),
                      timeout=timeout, check=False)


def plan_json(build, path):
    r = railctl(build, "plan", path, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture
def tmp():
    d = tempfile.mkdtemp(prefix=f"rswt-{os.getpid()}-0.plan.")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def fill(text, tag):
    """The devargs placeholders replaced by TAP vdevs (one per port, names <= 15)."""
    n = iter(range(1000))
    return re.sub(r'"FILL-IN device of (\w+)"',
                  lambda m: f'"net_tap{next(n)},iface={tag}{m.group(1)}"', text)


def ports_of(doc):
    return [(p["name"], p.get("role")) for p in doc["ports"]]


@pytest.mark.parametrize("name", TOPOLOGIES)
def test_configs_check(build, tmp, name):
    """Steps: `railctl plan config/NAME --configs DIR`; fill each file's devargs
    placeholders with TAP vdevs; `railsw -c FILE --check` on each.
    Verify: one file per switch of the plan; the placeholder is there; every filled
    file passes --check with the plan's port count; the example's own switch has
    the example's ports (names, roles, order) and topology.
    """
    plan = plan_json(build, example(name))
    out = os.path.join(tmp, "cfg")
    r = railctl(build, "plan", example(name), "--configs", out)
    assert r.returncode == 0, r.stderr
    names = [s["name"] for s in plan["switches"]]
    assert sorted(os.listdir(out)) == sorted(f"{n}.yaml" for n in names)
    for sw in plan["switches"]:
        text = open(os.path.join(out, f"{sw['name']}.yaml")).read()
        assert '"FILL-IN device of ' in text
        filled = os.path.join(tmp, "filled.yaml")
        with open(filled, "w") as f:
            f.write(fill(text, "rswp"))
        r = railsw.run([os.path.join(build, "control", "railsw"), "-c", filled, "--check"],
                       timeout=20, check=False)
        assert r.returncode == 0, (sw["name"], r.stdout, r.stderr, text)
        assert f"configuration OK ({sw['ports_used']} ports" in r.stdout + r.stderr
    mine = yaml.safe_load(open(example(name)))
    this = plan["this"]
    gen = yaml.safe_load(open(os.path.join(out, f"{this}.yaml")))
    assert ports_of(gen) == ports_of(mine)
    for k, v in mine["topology"].items():
        assert gen["topology"][k] == v, k


def test_configs_bgp(build, tmp):
    """Steps: `railctl plan config/fabric-lab.yaml --configs DIR --bgp`.
    Verify: each SWITCH.frr.conf passes FRR's parser (`vtysh --dryrun -f`), a file
    with a bad line does not; its ASN, router ID and sessions are those the fabric
    lab writes (devtools/fabric_frr.py); each SWITCH.yaml, filled, passes --check and
    names the FPM listener and a kernel interface namespace.
    """
    if shutil.which("vtysh") is None:
        pytest.skip("FRR's vtysh is not installed")
    sys.path.insert(0, os.path.join(railsw.REPO, "devtools"))
    import fabric_frr
    path = example("fabric-lab.yaml")
    plan = plan_json(build, path)
    out = os.path.join(tmp, "bgp")
    r = railctl(build, "plan", path, "--configs", out, "--bgp")
    assert r.returncode == 0, r.stderr
    for sw in plan["switches"]:
        name = sw["name"]
        frr = os.path.join(out, f"{name}.frr.conf")
        text = open(frr).read()
        r = railsw.run(["vtysh", "--dryrun", "-f", frr], timeout=30, check=False)
        assert r.returncode == 0, (name, r.stdout, r.stderr, text)
        lab = fabric_frr.bgpd_conf(plan, name, tmp)
        for line in lab.splitlines():
            if line.startswith(("router bgp", " bgp router-id", " neighbor ", "  network")):
                assert line in text.splitlines(), (name, line)
        assert f"router bgp {fabric_frr.asn(plan, name)}" in text
        doc = yaml.safe_load(fill(open(os.path.join(out, f"{name}.yaml")).read(), "rswb"))
        assert doc["control"]["fpm"]["listen"] == "127.0.0.1:2620"
        assert doc["control"]["kernel_interfaces"]["netns"] == f"rsw-{name}"
        filled = os.path.join(tmp, "filled.yaml")
        with open(filled, "w") as f:
            yaml.safe_dump(doc, f)
        r = railsw.run([os.path.join(build, "control", "railsw"), "-c", filled, "--check"],
                       timeout=20, check=False)
        assert r.returncode == 0, (name, r.stdout, r.stderr)
    bad = os.path.join(tmp, "bad.conf")
    with open(bad, "w") as f:
        f.write(text + "router bgp 65000\n neighbour up0 interface\n")
    assert railsw.run(["vtysh", "--dryrun", "-f", bad], timeout=30, check=False).returncode != 0


@pytest.mark.parametrize("name", ["fabric-2su-leaf.yaml", "rail-only-leaf.yaml"])
def test_dot_renders(build, tmp, name):
    """Steps: `railctl plan FILE --dot | dot -Tsvg`.
    Verify: dot exits 0; the SVG has one node per switch and server and one edge
    per cable of the plan, and nothing else.
    """
    if shutil.which("dot") is None:
        pytest.fail("graphviz's dot is not installed (devtools/install-deps.sh)")
    plan = plan_json(build, example(name))
    r = railctl(build, "plan", example(name), "--dot")
    assert r.returncode == 0, r.stderr
    svg = subprocess.run(["dot", "-Tsvg"], input=r.stdout, capture_output=True, text=True,
                         timeout=60)
    assert svg.returncode == 0, svg.stderr
    servers = {ln["b"] for ln in plan["links"] if ln["kind"] == "server"}
    assert svg.stdout.count('class="node"') == len(plan["switches"]) + len(servers)
    assert svg.stdout.count('class="edge"') == len(plan["links"])


def test_containerlab_schema(build):
    """Steps: `railctl plan config/fabric-2su-leaf.yaml --containerlab --image X`;
    validate against containerlab's schema (schemas/clab.schema.json).
    Verify: valid; one node per switch and server named as in the plan, switches on
    image X, servers with their addresses and routes; one link per cable, endpoints node:interface as the plan's cables (the
    schema's own endpoint pattern, which its draft-07 validator does not apply, is
    checked here); a bad node name fails the same validation.
    """
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.load(open(SCHEMA))
    plan = plan_json(build, example("fabric-2su-leaf.yaml"))
    r = railctl(build, "plan", example("fabric-2su-leaf.yaml"), "--containerlab", "--image",
                "registry.example/railsw:1")
    assert r.returncode == 0, r.stderr
    doc = yaml.safe_load(r.stdout)
    jsonschema.validate(doc, schema)
    nodes = doc["topology"]["nodes"]
    servers = {ln["b"] for ln in plan["links"] if ln["kind"] == "server"}
    assert set(nodes) == {s["name"] for s in plan["switches"]} | servers
    assert all(nodes[s["name"]]["image"] == "registry.example/railsw:1"
               for s in plan["switches"])
    want = [[f"{ln['a']}:{ln['a_port']}", f"{ln['b']}:{ln['b_port']}"] for ln in plan["links"]]
    assert [ln["endpoints"] for ln in doc["topology"]["links"]] == want
    pats = [p["pattern"] for p in
            schema["definitions"]["link-config-short"]["properties"]["endpoints"]["prefixItems"]]
    for ln in doc["topology"]["links"]:
        for pat, ep in zip(pats, ln["endpoints"]):
            assert re.match(pat, ep), ep
    # A server's NICs, the subnet of its rail's other leaf, the rest of 10/8 via nic0.
    assert nodes["server-su1-3"]["exec"][:3] == [
        "ip addr add 10.1.0.4/24 dev nic0", "ip route add 10.0.0.0/24 via 10.1.0.254 dev nic0",
        "ip route add 10.0.0.0/8 via 10.1.0.254 dev nic0"]
    assert "ip route add 10.0.3.0/24 via 10.1.3.254 dev nic3" in nodes["server-su1-3"]["exec"]
    nodes["-bad name"] = nodes.pop("spine-0")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)


def test_csv(build):
    """Steps: `railctl plan config/rail-only-leaf.yaml --csv`.
    Verify: the header, then one row per cable equal to the plan's, speeds from the
    file (400G).
    """
    plan = plan_json(build, example("rail-only-leaf.yaml"))
    r = railctl(build, "plan", example("rail-only-leaf.yaml"), "--csv")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "a_device,a_port,b_device,b_port,speed,a_ip,b_ip"
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert len(rows) == len(plan["links"]) == 48
    for row, ln in zip(rows, plan["links"]):
        assert (row["a_device"], row["a_port"], row["b_device"], row["b_port"], row["a_ip"],
                row["b_ip"]) == (ln["a"], ln["a_port"], ln["b"], ln["b_port"], ln["a_ip"],
                                 ln["b_ip"])
        assert row["speed"] == "400G"


def test_summary_and_switch(build):
    """Steps: `plan --summary`, `plan --summary --json`, `plan --switch NAME` (a spine,
    a server, an unknown name).
    Verify: the summary has the bill of materials and capacity and no cables; the
    JSON summary has bom and no links; a switch shows its own cables only; an
    unknown name exits 1.
    """
    f = example("fabric-2su-leaf.yaml")
    r = railctl(build, "plan", f, "--summary")
    assert r.returncode == 0, r.stderr
    assert "bill of materials:" in r.stdout
    assert "switches: 8 leaves, 2 spines (64 ports each)" in r.stdout
    assert "one spine down: 50% of the leaf-spine capacity left" in r.stdout
    assert "cables (" not in r.stdout
    r = railctl(build, "plan", f, "--summary", "--json")
    s = json.loads(r.stdout)
    assert "links" not in s and s["bom"]["cables"] == {"server_leaf": 32, "leaf_spine": 16}
    r = railctl(build, "plan", f, "--switch", "spine-1")
    assert r.returncode == 0, r.stderr
    assert "cables (8):" in r.stdout
    cables = [ln for ln in r.stdout.splitlines() if "<->" in ln]
    assert len(cables) == 8 and all(ln.split()[0].startswith("spine-1:down") for ln in cables)
    r = railctl(build, "plan", f, "--switch", "server-su1-3", "--json")
    j = json.loads(r.stdout)
    assert j["switch"] is None and len(j["links"]) == 4
    assert {ln["a"] for ln in j["links"]} == {"server-su1-3"}
    r = railctl(build, "plan", f, "--switch", "spine-9")
    assert r.returncode == 1 and "no switch or server named 'spine-9'" in r.stderr


@pytest.mark.parametrize("args", [
    ["--bgp"], ["--image", "x"], ["--dot", "--csv"], ["--csv", "--json"],
    ["--configs"], ["--switch"],
])
def test_usage(build, args):
    """Steps: `railctl plan FILE` with options that do not go together.
    Verify: exit 2 and the usage on stderr.
    """
    r = railctl(build, "plan", example("fabric-lab.yaml"), *args)
    assert r.returncode == 2, (args, r.stdout)
    assert "usage: plan FILE" in r.stderr


@pytest.mark.parametrize("topo,n", [
    # A rail of one switch (spines: 0): leaf-r0, leaf-r1 with 2 SUs x 4 servers each.
    ("{ design: rail-only, sus: 2, servers_per_su: 4, rails: 2, spines: 0, radix: 16 }", 2),
    # Rail-only with parallel links: 3 SUs x 2 uplinks on one spine per rail.
    ("{ design: rail-only, sus: 3, servers_per_su: 2, rails: 2, spines: 2, radix: 8 }", 8),
    # Two spines per rail: 3 SUs x 5 uplinks = 15 > radix 8, round-robin over 2 spines.
    ("{ design: rail-only, sus: 3, servers_per_su: 2, rails: 1, spines: 5, radix: 8 }", 5),
])
def test_configs_rail_only(build, tmp, topo, n):
    """Steps: `--configs DIR` of a topology-only rail-only file; fill; --check.
    Verify: n files, each passing --check; the spine's ports carry both parallel
    links of a leaf (`to leaf-su0-r0:up0`, `up1`); with two spines per rail, a leaf's
    uplinks alternate between them (leaf-su1-r0's up0 on spine-r0-1's down2).
    """
    path = os.path.join(tmp, "t.yaml")
    with open(path, "w") as f:
        f.write(f"topology: {topo}\n")
    out = os.path.join(tmp, "cfg")
    r = railctl(build, "plan", path, "--configs", out)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert len(os.listdir(out)) == n
    for name in os.listdir(out):
        filled = os.path.join(tmp, "filled.yaml")
        with open(filled, "w") as f:
            f.write(fill(open(os.path.join(out, name)).read(), "rswo"))
        r = railsw.run([os.path.join(build, "control", "railsw"), "-c", filled, "--check"],
                       timeout=20, check=False)
        assert r.returncode == 0, (name, r.stdout, r.stderr)
    if n == 8:
        text = open(os.path.join(out, "spine-r1-0.yaml")).read()
        assert "# to leaf-su0-r1:up0" in text and "# to leaf-su0-r1:up1" in text
        assert "this: { rail: 1, spine: 0 }" in text
    elif n == 5:
        text = open(os.path.join(out, "spine-r0-1.yaml")).read()
        assert "this: { rail: 0, spine: 1 }" in text
        assert text.count("role: downlink") == 7
        peers = [ln.split("# to ")[1].split(",")[0] for ln in text.splitlines() if "# to " in ln]
        assert peers[:3] == ["leaf-su0-r0:up1", "leaf-su0-r0:up3", "leaf-su1-r0:up0"]
    else:
        assert "this: { rail: 1 }" in open(os.path.join(out, "leaf-r1.yaml")).read()


def test_configs_too_many_ports(build, tmp):
    """Steps: `--configs DIR` of a fabric whose leaves use 40 ports.
    Verify: exit 0, every file written, and a warning that railsw takes 32 ports.
    """
    path = os.path.join(tmp, "t.yaml")
    with open(path, "w") as f:
        f.write("topology: { sus: 8, servers_per_su: 32, rails: 8, spines: 8, radix: 64 }\n")
    out = os.path.join(tmp, "cfg")
    r = railctl(build, "plan", path, "--configs", out)
    assert r.returncode == 0, r.stderr
    assert len(os.listdir(out)) == 72
    assert "72 of the switches use more than 32 ports" in r.stderr
