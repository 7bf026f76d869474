# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""perf/bench.py's runners: railsw, l3fwd, testpmd and OVS-DPDK on the same two pcap ports
(Bench), and whether OVS-DPDK can run."""

import json
import os
import re
import shutil
import subprocess
import time

from bench_common import (
    Captures,
    Exited,
    L3FWD_VARIANTS,
    MacMismatch,
    NEIGH_MAC,
    OVS_BRIDGE,
    OVS_SCHEMA,
    OVS_TAPS,
    PCAP_MAC,
    PERF,
    Proc,
    RSW_MAC,
    SCENARIOS,
    eal_lcores,
    lcore_cpus,
    del_tap,
    devargs,
    log,
    measure,
    measure_clock,
    netdev_exists,
    sh,
    short_alias,
    v4_route,
    v6_route,
)
from bench_report import callgrind_costs, callgrind_summary


# --------------------------------------------------------------------------- runners

class Bench:
    def __init__(self, a, scratch, mem, exe):
        self.a, self.scratch, self.mem = a, scratch, mem
        self.railsw, self.railctl = exe
        self.caps = Captures(scratch)
        self.seq = 0
        self.refused = {}
        self.refused_start = set()
        self.rsw_macs = list(RSW_MAC)  # the MACs railsw's ports really have

    def prefix(self, what):
        self.seq += 1
        return "rswperf-%d-%s-%d" % (os.getpid(), what, self.seq)

    @staticmethod
    def jumbo(size):
        return size > 1518

    # ---- testpmd io
    def testpmd(self, size, workers):
        caps = self.caps.get("v4", 1024, size, PCAP_MAC)
        pre = self.prefix("testpmd")
        argv = ["dpdk-testpmd"] + eal_lcores(workers) + ["--file-prefix", pre,
                "--no-pci", "--vdev", devargs(0, caps[0], workers),
                "--vdev", devargs(1, caps[1], workers)] + self.mem.eal() + \
               ["--", "--forward-mode=io", "--nb-cores=%d" % workers, "--rxq=%d" % workers,
                "--txq=%d" % workers, "--total-num-mbufs=16384"]
        if self.jumbo(size):
            argv += ["--mbuf-size=%d" % (size + 256), "--max-pkt-len=%d" % (size + 64)]
        return self.run_proc("testpmd", argv, pre, stdin_pipe=True)

    # ---- l3fwd LPM
    def l3fwd(self, variant, size, workers):
        fam, nroutes = L3FWD_VARIANTS[variant]
        kind = "v%d" % fam
        caps = self.caps.get(kind, nroutes, size, PCAP_MAC)
        r4, r6 = self.l3fwd_rules(fam, nroutes)
        pre = self.prefix("l3fwd")
        lcores = list(range(1, workers + 1))  # l3fwd opens one tx queue per EAL lcore
        cfg = ",".join("(%d,%d,%d)" % (port, q, lcores[(port + q) % workers])
                       for port in (0, 1) for q in range(workers))
        argv = [self.a.l3fwd_exe] + eal_lcores(workers, main=False) + ["--file-prefix", pre,
                "--no-pci", "--vdev", devargs(0, caps[0], workers),
                "--vdev", devargs(1, caps[1], workers)] + self.mem.eal() + \
               ["--", "-p", "0x3", "--lookup=lpm", "--parse-ptype", "--config=%s" % cfg,
                "--rule_ipv4=%s" % r4, "--rule_ipv6=%s" % r6,
                "--eth-dest=0,%s" % NEIGH_MAC[0], "--eth-dest=1,%s" % NEIGH_MAC[1]]
        if self.jumbo(size):
            argv += ["--max-pkt-len=%d" % (size + 64)]
        return self.run_proc("l3fwd", argv, pre)

    def l3fwd_rules(self, fam, nroutes):
        r4 = os.path.join(self.scratch, "l3fwd-v4-%d.cfg" % (nroutes if fam == 4 else 0))
        r6 = os.path.join(self.scratch, "l3fwd-v6-%d.cfg" % (nroutes if fam == 6 else 0))
        if not os.path.exists(r4):
            with open(r4, "w") as f:
                for i in range(nroutes if fam == 4 else 2):
                    f.write("R%s/24 %d\n" % (v4_route(i), i % 2))
        if not os.path.exists(r6):
            with open(r6, "w") as f:
                for i in range(nroutes if fam == 6 else 2):
                    f.write("R%s/48 %d\n" % (v6_route(i), i % 2))
        return r4, r6

    # ---- railsw
    def railsw_config(self, scen, size, workers):
        sc = SCENARIOS[scen]
        kind = sc.get("kind") or \
            ("ecmp" if sc["tmpl"] in ("ecmp-hash", "spray") else "v%d" % sc["fam"])
        dscps = (0, 8, 16, 26, 32, 40, 48, 46) if scen == "qos-full" else (0,)
        caps = self.caps.get(kind, sc["routes"], size, self.rsw_macs, dscps, sc.get("incast", False))
        sock = os.path.join(self.scratch, "rsw-%s.sock" % scen)
        mtu = max(1500, size - 18)
        text = open(os.path.join(PERF, "scenarios", sc["tmpl"] + ".yaml")).read()
        caps = [short_alias(self.scratch, c) for c in caps]
        text = (text.replace("@P0@", devargs(0, caps[0], workers))
                .replace("@P1@", devargs(1, caps[1], workers)).replace("@SOCK@", sock)
                .replace("@MTU@", str(mtu)).replace("@MTU6@", str(mtu)))
        path = os.path.join(self.scratch, "railsw-%s-%d-w%d.yaml" % (scen, size, workers))
        with open(path, "w") as f:
            f.write(text)
            if sc.get("neighbors"):
                # the template ends with `neighbors:`: .1-.N of each port's /24
                f.write("".join('  - { ip: 192.168.%d.%d, mac: "02:00:00:%02x:%02x:1%d", port: p%d }\n'
                                % (p, h, p, h, p, p) for p in (0, 1)
                                for h in range(1, sc["neighbors"] + 1)))
            if sc["routes"]:
                nh = ["192.168.0.1", "192.168.1.1"] if sc["fam"] == 4 else ["fd00:0:0::1", "fd00:0:1::1"]
                fmt = (lambda i: v4_route(i) + "/24") if sc["fam"] == 4 else \
                      (lambda i: v6_route(i) + "/48")
                f.write("".join("  - { prefix: %s, nexthops: [%s] }\n" % (fmt(i), nh[i % 2])
                                for i in range(sc["routes"])))
        return path, sock

    def railsw_check(self, scen, size, workers):
        """None if railsw accepts the scenario, else the reason it refuses it."""
        key = (scen, self.jumbo(size), workers)
        if key in self.refused:
            return self.refused[key]
        path, _ = self.railsw_config(scen, size, workers)
        r = subprocess.run([self.railsw, "--", "-c", path, "--check"], capture_output=True,
                           text=True, timeout=300, cwd=self.scratch)
        why = None
        if r.returncode != 0:
            msg = (r.stderr or r.stdout).strip().splitlines()
            msg = msg[-1] if msg else "exit %d" % r.returncode
            why = "not supported yet" if "not supported yet" in msg else \
                "refused: " + re.sub(r"^\S+:\d+: ", "", msg)
            log("perf: railsw --check %s: %s" % (scen, msg))
        self.refused[key] = why
        return why

    def railsw_run(self, scen, size, workers):
        path, sock = self.railsw_config(scen, size, workers)
        pre = self.prefix("railsw")
        argv = [self.railsw] + eal_lcores(workers) + ["--file-prefix", pre] + \
            self.mem.eal() + ["--", "-c", path]
        try:
            return self.run_proc("railsw", argv, pre, railctl_sock=sock)
        except Exited:
            # railsw refused at start what --check accepted: report it, do not retry
            lines = [l.strip() for l in open(os.path.join(self.scratch, pre + ".log"))
                     if l.startswith("railsw:")] or ["exited at start"]
            key = (scen, self.jumbo(size), workers)
            self.refused[key] = "exits at start: " + lines[-1][8:]
            self.refused_start.add(key)
            raise RuntimeError(self.refused[key])
        except MacMismatch as e:
            # the PMD kept its own MAC: address the frames to it and run again
            log("perf: %s; regenerating the captures" % e)
            self.rsw_macs = e.macs
            return self.railsw_run(scen, size, workers)

    # ---- callgrind: instructions per packet (no cycles PMU in these VMs)
    def callgrind(self, scen, size, seconds):
        """railsw under valgrind --tool=callgrind (collecting in the worker loop only), without
        hugepages, for `seconds` after its first packet; instructions per packet by part."""
        path, sock = self.railsw_config(scen, size, 1)
        pre = self.prefix("railsw-cg")
        out = os.path.join(self.scratch, pre + ".callgrind")
        # --fair-sched: valgrind runs one thread at a time, and without it the polling worker
        # leaves the control thread (railctl's answers) almost no turns
        argv = ["valgrind", "--tool=callgrind", "--fair-sched=yes",
                "--callgrind-out-file=" + out, "--toggle-collect=rsw_worker_main",
                self.railsw, "-l", "0,1", "--file-prefix", pre, "--no-huge", "-m", "1024",
                "--", "-c", path]
        rx = lambda: sum(p["rx_packets"] for p in self.ctl(sock, "show", "ports")["ports"])
        proc = Proc("railsw (callgrind)", argv, pre, self.scratch)
        try:
            deadline = time.monotonic() + 300
            while True:
                try:
                    if rx():
                        break
                except RuntimeError:
                    pass
                if not proc.alive():
                    raise RuntimeError("railsw under valgrind exited:\n" + proc.tail())
                if time.monotonic() > deadline:
                    raise RuntimeError("railsw under valgrind forwarded nothing in 300 s")
                time.sleep(0.5)
            time.sleep(seconds)
            packets = rx()
        finally:
            proc.stop(timeout=120)  # valgrind writes its output at exit
        if not os.path.exists(out):
            raise RuntimeError("no callgrind output:\n" + proc.tail())
        return callgrind_summary(callgrind_costs(out), packets)

    # ---- OVS-DPDK: one PMD thread, in_port=1 -> output:2 and back
    def ovs(self, size, workers):
        """A private ovsdb-server and ovs-vswitchd in the scratch folder (never the system's)."""
        return self.clocked(lambda: self._ovs(size, workers))

    def _ovs(self, size, workers):
        caps = self.caps.get("v4", 1024, size, PCAP_MAC)
        # A bridge TAP of ours left by a killed run goes; ovs-netdev only if this run made it.
        if netdev_exists(OVS_BRIDGE):
            del_tap(OVS_BRIDGE)
        taps_before = {n for n in OVS_TAPS if netdev_exists(n)}
        pre = self.prefix("ovs")
        d = os.path.join(self.scratch, pre)
        os.makedirs(d)
        env = dict(os.environ, OVS_RUNDIR=d, OVS_DBDIR=d, OVS_LOGDIR=d, OVS_SYSCONFDIR=d,
                   OVS_PKGDATADIR=os.path.dirname(OVS_SCHEMA))
        db, sock = os.path.join(d, "conf.db"), os.path.join(d, "db.sock")
        sh(["ovsdb-tool", "create", db, OVS_SCHEMA], env=env, capture_output=True)
        dbp = subprocess.Popen(["ovsdb-server", db, "--remote=punix:" + sock,
                                "--unixctl=" + os.path.join(d, "ovsdb.ctl"),
                                "--log-file=" + os.path.join(d, "ovsdb.log")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True, env=env)
        proc = None
        try:
            deadline = time.monotonic() + 20
            while not os.path.exists(sock):
                if dbp.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("ovsdb-server did not start")
                time.sleep(0.1)
            vsctl = lambda *args, wait=False: sh(
                ["ovs-vsctl", "--db=unix:" + sock, "--timeout=60"] +
                ([] if wait else ["--no-wait"]) + list(args), env=env, capture_output=True)
            eal = ["--no-pci", "--file-prefix", pre] + self.mem.eal()
            if not self.mem.huge:
                eal.append("--legacy-mem")  # OVS's mempools under --no-huge
            vsctl("init")
            vsctl("set", "Open_vSwitch", ".", "other_config:dpdk-init=true",
                  "other_config:pmd-cpu-mask=0x%x" % sum(1 << c for c in set(lcore_cpus(workers)[1:])),
                  "other_config:dpdk-lcore-mask=0x1",
                  "other_config:dpdk-extra=\"%s\"" % " ".join(eal))
            proc = Proc("ovs-vswitchd", [ovs_exe(), "unix:" + sock,
                                         "--unixctl=" + os.path.join(d, "vswitchd.ctl"),
                                         "--log-file=" + os.path.join(d, "vswitchd.log")],
                        pre, self.scratch, env=env)
            vsctl("add-br", OVS_BRIDGE, "--", "set", "bridge", OVS_BRIDGE, "datapath_type=netdev",
                  wait=True)
            for i in (0, 1):
                opts = ["options:dpdk-devargs=%s" % devargs(i, caps[i], workers),
                        "options:n_rxq=%d" % workers, "ofport_request=%d" % (i + 1)]
                if self.jumbo(size):
                    opts.append("mtu_request=%d" % (size + 64))
                vsctl("add-port", OVS_BRIDGE, "p%d" % i, "--", "set", "Interface", "p%d" % i,
                      "type=dpdk", *opts, wait=True)
            for args in (["del-flows", OVS_BRIDGE],
                         ["add-flow", OVS_BRIDGE, "in_port=1,actions=output:2"],
                         ["add-flow", OVS_BRIDGE, "in_port=2,actions=output:1"]):
                sh(["ovs-ofctl"] + args, env=env, capture_output=True)
            res = measure(proc, self.a.warmup, self.a.window)
            if not proc.alive():
                raise RuntimeError("ovs-vswitchd exited during the window:\n" + proc.tail())
            return res
        except Exited:
            raise RuntimeError("ovs-vswitchd exited at start:\n" + (proc.tail() if proc else ""))
        finally:
            if proc is not None:
                proc.stop()
            if dbp.poll() is None:
                dbp.terminate()
                try:
                    dbp.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    dbp.kill()
                    dbp.wait(timeout=10)
            for n in OVS_TAPS:
                if n not in taps_before and netdev_exists(n):
                    del_tap(n)

    def ctl(self, sock, *cmd):
        r = subprocess.run([self.railctl, "-s", sock, "--json"] + list(cmd), capture_output=True,
                           text=True, timeout=10)
        if r.returncode != 0:
            raise RuntimeError("railctl %s: %s" % (" ".join(cmd), r.stderr.strip()))
        return json.loads(r.stdout)

    def drop_fields(self, sock):
        """The `show ports` counters that count lost frames, as the switch describes them
        (`describe`, asked once per railctl): its drop reasons (`show drops`) and the NIC's
        rx_missed. A build older than `describe` (an A/B against an earlier commit) is asked
        for its `show ports` rows instead: their integer fields that are drop reasons."""
        cache = self.__dict__.setdefault("_drop_fields", {})
        if self.railctl not in cache:
            reasons = {d["reason"] for d in self.ctl(sock, "show", "drops")["drops"]}
            try:
                tables = self.ctl(sock, "describe")["tables"]
                port = next(t for t in tables
                            if (t["command"], t["key"]) == ("show ports", "ports"))
                names = [f["name"] for f in port["fields"] if f["kind"] == "counter"]
            except RuntimeError:
                row = self.ctl(sock, "show", "ports")["ports"][0]
                names = [k for k, v in row.items()
                         if isinstance(v, int) and not isinstance(v, bool)]
            cache[self.railctl] = [n for n in names if n in reasons or n == "rx_missed"]
        return cache[self.railctl]

    @staticmethod
    def clocked(fn):
        """fn()'s result with the core clock measured right before and right after it
        (while nothing of the run spins on the core measured)."""
        hz0 = measure_clock(3)[0]
        res = fn()
        hz1 = measure_clock(3)[0]
        res["core_hz"] = (hz0 + hz1) / 2
        res["core_hz_before_after"] = [hz0, hz1]
        return res

    def run_proc(self, name, argv, pre, stdin_pipe=False, railctl_sock=None):
        def run():
            try:
                return self._run_proc(name, argv, pre, stdin_pipe, railctl_sock)
            except Exited:
                if railctl_sock:
                    raise
                raise RuntimeError("%s exited at start" % name)
        return self.clocked(run)

    def _run_proc(self, name, argv, pre, stdin_pipe=False, railctl_sock=None):
        proc = Proc(name, argv, pre, self.scratch, stdin_pipe)
        try:
            if railctl_sock:
                # the port MACs must be the ones the frames are addressed to
                deadline = time.monotonic() + 60
                proc.tel.connect(deadline, proc.alive)
                while True:
                    try:
                        ports0 = self.ctl(railctl_sock, "show", "ports")["ports"]
                        break
                    except RuntimeError:
                        if not proc.alive():
                            raise Exited()
                        if time.monotonic() > deadline:
                            raise RuntimeError("railsw did not answer:\n" + proc.tail())
                        time.sleep(0.2)
                real = [p["mac"].lower() for p in ports0]
                if real != self.rsw_macs:
                    raise MacMismatch(real, "railsw ports have MACs %s, frames went to %s" %
                                      (real, self.rsw_macs))
            res = measure(proc, self.a.warmup, self.a.window)
            if railctl_sock:
                c0 = self.ctl(railctl_sock, "show", "ports")["ports"]
                res["railctl_rx"] = sum(p["rx_packets"] for p in c0)
                res["railctl_tx"] = sum(p["tx_packets"] for p in c0)
                drops = {}
                for p in c0:
                    for k in self.drop_fields(railctl_sock):
                        if p.get(k):
                            drops[k] = drops.get(k, 0) + p[k]
                res["railsw_drops"] = drops
                # `show drops` since start: every reason that dropped a frame inside railsw
                sd = self.ctl(railctl_sock, "show", "drops")
                res["show_drops"] = sd
                res["dropped_inside"] = {d["reason"]: d["packets"] for d in sd.get("drops", [])
                                         if d.get("packets") and d["reason"] != "rx_missed"}
            if not proc.alive():
                raise RuntimeError("%s exited during the window:\n%s" % (name, proc.tail()))
            return res
        finally:
            proc.stop()


# --------------------------------------------------------------------------- OVS-DPDK

OVS_DPDK_EXE = "/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk"  # Debian's DPDK build


def ovs_exe():
    """Debian's DPDK build of ovs-vswitchd (whatever the ovs-vswitchd alternative points to)."""
    if os.access(OVS_DPDK_EXE, os.X_OK):
        return OVS_DPDK_EXE
    return shutil.which("ovs-vswitchd")


def ovs_status():
    """None when OVS-DPDK can run, else why it is skipped."""
    exe = ovs_exe()
    if not exe:
        return "skipped (not installed)"
    try:
        v = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return "skipped (cannot run ovs-vswitchd)"
    if "DPDK" not in v:
        return "skipped (ovs-vswitchd without DPDK: install openvswitch-switch-dpdk)"
    if not os.path.exists(OVS_SCHEMA) or not shutil.which("ovsdb-server"):
        return "skipped (ovsdb-server or %s missing)" % OVS_SCHEMA
    return None  # runnable
