# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""What a running fabric lab is asked and shown (devtools/fabric_lab.py): the routing
daemons and lldpd of `up --bgp|--lldp` and the wait for BGP to converge; `status`,
`ping`, `check-lldp`, `failover` and `impair`. Each command returns its exit status;
LabError (fabric_lab_gen) stops it with a message."""

import json
import os
import re
import subprocess
import sys
import time

import fabric_lab_proc as proc
from fabric_lab_gen import LabError

FRR = "/usr/lib/frr"
PY = "/usr/bin/python3"


def say(msg):
    print(f"\n== {msg}", flush=True)


def me():
    return os.environ.get("_FABRIC_LAB_ME") or "devtools/fabric-lab.sh"


def run(args, timeout=None, **kw):
    """args' stdout (text), or None when it failed or timed out."""
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=False,
                           **kw)
    except subprocess.TimeoutExpired:
        return None
    return r.stdout if r.returncode == 0 else None


# ---------------------------------------------------------------------------
# Routing daemons and LLDP (up --bgp / --lldp)

def lldp_ports(lab, name):
    with open(lab.path("lldp", name, "ports")) as f:
        return f.read().strip()


def wait_kif(lab, s):
    """Wait until railsw made switch s's kernel interfaces in its namespace."""
    ns, ports = proc.sw_ns(lab.tag, s["name"]), lldp_ports(lab, s["name"])
    for _ in range(100):
        if all(subprocess.run(["ip", "-n", ns, "link", "show", p], capture_output=True,
                              check=False).returncode == 0 for p in ports.split(",")):
            return
        time.sleep(0.1)
    print(proc.tail(s["log"], 15), file=sys.stderr, end="", flush=True)
    raise LabError(f"{s['name']}: kernel interfaces ({ports}) did not appear in netns {ns} "
                   f"within 10 s (log {s['log']})")


def start_frr(lab, s):
    """zebra (with dplane_fpm_nl: it connects to railsw's FPM listener in the same
    namespace), bfdd and bgpd of switch s, in its namespace, with its own files."""
    name = s["name"]
    d, ns = lab.path("frr", name), proc.sw_ns(lab.tag, name)
    subprocess.run(["chown", "-R", "frr:frr", d], check=True)
    for dm in ("zebra", "bfdd", "bgpd"):
        if not os.path.exists(os.path.join(d, f"{dm}.conf")):
            continue
        extra = {"zebra": ["-M", "dplane_fpm_nl"],
                 "bfdd": ["--bfdctl", os.path.join(d, "bfdd.sock")]}.get(dm, [])
        args = ["ip", "netns", "exec", ns, os.path.join(FRR, dm), "-d"] + extra + [
            "-f", os.path.join(d, f"{dm}.conf"), "-i", os.path.join(d, f"{dm}.pid"),
            "-z", os.path.join(d, "zserv.api"), "--vty_socket", d, "-P", "0", "-u", "frr",
            "-g", "frr"]
        if not proc.run_daemon(args, os.path.join(d, f"{dm}.out")):
            raise LabError(f"{name}: {dm} did not start (see {d}/{dm}.out and {d}/{dm}.log)")
        proc.wait_pidfile(os.path.join(d, f"{dm}.pid"), f"{name}: {dm}")
        if dm == "zebra":
            for _ in range(50):
                if os.path.exists(os.path.join(d, "zserv.api")):
                    break
                time.sleep(0.1)


def start_lldpd(lab, s):
    """lldpd of switch s on its kernel interfaces: its own socket, pid file and config."""
    name = s["name"]
    d, ns = lab.path("lldp", name), proc.sw_ns(lab.tag, name)
    args = ["ip", "netns", "exec", ns, "lldpd", "-u", os.path.join(d, "lldpd.sock"),
            "-p", os.path.join(d, "lldpd.pid"), "-I", lldp_ports(lab, name),
            "-O", os.path.join(d, "lldpd.conf"), "-L", "/usr/sbin/lldpcli", "-k",
            "-S", f"railsw {name} (fabric-lab)"]
    if not proc.run_daemon(args, os.path.join(d, "lldpd.out")):
        raise LabError(f"{name}: lldpd did not start (see {d}/lldpd.out)")
    proc.wait_pidfile(os.path.join(d, "lldpd.pid"), f"{name}: lldpd")


def vty(lab, name, *cmds):
    args = ["vtysh", "--vty_socket", lab.path("frr", name)]
    for c in cmds:
        args += ["-c", c]
    return run(args, timeout=10)


def uplinks(plan, sw):
    return [ln["a_port"] for ln in plan["links"] if ln["kind"] == "fabric" and ln["a"] == sw]


def bgp_routes_bad(plan, sw, j):
    """Every other leaf's subnet: a BGP route, active, over every uplink. What is not."""
    bad, n_up = [], len(uplinks(plan, sw))
    for s in plan["switches"]:
        if s["tier"] != "leaf" or s["name"] == sw:
            continue
        rs = [r for r in j["routes"] if r["prefix"] == s["subnet"] and r.get("source") == "bgp"]
        if not rs:
            bad.append(f"{s['subnet']}: no bgp route")
        elif not rs[0].get("active", True):
            bad.append(f"{s['subnet']}: bgp route not active")
        elif rs[0].get("resolved", len(rs[0]["nexthops"])) != n_up:
            bad.append(f"{s['subnet']}: {rs[0].get('resolved')} of {n_up} next hops "
                       f"({','.join(rs[0]['nexthops'])})")
    return "\n".join(bad)


def bgp_sessions(j):
    peers = j.get("ipv4Unicast", {}).get("peers", {})
    up = sum(1 for p in peers.values() if p.get("state") == "Established")
    return f"{up}/{len(peers)}"


def bfd_peers_bad(plan, sw, j):
    """One single-hop session per fabric port, up, with its local address and interface:
    the session bgpd installs once the BGP session is established."""
    ports = [ln["a_port"] if ln["a"] == sw else ln["b_port"] for ln in plan["links"]
             if ln["kind"] == "fabric" and sw in (ln["a"], ln["b"])]
    final = {p["interface"] for p in j if p.get("status") == "up" and p.get("interface") and
             p.get("local", "") not in ("", "0.0.0.0", "::")}
    missing = [p for p in ports if p not in final]
    if not missing:
        return ""
    return (f"BFD not up with its source on {','.join(missing)} ({len(j)} sessions: " +
            ", ".join(f"{p.get('interface') or '-'} {p.get('status')}" for p in j) + ")")


def wait_bgp(lab):
    """Until every leaf has a BGP route over all its uplinks to every other leaf and, with
    BFD, every switch has its BFD sessions up with their source addresses (at most
    RAILSW_LAB_BGP_WAIT s). FRR 8.4's bgpd installs a session's BFD session without a source
    at first and re-installs it with one when the BGP session is established; when the
    first one was up already (numbered sessions), the re-install reads as BFD down and bgpd
    resets the BGP session once or twice, a few seconds after routes first arrived (fixed in
    FRR 10.3, bgpd 247a75d5). Routes alone are not the end of start-up."""
    t0, bad, bfd = time.time(), "", lab.mode_has("bfd")
    for _ in range(lab.bgp_wait * 2):
        bad = ""
        for s in lab.switches:
            if s["tier"] == "leaf":
                j = lab.ctl(s["sock"], "show", "routes", json_out=True)
                out = "no answer" if j is None else bgp_routes_bad(lab.plan, s["name"], j)
                if out:
                    bad += f"{s['name']}: {out}; "
            if not bad and bfd:
                t = vty(lab, s["name"], "show bfd peers json")
                try:
                    out = bfd_peers_bad(lab.plan, s["name"], json.loads(t))
                except (TypeError, ValueError):
                    out = "no answer from bfdd"
                if out:
                    bad += f"{s['name']}: {out}; "
        if not bad:
            print(f"BGP converged in {int(time.time() - t0)} s: every leaf reaches every "
                  "other leaf's subnet over all its uplinks" +
                  (", BFD up on every session" if bfd else ""), flush=True)
            return
        time.sleep(0.5)
    for s in lab.switches:
        print(f"--- {s['name']}: show bgp summary", file=sys.stderr)
        print(vty(lab, s["name"], "show bgp summary") or "", file=sys.stderr, end="")
        if s["tier"] == "leaf":
            print(f"--- {s['name']}: railctl show routes, show neighbors", file=sys.stderr)
            print((lab.ctl(s["sock"], "show", "routes") or "") +
                  (lab.ctl(s["sock"], "show", "neighbors") or ""), file=sys.stderr, end="")
    raise LabError(f"BGP did not converge within {lab.bgp_wait} s: {bad}")


# ---------------------------------------------------------------------------
# status

def ports_line(j, drops):
    ps = j["ports"]
    n_up = sum(1 for p in ps if p.get("admin_up", True) and
               (p["link_up"] or p.get("link_state") == "unknown"))
    down = "".join(" %s:%s" % (p["name"], "admin" if not p.get("admin_up", True) else "link")
                   for p in ps if not p.get("admin_up", True) or p["link_up"] is False)
    return "%-22s %-8s %s" % ("%d/%d%s" % (n_up, len(ps), down), drops,
                              " ".join("%s:%d/%d" % (p["name"], p["rx_packets"], p["tx_packets"])
                                       for p in ps))


def cmd_status(lab):
    lab.need_root("status")
    lab.need_build()
    lab.load()
    bad = False
    hz = os.sysconf("SC_CLK_TCK")
    ticks0 = {s["name"]: proc.cpu_ticks(lab.pid_of(s)) for s in lab.switches if lab.pid_of(s)}
    t0 = time.monotonic()
    time.sleep(2)
    dt = time.monotonic() - t0
    say(f"switches (state {lab.state}, tag {lab.tag}; CPU over the last 2 s)")
    print("  %-14s %-5s %-8s %-6s %-22s %-8s %s" % ("switch", "tier", "pid", "cpu%",
                                                    "ports up/all (down)", "drops",
                                                    "rx/tx packets"))
    for s in lab.switches:
        pid = lab.pid_of(s)
        if not pid:
            print("  %-14s %-5s %-8s" % (s["name"], s["tier"], f"NOT RUNNING (log {s['log']})"))
            bad = True
            continue
        cpu = "%.1f" % (((proc.cpu_ticks(pid) or 0) - (ticks0.get(s["name"]) or 0)) * 100 / hz /
                        dt)
        j = lab.ctl(s["sock"], "show", "ports", json_out=True)
        if j is not None:
            d = lab.ctl(s["sock"], "show", "drops", json_out=True)
            drops = sum(x["packets"] for x in d["drops"]) if d is not None else "?"
            print("  %-14s %-5s %-8s %-6s %s" % (s["name"], s["tier"], pid, cpu,
                                                 ports_line(j, drops)))
        else:
            print("  %-14s %-5s %-8s %-6s %s" % (s["name"], s["tier"], pid, cpu,
                                                 f"no answer on {s['sock']}"))
            bad = True
    print("  (down: NAME:admin after `railctl port NAME down`, NAME:link when its link is down;")
    print("  drops: every drop reason of railctl show drops; a TAP moved into a namespace counts")
    print("  as up: its link state is unknown)")
    if lab.mode_has("lldp"):
        with open(lab.path("mode")) as f:
            mode = f.read().strip()
        say(f"routing daemons and LLDP ({mode}; namespaces {lab.tag}-sw-<switch>)")
        check = proc.is_our_daemon(lab.tag)
        for s in lab.switches:
            files = sorted(p for p in os.listdir(lab.path("frr", s["name"]))
                           if p.endswith(".pid")) if os.path.isdir(
                lab.path("frr", s["name"])) else []
            files = [lab.path("frr", s["name"], f) for f in files]
            if os.path.exists(lab.path("lldp", s["name"], "lldpd.pid")):
                files.append(lab.path("lldp", s["name"], "lldpd.pid"))
            alive = []
            for f in files:
                dm = os.path.basename(f)[:-len(".pid")]
                if check(proc.read_pid(f), f):
                    alive.append(dm)
                else:
                    alive.append(f"{dm}:DEAD")
                    bad = True
            sess = ""
            if lab.mode_has("bgp"):
                t = vty(lab, s["name"], "show bgp summary json")
                try:
                    n = bgp_sessions(json.loads(t))
                except (TypeError, ValueError):
                    n = "?"
                sess = f"bgp sessions established {n}"
            print("  %-14s %-34s %s" % (s["name"], " ".join(alive), sess))
    say("hosts (kernel counters of each host's TAP: a frame the host sent that railsw never read")
    print("   is a tx drop here, in the TAP's queue, and in no counter of railsw: docs/lab.md)")
    print("  %-14s %-24s %-6s %-16s %s" % ("server", "netns", "iface", "address",
                                           "rx/tx packets, dropped"))
    for h in lab.hosts:
        out = run(["ip", "-n", h["ns"], "-s", "-j", "link", "show", h["iface"]])
        if out is not None:
            st = json.loads(out)[0]["stats64"]
            print("  %-14s %-24s %-6s %-16s %s" % (
                h["server"], h["ns"], h["iface"], h["addr"],
                "rx %d (dropped %d)  tx %d (dropped %d)" % tuple(
                    st[d][k] for d in ("rx", "tx") for k in ("packets", "dropped"))))
        else:
            print("  %-14s netns %-18s MISSING" % (h["server"], h["ns"]))
            bad = True
    sys.stdout.flush()
    if bad:
        print(f"fabric-lab: the lab is only partly up; '{me()} up' rebuilds it", file=sys.stderr)
        return 1
    return 0


# ---------------------------------------------------------------------------
# ping

def crosses(lab, i, k):
    """Does traffic from host NIC i's namespace to host NIC k's address cross the spines?
    Not when k hangs off a leaf the namespace is attached to: that subnet is connected."""
    hs = lab.hosts
    if hs[i]["ns"] == hs[k]["ns"]:
        return False
    return not any(h["ns"] == hs[i]["ns"] and h["leaf"] == hs[k]["leaf"] for h in hs)


def first_crossing(lab):
    for k in range(len(lab.hosts)):
        if crosses(lab, 0, k):
            return k
    raise LabError("all hosts hang off one leaf: nothing crosses the spines")


def group_state(lab, leaf, prefix, bgp):
    """('ok'|'wait', what the leaf's group for prefix looks like)."""
    sock = lab.sock_of(leaf)
    routes = lab.ctl(sock, "show", "routes", json_out=True)
    lb = lab.ctl(sock, "show", "lb", json_out=True)
    if routes is None or lb is None:
        return "wait", f"? no answer from {leaf}"
    n_up = len(uplinks(lab.plan, leaf))
    rs = [r for r in routes["routes"] if r["prefix"] == prefix and r.get("active", True) and
          (not bgp or r.get("source") == "bgp")]
    ms = [m for g in lb["groups"] if g["prefix"] == prefix for m in g["members"]]
    up = [m for m in ms if m.get("up", True)]
    if not rs:
        return "wait", f"no active {'bgp ' if bgp else ''}route to {prefix} on {leaf}"
    res = rs[0].get("resolved", len(rs[0]["nexthops"]))
    desc = (f"{leaf}: route {prefix} resolved {res}" + (f" of {n_up} uplinks" if bgp else "") +
            f", group {len(ms)} members ({len(up)} up: " +
            (", ".join(f"{m['nexthop']} on {m['port']}" for m in up) or "none") + ")")
    good = res == len(ms) == len(up) and res > 0 and (not bgp or res == n_up)
    return ("ok" if good else "wait"), desc


def wait_group(lab, leaf, prefix, secs):
    """Before the ECMP flows: wait (at most secs) until leaf's group for prefix has every
    next hop of its active route as a member, each up, and (with BGP) one per uplink. Prints
    what it saw; the ECMP check after it reports what the flows did."""
    t0, last, bgp = time.monotonic(), "", lab.mode_has("bgp")
    while True:
        ok, seen = group_state(lab, leaf, prefix, bgp)
        t = time.monotonic() - t0
        if last and seen != last:
            print("  %6.1f s: %s" % (t, last))
        last = seen
        if ok == "ok":
            print("  %6.1f s: %s" % (t, seen), flush=True)
            return
        if t >= secs:
            print("  %6.1f s: %s (waited %d s; sending anyway)" % (t, seen, secs), flush=True)
            return
        time.sleep(0.2)


FLOWS_PY = """
import socket, sys
dst = sys.argv[1]
for p in range(5001, 5033):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((dst, p))
    for n in range(1, 6):
        try:
            s.send(b"flow %d %d\\n" % (p, n))
        except OSError:
            pass  # an ICMP error for an earlier datagram: the flow goes on
    s.close()
"""


def cmd_ping(lab):
    lab.need_root("ping")
    lab.need_build()
    lab.load()
    hs, fails = lab.hosts, 0
    if len(hs) < 2:
        raise LabError("the lab has fewer than 2 hosts")
    say("ping between hosts on different leaves")
    for i, h in enumerate(hs):
        if any(j < i and x["ns"] == h["ns"] for j, x in enumerate(hs)):
            continue  # pings go from each namespace once
        for k, x in enumerate(hs):
            if not crosses(lab, i, k):
                continue
            dst = x["addr"].split("/")[0]
            r = subprocess.run(["ip", "netns", "exec", h["ns"], "ping", "-n", "-c", "3", "-i",
                                "0.2", "-w", "10", dst], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, check=False)
            if r.returncode == 0:
                m = re.search(r"rtt.*", r.stdout)
                print("  PING OK    %-14s -> %-14s %-10s %s" % (h["server"], x["server"], dst,
                                                              m.group(0) if m else ""))
            else:
                print("  PING FAIL  %-14s -> %-14s %s\n%s" % (h["server"], x["server"], dst,
                                                              r.stdout.rstrip("\n")))
                fails += 1
    sys.stdout.flush()
    src, dst = hs[0], hs[first_crossing(lab)]
    ns, daddr = src["ns"], dst["addr"].split("/")[0]
    say(f"tracepath {src['server']} -> {dst['server']} ({daddr}): leaf, spine, leaf, host")
    print(f"$ ip netns exec {ns} tracepath -n -m 6 {daddr}", flush=True)
    if subprocess.run(["ip", "netns", "exec", ns, "timeout", "30", "tracepath", "-n", "-m", "6",
                       daddr], check=False).returncode != 0:
        print("  TRACEPATH FAIL")
        fails += 1

    say(f"ECMP: 32 UDP flows {src['server']} -> {dst['server']} over the spines")
    leaf_sock = lab.sock_of(src["leaf"])
    # The group of the GPU prefix (topology routes), or of the destination leaf's subnet (BGP).
    prefix = lab.plan["gpu_prefix"]
    if lab.mode_has("bgp"):
        prefix = [s["subnet"] for s in lab.plan["switches"] if s["name"] == dst["leaf"]][0]
    wait_group(lab, src["leaf"], prefix, 10)
    spines = [s for s in lab.switches if s["tier"] == "spine"]
    for sock in [leaf_sock] + [s["sock"] for s in spines]:
        lab.ctl(sock, "clear", "counters")
    # Each flow is a new socket: a new source port, so a new flow; 5 datagrams a flow.
    subprocess.run(["ip", "netns", "exec", ns, PY, "-c", FLOWS_PY, daddr], check=False)
    # Until the leaf has routed the 160 datagrams (5 s at most: a loaded machine is slow).
    for _ in range(25):
        time.sleep(0.2)
        lb = lab.ctl(leaf_sock, "show", "lb", json_out=True) or {"groups": []}
        if sum(m["packets"] for g in lb["groups"] if g["prefix"] == prefix
               for m in g["members"]) >= 160:
            break
    print(f"$ {lab.railctl} -s {leaf_sock} show lb   # on {src['leaf']}")
    print(lab.ctl(leaf_sock, "show", "lb") or "", end="")
    lb = lab.ctl(leaf_sock, "show", "lb", json_out=True) or {"groups": []}
    members = [m for g in lb["groups"] if g["prefix"] == prefix for m in g["members"]]
    used = sum(1 for m in members if m["packets"] > 0)
    print()
    for s in spines:
        j = lab.ctl(s["sock"], "show", "ports", json_out=True)
        print("  %-10s rx_packets %s" % (s["name"], sum(p["rx_packets"] for p in j["ports"])
                                         if j else "?"))
    total = len(members)
    if total < 2:
        print(f"  ECMP: nothing to spread ({src['leaf']} has {total} uplink per plane)")
    elif used == total:
        print(f"  ECMP OK: the flows used all {total} uplinks of {src['leaf']}")
    else:
        print(f"  ECMP FAIL: {used} of {total} uplinks of {src['leaf']} carried packets")
        fails += 1

    if lab.mode_has("bgp"):
        say("BGP: every leaf's routes to the other leaves, from FPM, over every spine")
        for s in lab.switches:
            if s["tier"] != "leaf":
                continue
            print(f"$ {lab.railctl} -s {s['sock']} show routes   # on {s['name']}")
            lines = (lab.ctl(s["sock"], "show", "routes") or "").splitlines()
            print("\n".join(lines[:1] + [ln for ln in lines[1:] if "bgp" in ln]))
            j = lab.ctl(s["sock"], "show", "routes", json_out=True)
            out = "no answer" if j is None else bgp_routes_bad(lab.plan, s["name"], j)
            if out:
                print(f"  BGP FAIL {s['name']}: {out}")
                fails += 1
            else:
                print(f"  BGP OK   {s['name']}: source bgp, active, every uplink a next hop")
    sys.stdout.flush()
    if fails:
        print(f"fabric-lab: {fails} checks FAILED", file=sys.stderr)
        return 1
    print()
    print("fabric-lab: ping OK", flush=True)
    return 0


# ---------------------------------------------------------------------------
# check-lldp, failover, impair

def cmd_check_lldp(lab):
    """Every switch's LLDP neighbours (lldpcli -f json0 show neighbors, into
    STATE/lldp/json/) against the plan, by `railctl plan TOPOLOGY --check-lldp DIR`. Waits
    up to 15 s for every fabric port to hear a neighbour (lldpd sends every second)."""
    lab.need_root("check-lldp")
    lab.need_build()
    lab.load()
    if not lab.mode_has("lldp"):
        raise LabError(f"this lab runs no lldpd: start it with '{me()} up --lldp' (or --bgp)")
    d = lab.path("lldp", "json")
    os.makedirs(d, exist_ok=True)
    want = sum(2 for ln in lab.plan["links"] if ln["kind"] == "fabric")
    for _ in range(30):
        got = 0
        for s in lab.switches:
            f = os.path.join(d, f"{s['name']}.json")
            out = run(["lldpcli", "-u", lab.path("lldp", s["name"], "lldpd.sock"), "-f", "json0",
                       "show", "neighbors"], timeout=10)
            if not out:
                if os.path.exists(f):
                    os.unlink(f)
                continue
            with open(f, "w") as fh:
                fh.write(out)
            try:
                got += len([i for x in json.loads(out).get("lldp", [])
                            for i in x.get("interface", [])])
            except (ValueError, AttributeError):
                pass
        if got >= want:
            break
        time.sleep(0.5)
    with open(lab.path("topology")) as f:
        topo = f.read().strip()
    print(f"$ {lab.railctl} plan {topo} --check-lldp {d}", flush=True)
    return subprocess.run([lab.railctl, "plan", topo, "--check-lldp", d],
                          check=False).returncode


def probe_result(path):
    try:
        with open(path) as f:
            j = json.load(f)
        return "%d of %d flows hit, %d datagrams lost, longest outage %.0f ms" % (
            j["flows_hit"], j["flows"], j["lost"], j["outage_ms"])
    except (OSError, ValueError, KeyError):
        return "no result"


def cmd_failover(lab, how, secs=None):
    """How long flows take to move off a failed spine, and what they lose: 16 UDP flows each
    way between the first host and the first host on another leaf, 200 datagrams a second
    each, for secs; after 2 s the last spine fails: `link`, `railctl port upN down` on the
    first leaf's link to it; `stop`, the spine's railsw frozen (SIGSTOP), continued at the
    end."""
    lab.need_root("failover")
    lab.need_build()
    lab.load()
    if how not in ("link", "stop"):
        raise LabError(f"usage: {me()} failover link|stop [SECONDS]")
    if secs is None:
        secs = "8" if lab.mode_has("bfd") else "16"
    if not re.fullmatch(r"[0-9]+", secs) or int(secs) < 4:
        raise LabError("failover: SECONDS must be at least 4")
    secs = int(secs)
    src, dst = lab.hosts[0], lab.hosts[first_crossing(lab)]
    spine = [s for s in lab.switches if s["tier"] == "spine"][-1]
    leaf_sock = lab.sock_of(src["leaf"])
    uplink = [ln["a_port"] for ln in lab.plan["links"] if ln["kind"] == "fabric" and
              ln["a"] == src["leaf"] and ln["b"] == spine["name"]][0]
    try:
        with open(lab.path("mode")) as f:
            mode = f.read().strip()
    except OSError:
        mode = ""
    say(f"failover ({how}): {spine['name']} fails after 2 s of {secs}; 16 flows each way, "
        f"200/s each ({mode})")
    probe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fabric_probe.py")
    o1, o2 = lab.path("failover-fwd.json"), lab.path("failover-rev.json")
    sa, da = src["addr"].split("/")[0], dst["addr"].split("/")[0]
    # One ping each way first: the leaves' neighbour entries for the hosts are resolved, so
    # the flows' first datagrams are not the ARP exchange's.
    for a, b, name in ((src, da, dst["server"]), (dst, sa, src["server"])):
        if subprocess.run(["ip", "netns", "exec", a["ns"], "ping", "-n", "-q", "-c", "1", "-w",
                           "5", b], capture_output=True, check=False).returncode != 0:
            print(f"  (no ping reply from {name} before the flows)", flush=True)

    def bg(ns, args, out):
        with open(out, "w") as f:
            return subprocess.Popen(["ip", "netns", "exec", ns, PY, probe] + args, stdout=f)
    # The receivers stop half a second after the senders' end markers; the margin is for a
    # sender that a busy machine starts late.
    r1 = bg(dst["ns"], ["recv", "47001", str(secs + 10), str(secs * 200)], o1)
    r2 = bg(src["ns"], ["recv", "47002", str(secs + 10), str(secs * 200)], o2)
    time.sleep(0.3)
    s1 = bg(src["ns"], ["send", da, "47001", "16", "200", str(secs)],
            lab.path("failover-fwd-sent.json"))
    s2 = bg(dst["ns"], ["send", sa, "47002", "16", "200", str(secs)],
            lab.path("failover-rev-sent.json"))
    time.sleep(2)
    pid = None
    if how == "link":
        print(f"  t=2 s: {src['leaf']}: railctl port {uplink} down", flush=True)
        lab.ctl(leaf_sock, "port", uplink, "down")
    else:
        pid = lab.pid_of(spine)
        print(f"  t=2 s: kill -STOP {spine['name']} (pid {pid})", flush=True)
        os.kill(pid, 19)  # SIGSTOP
    rc = 0
    try:
        s1.wait()
        s2.wait()
        if r1.wait() != 0 or r2.wait() != 0:
            rc = 1
    finally:
        if how == "link":
            lab.ctl(leaf_sock, "port", uplink, "up")
        elif pid:
            os.kill(pid, 18)  # SIGCONT
    for path, what in ((o1, f"{src['server']} -> {dst['server']}"),
                       (o2, f"{dst['server']} -> {src['server']}")):
        print("  %-34s %s" % (what, probe_result(path)))
    print(f"  (results: {o1}, {o2}; the spine's end and the links are restored)", flush=True)
    return rc


def cmd_impair(lab, link, words):
    """The same faults on both ends' ports of a fabric link: LINK is SWITCH:PORT of either
    end or LEAF--SPINE (the first link between them); words as railctl's."""
    lab.load()
    links = [ln for ln in lab.plan["links"] if ln["kind"] == "fabric"]
    for ln in links:
        a, ap, b, bp = ln["a"], ln["a_port"], ln["b"], ln["b_port"]
        if link in (f"{a}:{ap}", f"{b}:{bp}", f"{a}--{b}", f"{b}--{a}"):
            break
    else:
        raise LabError(f"no fabric link {link!r}; links: " + " ".join(
            "%s:%s--%s:%s" % (x["a"], x["a_port"], x["b"], x["b_port"]) for x in links))
    sa, sb = lab.sock_of(a), lab.sock_of(b)
    if not sa or not sb:
        raise LabError(f"switch {a} or {b} is not in this lab")
    for sock, sw, port in ((sa, a, ap), (sb, b, bp)):
        if subprocess.run(["timeout", "10", lab.railctl, "-s", sock, "port", port, "impair"] +
                          list(words), check=False).returncode != 0:
            raise LabError(f"{sw}: railctl port {port} impair {' '.join(words)} failed")
    print(f"fabric-lab: {a}:{ap} and {b}:{bp} impair {' '.join(words)}", flush=True)
    return 0


COMMANDS = {"status": cmd_status, "ping": cmd_ping, "check-lldp": cmd_check_lldp}
