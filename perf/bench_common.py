# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""perf/bench.py's ground: constants and scenarios, the telemetry client, the captures
(pcap files, frames, routes), the machine (core clock, hugepages), the builds (railsw,
l3fwd) and the process runner."""

import hashlib
import json
import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PERF = os.path.join(ROOT, "perf")
L3FWD_SRC = "/usr/share/dpdk/examples"
CACHE = "/tmp/railsw-perf-cache"  # built l3fwd and the clock probe, reused between runs

# Port MACs (railsw sets them from its config; the pcap PMD's own default is
# 02:70:63:61:70:<index>, "pcap"), and the neighbours' MACs the frames are rewritten to.
RSW_MAC = ["02:00:00:00:00:10", "02:00:00:00:00:11"]
OVS_SCHEMA = "/usr/share/openvswitch/vswitch.ovsschema"
# The private OVS's bridge. Its userspace datapath makes a persistent TAP of the bridge's name
# and one named ovs-netdev; the run deletes the ones it made (a name of our own for the bridge,
# so that no bridge of the machine's is touched).
OVS_BRIDGE = "rswperf-br"
OVS_TAPS = ("ovs-netdev", OVS_BRIDGE)
PCAP_MAC = ["02:70:63:61:70:00", "02:70:63:61:70:01"]
NEIGH_MAC = ["02:00:00:00:01:10", "02:00:00:00:01:11"]
SRC_MAC = "02:00:00:00:99:99"

PKTS_PER_PORT = 1024  # frames in each capture; pcap infinite_rx keeps them in mbufs

# name -> template, family, routes (generated), l3fwd equivalent, flows kind
SCENARIOS = {
    "ipv4-lpm-1k": dict(tmpl="ipv4-lpm", fam=4, routes=1024, l3fwd="v4-1k"),
    "ipv4-lpm-64k": dict(tmpl="ipv4-lpm", fam=4, routes=1 << 16, l3fwd="v4-64k"),
    # rte_lpm adds a rule in O(rules of that depth): l3fwd needs ~2 min of CPU to load 1M
    # routes, so this one runs at the smallest frame size only (the lookup is what it tests)
    "ipv4-lpm-1M": dict(tmpl="ipv4-lpm", fam=4, routes=1 << 20, l3fwd="v4-1M", min_size_only=True),
    "ipv6-lpm": dict(tmpl="ipv6-lpm", fam=6, routes=1024, l3fwd="v6-1k"),
    "ecmp-hash": dict(tmpl="ecmp-hash", fam=4, routes=0, l3fwd="v4-1k"),
    "spray": dict(tmpl="spray", fam=4, routes=0, l3fwd="v4-1k"),
    "qos-full": dict(tmpl="qos-full", fam=4, routes=1024, l3fwd="v4-1k"),
    # A leaf's own hosts: two connected /24s with 253 static neighbours each, frames to all of
    # them (none to the switch's own address), no route at all.
    "connected": dict(tmpl="connected", fam=4, routes=0, l3fwd="v4-1k", kind="connected",
                      neighbors=253),
    # A leaf: half the frames to hosts of the connected /24 behind the other port (253
    # neighbours per port), half to 33.<port>.0.0/16 over 4-way ECMP (hash) to four of them
    # (the "spines"), interleaved.
    "leaf": dict(tmpl="leaf", fam=4, routes=0, l3fwd="v4-1k", kind="leaf", neighbors=253),
    # Incast: the frames of both ports routed (1k routes) out of one port, p1: every worker
    # hands frames to the one port, the ingress port p1 included (hairpin).
    "incast": dict(tmpl="ipv4-lpm", fam=4, routes=1024, l3fwd="v4-1k", kind="v4", incast=True),
}
L3FWD_VARIANTS = {"v4-1k": (4, 1024), "v4-64k": (4, 1 << 16), "v4-1M": (4, 1 << 20),
                  "v6-1k": (6, 1024)}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def netdev_exists(name):
    return os.path.exists(os.path.join("/sys/class/net", name))


def del_tap(name):
    """Delete the persistent TAP device name (quietly: it may be gone already)."""
    subprocess.run(["ip", "tuntap", "del", "dev", name, "mode", "tap"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10)


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=isinstance(cmd, str), check=True, **kw)


# --------------------------------------------------------------------------- telemetry

class Exited(Exception):
    """The program exited before it forwarded anything (its log says why)."""


class Telemetry:
    """Minimal DPDK telemetry v2 client (unix seqpacket, one JSON reply per command)."""

    def __init__(self, prefix):
        self.path = "/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix
        self.s = None

    def connect(self, deadline, alive=lambda: True):
        while time.monotonic() < deadline and alive():
            if os.path.exists(self.path):
                try:
                    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                    s.settimeout(2.0)
                    s.connect(self.path)
                    info = json.loads(s.recv(65536).decode())
                    self.s = s
                    return info
                except (OSError, ValueError):
                    pass
            time.sleep(0.1)
        if not alive():
            raise Exited()
        raise RuntimeError("no telemetry socket at %s" % self.path)

    def cmd(self, c):
        self.s.send(c.encode())
        return json.loads(self.s.recv(1 << 20).decode())

    def ports(self):
        return self.cmd("/ethdev/list")["/ethdev/list"]

    def stats(self, ports):
        out = {}
        for p in ports:
            out[p] = self.cmd("/ethdev/stats,%d" % p)["/ethdev/stats"]
        return out

    def close(self):
        if self.s:
            self.s.close()
            self.s = None


# --------------------------------------------------------------------------- captures

def pcap_write(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for fr in frames:
            f.write(struct.pack("<IIII", 0, 0, len(fr), len(fr)))
            f.write(fr)


def build_frames(dst_mac, fam, dsts, size, rnd, dscps=(0,)):
    """UDP frames of `size` bytes on the wire (FCS included: the capture holds size - 4)."""
    from scapy.all import Ether, IP, IPv6, UDP, Raw  # Debian's python3-scapy
    frames = []
    for i, d in enumerate(dsts):
        dscp = dscps[i % len(dscps)]
        if fam == 4:
            l3 = IP(src="10.%d.%d.%d" % (rnd.randrange(256), rnd.randrange(256), rnd.randrange(1, 255)),
                    dst=d, ttl=64, tos=dscp << 2)
        else:
            l3 = IPv6(src="fd99::%x:%x" % (rnd.randrange(65536), rnd.randrange(65536)), dst=d,
                      hlim=64, tc=dscp << 2)
        p = Ether(dst=dst_mac, src=SRC_MAC) / l3
        hdr = len(p) + 8
        if size - 4 >= hdr + 12 and i % 2 == 0:
            # RoCEv2: UDP 4791 + BTH (RC SEND only, a dest QP per flow), as the hash reads it
            bth = struct.pack("!BBHI I", 0x04, 0, 0xFFFF, rnd.randrange(1 << 24), rnd.randrange(1 << 24))
            p = p / UDP(sport=rnd.randrange(49152, 65535), dport=4791) / Raw(bth)
        else:
            p = p / UDP(sport=rnd.randrange(1024, 65535), dport=rnd.choice((5000, 6000)))
        pad = size - 4 - len(p)
        p = p / Raw(b"\x00" * max(pad, 0))
        frames.append(bytes(p))
    return frames


def v4_route(i):
    return "%d.%d.%d.0" % (32 + (i >> 16), (i >> 8) & 255, i & 255)


def v6_route(i):
    return "2001:db8:%x::" % i


def dests_for(kind, nroutes, egress, rnd, n):
    """Destinations routed out of port `egress` (route i leaves by port i % 2)."""
    if kind == "ecmp":
        return ["33.%d.%d.%d" % (egress, rnd.randrange(256), rnd.randrange(1, 255)) for _ in range(n)]
    if kind == "connected":
        # every neighbour .1-.253 of the other port's /24 in turn; .254 is the switch
        return ["192.168.%d.%d" % (egress, k % 253 + 1) for k in range(n)]
    if kind == "leaf":
        return ["192.168.%d.%d" % (egress, (k // 2) % 253 + 1) if k % 2 == 0 else
                "33.%d.%d.%d" % (egress, rnd.randrange(256), rnd.randrange(1, 255)) for k in range(n)]
    out = []
    half = nroutes // 2
    for k in range(n):
        # spread over the whole table: with 1M routes the lookups miss the caches
        i = 2 * ((k * 2654435761 + rnd.randrange(half)) % half) + egress if half > n else \
            2 * (k % half) + egress
        if kind == "v4":
            out.append("%s" % v4_route(i)[:-1] + str(rnd.randrange(1, 255)))
        else:
            out.append(v6_route(i) + "%x" % rnd.randrange(1, 65535))
    return out


class Captures:
    def __init__(self, scratch):
        self.dir = os.path.join(scratch, "pcap")
        os.makedirs(self.dir, exist_ok=True)
        self.done = {}

    def get(self, kind, nroutes, size, macs, dscps=(0,), incast=False):
        """Two captures (one per port), frames entering port p addressed to macs[p], routed
        out of the other port (incast: out of port 1, whichever port they enter)."""
        key = (kind, nroutes, size, tuple(macs), tuple(dscps), incast)
        if key in self.done:
            return self.done[key]
        paths = []
        for port in (0, 1):
            rnd = random.Random(1000 * port + size + nroutes)
            egress = 1 if incast else 1 - port
            fam = 6 if kind == "v6" else 4
            dsts = dests_for(kind, nroutes, egress, rnd, PKTS_PER_PORT)
            h = hashlib.sha1(repr(key).encode()).hexdigest()[:10]
            path = os.path.join(self.dir, "%s-%d-%d-p%d-%s.pcap" % (kind, nroutes, size, port, h))
            pcap_write(path, build_frames(macs[port], fam, dsts, size, rnd, dscps))
            paths.append(path)
        self.done[key] = paths
        return paths


def short_alias(scratch, path):
    """A short path of the capture `path`, relative to the scratch folder (every program runs
    there): railsw's devargs hold at most 255 characters, and a port carries one rx_pcap per
    worker."""
    d = os.path.join(scratch, "c")
    os.makedirs(d, exist_ok=True)
    for name in sorted(os.listdir(d)):
        if os.path.realpath(os.path.join(d, name)) == os.path.realpath(path):
            return "c/" + name
    name = "%d.pcap" % len(os.listdir(d))
    os.symlink(path, os.path.join(d, name))
    return "c/" + name


def devargs(i, path, queues):
    return "net_pcap%d," % i + ",".join(["rx_pcap=%s" % path] * queues) + ",infinite_rx=1"


# --------------------------------------------------------------------------- machine

def measure_clock(trials=15, cpu=None):
    """Core clock from a timed chain of dependent imul (3 cycles each), plus the TSC rate.

    The clock of these VMs moves by 30 % from one second to the next, so the harness
    measures it right before and right after every run, on the forwarding core."""
    src = r'''
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return t.tv_sec + t.tv_nsec * 1e-9; }
/* Best of many short trials (a VM's other tenants only ever make a trial slower):
 * a chain of dependent imul (3 cycles each on every x86 core since Nehalem/K10) and,
 * as a cross-check, a chain of dependent register adds (1 cycle each). */
#include <stdlib.h>
int main(int argc, char **argv) {
	double imul = 0, add = 0, tsc = 0;
	int trials = argc > 1 ? atoi(argv[1]) : 15;
	for (int r = 0; r < trials; r++) {
		uint64_t z = 3, x = 1, y = 3, i = 10000000;
		double t0 = now(); uint64_t c0 = __rdtsc();
		__asm__ volatile("1:\n\t" "imul %0, %0\n\t" "imul %0, %0\n\t" "imul %0, %0\n\t"
			"imul %0, %0\n\t" "dec %1\n\t" "jnz 1b" : "+r"(z), "+r"(i));
		uint64_t c1 = __rdtsc(); double t1 = now();
		if (12.0 * 1e7 / (t1 - t0) > imul) { imul = 12.0 * 1e7 / (t1 - t0);
			tsc = (c1 - c0) / (t1 - t0); }
		i = 10000000; t0 = now();
		__asm__ volatile("1:\n\t" "add %2, %0\n\t" "add %2, %0\n\t" "add %2, %0\n\t"
			"add %2, %0\n\t" "add %2, %0\n\t" "add %2, %0\n\t" "add %2, %0\n\t"
			"add %2, %0\n\t" "dec %1\n\t" "jnz 1b" : "+r"(x), "+r"(i) : "r"(y));
		t1 = now();
		if (8.0 * 1e7 / (t1 - t0) > add) add = 8.0 * 1e7 / (t1 - t0);
	}
	printf("%.0f %.0f %.0f\n", imul, tsc, add);
	return 0;
}
'''
    os.makedirs(CACHE, exist_ok=True)
    exe = os.path.join(CACHE, "clockprobe-" + hashlib.sha1(src.encode()).hexdigest()[:8])
    try:
        if not os.path.exists(exe):
            with open(exe + ".c", "w") as f:
                f.write(src)
            sh(["cc", "-O2", "-o", exe, exe + ".c"], stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL)
        if cpu is None:
            cpu = min(1, os.cpu_count() - 1)
        out = subprocess.run(["taskset", "-c", str(cpu), exe, str(trials)],
                             capture_output=True, text=True, timeout=30, check=True).stdout.split()
        return float(out[0]), float(out[1]), \
            "timed chain of dependent imul, 3 cycles each (add chain: %.3f GHz)" % (float(out[2]) / 1e9)
    except (OSError, subprocess.SubprocessError, IndexError, ValueError):
        mhz = [float(l.split(":")[1]) for l in open("/proc/cpuinfo") if l.startswith("cpu MHz")]
        return mhz[0] * 1e6, mhz[0] * 1e6, "/proc/cpuinfo 'cpu MHz'"


class Memory:
    """2 MiB hugepages reserved and mounted in the scratch folder, or --no-huge."""

    def __init__(self, scratch, want_huge, pages):
        self.mnt = os.path.join(scratch, "huge")
        self.added = 0
        self.reserved = 0
        self.mounted = False
        self.huge = False
        self.why = ""
        if not want_huge:
            self.why = "--no-huge requested"
            return
        try:
            nr = "/proc/sys/vm/nr_hugepages"
            before = int(open(nr).read())
            with open(nr, "w") as f:
                f.write(str(before + pages))
            self.added = int(open(nr).read()) - before
            free = int(re.search(r"HugePages_Free:\s+(\d+)", open("/proc/meminfo").read()).group(1))
            if self.added < pages or free < pages:
                self.why = "could reserve only %d of %d 2 MiB pages" % (self.added, pages)
                self.release()
                return
            os.makedirs(self.mnt, exist_ok=True)
            sh(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M", "nodev", self.mnt])
            self.mounted = True
            self.huge = True
            self.reserved = self.added
        except (OSError, subprocess.SubprocessError) as e:
            self.why = "hugepages unavailable: %s" % e
            self.release()

    def eal(self):
        if self.huge:
            return ["--huge-dir", self.mnt, "--huge-unlink"]
        return ["--no-huge", "-m", "1024"]

    def label(self):
        if self.huge:
            return "hugepages (2 MiB, %d reserved for the run, hugetlbfs in the scratch folder)" % self.reserved
        return "no hugepages (--no-huge -m 1024: %s)" % self.why

    def release(self):
        if self.mounted:
            for f in os.listdir(self.mnt):
                try:
                    os.unlink(os.path.join(self.mnt, f))
                except OSError:
                    pass
            subprocess.run(["umount", self.mnt], check=False)
            self.mounted = False
        if self.added:
            nr = "/proc/sys/vm/nr_hugepages"
            cur = int(open(nr).read())
            with open(nr, "w") as f:
                f.write(str(max(0, cur - self.added)))
            self.added = 0


# --------------------------------------------------------------------------- builds

def build_railsw(build_dir, build=True):
    build_dir = os.path.abspath(build_dir)  # the programs run in the scratch folder
    exe = os.path.join(build_dir, "control", "railsw")
    if not build and os.path.exists(exe):
        pass
    elif not os.path.exists(os.path.join(build_dir, "build.ninja")):
        log("perf: meson setup %s (release)" % build_dir)
        sh(["meson", "setup", build_dir, "-Dbuildtype=release", "-Dtests=disabled"], cwd=ROOT,
           stdout=subprocess.DEVNULL)
    r = subprocess.run(["ninja", "-C", build_dir], capture_output=True, text=True, timeout=600) \
        if build or not os.path.exists(exe) else None
    if r is not None and r.returncode != 0:
        raise RuntimeError("railsw build failed:\n" + r.stdout[-3000:] + r.stderr[-2000:])
    btype = "?"
    try:
        for o in json.load(open(os.path.join(build_dir, "meson-info", "intro-buildoptions.json"))):
            if o["name"] == "buildtype":
                btype = o["value"]
    except (OSError, ValueError, KeyError):
        pass
    return exe, os.path.join(build_dir, "control", "railctl"), btype


L3FWD_PATCHES = [
    # Mask the requested offloads (RX checksum, multi-seg tx) with what the device has:
    # vdevs have none of them and rte_eth_dev_configure refuses the port otherwise.
    ("main.c",
     "\t\tlocal_port_conf.rx_adv_conf.rss_conf.rss_hf &=\n\t\t\tdev_info.flow_type_rss_offloads;\n",
     "\t\tlocal_port_conf.rx_adv_conf.rss_conf.rss_hf &=\n\t\t\tdev_info.flow_type_rss_offloads;\n"
     "\t\t/* railsw perf: mask offloads with the device capabilities */\n"
     "\t\tlocal_port_conf.rxmode.offloads &= dev_info.rx_offload_capa;\n"
     "\t\tlocal_port_conf.txmode.offloads &= dev_info.tx_offload_capa;\n"
     "\t\tport_conf.rxmode.offloads &= dev_info.rx_offload_capa;\n"),
    # Single-segment mbufs large enough for --max-pkt-len (pcap infinite_rx copies one segment).
    ("main.c", "RTE_MBUF_DEFAULT_BUF_SIZE, socketid);",
     "RTE_MAX(RTE_MBUF_DEFAULT_BUF_SIZE, max_pkt_len + RTE_PKTMBUF_HEADROOM), socketid);"),
    # Room for the 1M-route table.
    ("l3fwd_lpm.c", "#define IPV4_L3FWD_LPM_MAX_RULES         1024",
     "#define IPV4_L3FWD_LPM_MAX_RULES         (2 << 20)"),
    ("l3fwd_lpm.c", "#define IPV6_L3FWD_LPM_MAX_RULES         1024",
     "#define IPV6_L3FWD_LPM_MAX_RULES         65536"),
    # Print the first 16 routes only: a printf per route takes minutes for 1M routes.
    ("l3fwd_lpm.c", '\t\tprintf("LPM: Adding route %s / %d (%d) [%s]\\n",',
     '\t\tif (i < 16) printf("LPM: Adding route %s / %d (%d) [%s]\\n",'),
    ("l3fwd_lpm.c", '\t\tprintf("LPM: Adding route %s / %d (%d) [%s]\\n",',
     '\t\tif (i < 16) printf("LPM: Adding route %s / %d (%d) [%s]\\n",'),
]


def build_l3fwd():
    """DPDK's l3fwd from dpdk-doc, patched, in a scratch folder (cached by source hash)."""
    src = os.path.join(L3FWD_SRC, "l3fwd")
    if not os.path.isdir(src):
        raise RuntimeError("%s missing (apt-get install dpdk-doc)" % src)
    h = hashlib.sha1(repr(L3FWD_PATCHES).encode())
    for root in (src, os.path.join(L3FWD_SRC, "common")):
        for dp, _, fs in sorted(os.walk(root)):
            for f in sorted(fs):
                h.update(open(os.path.join(dp, f), "rb").read())
    work = os.path.join(CACHE, "l3fwd-" + h.hexdigest()[:12])
    exe = os.path.join(work, "l3fwd", "build", "l3fwd-shared")
    if os.path.exists(exe):
        return exe
    log("perf: building l3fwd in %s" % work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    shutil.copytree(src, os.path.join(work, "l3fwd"))
    shutil.copytree(os.path.join(L3FWD_SRC, "common"), os.path.join(work, "common"))
    for f, old, new in L3FWD_PATCHES:
        p = os.path.join(work, "l3fwd", f)
        text = open(p).read()
        if old not in text:
            raise RuntimeError("l3fwd patch does not apply to %s: %r" % (f, old[:60]))
        open(p, "w").write(text.replace(old, new, 1))
    r = subprocess.run(["make", "-C", os.path.join(work, "l3fwd"), "-j2", "shared"],
                       capture_output=True, text=True, timeout=900)
    if r.returncode != 0 or not os.path.exists(exe):
        raise RuntimeError("l3fwd build failed:\n" + r.stderr[-3000:])
    return exe


# --------------------------------------------------------------------------- processes

class MacMismatch(Exception):
    def __init__(self, macs, msg):
        super().__init__(msg)
        self.macs = macs


class Proc:
    """A DPDK process we started: its PID, file prefix, telemetry and log."""

    def __init__(self, name, argv, prefix, scratch, stdin_pipe=False, env=None, logpath=None):
        self.name, self.prefix = name, prefix
        self.logpath = logpath or os.path.join(scratch, prefix + ".log")
        self.logf = open(self.logpath, "w")
        self.p = subprocess.Popen(argv, stdout=self.logf, stderr=subprocess.STDOUT,
                                  stdin=subprocess.PIPE if stdin_pipe else subprocess.DEVNULL,
                                  start_new_session=True, env=env, cwd=scratch)
        self.tel = Telemetry(prefix)

    def alive(self):
        return self.p.poll() is None

    def tail(self, n=15):
        try:
            return "".join(open(self.logpath).readlines()[-n:])
        except OSError:
            return ""

    def stop(self, timeout=15):
        self.tel.close()
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
            try:
                self.p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait(timeout=10)
        self.logf.close()
        shutil.rmtree("/var/run/dpdk/" + self.prefix, ignore_errors=True)


def cpus():
    """The CPUs this process may run on, in order."""
    return sorted(os.sched_getaffinity(0))


def lcore_cpus(workers):
    """The CPU of each lcore: lcore 0 (the main lcore, railsw's control thread) on the first
    CPU, forwarding lcore i (1..workers) on CPU i while there are CPUs enough, else the
    forwarding lcores go round the CPUs (lcore i on CPU i mod n). With workers + 1 > n the
    control thread shares the first CPU with a worker; with workers > n workers share CPUs."""
    c = cpus()
    return [c[0]] + [c[i % len(c)] for i in range(1, workers + 1)]


def shared_cpus(workers):
    """True when forwarding lcores share CPUs with each other: correctness, not a measure."""
    return workers > len(cpus())


def eal_lcores(workers, main=True):
    """EAL arguments: main lcore 0 and forwarding lcores 1..workers, each on its CPU
    (lcore_cpus); main=False: the forwarding lcores only (l3fwd forwards on its main lcore)."""
    lc = list(enumerate(lcore_cpus(workers)))
    if not main:
        return ["--lcores", ",".join("%d@%d" % x for x in lc[1:])]
    return ["--lcores", ",".join("%d@%d" % x for x in lc), "--main-lcore", "0"]


def measure(proc, warmup, window, nports=2, check=None):
    """Start-up, warm-up, then a fixed window of ethdev stats over telemetry."""
    deadline = time.monotonic() + 180  # 1M routes take a while to load
    proc.tel.connect(deadline, proc.alive)
    while time.monotonic() < deadline:
        if not proc.alive():
            raise Exited()
        ports = proc.tel.ports()
        if len(ports) >= nports:
            st = proc.tel.stats(ports)
            if all(st[p]["ipackets"] > 0 for p in ports) or (check and check()):
                break
        time.sleep(0.2)
    else:
        raise RuntimeError("%s: no packets within 180 s:\n%s" % (proc.name, proc.tail()))
    time.sleep(warmup)
    s0, t0 = proc.tel.stats(ports), time.monotonic()
    time.sleep(window)
    s1, t1 = proc.tel.stats(ports), time.monotonic()
    dt = t1 - t0
    d = lambda k: sum(s1[p][k] - s0[p][k] for p in ports)
    return dict(tx_mpps=d("opackets") / dt / 1e6, rx_mpps=d("ipackets") / dt / 1e6,
                tx_gbps=d("obytes") * 8 / dt / 1e9, seconds=dt,
                rx_dropped=d("imissed") + d("rx_nombuf") + d("ierrors"), tx_errors=d("oerrors"))
