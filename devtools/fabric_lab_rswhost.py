# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""The fabric lab with rswhost as its servers: the lab of perf/experiments (docs/experiments.md).

The same orchestrator as devtools/fabric-lab.sh (fabric_lab.py, docs/fabric-lab.md), with
the same steps: plan (`railctl plan --json`, fabric_lab_gen.railctl_plan) → configs (the
plan's ports, hosts and `topology:` section, fabric_lab_gen.plan_ports) → start (one
railsw per switch, spines first, each answering before the next) → links (every memif
link up, fabric_lab_proc.wait_links) → hosts. What differs is what an experiment needs:

- hosts: one rswhost process plays every server NIC, each on the memif socket its leaf
  downlink serves (run_hosts), or (rswhost_ports "tap") on the kernel side of a TAP
  downlink, or (host_kind "tap") kernel TCP in a namespace per NIC (tap_hosts_up);
- configs: every port's speed (fabric and host links apart), the memif rings' size
  (ring_log2), the shaper bucket (shaper_burst_us), more keys per port (port_extra), the
  experiment's `qos:` and `load_balance:` text, and static neighbours on every link (no ARP
  refresh can empty a next-hop group in the middle of a run);
- start: EAL lcores that float over both CPUs (float_cpus), and a check that every fabric
  next hop resolved;
- counters and control over each switch's socket (Ctl), its CPU time (proc_cpu).

Everything a Fabric makes is named rswx-<tag> (EAL prefixes rswx-<tag>-<k>, state in
/run/rswx/<tag>, namespaces rswx-<tag>-<k>) and removed by stop(); processes are stopped
by PID."""

import json
import os
import socket
import subprocess
import threading
import time

import fabric_lab_gen as gen
import fabric_lab_proc as proc


def rate(s):
    """'50M' -> 50e6."""
    s = str(s).strip().upper()
    mult = {"K": 1e3, "M": 1e6, "G": 1e9}.get(s[-1:], 1)
    return float(s[:-1] if s[-1:] in "KMG" else s) * mult


def proc_cpu(pid):
    """utime + stime of a process and its threads, seconds (0 if it is gone)."""
    return (proc.cpu_ticks(pid) or 0) / os.sysconf("SC_CLK_TCK")


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


def wait_iface(dev, seconds=10):
    deadline = time.time() + seconds
    while not os.path.exists(f"/sys/class/net/{dev}"):
        if time.time() > deadline:
            raise RuntimeError(f"TAP {dev} missing")
        time.sleep(0.05)


class Fabric:
    """Switches of one topology with memif links, and the hosts' side of them."""

    # rswhost's ports: "memif" (the switch's downlink is the memif server), or "tap" (the
    # downlink is a TAP and rswhost opens its kernel side with net_af_packet).
    rswhost_ports = "memif"
    # Log2 of every memif ring's slots (what a ring holds is PFC headroom).
    ring_log2 = 10
    pace = 1.0  # rswhost paces at this fraction of the host link
    # The shaper bucket, µs of the hosts' line: the hosts' catch-up, and the switches'
    # switch.shaper_burst_us scaled to the fastest link (switch_burst_us).
    shaper_burst_us = 100
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
        self.lb_yaml = lb_yaml            # text, or a function of the plan's switch
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
        # name (SERVER.NIC), server, nic, ip, addr, mac, gw, gw_mac, leaf, port, sock, iface
        self.hosts = []
        self.ports = {}                   # switch -> [(key, port name, role, (kind, arg))]
        self.ctl = {}

    # ---- plan and configs -------------------------------------------------

    def make_plan(self):
        """plan: `railctl plan` of the topology (RuntimeError if it refuses it)."""
        os.makedirs(self.state, exist_ok=True)
        topo = os.path.join(self.state, "topology.yaml")
        with open(topo, "w") as f:
            f.write("# SPDX-License-Identifier: BSD-3-Clause\ntopology:\n")
            for k, v in self.topology.items():
                f.write(f"  {k}: {v}\n")
        self.plan, self.plan_text, _ = gen.railctl_plan(self.railctl, topo)
        return self.plan

    def host_dev(self, h, k):
        """The leaf port of host h, the k-th server NIC of the plan (gen.plan_ports)."""
        sock = os.path.join(self.state, f"h{k}.sock")
        h.update(name=f"{h['server']}.{h['nic']}", ip=h["addr"].split("/")[0], sock=sock,
                 iface=f"rswx{self.tag[:2]}{k}")
        return ("tap", h["iface"]) if self.tap_downlinks() else ("memif-server", sock)

    def generate(self):
        """configs: one railsw configuration per switch in the state directory; returns
        {switch: path}."""
        plan = self.plan or self.make_plan()
        sw = plan["switches"]
        self.index = {s["name"]: i for i, s in enumerate(sw)}
        self.leaves = [s for s in sw if s["tier"] == "leaf"]
        self.spines = [s for s in sw if s["tier"] != "leaf"]
        self.ports, self.hosts = gen.plan_ports(
            plan, self.leaves, self.host_dev,
            lambda a, _ap, b, bp: os.path.join(self.state,
                                               f"{self.index[b]}-{self.index[a]}-{bp}.sock"))
        host_at = {(h["leaf"], h["port"]): h for h in self.hosts}
        macs = {(s["name"], p[1]): gen.port_mac(self.index[s["name"]], j)
                for s in sw for j, p in enumerate(sorted(self.ports[s["name"]]))}
        # Static neighbours on the fabric links too: no ARP refresh can empty a next-hop
        # group in the middle of a run.
        fabric_neigh = {s["name"]: [] for s in sw}
        for ln in plan["links"]:
            if ln["kind"] == "server":
                continue
            a, ap, b, bp = ln["a"], ln["a_port"], ln["b"], ln["b_port"]
            fabric_neigh[a].append(f'  - {{ ip: {ln["b_ip"].split("/")[0]}, '
                                   f'mac: "{macs[(b, bp)]}", port: {ap} }}')
            fabric_neigh[b].append(f'  - {{ ip: {ln["a_ip"].split("/")[0]}, '
                                   f'mac: "{macs[(a, ap)]}", port: {bp} }}')
        self.confs = {}
        for s in sw:
            name = s["name"]
            path = os.path.join(self.state, f"{name}.yaml")
            with open(path, "w") as f:
                f.write(self.switch_yaml(plan, s, host_at, macs, fabric_neigh[name]))
            self.confs[name] = path
            self.ctl[name] = Ctl(os.path.join(self.state, name + ".ctl"))
        return self.confs

    def switch_burst_us(self):
        """switch.shaper_burst_us: shaper_burst_us of the hosts' line, in the bytes of it: on
        links faster than the hosts' the same bytes last less time (a bucket's bytes are what
        arrives at once after a descheduled switch runs again, which PFC headroom must hold),
        but never less than 5 ms: the switch's host ports share the setting, and with 2.5 ms
        a descheduled leaf loses line time on them that its uplink's pauses spread."""
        host, fabric = rate(self.host_speed), rate(self.speed)
        scaled = int(self.shaper_burst_us * host / max(host, fabric))
        return max(min(self.shaper_burst_us, 5000), scaled)

    def switch_yaml(self, plan, s, host_at, macs, neigh):
        name = s["name"]
        lines = [f"# {name}: generated by devtools/fabric_lab_rswhost.py", "switch:",
                 f"  name: {name}", f"  role: {'leaf' if s['tier'] == 'leaf' else 'spine'}",
                 f"  idle_sleep_us: {self.idle_us}",
                 f"  shaper_burst_us: {self.switch_burst_us()}", "", "ports:"]
        neigh = list(neigh)
        for j, (_, pname, role, (kind, arg)) in enumerate(sorted(self.ports[name])):
            dev = gen.devargs(kind, arg, j) + ("" if kind == "tap" else
                                               f",rsize={self.ring_log2}")
            h = host_at.get((name, pname))
            more = f", speed: {self.host_speed if h else self.speed}"
            extra = self.port_extra(name, pname) if self.port_extra else ""
            lines.append(gen.port_line(pname, dev, macs[(name, pname)], role,
                                       more + (", " + extra if extra else "")))
            if h:
                h["gw_mac"] = macs[(name, pname)]
                neigh.append(f'  - {{ ip: {h["ip"]}, mac: "{h["mac"]}", port: {pname} }}')
        if neigh:
            lines += ["", "neighbors:"] + neigh
        lines += gen.topology_lines(plan, s)
        lines += ["", self.lb_yaml(s) if callable(self.lb_yaml) else self.lb_yaml, "",
                  self.qos_yaml, "", "control:",
                  f"  socket: {os.path.join(self.state, name + '.ctl')}", ""]
        if self.extra:
            lines.append(self.extra)
        return "\n".join(lines)

    def rewrite_lb(self, lb_yaml):
        """New load-balancing settings, applied live with `reload` (no restart)."""
        self.lb_yaml = lb_yaml
        old = self.hosts
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
        proc.remove_eal_dirs(f"{self.prefix}-*")

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

    def lcores(self, k):
        """EAL options of the k-th switch started."""
        if self.float_cpus:
            # Threads not pinned: on a shared machine a thread pinned to a busy core
            # waits while the other core idles (DPDK lcore N on either CPU).
            return ["--lcores", "0@(0,1),1@(0,1)"] + ([] if k % 2 == 0 else
                                                      ["--main-lcore", "1"])
        # Spread the workers: half the switches poll on core 1, half on core 0.
        return ["-l", "0,1"] if k % 2 == 0 else ["-l", "0,1", "--main-lcore", "1"]

    def show_ports(self, name):
        return self.ctl[name]("show ports")

    def start_once(self):
        """configs → start → links, and every fabric next hop resolved."""
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
            p = proc.spawn([self.railsw] + self.lcores(k) + [
                "--no-huge", "-m", str(self.mem), "--file-prefix", f"{self.prefix}-{k}", "--",
                "-c", self.confs[name]], os.path.join(self.state, f"{name}.log"))
            self.procs[name] = p

            def answers(name=name):
                try:
                    self.show_ports(name)
                    return True
                except (OSError, ValueError):
                    return False
            how = proc.wait_answer(p, answers, max(0.0, deadline - time.time()), 0.05)
            if how == "exited":
                raise RuntimeError(f"{name} exited: " + self.tail(name))
            if how == "timeout":
                raise RuntimeError(f"{name} did not answer within 60 s: " + self.tail(name))
        # Fabric memif links up (host links come up when rswhost connects).
        down = proc.wait_links(order, self.show_ports,
                               lambda n, p: not self.is_host_port(n, p["name"]), 8)
        if down:
            raise RuntimeError(f"memif links down: {down}")
        # Every fabric next hop resolved (ARP over the memif links), or the first frames
        # find an empty next-hop group (group_empty drops).
        deadline = time.time() + 15
        while time.time() < deadline:
            missing = []
            for n in order:
                fabric_ports = {pn for (_, pn, _, _) in self.ports[n]
                                if not self.is_host_port(n, pn)}
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
            wait_iface(h["iface"])
            self.netns.append(ns)
            proc.host_netns(ns, h["iface"], h["mac"], h["addr"], h["gw"],
                            sysctls=["net.ipv4.tcp_ecn=1"], gw_mac=h["gw_mac"])

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
            wait_iface(h["iface"])
            for c in (["sysctl", "-q", "-w", f"net.ipv6.conf.{h['iface']}.disable_ipv6=1"],
                      ["ip", "link", "set", h["iface"], "up"]):
                r = subprocess.run(c, capture_output=True, text=True, timeout=10)
                if r.returncode != 0:
                    raise RuntimeError(f"{' '.join(c)}: {r.stderr.strip()}")

    def is_host_port(self, sw, pname):
        return any(h["leaf"] == sw and h["port"] == pname for h in self.hosts)

    def tail(self, name, n=15):
        return proc.tail(os.path.join(self.state, f"{name}.log"), n)

    def stop(self):
        """Stop the switches (SIGTERM, 15 s, SIGKILL) and remove what start made."""
        self.netns_del()
        live = [(p.pid, p, name) for name, p in self.procs.items() if p.poll() is None]
        proc.stop_pids(live, lambda _pid, p: p.poll() is None, 150)
        for _, p, _ in live:
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

    def host_config(self, hosts, flows, params):
        """rswhost's --config: PARAMS, the HOSTS (names) on their links, and FLOWS."""
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
                            gen.devargs("memif-client", h["sock"], 100 + i) +
                            f",rsize={self.ring_log2}")})
        cfg["flows"] = flows
        return cfg

    def run_hosts(self, hosts, flows, params, out_json, timeout, sampler=None):
        """Run rswhost with HOSTS (names) and FLOWS; return (stats, cpu_s, wall_s, log).
        sampler(stop_event, t0), if given, runs in a thread meanwhile."""
        path = out_json + ".config.json"
        with open(path, "w") as f:
            json.dump(self.host_config(hosts, flows, params), f, indent=1)
        proc.remove_eal_dirs(self.prefix + "-hosts")
        cpu0 = self.cpu()
        t0 = time.time()
        logp = out_json + ".log"
        open(logp, "w").close()
        lc = ["--lcores", "1@(0,1)"] if self.float_cpus else ["-l", "1"]
        p = proc.spawn([self.rswhost] + lc + ["--no-huge", "-m", "512", "--no-pci",
                       "--file-prefix", self.prefix + "-hosts",
                       "--log-level", "pmd.net.memif:error", "--",
                       "--config", path, "--out", out_json], logp)
        stop_ev = threading.Event()
        th = None
        if sampler:
            th = threading.Thread(target=sampler, args=(stop_ev, t0), daemon=True)
            th.start()
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.stop_pids([(p.pid, p, "rswhost")], lambda _pid, q: q.poll() is None, 100)
            p.wait()
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
        return stats, sw_cpu, wall, log
