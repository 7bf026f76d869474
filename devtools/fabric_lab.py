# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""A leaf-spine fabric of railsw switches on one machine (docs/fabric-lab.md): the lab's
one orchestrator. devtools/fabric-lab.sh runs it; other tools may import it. The
experiments (perf/experiments) take the same steps with rswhost as the servers:
fabric_lab_rswhost.

`up` goes plan → configs → start → links → hosts → FRR → checks (Lab's methods of those
names): `railctl plan --json` gives every switch, cable and address of the topology; one
railsw configuration per switch is written into the state directory (fabric_lab_gen);
one railsw per switch is started (its own --file-prefix; spines first); leaves and spines
are joined over memif (one socket per cable: the spine is the server); every server gets
a network namespace holding the TAP of its leaf downlink, with its address and a default
route via the leaf's .254; with --bgp or --lldp each switch's FRR and lldpd start in its
kernel interfaces' namespace; BGP convergence is waited for. The other subcommands
(status, ping, check-lldp, failover, impair) are in fabric_lab_checks; processes and
teardown in fabric_lab_proc.

Usage: fabric_lab.py SUBCOMMAND [ARGS] (as devtools/fabric-lab.sh: `fabric-lab.sh help`)."""

import fcntl
import glob
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fabric_frr  # noqa: E402
import fabric_lab_checks as checks  # noqa: E402
import fabric_lab_gen as gen  # noqa: E402
import fabric_lab_proc as proc  # noqa: E402
from fabric_lab_gen import LabError  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# How the user called the lab (devtools/fabric-lab.sh passes its $0), for the messages.
ME = os.environ.get("_FABRIC_LAB_ME") or "devtools/fabric-lab.sh"
PY = "/usr/bin/python3"
FRR = "/usr/lib/frr"
DEFAULT_TOPO = "config/fabric-lab.yaml"

USAGE = """\
Usage: devtools/fabric-lab.sh up [OPTIONS] [TOPOLOGY_FILE]   build the fabric (default config/fabric-lab.yaml)
       devtools/fabric-lab.sh status                processes, links, admin state, counters, CPU
       devtools/fabric-lab.sh ping                  ping, tracepath and ECMP over the spines
       devtools/fabric-lab.sh check-lldp            compare each switch's LLDP neighbours with the plan
       devtools/fabric-lab.sh failover link|stop    measure how long flows take to move off a spine
       devtools/fabric-lab.sh down                  stop and remove everything
       devtools/fabric-lab.sh impair LINK WORDS...  injected faults on both ends of a link
up OPTIONS: --bgp (FRR on every switch: eBGP unnumbered, BFD; routes over FPM),
  --numbered (with --bgp: sessions over the /31s), --no-bfd (with --bgp: hold timer only),
  --lldp (kernel interfaces and lldpd without BGP; --bgp implies it),
  --miscable (swap two cables of the last spine on purpose),
  --cbfc (credit-based flow control on every leaf-spine link, for lossless TC 3 = DSCP 26)
(environment and details: sed -n 5,52p ME; docs/fabric-lab.md)""".replace("sed -n 5,52p ME",
                                                                         f"sed -n 5,52p {ME}")


def say(msg):
    print(f"\n== {msg}", flush=True)


class Lab:
    """A lab: its environment (RAILSW_BUILD, RAILSW_LAB_*), its state directory, and the
    steps of `up`. Raises LabError with what the user must know."""

    def __init__(self, env=None):
        env = os.environ if env is None else env
        self.build = env.get("RAILSW_BUILD") or "build"
        state = env.get("RAILSW_LAB_STATE") or "/run/railsw/fabric"
        self.tag = env.get("RAILSW_LAB_TAG") or "rf"
        self.mem = env.get("RAILSW_LAB_MEM", "")
        self.lcores = env.get("RAILSW_LAB_LCORES") or "0,1"
        self.idle_us = env.get("RAILSW_LAB_IDLE_US") or "1000"
        bfd_ms = env.get("RAILSW_LAB_BFD_MS") or str(fabric_frr.BFD_MS)
        frr_debug = env.get("RAILSW_LAB_FRR_DEBUG") or "0"
        bgp_wait = env.get("RAILSW_LAB_BGP_WAIT") or "90"
        if not re.fullmatch(r"[a-z0-9]{1,8}", self.tag):
            raise LabError("RAILSW_LAB_TAG must be 1-8 lower-case letters or digits "
                           f"(got '{self.tag}')")
        if not re.fullmatch(r"[0-9]*", self.mem):
            raise LabError(f"RAILSW_LAB_MEM must be a number of MB (got '{self.mem}')")
        if not re.fullmatch(r"[0-9]+", bgp_wait):
            raise LabError(f"RAILSW_LAB_BGP_WAIT must be a number of seconds (got '{bgp_wait}')")
        if not re.fullmatch(r"[0-9]+", bfd_ms) or int(bfd_ms) < 10:
            raise LabError("RAILSW_LAB_BFD_MS must be a number of ms, at least 10 "
                           f"(got '{bfd_ms}')")
        if frr_debug not in ("0", "1"):
            raise LabError(f"RAILSW_LAB_FRR_DEBUG must be 0 or 1 (got '{frr_debug}')")
        if not re.fullmatch(r"[0-9]+", self.idle_us):
            raise LabError("RAILSW_LAB_IDLE_US must be a number of microseconds "
                           f"(got '{self.idle_us}')")
        self.bfd_ms, self.frr_debug, self.bgp_wait = int(bfd_ms), frr_debug == "1", int(bgp_wait)
        if not state.startswith("/"):
            state = os.path.join(ROOT, state)
        state = state.rstrip("/")
        if state in ("", "/run", "/tmp"):
            raise LabError(f"RAILSW_LAB_STATE must be a directory of its own (got '{state}')")
        self.state = state
        self.railsw = os.path.join(self.build, "control", "railsw")
        self.railctl = os.path.join(self.build, "control", "railctl")
        self.switches, self.hosts, self.plan = [], [], None

    # -- helpers

    def path(self, *p):
        return os.path.join(self.state, *p)

    def need_root(self, what):
        if os.geteuid() != 0:
            raise LabError(f"run as root (sudo {ME} {what}): the lab creates "
                           "TAP devices and network namespaces")

    def need_build(self):
        if not (os.access(self.railsw, os.X_OK) and os.access(self.railctl, os.X_OK)):
            raise LabError(f"{self.railsw} or {self.railctl} not found: build first "
                           f"(devtools/build.sh {self.build}) or set RAILSW_BUILD")

    def load(self):
        """Read a running lab's tables (switches, hosts, plan)."""
        try:
            ok = os.path.getsize(self.path("switches.tsv")) > 0
        except OSError:
            ok = False
        if not ok:
            raise LabError(f"no lab in {self.state} (start one with: {ME} up; "
                           "RAILSW_LAB_STATE picks another state directory)")
        self.switches = gen.read_switches(self.state)
        self.hosts = gen.read_hosts(self.state)
        with open(self.path("plan.json")) as f:
            self.plan = json.load(f)

    def mode_has(self, word):
        try:
            with open(self.path("mode")) as f:
                return word in f.read().split()
        except OSError:
            return False

    def ctl(self, sock, *words, check=False, json_out=False):
        """railctl -s sock [--json] words...: its stdout, or None when it failed."""
        args = [self.railctl, "-s", sock] + (["--json"] if json_out else []) + list(words)
        try:
            r = subprocess.run(args, capture_output=True, text=True, timeout=10, check=False)
        except subprocess.TimeoutExpired:
            return None
        if r.returncode != 0:
            return None
        return json.loads(r.stdout) if json_out else r.stdout

    def sock_of(self, name):
        for s in self.switches:
            if s["name"] == name:
                return s["sock"]
        return None

    def pid_of(self, s):
        pid = proc.read_pid(s["pidfile"])
        return pid if proc.is_ours(pid, f"{self.tag}-{s['name']}") else None

    def check_tag(self, hint):
        try:
            with open(self.path("tag")) as f:
                have = f.read().strip()
        except OSError:
            return
        if have and have != self.tag:
            raise LabError(f"{self.state} belongs to a lab with tag {have}, not {self.tag}: "
                           f"set {hint}")

    def teardown(self):
        proc.teardown(self.state, self.tag)

    # -- the steps of `up`

    def plan_of(self, topo):
        """plan: `railctl plan` of topo, its summary printed; the state directory made."""
        say(f"plan of {topo}")
        self.plan, text, js = gen.railctl_plan(self.railctl, topo)
        lines, on = text.split("\n"), False
        out = lines[:2]
        for ln in lines[2:]:
            if ln.startswith("tiers:"):
                on = True
            if on:
                out.append(ln)
                if ln == "":
                    break
        print("\n".join(out).rstrip("\n") + ("\n" if on else ""), flush=True)
        if os.path.isdir(self.state) or proc.lab_namespaces(self.tag) or \
                glob.glob(os.path.join(proc.RUN_DPDK, f"{self.tag}-*")):
            say(f"clearing what an earlier lab left (state {self.state}, tag {self.tag})")
            self.teardown()
        os.makedirs(self.path("memif"), exist_ok=True)
        for name, data in (("tag", self.tag + "\n"), ("plan.json", js.rstrip("\n") + "\n"),
                           ("plan.txt", text), ("topology", os.path.realpath(topo) + "\n")):
            with open(self.path(name), "w") as f:
                f.write(data)

    def configs(self, topo, opt):
        """configs: every switch's files, checked by `railsw --check`."""
        gen.generate(self.state, self.plan, dict(opt, tag=self.tag, idle_us=self.idle_us,
                                                 topo=topo, bfd_ms=self.bfd_ms,
                                                 frr_debug=self.frr_debug))
        self.switches = gen.read_switches(self.state)
        self.hosts = gen.read_hosts(self.state)
        for h in self.hosts:
            if os.path.exists(f"/sys/class/net/{h['iface']}"):
                self.teardown()
                raise LabError(f"interface {h['iface']} already exists: another lab uses tag "
                               f"{self.tag} (set RAILSW_LAB_TAG)")
        for s in self.switches:
            r = subprocess.run([self.railsw, "-c", s["conf"], "--check"],
                               stdout=subprocess.DEVNULL, check=False)
            if r.returncode != 0:
                raise LabError(f"railsw rejected the generated {s['conf']} (see above)")

    def wait_ready(self, s, p, seconds):
        how = proc.wait_answer(p, lambda: self.ctl(s["sock"], "show", "ports") is not None,
                               seconds)
        if how == "up":
            return
        print(proc.tail(s["log"], 25), file=sys.stderr, end="", flush=True)
        if how == "exited":
            raise LabError(f"{s['name']} exited during start-up (log {s['log']})")
        raise LabError(f"{s['name']} did not answer on {s['sock']} within {seconds} s "
                       f"(log {s['log']})")

    def start(self):
        """start: one railsw per switch, spines first, each answering before the next."""
        say(f"starting {len(self.switches)} switches (-l {self.lcores} --no-huge -m {self.mem}, "
            f"idle_sleep_us {self.idle_us})")
        for s in self.switches:
            p = proc.spawn([self.railsw, "-l", self.lcores, "--no-huge", "-m", str(self.mem),
                            "--file-prefix", f"{self.tag}-{s['name']}", "--", "-c", s["conf"]],
                           s["log"])
            with open(s["pidfile"], "w") as f:
                f.write(f"{p.pid}\n")
            self.wait_ready(s, p, 30)
            print("  %-14s pid %-7s socket %s" % (s["name"], p.pid, s["sock"]), flush=True)

    def links(self, seconds=20):
        """links: every memif port of every switch link up."""
        say("waiting for the memif links")
        down = proc.wait_links([s["name"] for s in self.switches],
                               lambda n: self.ctl(self.sock_of(n), "show", "ports",
                                                  json_out=True),
                               lambda _n, p: p.get("kind") == "net_memif", seconds)
        if down:
            down = " ".join(f"{n}:{p}" for n, p in down)
            raise LabError(f"memif links still down after {seconds} s: {down} ")
        n = sum(1 for ln in self.plan["links"] if ln["kind"] == "fabric")
        print(f"all {n} leaf-spine links up (memif)", flush=True)

    def host_up(self, h):
        """One server NIC: its TAP into the server's namespace, its MAC, address, routes
        (the default route via the first NIC's leaf, nic0; the other NICs reach their own
        rail's subnets directly)."""
        if not os.path.exists(f"/sys/class/net/{h['iface']}"):
            raise LabError(f"TAP {h['iface']} of {h['leaf']} is missing")
        proc.host_netns(h["ns"], h["iface"], h["mac"], h["addr"], h["gw"], h["routes"])
        print("  %-14s netns %-18s %-6s %-15s gw %-12s %s:%s" % (
            h["server"], h["ns"], h["iface"], h["addr"], h["gw"], h["leaf"], h["port"]),
            flush=True)

    def hosts_up(self):
        """hosts: every server NIC (hosts_up of each)."""
        say("hosts")
        for h in self.hosts:
            self.host_up(h)

    def frr(self):
        """FRR: with --bgp or --lldp, each switch's daemons in its namespace; with --bgp, the
        wait for BGP to converge."""
        if not self.mode_has("lldp"):
            return
        with open(self.path("mode")) as f:
            mode = f.read().strip()
        say(f"routing daemons and LLDP in each switch's namespace ({mode})")
        for s in self.switches:
            checks.wait_kif(self, s)
            if self.mode_has("bgp"):
                checks.start_frr(self, s)
            checks.start_lldpd(self, s)
            what = ""
            if self.mode_has("bgp"):
                with open(self.path("frr", s["name"], "bgpd.conf")) as f:
                    asn = re.search(r"^router bgp (\S+)", f.read(), re.M).group(1)
                what = f"zebra bfdd bgpd ASN {asn} + "
            print("  %-14s netns %-22s %s" % (s["name"], proc.sw_ns(self.tag, s["name"]),
                                              what + "lldpd"), flush=True)
        if self.mode_has("bgp"):
            checks.wait_bgp(self)

    def up(self, topo, opt):
        """plan → configs → start → links → hosts → FRR → checks (the summary)."""
        self.plan_of(topo)
        self.configs(topo, opt)
        started = False
        try:
            started = True
            self.start()
            self.links()
            self.hosts_up()
            self.frr()
        except BaseException:
            if started:
                print("fabric-lab: up failed; tearing down what it started", file=sys.stderr,
                      flush=True)
                try:
                    self.teardown()
                except Exception:  # noqa: BLE001 - the first error is the one to report
                    pass
            raise
        with open(self.path("swapped.tsv")) as f:
            swapped = [ln.rstrip("\n").split("\t") for ln in f if ln.strip()]
        if swapped:
            say("miscabled on purpose (--miscable)")
            for a, ap, sp, b in swapped:
                print(f"  {a} {ap} is cabled to {sp}'s port of {b}", flush=True)
        self.summary()

    def summary(self):
        with open(self.path("topology")) as f:
            topo = f.read().strip()
        say(f"fabric (railctl plan {topo})")
        with open(self.path("plan.txt")) as f:
            text = f.read().split("\n")
        at = next((i for i, ln in enumerate(text) if ln.startswith("cables")), len(text))
        print("\n".join(text[at:]).rstrip("\n"), flush=True)
        say(f"the lab is up (state {self.state})")
        for s in self.switches:
            print("  %-14s %-5s pid %-7s %s -s %s show ports" % (
                s["name"], s["tier"], self.pid_of(s) or "", self.railctl, s["sock"]))
        print()
        me = ME
        if len(self.hosts) >= 2:
            last = self.hosts[-1]["addr"].split("/")[0]
            ns0 = self.hosts[0]["ns"]
            print("  %-58s # %s" % (f"ip netns exec {ns0} ping {last}", "across the fabric"))
            print("  %-58s # %s" % (f"ip netns exec {ns0} tracepath -n {last}",
                                    "leaf -> spine -> leaf hops"))
        for cmd, what in ((f"{me} ping", "pings, tracepath, ECMP over the spines"),
                          (f"{me} status", "processes, links, counters, CPU"),
                          (f"{me} down", "stop and remove everything")):
            print("  %-58s # %s" % (cmd, what))
        sys.stdout.flush()


def lock(lab, wait=True):
    """The lock of the state directory (beside it), held until this process exits."""
    parent = os.path.dirname(lab.state)
    if not os.path.isdir(parent):
        if not wait:
            return None
        os.makedirs(parent, exist_ok=True)
    path = os.path.join(parent, f".{os.path.basename(lab.state)}.lock")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
    for _ in range(600):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return path
        except BlockingIOError:
            time.sleep(0.1)
    raise LabError(f"another fabric-lab.sh holds the lock of {lab.state}")


def cmd_up(lab, args):
    topo = DEFAULT_TOPO
    opt = {"bgp": False, "lldp": False, "miscable": False, "numbered": False, "bfd": True,
           "cbfc": False}
    words = {"--bgp": "bgp", "--lldp": "lldp", "--miscable": "miscable",
             "--numbered": "numbered", "--cbfc": "cbfc"}
    for a in args:
        if a in words:
            opt[words[a]] = True
        elif a == "--no-bfd":
            opt["bfd"] = False
        elif a.startswith("-"):
            raise LabError(f"up: unknown option '{a}' (--bgp, --numbered, --no-bfd, --lldp, "
                           "--miscable, --cbfc)")
        else:
            topo = a
    # Every batch of routes from FPM builds a new generation of tables beside the old one
    # (like `railctl reload`): 256 MB holds one only.
    if not lab.mem:
        lab.mem = "384" if opt["bgp"] else "256"
    if opt["bgp"] or opt["lldp"]:
        if opt["bgp"] and not os.access(os.path.join(FRR, "zebra"), os.X_OK):
            raise LabError(f"FRR not found in {FRR} (devtools/install-deps.sh: frr)")
        if subprocess.run(["sh", "-c", "command -v lldpd"], capture_output=True,
                          check=False).returncode != 0:
            raise LabError("lldpd not found (devtools/install-deps.sh: lldpd)")
    if (opt["numbered"] or not opt["bfd"]) and not opt["bgp"]:
        raise LabError("up: --numbered and --no-bfd go with --bgp")
    lab.need_root("up")
    lab.need_build()
    if not os.access(topo, os.R_OK):
        raise LabError(f"topology file {topo} not found or not readable")
    lab.check_tag("RAILSW_LAB_TAG or RAILSW_LAB_STATE")
    lab.up(topo, opt)


def cmd_down(lab):
    lab.need_root("down")
    lab.check_tag("RAILSW_LAB_TAG")
    lab.teardown()
    print(f"fabric-lab: down (state {lab.state}, tag {lab.tag})", flush=True)


def main(argv):
    sys.stdout.reconfigure(line_buffering=True)
    os.chdir(ROOT)
    sub, args = (argv[0], argv[1:]) if argv else ("", [])
    try:
        lab = Lab()
        if sub == "up":
            lock(lab)
            cmd_up(lab, args)
        elif sub == "down":
            if args:
                raise LabError(f"usage: {ME} down")
            path = lock(lab, wait=False)
            cmd_down(lab)
            if path:
                os.unlink(path)
        elif sub in ("status", "ping", "check-lldp"):
            if args:
                raise LabError(f"usage: {ME} {sub}")
            return checks.COMMANDS[sub](lab)
        elif sub == "failover":
            if not 1 <= len(args) <= 2:
                raise LabError(f"usage: {ME} failover link|stop [SECONDS]")
            return checks.cmd_failover(lab, *args)
        elif sub == "impair":
            if len(args) < 2:
                raise LabError(f"usage: {ME} impair LINK loss P [loss_burst N] [corrupt P] "
                               f"[delay_us D] [seed S] | {ME} impair LINK off")
            return checks.cmd_impair(lab, args[0], args[1:])
        elif sub in ("-h", "--help", "help"):
            print(USAGE)
        elif sub == "":
            print(USAGE, file=sys.stderr)
            return 2
        else:
            print(f"fabric-lab: unknown command '{sub}'", file=sys.stderr)
            print(USAGE, file=sys.stderr)
            return 2
    except (LabError, RuntimeError) as e:
        print(f"fabric-lab: {e}", file=sys.stderr, flush=True)
        return 1
    except subprocess.CalledProcessError as e:
        print(f"fabric-lab: {' '.join(map(str, e.cmd))} failed ({e.returncode})",
              file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
