# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""The BGP fabric lab, short form (devtools/fabric-lab.sh up --bgp; docs/routing.md,
"The BGP lab"): 2 leaves and 2 spines, each railsw with kernel interfaces in its own
namespace where its own zebra (dplane_fpm_nl), bfdd, bgpd and lldpd run; eBGP
unnumbered (IPv6 link-local sessions, IPv4 over 169.254.0.1), one ASN per leaf and one
for the spines, BFD on every session; numbered once too. Routes come from BGP over
FPM, a failed link or a frozen spine moves the flows, `port up` heals, and the LLDP
cabling check passes on the plan's cabling and names the cables of a lab miscabled on
purpose.

The lab has its own state directory and tag (the pytest PID), never the packaged frr or
lldpd services; every daemon is stopped by its PID at the end."""

import json
import os
import shutil
import time

import pytest

import railsw
from test_fabric_lab import Lab, clear_stale, lab_env, script

TOPO = os.path.join(railsw.REPO, "config", "fabric-lab.yaml")
# Unnumbered sessions (`neighbor PORT interface v6only`: IPv6 link-local, IPv4 routes over
# 169.254.0.1) with BFD; test_numbered_lab brings the lab up numbered once as well.
BGP_UP = ["up", "--bgp"]


class BgpLab(Lab):
    def __init__(self, build):
        super().__init__(build)
        # Its own state and tag, beside test_fabric_lab's.
        self.env = lab_env(build, os.getpid())
        self.env["RAILSW_LAB_STATE"] = self.env["RAILSW_LAB_STATE"].replace("fabtest-",
                                                                            "fabtest-bgp-")
        self.env["RAILSW_LAB_TAG"] = ("fb" + str(os.getpid()))[-8:]
        self.state = self.env["RAILSW_LAB_STATE"]
        self.tag = self.env["RAILSW_LAB_TAG"]

    def vty(self, switch, *cmd):
        """vtysh of the switch's FRR (its own vty sockets); JSON commands parsed."""
        args = ["vtysh", "--vty_socket", os.path.join(self.state, "frr", switch)]
        for c in cmd:
            args += ["-c", c]
        r = railsw.run(args, timeout=20)
        return json.loads(r.stdout) if cmd[-1].endswith(" json") else r.stdout

    def route(self, leaf, prefix):
        rs = [r for r in self.ctl(leaf, "show", "routes")["routes"]
              if r["prefix"] == prefix and r.get("source") == "bgp"]
        return rs[0] if rs else None


@pytest.fixture(scope="module")
def blab(build):
    if os.geteuid() != 0:
        pytest.skip("needs root")
    for tool in ("/usr/lib/frr/bgpd", "/usr/lib/frr/bfdd", "/usr/lib/frr/zebra"):
        if not os.access(tool, os.X_OK):
            pytest.fail(f"{tool} not installed (devtools/install-deps.sh: frr)", pytrace=False)
    if not shutil.which("lldpd"):
        pytest.fail("lldpd not installed (devtools/install-deps.sh: lldpd)", pytrace=False)
    clear_stale(build)
    lab = BgpLab(build)
    # A lab a killed run left: its state directory names a dead pytest.
    for name in os.listdir("/run/railsw") if os.path.isdir("/run/railsw") else []:
        if name.startswith("fabtest-bgp-") and name[12:].isdigit() and \
                not railsw.pid_alive(int(name[12:])):
            env = dict(lab.env, RAILSW_LAB_STATE=f"/run/railsw/{name}",
                       RAILSW_LAB_TAG=("fb" + name[12:])[-8:])
            script(env, "down", timeout=60)
    try:
        r = script(lab.env, *BGP_UP, TOPO, timeout=240)
        assert r.returncode == 0, f"fabric-lab.sh up --bgp failed ({r.returncode}):\n" \
            f"{r.stdout[-4000:]}\n{r.stderr[-3000:]}"
        lab.up_out = r.stdout
        yield lab
    finally:
        r = script(lab.env, "down", timeout=120)
        assert r.returncode == 0, f"fabric-lab.sh down failed:\n{r.stdout}\n{r.stderr}"
        assert lab.leftovers() == [], lab.leftovers()


def test_frr_configs_parse(build):
    """The generated FRR configuration of every switch, for unnumbered and numbered
    sessions, read by FRR's own parser (`DAEMON -C -f FILE`, a dry run).

    Steps: devtools/fabric_frr.configs() of each switch of config/fabric-lab.yaml's
    plan; bgpd, bfdd and zebra -C on each file (zebra without its two fpm lines: the
    dry run cannot load dplane_fpm_nl).
    Verify: no daemon reports an unknown or bad command; the leaves have their own
    ASNs, the spines share one; each leaf announces its own subnet; every fabric port
    (unnumbered) or peer address (numbered) is a neighbour."""
    import pathlib
    import pwd
    import sys
    import tempfile
    sys.path.insert(0, os.path.join(railsw.REPO, "devtools"))
    import fabric_frr
    r = railsw.run([os.path.join(build, "control", "railctl"), "plan", TOPO, "--json"])
    plan = json.loads(r.stdout)
    frr = pwd.getpwnam("frr")
    # The daemons drop to user frr: their log files must be reachable by it (pytest's
    # tmp_path is not).
    tmp_path = pathlib.Path(tempfile.mkdtemp(prefix="railsw-frrconf-"))
    os.chmod(tmp_path, 0o755)
    os.chown(tmp_path, frr.pw_uid, frr.pw_gid)
    try:
        check_configs(plan, tmp_path, frr, fabric_frr)
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)


def check_configs(plan, tmp_path, frr, fabric_frr):
    asns = {}
    for sw in plan["switches"]:
        name = sw["name"]
        for unnumbered in (True, False):
            d = tmp_path / f"{name}-{unnumbered}"
            d.mkdir()
            os.chown(d, frr.pw_uid, frr.pw_gid)
            confs = fabric_frr.configs(plan, name, str(d), unnumbered=unnumbered)
            for fname, text in confs.items():
                if fname == "zebra.conf":
                    text = "\n".join(x for x in text.splitlines() if "fpm" not in x) + "\n"
                (d / fname).write_text(text)
                os.chown(d / fname, frr.pw_uid, frr.pw_gid)
                daemon = fname.split(".")[0]
                r = railsw.run([f"/usr/lib/frr/{daemon}", "-C", "-f", str(d / fname)],
                               timeout=30, check=False, cwd=str(d))
                # Messages after the config's `log file` line go to that file.
                log = d / f"{daemon}.log"
                out = r.stdout + r.stderr + (log.read_text() if log.exists() else "")
                assert r.returncode == 0, (name, fname, out)
                for bad in ("No such command", "Unknown command", "Command incomplete",
                            "Ambiguous command", "Error"):
                    assert bad not in out, (name, fname, out, text)
            bgp = confs["bgpd.conf"]
            asns[name] = fabric_frr.asn(plan, name)
            assert f"router bgp {asns[name]}" in bgp
            for port, _peer, _pport, paddr in fabric_frr.fabric_ports(plan, name):
                want = f"neighbor {port} interface v6only peer-group FABRIC" if unnumbered else \
                    f"neighbor {paddr} peer-group FABRIC"
                assert want in bgp, bgp
            if sw["tier"] == "leaf":
                assert f"network {sw['subnet']}" in bgp, bgp
            else:
                assert "network" not in bgp, bgp
    leaf_asns = [asns[s["name"]] for s in plan["switches"] if s["tier"] == "leaf"]
    spine_asns = {asns[s["name"]] for s in plan["switches"] if s["tier"] == "spine"}
    assert len(set(leaf_asns)) == len(leaf_asns) and len(spine_asns) == 1, asns
    assert not spine_asns & set(leaf_asns), asns


def members_up(lab, leaf, prefix):
    """The `up` of each member of the leaf's next-hop group for prefix."""
    for g in lab.ctl(leaf, "show", "lb")["groups"]:
        if g["prefix"] == prefix:
            return [m["up"] for m in g["members"]]
    return []


def subnet(lab, leaf):
    return [s for s in lab.plan["switches"] if s["name"] == leaf][0]["subnet"]


def fabric_ports(lab, switch):
    return sorted(ln["a_port"] if ln["a"] == switch else ln["b_port"]
                  for ln in lab.plan["links"]
                  if ln["kind"] == "fabric" and switch in (ln["a"], ln["b"]))


def test_bgp_routes_over_every_spine(blab):
    """Steps: `up --bgp` (fixture), then `fabric-lab.sh ping`.
    Verify: each leaf has the other leaf's subnet from source bgp, active, with
    both spines' links as next hops (169.254.0.1 twice, unnumbered; resolved 2);
    ping, tracepath and ECMP pass and `ping` reports BGP OK for both leaves."""
    a, b = blab.leaves
    for leaf, other in ((a, b), (b, a)):
        r = blab.route(leaf, subnet(blab, other))
        assert r is not None and r["active"] and r["resolved"] == 2, (leaf, r)
        assert r["nexthops"] == ["169.254.0.1", "169.254.0.1"], (leaf, r)
    r = script(blab.env, "ping", timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("BGP OK") == 2 and "ECMP OK" in r.stdout, r.stdout


def test_bfd_on_every_unnumbered_session(blab):
    """Steps: `up --bgp` (fixture); on every switch, FRR's `show bgp summary json`,
    `show bgp neighbors json` and `show bfd peers json`.
    Verify: every fabric port has its BGP session, established, between IPv6
    link-local addresses; bfdd has one single-hop session per fabric port, up, from
    the port's link-local address to the peer's (the peer bgpd talks to), with the
    lab's timers (300 ms, x3: devtools/fabric_frr.py's BFD_MS)."""
    for sw in blab.leaves + blab.spines:
        ports = fabric_ports(blab, sw)
        nbrs = blab.vty(sw, "show bgp neighbors json")
        assert sorted(nbrs) == ports, (sw, sorted(nbrs))
        for port, n in nbrs.items():
            assert n["bgpState"] == "Established", (sw, port, n["bgpState"])
            assert n["hostLocal"].startswith("fe80:") and n["hostForeign"].startswith("fe80:"), \
                (sw, port, n.get("hostLocal"), n.get("hostForeign"))
        bfd = blab.vty(sw, "show bfd peers json")
        assert sorted(p["interface"] for p in bfd) == ports, (sw, bfd)
        for p in bfd:
            n = nbrs[p["interface"]]
            assert p["status"] == "up" and not p["multihop"], (sw, p)
            assert p["peer"] == n["hostForeign"] and p["local"] == n["hostLocal"], (sw, p, n)
            assert (p["receive-interval"], p["transmit-interval"], p["detect-multiplier"]) == \
                (300, 300, 3), (sw, p)


def test_lldp_cabling_as_planned(blab):
    """Steps: `fabric-lab.sh check-lldp` (lldpcli of every switch, then
    `railctl plan FILE --check-lldp DIR`).
    Verify: exit 0; the 8 fabric cable ends are ok, none miscabled or missing."""
    r = script(blab.env, "check-lldp", timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "8 ok, 0 miscabled, 0 missing" in r.stdout, r.stdout


def test_bfd_rides_out_a_stall(blab):
    """Steps: freeze leaf-su0-r0's railsw for 0.5 s (SIGSTOP, then SIGCONT), as a
    loaded machine may keep it from a CPU; wait 2 s.
    Verify: no switch's bgpd logged a session going down, every BFD session is
    still up and both leaves keep their routes over both spines. BFD at the lab's
    300 ms x 3 (900 ms) rides out the stall; at 150 ms x 3 (450 ms) the sessions
    through that leaf go down."""
    a, b = blab.leaves
    logs = {sw: os.path.join(blab.state, "frr", sw, "bgpd.log") for sw in blab.leaves +
            blab.spines}
    seen = {sw: os.path.getsize(f) for sw, f in logs.items()}
    pid = blab.pids()[a]
    os.kill(pid, 19)  # SIGSTOP
    try:
        time.sleep(0.5)  # the stall itself, not a wait for a condition
    finally:
        os.kill(pid, 18)  # SIGCONT
    time.sleep(2)  # BFD's detection time with room: a flap would be logged by now
    for sw, f in logs.items():
        with open(f, errors="replace") as fh:
            fh.seek(seen[sw])
            down = [x for x in fh.read().splitlines() if "Down" in x or "BFD Down" in x]
        assert down == [], (sw, down)
        bfd = blab.vty(sw, "show bfd peers json")
        assert bfd and all(p["status"] == "up" for p in bfd), (sw, bfd)
    for leaf, other in ((a, b), (b, a)):
        r = blab.route(leaf, subnet(blab, other))
        assert r is not None and r["resolved"] == 2, (leaf, r)


def test_frozen_spine_bfd_failover(blab):
    """Steps: `fabric-lab.sh failover stop 6`: 16 flows each way at 200/s each;
    after 2 s spine-1's railsw is frozen (SIGSTOP: no link goes down), then
    continued.
    Verify: flows were hit (some hashed onto spine-1), and BFD moved them: the
    longest outage of any flow, each way, is under 1.5 s (BFD detects in 3 x
    300 ms; the hold timer would take 6-9 s, and its outage is over 6 s); both
    leaves' sessions to spine-1 were ended by BFD, not the hold timer;
    afterwards the routes have both spines again."""
    a, b = blab.leaves
    # Both spines carry flows: every ECMP member of both leaves is up.
    railsw.wait_until(lambda: all(members_up(blab, l1, subnet(blab, l2)) == [True, True]
                                  for l1, l2 in ((a, b), (b, a))), 30, interval=0.5,
                      what="both leaves' ECMP members over both spines up")
    logs = {leaf: os.path.join(blab.state, "frr", leaf, "bgpd.log") for leaf in (a, b)}
    seen = {leaf: os.path.getsize(f) for leaf, f in logs.items()}
    r = script(blab.env, "failover", "stop", "6", timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    res = [json.load(open(os.path.join(blab.state, f))) for f in
           ("failover-fwd.json", "failover-rev.json")]
    assert sum(x["flows_hit"] for x in res) > 0, (res, r.stdout)
    for x in res:
        # Per flow: received, lost, longest outage and when in the flow it began (ms).
        flows = {f: (v["received"], v["lost"], v["outage_ms"], v["outage_from_ms"])
                 for f, v in x["per_flow"].items()}
        assert x["received"] > 0 and x["outage_ms"] < 1500, \
            (x["sent_per_flow"], x["lost"], flows, r.stdout)
    # bgpd's log: the session to spine-1 (on up1) ended by BFD (a NOTIFICATION Cease/BFD
    # Down sent), not by the hold timer.
    for leaf, f in logs.items():
        with open(f, errors="replace") as fh:
            fh.seek(seen[leaf])
            lines = [x for x in fh.read().splitlines() if "neighbor up1" in x]
        assert any("Cease/BFD Down" in x for x in lines), (leaf, lines)
        assert not any("Hold Timer Expired" in x for x in lines), (leaf, lines)
    railsw.wait_until(lambda: all((blab.route(l1, subnet(blab, l2)) or {}).get("resolved") == 2
                                  for l1, l2 in ((a, b), (b, a))), 40, interval=0.5,
                      what="both leaves' routes over both spines after the spine continued")


def test_link_down_moves_return_flows(blab):
    """Steps: `railctl port up1 down` on leaf-su0-r0 (its link to spine-1); 16
    flows each way during the failure; `port up1 up`.
    Verify: spine-1's end goes down; within 5 s the other leaf's BGP route to
    leaf-su0-r0's subnet keeps only one next hop (spine-1 withdrew it); every
    datagram of both directions arrives during the failure; after `up` the
    route has both spines again within 30 s."""
    from test_fabric_lab import probe
    src, dst = sorted(blab.hosts)
    leaf, other = blab.hosts[src]["a"], blab.hosts[dst]["a"]
    prefix = subnet(blab, leaf)
    blab.ctl(leaf, "port", "up1", "down")
    try:
        railsw.wait_until(lambda: (blab.route(other, prefix) or {}).get("resolved") == 1, 5,
                          interval=0.1, what=f"{other}'s route to {prefix} to drop spine-1")
        fwd = probe(blab, src, dst, port=47111)
        rev = probe(blab, dst, src, port=47112)
        assert fwd["lost"] == 0 and fwd["received"] == 320, fwd
        assert rev["lost"] == 0 and rev["received"] == 320, rev
    finally:
        blab.ctl(leaf, "port", "up1", "up")
    railsw.wait_until(lambda: (blab.route(other, prefix) or {}).get("resolved") == 2, 30,
                      interval=0.2, what=f"{other}'s route to {prefix} over both spines again")


def test_numbered_lab(blab):
    """Steps: `up --bgp --numbered` (the lab again, sessions over the plan's /31s).
    Verify: exit 0 (`up` waits for every leaf's routes over both spines and for
    every BFD session up with its source); each leaf's route to the other leaf's
    subnet has the spines' /31 addresses as next hops, resolved 2; every switch
    has one BFD session per fabric port, up, between the link's IPv4 addresses."""
    r = script(blab.env, "up", "--bgp", "--numbered", TOPO, timeout=240)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-3000:]
    a, b = blab.leaves
    for leaf, other in ((a, b), (b, a)):
        r = blab.route(leaf, subnet(blab, other))
        want = sorted(ln["b_ip"].split("/")[0] for ln in blab.fabric if ln["a"] == leaf)
        assert r is not None and r["active"] and r["resolved"] == 2, (leaf, r)
        assert sorted(r["nexthops"]) == want, (leaf, r, want)
    for sw in blab.leaves + blab.spines:
        bfd = blab.vty(sw, "show bfd peers json")
        assert sorted(p["interface"] for p in bfd) == fabric_ports(blab, sw), (sw, bfd)
        assert all(p["status"] == "up" and p["peer"].startswith("172.16.") and
                   p["local"].startswith("172.16.") for p in bfd), (sw, bfd)


def test_lldp_finds_swapped_cables(blab):
    """Steps: `up --lldp --miscable` (the lab again, kernel interfaces and lldpd,
    with the last spine's cables to the two leaves swapped), `check-lldp`.
    Verify: exit 1; it names both leaves' up1 as miscabled with what they hear
    (the other leaf's port of spine-1), spine-1's down0 and down1 likewise, and
    the cables to spine-0 ok."""
    r = script(blab.env, "up", "--lldp", "--miscable", TOPO, timeout=240)
    assert r.returncode == 0, r.stdout + r.stderr
    r = script(blab.env, "check-lldp", timeout=60)
    assert r.returncode == 1, r.stdout + r.stderr
    out = r.stdout
    assert "MISCABLED   leaf-su0-r0:up1" in out and "hears spine-1:down1" in out, out
    assert "MISCABLED   leaf-su1-r0:up1" in out and "hears spine-1:down0" in out, out
    assert "MISCABLED   spine-1:down0" in out and "hears leaf-su1-r0:up1" in out, out
    assert "4 ok, 4 miscabled, 0 missing" in out, out
