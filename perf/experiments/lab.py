# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""A fabric of railsw switches and rswhost hosts on memif, for perf/experiments.

`Fabric` asks `railctl plan --json` for the switches and cables of a topology,
writes one railsw configuration per switch (memif everywhere: a leaf downlink is
the memif server of one host, a spine downlink the server of one leaf uplink),
starts the switches (spines first), talks to their control sockets, and runs
one rswhost process that plays every host. Everything it makes is named with
the prefix rswx-<tag> and removed by stop(); processes are stopped by PID.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUN_DPDK = "/var/run/dpdk"


def rate(s):
    """'50M' -> 50e6."""
    s = str(s).strip().upper()
    mult = {"K": 1e3, "M": 1e6, "G": 1e9}.get(s[-1:], 1)
    return float(s[:-1] if s[-1:] in "KMG" else s) * mult


def proc_cpu(pid):
    """utime + stime of a process and its threads, seconds."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


class Ctl:
    """A railsw control socket: one line in, one JSON line out."""

    def __init__(self, path):
        self.path = path

    def __call__(self, cmd, timeout=5.0):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        try:
            s.connect(self.path)
            s.sendall((cmd + "\n").encode())
            buf = b""
            while not buf.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
        finally:
            s.close()
        return json.loads(buf)


class Fabric:
    """Switches of one topology with memif links, and the hosts' side of them."""

    # rswhost's ports: "memif" (the switch's downlink is the memif server), or "tap" (the
    # downlink is a TAP and rswhost opens its kernel side with net_af_packet).
    rswhost_ports = "memif"
    # Log2 of every memif ring's slots (calib.RING_LOG2: what a ring holds is PFC headroom).
    ring_log2 = 10
    pace = 1.0  # rswhost paces at this fraction of the host link (calib.PACE)
    shaper_burst_us = 100  # the switches' shaper bucket (calib.BURST_US)
    float_cpus = True  # lcores may run on either CPU (see start_once)

    def __init__(self, build, tag, topology, speed, qos_yaml, lb_yaml, idle_us=100,
                 host_speed=None, mem=384, log=print, extra_switch_yaml="", host_kind="memif",
                 port_extra=None):
        self.build = os.path.abspath(build)
        self.port_extra = port_extra      # (switch, port) -> more keys of that port, or ""
        self.tag = tag
        self.prefix = f"rswx-{tag}"
        self.state = f"/run/rswx/{tag}"
        self.topology = topology          # dict: the topology: keys
        self.speed = speed                # fabric and host links, e.g. "50M"
        self.host_speed = host_speed or speed
        self.qos_yaml = qos_yaml
        self.lb_yaml = lb_yaml
        self.idle_us = idle_us
        self.mem = mem
        self.log = log
        self.extra = extra_switch_yaml
        self.host_kind = host_kind        # memif (rswhost) or tap (kernel TCP in a netns)
        self.netns = []
        self.procs = {}                   # switch name -> Popen
        self.railsw = os.path.join(self.build, "control", "railsw")
        self.railctl = os.path.join(self.build, "control", "railctl")
        self.rswhost = os.path.join(self.build, "perf", "hosts", "rswhost")
        self.plan = None
        self.hosts = []                   # dicts: name, ip, mac, gw_mac, devargs, leaf, port
        self.ports = {}                   # switch -> [(port name, role, peer)]
        self.ctl = {}

    # ---- configuration -------------------------------------------------

    def make_plan(self):
        os.makedirs(self.state, exist_ok=True)
        topo = os.path.join(self.state, "topology.yaml")
        with open(topo, "w") as f:
            f.write("# SPDX-License-Identifier: BSD-3-Clause\ntopology:\n")
            for k, v in self.topology.items():
                f.write(f"  {k}: {v}\n")
        out = subprocess.run([self.railctl, "plan", topo, "--json"], capture_output=True,
                             text=True, timeout=30)
        if out.returncode != 0:
            raise RuntimeError(f"railctl plan: {out.stderr.strip()}")
        self.plan = json.loads(out.stdout)
        self.plan_text = subprocess.run([self.railctl, "plan", topo], capture_output=True,
                                        text=True, timeout=30).stdout
        return self.plan

    def generate(self):
        plan = self.plan or self.make_plan()
        sw = plan["switches"]
        self.index = {s["name"]: i for i, s in enumerate(sw)}
        self.leaves = [s for s in sw if s["tier"] == "leaf"]
        self.spines = [s for s in sw if s["tier"] != "leaf"]
        ports = {s["name"]: [] for s in sw}
        nh = 0
        for ln in plan["links"]:
            a, ap = ln["a"], ln["a_port"]
            if ln["kind"] == "server":
                sock = os.path.join(self.state, f"h{nh}.sock")
                key = (0, int(ap[len("down"):]))
                ports[a].append([key, ap, "downlink", sock, "server", ln])
                self.hosts.append({"name": f"{ln['b']}.{ln['b_port']}", "server": ln["b"],
                                   "nic": ln["b_port"], "ip": ln["b_ip"].split("/")[0],
                                   "leaf": a, "port": ap, "sock": sock,
                                   "iface": f"rswx{self.tag[:2]}{nh}",
                                   "gw": next(x["gateway"] for x in plan["switches"]
                                              if x["name"] == a),
                                   "mac": "02:48:%02x:%02x:%02x:01" % (
                                       self.index[a], int(ap[4:]), int(ln["b_port"][3:]))})
                nh += 1
            else:
                b, bp = ln["b"], ln["b_port"]
                sock = os.path.join(self.state, f"{self.index[b]}-{self.index[a]}-{bp}.sock")
                ports[a].append([(1, int(ap[len("up"):])), ap, "uplink", sock, "client", ln])
                ports[b].append([(0, int(bp[len("down"):])), bp, "downlink", sock, "server", ln])
        self.ports = ports
        self.confs = {}
        # Port MACs, and static neighbours on the fabric links too: no ARP refresh can
        # empty a next-hop group in the middle of a run.
        macs = {}
        for s in sw:
            for j, (_, pname, *_r) in enumerate(sorted(ports[s["name"]])):
                macs[(s["name"], pname)] = "02:52:%02x:%02x:00:01" % (self.index[s["name"]], j)
        fabric_neigh = {s["name"]: [] for s in sw}
        for ln in plan["links"]:
            if ln["kind"] == "server":
                continue
            a, ap, b, bp = ln["a"], ln["a_port"], ln["b"], ln["b_port"]
            fabric_neigh[a].append(f'  - {{ ip: {ln["b_ip"].split("/")[0]}, '
                                   f'mac: "{macs[(b, bp)]}", port: {ap} }}')
            fabric_neigh[b].append(f'  - {{ ip: {ln["a_ip"].split("/")[0]}, '
                                   f'mac: "{macs[(a, ap)]}", port: {bp} }}')
        for s in sw:
            name = s["name"]
            i = self.index[name]
            lines = [f"# {name}: generated by perf/experiments/lab.py", "switch:",
                     f"  name: {name}", f"  role: {'leaf' if s['tier'] == 'leaf' else 'spine'}",
                     f"  idle_sleep_us: {self.idle_us}",
                     f"  shaper_burst_us: {self.shaper_burst_us}", "", "ports:"]
            neigh = list(fabric_neigh[name])
            for j, (_, pname, role, sock, r, ln) in enumerate(sorted(ports[name])):
                mac = "02:52:%02x:%02x:00:01" % (i, j)
                dev = (f"net_memif{j},role={r},socket={sock},socket-abstract=no,"
                       f"rsize={self.ring_log2}")
                if ln["kind"] == "server" and self.tap_downlinks():
                    h = next(h for h in self.hosts if h["sock"] == sock)
                    dev = f"net_tap{j},iface={h['iface']}"
                spd = self.host_speed if ln["kind"] == "server" else self.speed
                more = self.port_extra(name, pname) if self.port_extra else ""
                lines.append(f'  - {{ name: {pname}, devargs: "{dev}", mac: "{mac}", '
                             f'role: {role}, speed: {spd}{", " + more if more else ""} }}')
                if ln["kind"] == "server":
                    h = next(h for h in self.hosts if h["sock"] == sock)
                    h["gw_mac"] = mac
                    neigh.append(f'  - {{ ip: {h["ip"]}, mac: "{h["mac"]}", port: {pname} }}')
            if neigh:
                lines += ["", "neighbors:"] + neigh
            lines += ["", "topology:"]
            for k in ("design", "sus", "servers_per_su", "rails", "spines", "radix",
                      "gpu_prefix", "fabric_prefix"):
                lines.append(f"  {k}: {plan[k]}")
            if s["tier"] == "leaf":
                lines.append(f"  this: {{ su: {s['su']}, rail: {s['rail']} }}")
            elif "rail" in s and plan["design"] == "rail-only":
                lines.append(f"  this: {{ rail: {s['rail']}, spine: {s['spine']} }}")
            else:
                lines.append(f"  this: {{ spine: {s['spine']} }}")
            lines += ["", self.lb_yaml(s) if callable(self.lb_yaml) else self.lb_yaml, "",
                      self.qos_yaml, "", "control:",
                      f"  socket: {os.path.join(self.state, name + '.ctl')}", ""]
            if self.extra:
                lines.append(self.extra)
            path = os.path.join(self.state, f"{name}.yaml")
            with open(path, "w") as f:
                f.write("\n".join(lines))
            self.confs[name] = path
            self.ctl[name] = Ctl(os.path.join(self.state, name + ".ctl"))
        return self.confs

    def rewrite_lb(self, lb_yaml):
        """New load-balancing settings, applied live with `reload` (no restart)."""
        self.lb_yaml = lb_yaml
        old = self.hosts
        self.hosts = []
        self.generate()
        for h, o in zip(self.hosts, old):
            h.update({k: v for k, v in o.items() if k not in h})
        for name in self.confs:
            r = self.ctl[name](f"reload {self.confs[name]}")
            if "error" in r:
                raise RuntimeError(f"{name}: reload: {r['error']}")

    # ---- processes -------------------------------------------------------

    def clear_stale(self):
        if os.path.isdir(self.state):
            for f in os.listdir(self.state):
                p = os.path.join(self.state, f)
                if f.endswith(".log") and os.environ.get("RSWX_KEEP_LOGS"):
                    continue
                if os.path.isfile(p) or os.path.islink(p) or p.endswith(".sock"):
                    try:
                        os.unlink(p)
                    except OSError:
                        pass
        if os.path.isdir(RUN_DPDK):
            for d in os.listdir(RUN_DPDK):
                if d.startswith(self.prefix + "-"):
                    shutil.rmtree(os.path.join(RUN_DPDK, d), ignore_errors=True)

    def start(self):
        """Start the switches; a memif link that stays down gets one more try."""
        for attempt in range(3):
            try:
                self.start_once()
                if self.host_kind == "memif" and self.rswhost_ports == "tap":
                    self.tap_pmd_up()
                return
            except RuntimeError as e:
                if "memif links down" not in str(e) or attempt == 2:
                    raise
                self.log(f"{e}; starting the fabric again")
                self.stop()
                self.hosts = []

    def start_once(self):
        self.netns_del()
        self.clear_stale()
        os.makedirs(self.state, exist_ok=True)
        self.generate()
        for name, path in self.confs.items():
            r = subprocess.run([self.railsw, "-c", path, "--check"], capture_output=True,
                               text=True, timeout=30)
            if r.returncode != 0:
                raise RuntimeError(f"railsw --check {path}: {r.stdout}{r.stderr}")
        order = [s["name"] for s in self.spines] + [s["name"] for s in self.leaves]
        # Spines first, each answering before the next starts: a memif client (a leaf
        # uplink) that starts before its server's socket exists may stay down.
        deadline = time.time() + 60
        for k, name in enumerate(order):
            # Spread the workers: half the switches poll on core 1, half on core 0.
            lc = ["-l", "0,1"] if k % 2 == 0 else ["-l", "0,1", "--main-lcore", "1"]
            if self.float_cpus:
                # Threads not pinned: on a shared machine a thread pinned to a busy core
                # waits while the other core idles (DPDK lcore N on either CPU).
                lc = ["--lcores", "0@(0,1),1@(0,1)"] + ([] if k % 2 == 0 else
                                                        ["--main-lcore", "1"])
            logf = open(os.path.join(self.state, f"{name}.log"), "w")
            p = subprocess.Popen([self.railsw] + lc + ["--no-huge", "-m", str(self.mem),
                                 "--file-prefix", f"{self.prefix}-{k}", "--",
                                 "-c", self.confs[name]],
                                 stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 start_new_session=True)
            self.procs[name] = p
            while True:
                if p.poll() is not None:
                    raise RuntimeError(f"{name} exited: " + self.tail(name))
                try:
                    self.ctl[name]("show ports", timeout=1)
                    break
                except (OSError, ValueError):
                    pass
                if time.time() > deadline:
                    raise RuntimeError(f"{name} did not answer within 60 s: " + self.tail(name))
                time.sleep(0.05)
        # Fabric memif links up (host links come up when rswhost connects).
        deadline = time.time() + 8
        while time.time() < deadline:
            down = [(n, p["name"]) for n in order for p in self.ctl[n]("show ports")["ports"]
                    if not p["link_up"] and not self.is_host_port(n, p["name"])]
            if not down:
                break
            time.sleep(0.2)
        else:
            raise RuntimeError(f"memif links down: {down}")
        # Every fabric next hop resolved (ARP over the memif links), or the first frames
        # find an empty next-hop group (group_empty drops).
        deadline = time.time() + 15
        while time.time() < deadline:
            missing = []
            for n in order:
                fabric_ports = {pn for (_, pn, _, _, _, ln) in self.ports[n]
                                if ln["kind"] != "server"}
                have = {x["port"] for x in self.ctl[n]("show neighbors")["neighbors"]
                        if x.get("state") in ("reachable", "static", "stale")}
                missing += [(n, p) for p in fabric_ports - have]
            if not missing:
                return
            time.sleep(0.1)
        raise RuntimeError(f"fabric neighbours unresolved after 15 s: {missing[:6]}")

    def tap_hosts_up(self):
        """Kernel hosts: each TAP into a namespace of its own, with the host's MAC and
        address, a default route via the leaf and ECN on (net.ipv4.tcp_ecn=1)."""
        for k, h in enumerate(self.hosts):
            ns = f"rswx-{self.tag}-{k}"
            h["netns"] = ns
            deadline = time.time() + 10
            while not os.path.exists(f"/sys/class/net/{h['iface']}"):
                if time.time() > deadline:
                    raise RuntimeError(f"TAP {h['iface']} missing")
                time.sleep(0.05)
            sh = [["ip", "netns", "add", ns],
                  ["ip", "link", "set", h["iface"], "netns", ns],
                  ["ip", "-n", ns, "link", "set", "lo", "up"],
                  ["ip", "-n", ns, "link", "set", h["iface"], "address", h["mac"]],
                  ["ip", "netns", "exec", ns, "sysctl", "-q", "-w",
                   f"net.ipv6.conf.{h['iface']}.disable_ipv6=1"],
                  ["ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv4.tcp_ecn=1"],
                  ["ip", "-n", ns, "addr", "add", h["ip"] + "/24", "dev", h["iface"]],
                  ["ip", "-n", ns, "link", "set", h["iface"], "up"],
                  ["ip", "-n", ns, "route", "add", "default", "via", h["gw"]],
                  ["ip", "-n", ns, "neigh", "replace", h["gw"], "lladdr", h["gw_mac"], "dev",
                   h["iface"], "nud", "permanent"]]
            self.netns.append(ns)
            for c in sh:
                r = subprocess.run(c, capture_output=True, text=True, timeout=10)
                if r.returncode != 0:
                    raise RuntimeError(f"{' '.join(c)}: {r.stderr.strip()}")

    def tap_counters(self, h):
        out = subprocess.run(["ip", "-n", h["netns"], "-j", "-s", "link", "show", h["iface"]],
                             capture_output=True, text=True, timeout=10).stdout
        st = json.loads(out)[0]["stats64"]
        return st["tx"]["packets"], st["rx"]["packets"]

    def netns_del(self):
        for ns in self.netns:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10)
        self.netns = []
        # A killed run's namespaces of this tag.
        out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True,
                             timeout=10).stdout
        for line in out.splitlines():
            n = line.split()[0] if line.split() else ""
            if n.startswith(f"rswx-{self.tag}-"):
                subprocess.run(["ip", "netns", "del", n], capture_output=True, timeout=10)

    def tap_downlinks(self):
        return self.host_kind == "tap" or self.rswhost_ports == "tap"

    def tap_pmd_up(self):
        """rswhost on TAP: each downlink's kernel side up, in this namespace, with no address
        and no IPv6 (nothing of the kernel's own on the wire)."""
        for h in self.hosts:
            deadline = time.time() + 10
            while not os.path.exists(f"/sys/class/net/{h['iface']}"):
                if time.time() > deadline:
                    raise RuntimeError(f"TAP {h['iface']} missing")
                time.sleep(0.05)
            for c in (["sysctl", "-q", "-w", f"net.ipv6.conf.{h['iface']}.disable_ipv6=1"],
                      ["ip", "link", "set", h["iface"], "up"]):
                r = subprocess.run(c, capture_output=True, text=True, timeout=10)
                if r.returncode != 0:
                    raise RuntimeError(f"{' '.join(c)}: {r.stderr.strip()}")

    def is_host_port(self, sw, pname):
        return any(h["leaf"] == sw and h["port"] == pname for h in self.hosts)

    def tail(self, name, n=15):
        try:
            with open(os.path.join(self.state, f"{name}.log")) as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""

    def stop(self):
        self.netns_del()
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        t = time.time() + 15
        for p in self.procs.values():
            try:
                p.wait(timeout=max(0.1, t - time.time()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=5)
        self.procs = {}
        self.clear_stale()
        if not os.environ.get("RSWX_KEEP_LOGS"):
            try:
                os.rmdir(self.state)
            except OSError:
                pass

    def cpu(self):
        return {n: proc_cpu(p.pid) for n, p in self.procs.items()}

    # ---- counters --------------------------------------------------------

    def clear(self):
        for c in self.ctl.values():
            c("clear counters")

    def snapshot(self):
        out = {}
        for n, c in self.ctl.items():
            out[n] = {k: c(f"show {k}") for k in ("ports", "queues", "pfc", "drops", "lb")}
        return out

    # ---- hosts -----------------------------------------------------------

    def run_hosts(self, hosts, flows, params, out_json, timeout, sampler=None):
        """Run rswhost with HOSTS (names) and FLOWS; return (stats, cpu_s, wall_s, log)."""
        cfg = dict(params)
        cfg.setdefault("pace", self.pace)
        cfg.setdefault("catchup_us", self.shaper_burst_us)
        by = {h["name"]: h for h in self.hosts}
        cfg["hosts"] = []
        for i, name in enumerate(hosts):
            h = by[name]
            cfg["hosts"].append({
                "name": name, "ip": h["ip"], "mac": h["mac"], "gw_mac": h["gw_mac"],
                "speed_bps": rate(self.host_speed),
                "devargs": (f"net_af_packet{100 + i},iface={h['iface']}"
                            if self.rswhost_ports == "tap" else
                            f"net_memif{100 + i},role=client,socket={h['sock']},"
                            f"socket-abstract=no,rsize={self.ring_log2}")})
        cfg["flows"] = flows
        path = out_json + ".config.json"
        with open(path, "w") as f:
            json.dump(cfg, f, indent=1)
        for d in os.listdir(RUN_DPDK) if os.path.isdir(RUN_DPDK) else []:
            if d == self.prefix + "-hosts":
                shutil.rmtree(os.path.join(RUN_DPDK, d), ignore_errors=True)
        cpu0 = self.cpu()
        t0 = time.time()
        logp = out_json + ".log"
        with open(logp, "w") as logf:
            lc = ["--lcores", "1@(0,1)"] if self.float_cpus else ["-l", "1"]
            p = subprocess.Popen([self.rswhost] + lc + ["--no-huge", "-m", "512",
                                  "--no-pci", "--file-prefix", self.prefix + "-hosts",
                                  "--log-level", "pmd.net.memif:error", "--",
                                  "--config", path, "--out", out_json],
                                 stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 start_new_session=True)
            stop_ev = threading.Event()
            th = None
            if sampler:
                th = threading.Thread(target=sampler, args=(stop_ev, t0), daemon=True)
                th.start()
            try:
                p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
            host_cpu = proc_cpu(p.pid) if p.poll() is None else None
            stop_ev.set()
            if th:
                th.join(timeout=5)
        wall = time.time() - t0
        cpu1 = self.cpu()
        with open(logp) as f:
            log = f.read()
        if p.returncode != 0 or not os.path.exists(out_json):
            raise RuntimeError(f"rswhost exited {p.returncode}:\n{log[-3000:]}")
        with open(out_json) as f:
            stats = json.load(f)
        sw_cpu = {n: cpu1.get(n, 0) - cpu0.get(n, 0) for n in cpu1}
        del host_cpu
        return stats, sw_cpu, wall, log
