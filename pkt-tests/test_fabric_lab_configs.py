# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""One lab orchestrator (docs/fabric-lab.md, "What `up` builds"): the configurations
devtools/fabric-lab.sh writes (fabric_lab_gen.generate) and those an experiment's Fabric
writes (devtools/fabric_lab_rswhost.py, which perf/experiments/lab.py gives the
experiments) come from one plan through the same steps, so they agree on every switch's
ports, MACs, `topology:` section and every host's address and MAC; the experiment's own
keys (speeds, ring size, shaper bucket, per-port extras, static neighbours, qos and
load_balance) land where they belong, and every file passes `railsw --check`.

Nothing is started: plan and configurations only (about 2 s)."""

import json
import os
import sys

import yaml

import railsw

sys.path.insert(0, os.path.join(railsw.REPO, "devtools"))
import fabric_lab_gen as gen  # noqa: E402
from fabric_lab_rswhost import Fabric  # noqa: E402

TOPO = os.path.join(railsw.REPO, "config", "fabric-lab.yaml")
QOS = "qos:\n  trust: dscp\n  dscp_to_tc: { 26: 3 }\n  lossless: [3]"


def lb(sw):
    return ("load_balance:\n  mode: spray\n"
            f"  hash_seed: {7 if sw['tier'] == 'leaf' else 8}")


def topo_of(path):
    with open(path) as f:
        t = yaml.safe_load(f)["topology"]
    return {k: t[k] for k in gen.TOPO_KEYS}


def experiment(build, tmp_path, topo, **kw):
    """An experiment's Fabric with its state in tmp_path; its configurations written."""
    fab = Fabric(build, "tq", topo, "100M", QOS, lb, **kw)
    fab.state = str(tmp_path / "x")
    fab.ring_log2 = 6
    fab.shaper_burst_us = 5000
    fab.generate()
    return fab


def load(path):
    with open(path) as f:
        return yaml.safe_load(f)


def check(build, path):
    r = railsw.run([os.path.join(build, "control", "railsw"), "-c", path, "--check"],
                   check=False)
    assert r.returncode == 0, f"railsw --check {path}:\n{r.stdout}{r.stderr}"


def test_lab_and_experiment_agree(build, tmp_path):
    """Steps: config/fabric-lab.yaml's plan through fabric-lab.sh's generator and through
    an experiment's Fabric (the same topology keys).
    Verify: the same switches; per switch the same port names, roles and MACs (in order)
    and the same `topology:`; the same hosts (address, MAC, leaf port, gateway); the
    lab's server ports are TAPs, the experiment's memif servers."""
    r = railsw.run([os.path.join(build, "control", "railctl"), "plan", TOPO, "--json"])
    plan = json.loads(r.stdout)
    state = tmp_path / "lab"
    (state / "memif").mkdir(parents=True)
    gen.generate(str(state), plan, dict(bgp=False, lldp=False, miscable=False,
                                        numbered=False, bfd=True, cbfc=False, tag="tq",
                                        idle_us="1000", topo=TOPO, bfd_ms=150,
                                        frr_debug=False))
    fab = experiment(build, tmp_path, topo_of(TOPO))
    labs = {s["name"]: load(s["conf"]) for s in gen.read_switches(str(state))}
    exps = {n: load(p) for n, p in fab.confs.items()}
    assert sorted(labs) == sorted(exps) and len(labs) == 4
    for name, lc in labs.items():
        ec = exps[name]
        assert [(p["name"], p["role"], p["mac"]) for p in lc["ports"]] == \
            [(p["name"], p["role"], p["mac"]) for p in ec["ports"]], name
        assert lc["topology"] == ec["topology"], name
        for lp, ep in zip(lc["ports"], ec["ports"]):
            if lp["devargs"].startswith("net_tap"):
                assert ep["devargs"].startswith("net_memif") and "role=server" in ep["devargs"]
    lab_hosts = {(h["leaf"], h["port"]): h for h in gen.read_hosts(str(state))}
    exp_hosts = {(h["leaf"], h["port"]): h for h in fab.hosts}
    assert sorted(lab_hosts) == sorted(exp_hosts) and len(exp_hosts) == 2
    for k, h in lab_hosts.items():
        e = exp_hosts[k]
        assert (h["addr"], h["mac"], h["gw"]) == (e["addr"], e["mac"], e["gw"])
        assert e["ip"] == h["addr"].split("/")[0] and e["name"] == f"{h['server']}.nic0"


def test_experiment_keys_and_check(build, tmp_path):
    """Steps: an experiment's Fabric on 2 leaves x 2 hosts, 2 spines, fabric at 100M and
    hosts at 50M, one port with an extra key; its configurations.
    Verify: host ports at 50M and fabric ports at 100M; every memif with rsize=6; the
    extra key on that port only; shaper_burst_us 5000; a static neighbour for every
    fabric link end and every host, with the peer port's MAC; each tier's load_balance;
    every file passes railsw --check."""
    topo = dict(design="rail-optimized", sus=2, servers_per_su=2, rails=1, spines=2,
                radix=16, gpu_prefix="10.0.0.0/8", fabric_prefix="172.16.0.0/12")

    def extra(sw, port):
        return "impair: { delay_us: 50 }" if sw == "spine-1" and port == "down1" else ""
    fab = experiment(build, tmp_path, topo, host_speed="50M", port_extra=extra)
    confs = {n: load(p) for n, p in fab.confs.items()}
    mac = {(n, p["name"]): p["mac"] for n, c in confs.items() for p in c["ports"]}
    peer = {}
    for ln in fab.plan["links"]:
        if ln["kind"] == "fabric":
            peer[(ln["a"], ln["a_port"])] = mac[(ln["b"], ln["b_port"])]
            peer[(ln["b"], ln["b_port"])] = mac[(ln["a"], ln["a_port"])]
    hosts = {(h["leaf"], h["port"]): h for h in fab.hosts}
    impaired = []
    for n, c in confs.items():
        assert c["switch"]["shaper_burst_us"] == 5000
        assert c["load_balance"]["hash_seed"] == (7 if n.startswith("leaf") else 8)
        neigh = {x["port"]: x["mac"] for x in c["neighbors"]}
        for p in c["ports"]:
            h = hosts.get((n, p["name"]))
            assert p["speed"] == ("50M" if h else "100M"), (n, p)
            assert p["devargs"].endswith(",rsize=6"), (n, p)
            assert neigh[p["name"]] == (h["mac"] if h else peer[(n, p["name"])]), (n, p)
            if h:
                assert h["gw_mac"] == p["mac"] and h["sock"] in p["devargs"]
            if "impair" in p:
                impaired.append((n, p["name"], p["impair"]))
        check(build, fab.confs[n])
    assert impaired == [("spine-1", "down1", {"delay_us": 50})]


def test_experiment_tap_hosts(build, tmp_path):
    """Steps: an experiment's Fabric with kernel hosts (host_kind tap) on a rail-only
    fabric (2 SUs x 2 servers x 2 rails).
    Verify: every leaf downlink is a TAP named as its host's iface, the uplinks are memif;
    every file passes railsw --check."""
    topo = dict(design="rail-only", sus=2, servers_per_su=2, rails=2, spines=2, radix=16,
                gpu_prefix="10.0.0.0/8", fabric_prefix="172.16.0.0/12")
    fab = experiment(build, tmp_path, topo, host_kind="tap")
    assert len(fab.hosts) == 8
    for h in fab.hosts:
        ports = load(fab.confs[h["leaf"]])["ports"]
        p = next(p for p in ports if p["name"] == h["port"])
        assert p["devargs"].startswith("net_tap") and p["devargs"].endswith(
            f"iface={h['iface']}")
    for n, path in fab.confs.items():
        for p in load(path)["ports"]:
            if p["role"] == "uplink" or not n.startswith("leaf"):
                assert p["devargs"].startswith("net_memif"), (n, p)
        check(build, path)
