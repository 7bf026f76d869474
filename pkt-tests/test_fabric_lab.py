# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""The multi-switch lab of devtools/fabric-lab.sh on config/fabric-lab.yaml:
2 leaves and 2 spines (4 railsw processes, each its own --file-prefix) joined
by memif, one host namespace per server on a leaf TAP. Hosts ping across
leaf-spine-leaf, tracepath shows each switch as a hop, flows between the
leaves spread over both spines, and `down` leaves nothing behind.

The lab runs with its own state directory and tag (RAILSW_LAB_STATE,
RAILSW_LAB_TAG carry the pytest PID), so a lab someone runs by hand is never
touched; it is always taken down at the end, whatever happened."""

import json
import os
import re
import shutil
import signal
import time

import pytest

import railsw

SCRIPT = os.path.join(railsw.REPO, "devtools", "fabric-lab.sh")
TOPO = os.path.join(railsw.REPO, "config", "fabric-lab.yaml")
STATE_RE = r"/run/railsw/fabtest-(\d+)$"


def lab_env(build, pid):
    env = dict(os.environ)
    env.update(RAILSW_BUILD=build, RAILSW_LAB_STATE=f"/run/railsw/fabtest-{pid}",
               RAILSW_LAB_TAG=f"ft{pid}"[-8:])
    return env


def running(pid):
    """pid runs (a zombie does not: the switches are reparented to init, which
    reaps them a moment after they exit)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def script(env, *args, timeout=180):
    return railsw.run([SCRIPT] + list(args), timeout=timeout, check=False, env=env)


def clear_stale(build):
    """Take down a lab a killed earlier run of this file left (its pytest is gone)."""
    if not os.path.isdir("/run/railsw"):
        return
    for name in os.listdir("/run/railsw"):
        m = re.match(STATE_RE, os.path.join("/run/railsw", name))
        if m and not railsw.pid_alive(int(m.group(1))):
            script(lab_env(build, int(m.group(1))), "down", timeout=60)


class Lab:
    def __init__(self, build):
        self.build = build
        self.env = lab_env(build, os.getpid())
        self.state = self.env["RAILSW_LAB_STATE"]
        self.tag = self.env["RAILSW_LAB_TAG"]
        r = railsw.run([os.path.join(build, "control", "railctl"), "plan", TOPO, "--json"])
        self.plan = json.loads(r.stdout)
        self.leaves = [s["name"] for s in self.plan["switches"] if s["tier"] == "leaf"]
        self.spines = [s["name"] for s in self.plan["switches"] if s["tier"] == "spine"]
        self.hosts = {ln["b"]: ln for ln in self.plan["links"] if ln["kind"] == "server"}
        self.fabric = [ln for ln in self.plan["links"] if ln["kind"] == "fabric"]

    def sock(self, switch):
        return os.path.join(self.state, f"{switch}.sock")

    def ns(self, server):
        return f"{self.tag}-{server}"

    def ip(self, server):
        return self.hosts[server]["b_ip"].split("/")[0]

    def ctl(self, switch, *words):
        r = railsw.run([os.path.join(self.build, "control", "railctl"), "-s", self.sock(switch),
                        "--json"] + list(words), timeout=10, check=False)
        assert r.returncode == 0, f"railctl {' '.join(words)} on {switch}: {r.stdout}{r.stderr}"
        return json.loads(r.stdout)

    def pids(self):
        out = {}
        for sw in self.leaves + self.spines:
            try:
                out[sw] = int(open(os.path.join(self.state, f"{sw}.pid")).read())
            except OSError:
                pass
        return out

    def logs(self):
        text = ""
        for sw in self.leaves + self.spines:
            try:
                with open(os.path.join(self.state, f"{sw}.log"), errors="replace") as f:
                    text += f"--- {sw}.log ---\n" + "".join(f.readlines()[-15:])
            except OSError:
                pass
        return text

    def leftovers(self):
        """Everything of this lab that still exists after `down`."""
        left = []
        prefix = self.tag + "-"
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                args = open(f"/proc/{d}/cmdline", "rb").read().split(b"\0")
            except OSError:
                continue
            if b"--file-prefix" in args and any(a.startswith(prefix.encode()) for a in args):
                left.append(f"process {d}: {b' '.join(args).decode(errors='replace')}")
        netns = railsw.run(["ip", "netns", "list"], check=False).stdout.split("\n")
        left += [f"netns {n.split()[0]}" for n in netns if n.startswith(prefix)]
        if os.path.isdir(railsw.RUN_DPDK):
            left += [f"{railsw.RUN_DPDK}/{d}" for d in os.listdir(railsw.RUN_DPDK)
                     if d.startswith(prefix)]
        left += [f"interface {i}" for i in os.listdir("/sys/class/net")
                 if re.match(re.escape(self.tag) + r"\d+d\d+$", i)]
        if os.path.exists(self.state):
            left.append(f"{self.state}: {os.listdir(self.state)}")
        return left


@pytest.fixture(scope="module")
def lab(build):
    if os.geteuid() != 0:
        pytest.skip("needs root")
    if not shutil.which("tracepath"):
        pytest.fail("tracepath not installed (devtools/install-deps.sh: iputils-tracepath)",
                    pytrace=False)
    clear_stale(build)
    lab = Lab(build)
    try:
        r = script(lab.env, "up", TOPO, timeout=180)
        assert r.returncode == 0, f"fabric-lab.sh up failed ({r.returncode}):\n" \
            f"{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        lab.up_out = r.stdout
        yield lab
    finally:
        r = script(lab.env, "down", timeout=120)
        assert r.returncode == 0, f"fabric-lab.sh down failed:\n{r.stdout}\n{r.stderr}"


def ping(ns, target, count=3):
    return railsw.run(["ip", "netns", "exec", ns, "ping", "-n", "-c", str(count), "-i", "0.2",
                       "-w", "15", target], timeout=30, check=False)


def test_fabric_up(lab):
    """Steps: `fabric-lab.sh up config/fabric-lab.yaml` (fixture).
    Verify: 4 railsw processes, each answering on its socket with the plan's
    topology place; every memif link up; each spine has the plan's addresses on
    its two leaf ports; each host namespace has its address and default route.
    """
    assert len(lab.leaves) == 2 and len(lab.spines) == 2, lab.plan["switches"]
    pids = lab.pids()
    assert sorted(pids) == sorted(lab.leaves + lab.spines)
    assert all(running(p) for p in pids.values()), pids
    for sw in lab.leaves + lab.spines:
        topo = lab.ctl(sw, "show", "topology")
        assert topo["name"] == sw, topo
        want = {ln["a_port"] if ln["a"] == sw else ln["b_port"]:
                ln["a_ip"] if ln["a"] == sw else ln["b_ip"]
                for ln in lab.plan["links"] if sw in (ln["a"], ln["b"])}
        got = {p["name"]: p["ipv4"] for p in topo["ports"]}
        assert got == want, (sw, got, want)
        for p in lab.ctl(sw, "show", "ports")["ports"]:
            if p["kind"] == "net_memif":
                assert p["link_up"], (sw, p)
    for server, ln in lab.hosts.items():
        out = railsw.run(["ip", "-n", lab.ns(server), "-br", "addr"]).stdout
        assert ln["b_ip"] in out, out
        gw = ln["a_ip"].split("/")[0]
        assert f"default via {gw}" in railsw.run(["ip", "-n", lab.ns(server), "route"]).stdout
    r = script(lab.env, "status", timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


def test_ping_across_leaves(lab):
    """Steps: from each host, ping its own leaf's gateway and the host on the
    other leaf (3 echoes each, up to 15 s).
    Verify: every ping gets its replies; the leaves' uplinks carried the
    echoes (tx counters on up0/up1).
    """
    servers = sorted(lab.hosts)
    assert len(servers) == 2
    for src, dst in ((servers[0], servers[1]), (servers[1], servers[0])):
        gw = lab.hosts[src]["a_ip"].split("/")[0]
        for target in (gw, lab.ip(dst)):
            r = ping(lab.ns(src), target)
            assert r.returncode == 0, f"{src} ping {target}:\n{r.stdout}{r.stderr}\n{lab.logs()}"
    for leaf in lab.leaves:
        ports = {p["name"]: p for p in lab.ctl(leaf, "show", "ports")["ports"]}
        assert sum(p["tx_packets"] for n, p in ports.items() if n.startswith("up")) >= 3, ports


def test_tracepath_hops(lab):
    """Steps: tracepath -n from server-su0-0 to server-su1-0's address.
    Verify: hop 1 is the source leaf's gateway, hop 2 one of the spines' ends
    of the source leaf's links, hop 3 one of the destination leaf's ends of its
    spine links (the switches answer with ICMP time exceeded from the port the
    probe came in on), and the host is reached at hop 4.
    """
    src, dst = sorted(lab.hosts)
    src_leaf, dst_leaf = lab.hosts[src]["a"], lab.hosts[dst]["a"]
    hop1 = {lab.hosts[src]["a_ip"].split("/")[0]}
    hop2 = {ln["b_ip"].split("/")[0] for ln in lab.fabric if ln["a"] == src_leaf}
    hop3 = {ln["a_ip"].split("/")[0] for ln in lab.fabric if ln["a"] == dst_leaf}
    assert len(hop2) == 2 and len(hop3) == 2
    r = railsw.run(["ip", "netns", "exec", lab.ns(src), "tracepath", "-n", "-m", "6",
                    lab.ip(dst)], timeout=60, check=False)
    out = r.stdout
    assert r.returncode == 0, out + r.stderr
    hops = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\d+):\s+(\d+\.\d+\.\d+\.\d+)\s", line)
        if m:
            hops.setdefault(int(m.group(1)), set()).add(m.group(2))
    assert hops.get(1) == hop1, out
    assert hops.get(2) and hops[2] <= hop2, out
    assert hops.get(3) and hops[3] <= hop3, out
    assert lab.ip(dst) in hops.get(4, set()) and "reached" in out, out


def test_ecmp_over_both_spines(lab):
    """Steps: clear counters on the source leaf and the spines; from
    server-su0-0 send 32 UDP flows (source ports 41001..41032, 4 datagrams
    each) to server-su1-0.
    Verify: the leaf's ECMP group for the GPU prefix has the two spines as
    members and both carried packets (together at least the 128 datagrams);
    both spines received packets.
    """
    src, dst = sorted(lab.hosts)
    leaf = lab.hosts[src]["a"]
    for sw in [leaf] + lab.spines:
        lab.ctl(sw, "clear", "counters")
    code = (
        "import socket\n"
        "for sp in range(41001, 41033):\n"
        "    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        "    s.bind(('', sp))\n"
        "    for i in range(4):\n"
        f"        s.sendto(b'flow', ({lab.ip(dst)!r}, 9000 + sp % 7))\n"
        "    s.close()\n")
    railsw.run(["ip", "netns", "exec", lab.ns(src), "/usr/bin/python3", "-c", code], timeout=30)
    spines = {ln["b_ip"].split("/")[0]: ln["b"] for ln in lab.fabric if ln["a"] == leaf}

    def group():
        for g in lab.ctl(leaf, "show", "lb")["groups"]:
            if g["prefix"] == lab.plan["gpu_prefix"]:
                return g
        return None

    g = railsw.wait_until(lambda: (lambda g: g if g and sum(m["packets"] for m in g["members"])
                                   >= 128 else None)(group()), 10, interval=0.2,
                          what="the leaf's ECMP group to count 128 packets")
    members = {m["nexthop"]: m for m in g["members"]}
    assert set(members) == set(spines), g
    assert all(m["packets"] > 0 for m in members.values()), \
        f"flows did not spread over both spines: {g}"
    for sp in lab.spines:
        rx = sum(p["rx_packets"] for p in lab.ctl(sp, "show", "ports")["ports"])
        assert rx > 0, f"{sp} received nothing"


def test_script_ping(lab):
    """Steps: `fabric-lab.sh ping` (pings, tracepath, ECMP demonstration).
    Verify: exit 0, every ping OK, `show lb` printed, ECMP OK."""
    r = script(lab.env, "ping", timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PING FAIL" not in r.stdout and r.stdout.count("PING OK") == 2, r.stdout
    assert "ECMP OK" in r.stdout and "172.16" in r.stdout, r.stdout


def kernel_stats(ns, ifname):
    """(tx_packets, tx_dropped) of a host's interface, as `ip -s link` counts them."""
    j = json.loads(railsw.run(["ip", "-n", ns, "-s", "-j", "link", "show", ifname]).stdout)
    tx = j[0]["stats64"]["tx"]
    return tx["packets"], tx["dropped"]


def test_status_shows_host_tap_drops(lab):
    """Frames that die in a host's TAP queue show in `fabric-lab.sh status`.

    Steps: stop the host's leaf (SIGSTOP: it no longer reads its TAPs); the
    host sends 3000 frames into its TAP (AF_PACKET, broadcast, an experimental
    ethertype); continue the leaf; `fabric-lab.sh status`.
    Verify: the host's kernel counts more than 1000 tx drops (the TAP's queue
    holds about 1000 frames); status prints the host's line with exactly the
    kernel's tx packets and tx dropped; the leaf's `show drops` did not count
    them (it never saw them): its drops grew by fewer than the kernel's.
    """
    rows = [ln.split("\t") for ln in open(os.path.join(lab.state, "hosts.tsv")).read().splitlines()]
    server, ns, ifname, leaf = rows[0][0], rows[0][1], rows[0][2], rows[0][6]
    pid = lab.pids()[leaf]

    def leaf_drops():
        return sum(d["packets"] for d in lab.ctl(leaf, "show", "drops")["drops"])
    tx0, dropped0 = kernel_stats(ns, ifname)
    drops0 = leaf_drops()
    flood = ("import socket\n"
             f"s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind(('{ifname}', 0))\n"
             "f = b'\\xff' * 6 + b'\\x02\\xaa\\x00\\x00\\x00\\x01' + b'\\x88\\xb5' + bytes(50)\n"
             "for _ in range(3000):\n    s.send(f)\n")
    os.kill(pid, signal.SIGSTOP)
    try:
        railsw.run(["ip", "netns", "exec", ns, "/usr/bin/python3", "-c", flood], timeout=30)
    finally:
        os.kill(pid, signal.SIGCONT)
    railsw.wait_until(lambda: leaf_drops() > drops0, 10, what="the leaf to read its TAP again")
    time.sleep(0.5)
    r = script(lab.env, "status", timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    tx, dropped = kernel_stats(ns, ifname)
    assert dropped - dropped0 > 1000, (dropped0, dropped)
    line = [ln for ln in r.stdout.splitlines() if ln.split()[:1] == [server]]
    assert len(line) == 1 and f"tx {tx} (dropped {dropped})" in line[0], (tx, dropped, r.stdout)
    assert leaf_drops() - drops0 < dropped - dropped0, (drops0, leaf_drops(), dropped)


PROBE = os.path.join(railsw.REPO, "devtools", "fabric_probe.py")


def probe(lab, src, dst, flows=16, pps=20, seconds=1.0, port=47101):
    """flows UDP flows from src's namespace to dst's address for seconds; what dst got.
    The sender starts once the receiver's socket is bound (a busy machine may take a
    second to start it)."""
    import subprocess
    recv = subprocess.Popen(["ip", "netns", "exec", lab.ns(dst), "/usr/bin/python3", PROBE,
                             "recv", str(port), str(seconds + 1.5)], stdout=subprocess.PIPE,
                            text=True)
    railsw.wait_until(lambda: f":{port} " in railsw.run(
        ["ip", "netns", "exec", lab.ns(dst), "ss", "-Hlun", f"sport = :{port}"]).stdout, 15,
        interval=0.05, what=f"the probe's receiver on UDP {port} in {lab.ns(dst)}")
    railsw.run(["ip", "netns", "exec", lab.ns(src), "/usr/bin/python3", PROBE, "send",
                lab.ip(dst), str(port), str(flows), str(pps), str(seconds)],
               timeout=seconds + 20)
    out, _ = recv.communicate(timeout=seconds + 20)
    return json.loads(out)


def host_link(lab, server):
    """The flags of a host's interface (NO-CARRIER, LOWER_UP, ...)."""
    rows = [ln.split("\t") for ln in open(os.path.join(lab.state, "hosts.tsv")).read().splitlines()]
    ifname = [r for r in rows if r[0] == server][0][2]
    j = json.loads(railsw.run(["ip", "-n", lab.ns(server), "-j", "link", "show",
                               ifname]).stdout)
    return set(j[0]["flags"])


def test_port_down_for_the_peer(lab):
    """`port NAME down` takes the link down for the peer too, and `up` heals it.

    Steps: on server-su0-0's leaf, `railctl port up1 down` (its memif link to
    spine-1); 16 UDP flows from server-su0-0 to server-su1-0; `fabric-lab.sh
    status`; `port up1 up`. Then `port down0 down` (the leaf's TAP to the host)
    and `port down0 up`.
    Verify: while up1 is down the leaf reports admin_up false, peer_down true;
    spine-1's end of the cable (down0) goes link down within 2 s; the leaf's ECMP
    member via up1 is down and every datagram of the 16 flows arrives (over
    spine-0); status prints `up1:admin` for the leaf and `down0:link` for
    spine-1. After `up` both ends are link up again within 5 s, the member is up
    and flows use both spines again. A TAP port down turns the host's carrier
    off (NO-CARRIER), up turns it on (LOWER_UP), and the host pings across again.
    """
    src, dst = sorted(lab.hosts)
    leaf = lab.hosts[src]["a"]
    ln = [x for x in lab.fabric if x["a"] == leaf and x["a_port"] == "up1"][0]
    spine, sport = ln["b"], ln["b_port"]

    def port(sw, name):
        return [p for p in lab.ctl(sw, "show", "ports")["ports"] if p["name"] == name][0]

    def member_up():
        for g in lab.ctl(leaf, "show", "lb")["groups"]:
            if g["prefix"] == lab.plan["gpu_prefix"]:
                return {m["port"]: m["up"] for m in g["members"]}["up1"]
        return None

    lab.ctl(leaf, "port", "up1", "down")
    try:
        p = port(leaf, "up1")
        assert p["admin_up"] is False and p["peer_down"] is True, p
        railsw.wait_until(lambda: port(spine, sport)["link_state"] == "down", 2,
                          what=f"{spine} {sport} to see the link down")
        assert member_up() is False
        got = probe(lab, src, dst)
        assert got["lost"] == 0 and got["received"] == 16 * 20, got
        r = script(lab.env, "status", timeout=60)
        lines = {ln.split()[0]: ln for ln in r.stdout.splitlines() if ln.strip()}
        assert "up1:admin" in lines[leaf], r.stdout
        assert f"{sport}:link" in lines[spine], r.stdout
    finally:
        lab.ctl(leaf, "port", "up1", "up")
    railsw.wait_until(lambda: port(leaf, "up1")["link_state"] == "up" and
                      port(spine, sport)["link_state"] == "up", 5,
                      what="the memif link to come back after `port up1 up`")
    assert port(leaf, "up1")["peer_down"] is None
    railsw.wait_until(lambda: member_up() is True, 2, what="the ECMP member via up1 back up")
    lab.ctl(leaf, "port", "down0", "down")
    try:
        assert port(leaf, "down0")["peer_down"] is True
        railsw.wait_until(lambda: "NO-CARRIER" in host_link(lab, src), 2,
                          what="the host's carrier to go off")
    finally:
        lab.ctl(leaf, "port", "down0", "up")
    railsw.wait_until(lambda: "LOWER_UP" in host_link(lab, src), 2,
                      what="the host's carrier back on")
    r = ping(lab.ns(src), lab.ip(dst))
    assert r.returncode == 0, r.stdout + lab.logs()


def test_up_again_rebuilds(lab):
    """Steps: `up` on the running lab, then kill one spine with SIGKILL
    (a half-up lab) and `up` once more.
    Verify: each `up` exits 0, clears the previous lab first and starts new
    processes; hosts ping across the leaves after each.
    """
    src, dst = sorted(lab.hosts)
    old = lab.pids()
    r = script(lab.env, "up", TOPO)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "clearing what an earlier lab left" in r.stdout
    new = lab.pids()
    assert not any(running(p) for p in old.values()), (old, new)
    assert ping(lab.ns(src), lab.ip(dst)).returncode == 0
    os.kill(new[lab.spines[0]], 9)
    railsw.wait_until(lambda: not running(new[lab.spines[0]]), 10)
    assert script(lab.env, "status", timeout=60).returncode == 1
    r = script(lab.env, "up", TOPO)
    assert r.returncode == 0, r.stdout + r.stderr
    assert all(running(p) for p in lab.pids().values())
    r = ping(lab.ns(src), lab.ip(dst))
    assert r.returncode == 0, r.stdout + lab.logs()


def test_down_removes_everything(lab):
    """Steps: `fabric-lab.sh down`, then `down` again.
    Verify: both exit 0; no railsw with the lab's prefix runs, no namespace,
    TAP, /var/run/dpdk/<prefix> directory, memif or control socket or state
    directory is left.
    """
    pids = lab.pids()
    r = script(lab.env, "down", timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not any(running(p) for p in pids.values()), pids
    assert lab.leftovers() == []
    r = script(lab.env, "down", timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert lab.leftovers() == []
