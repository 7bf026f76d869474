#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""railsw benchmark harness: Mpps and cycles/packet, side by side with l3fwd and testpmd.

Every program forwards between the same two `net_pcap` vdevs, each replaying a generated
capture from memory (`infinite_rx=1`) and, having no tx file, freeing what it transmits:
each port is its own source and sink inside the forwarding lcore. Rates come from ethdev
stats read over DPDK telemetry (/var/run/dpdk/<prefix>/dpdk_telemetry.v2), for railsw and
the peers alike, over a fixed window after a warm-up. See docs/perf.md.

Run as root: perf/run.sh [--smoke] [--runs N] [--sizes 64,512] [--scenarios ipv4-lpm-1k,...]
"""

import argparse
import ctypes
import datetime
import hashlib
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
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

    def get(self, kind, nroutes, size, macs, dscps=(0,)):
        """Two captures (one per port), frames entering port p addressed to macs[p]."""
        key = (kind, nroutes, size, tuple(macs), tuple(dscps))
        if key in self.done:
            return self.done[key]
        paths = []
        for port in (0, 1):
            rnd = random.Random(1000 * port + size + nroutes)
            egress = 1 - port
            fam = 6 if kind == "v6" else 4
            dsts = dests_for(kind, nroutes, egress, rnd, PKTS_PER_PORT)
            h = hashlib.sha1(repr(key).encode()).hexdigest()[:10]
            path = os.path.join(self.dir, "%s-%d-%d-p%d-%s.pcap" % (kind, nroutes, size, port, h))
            pcap_write(path, build_frames(macs[port], fam, dsts, size, rnd, dscps))
            paths.append(path)
        self.done[key] = paths
        return paths


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
                                  start_new_session=True, env=env)
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


def cpu_list(workers):
    """main lcore 0 + forwarding lcores 1..workers."""
    return list(range(0, workers + 1))


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
        argv = ["dpdk-testpmd", "-l", ",".join(map(str, cpu_list(workers))), "--file-prefix", pre,
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
        argv = [self.a.l3fwd_exe, "-l", ",".join(map(str, lcores)), "--file-prefix", pre,
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
        caps = self.caps.get(kind, sc["routes"], size, self.rsw_macs, dscps)
        sock = os.path.join(self.scratch, "rsw-%s.sock" % scen)
        mtu = max(1500, size - 18)
        text = open(os.path.join(PERF, "scenarios", sc["tmpl"] + ".yaml")).read()
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
        key = (scen, self.jumbo(size))
        if key in self.refused:
            return self.refused[key]
        path, _ = self.railsw_config(scen, size, workers)
        r = subprocess.run([self.railsw, "--", "-c", path, "--check"], capture_output=True,
                           text=True, timeout=300)
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
        argv = [self.railsw, "-l", ",".join(map(str, cpu_list(workers))), "--file-prefix", pre] + \
            self.mem.eal() + ["--", "-c", path]
        try:
            return self.run_proc("railsw", argv, pre, railctl_sock=sock)
        except Exited:
            # railsw refused at start what --check accepted: report it, do not retry
            lines = [l.strip() for l in open(os.path.join(self.scratch, pre + ".log"))
                     if l.startswith("railsw:")] or ["exited at start"]
            self.refused[(scen, self.jumbo(size))] = "exits at start: " + lines[-1][8:]
            self.refused_start.add((scen, self.jumbo(size)))
            raise RuntimeError(self.refused[(scen, self.jumbo(size))])
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
                  "other_config:pmd-cpu-mask=0x%x" % sum(1 << c for c in cpu_list(workers)[1:]),
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
            if not proc.alive():
                raise RuntimeError("%s exited during the window:\n%s" % (name, proc.tail()))
            return res
        finally:
            proc.stop()


# --------------------------------------------------------------------------- callgrind

def callgrind_costs(path):
    """Self cost (Ir) per (object, function) in a callgrind output file (one event, line
    positions): the cost lines of each fn= block, less the inclusive cost lines that follow
    calls=. Names may be compressed: "(id) name" defines, "(id)" refers."""
    names = {"ob": {}, "fn": {}}
    ob = fn = None
    skip = False
    cost = {}
    with open(path) as f:
        for line in f:
            if line.startswith(("ob=", "fn=", "cob=", "cfn=")):
                key, _, val = line.rstrip("\n").partition("=")
                m = re.match(r"\((\d+)\)(?: (.*))?$", val)
                if m:
                    if m.group(2) is not None:
                        names[key[-2:]][m.group(1)] = m.group(2)
                    val = names[key[-2:]].get(m.group(1), val)
                if key == "ob":
                    ob = val
                elif key == "fn":
                    fn = val
            elif line.startswith("calls="):
                skip = True
            elif line[:1] in "+-*0123456789":
                if skip:
                    skip = False
                    continue
                parts = line.split()
                if len(parts) >= 2:
                    cost[(ob, fn)] = cost.get((ob, fn), 0) + int(parts[1])
    return cost


def callgrind_summary(cost, packets):
    """Instructions per packet: by part (railsw, pcap PMD, FIB, the rest) and railsw's
    functions, largest first."""
    parts = {"railsw": 0, "pcap PMD": 0, "FIB": 0, "other": 0}
    funcs = {}
    for (ob, fn), ir in cost.items():
        base = os.path.basename(ob or "")
        if base == "railsw":
            parts["railsw"] += ir
            funcs[fn] = funcs.get(fn, 0) + ir
        elif "net_pcap" in base:
            parts["pcap PMD"] += ir
        elif "rte_fib" in base:
            parts["FIB"] += ir
        else:
            parts["other"] += ir
    per = lambda ir: round(ir / packets, 1)
    top = sorted(funcs.items(), key=lambda kv: -kv[1])
    return dict(packets=packets, ir_per_packet={k: per(v) for k, v in parts.items()},
                railsw_functions=[(f, per(v)) for f, v in top if v >= packets / 10])


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


# --------------------------------------------------------------------------- report

def run_cycles(r, workers=1):
    """Cycles per packet of one run: its core clock (measured around it) x workers / pps."""
    return r["core_hz"] * workers / (r["tx_mpps"] * 1e6)


def summary(vals):
    if not vals:
        return None
    return dict(median=statistics.median(vals), min=min(vals), max=max(vals), n=len(vals))


def fmt_rate(s):
    if s is None:
        return "-"
    if isinstance(s, str):
        return s
    if s["n"] == 1:
        return "%.2f" % s["median"]
    return "%.2f [%.2f-%.2f]" % (s["median"], s["min"], s["max"])


def cyc(hz, s, workers):
    """Median cycles/packet over the runs (each with its own measured clock)."""
    if not isinstance(s, dict) or s["median"] <= 0:
        return None
    return s["cycles"]["median"]


def table(rows, hz):
    with_ovs = any(isinstance(r.get("ovs"), dict) for r in rows)
    hdr = ["scenario", "size", "wk", "railsw Mpps", "cyc/pkt", "l3fwd Mpps", "cyc/pkt",
           "testpmd Mpps", "cyc/pkt", "rsw-floor", "l3fwd-floor", "rsw/l3fwd"]
    if with_ovs:
        hdr += ["ovs Mpps", "cyc/pkt", "rsw/ovs"]
    out = []
    for r in rows:
        w = r["workers"]
        c = {k: cyc(hz, r.get(k), w) for k in ("railsw", "l3fwd", "testpmd", "ovs")}
        f = lambda v: "-" if v is None else "%.0f" % v
        above = lambda k: None if c[k] is None or c["testpmd"] is None else c[k] - c["testpmd"]
        ratio = lambda k: "-" if c["railsw"] is None or c[k] is None else \
            "%.2fx" % (r["railsw"]["median"] / r[k]["median"])
        l3 = fmt_rate(r["l3fwd"]) + ("*" if r.get("l3fwd_ref") else "")
        row = [r["scenario"], str(r["size"]), str(w), fmt_rate(r["railsw"]), f(c["railsw"]),
               l3, f(c["l3fwd"]), fmt_rate(r["testpmd"]), f(c["testpmd"]),
               f(above("railsw")), f(above("l3fwd")), ratio("l3fwd")]
        if with_ovs:
            row += [fmt_rate(r.get("ovs")), f(c["ovs"]), ratio("ovs")]
        out.append(row)
    widths = [max(len(x[i]) for x in out + [hdr]) for i in range(len(hdr))]
    line = lambda cols: "  ".join(c.ljust(widths[i]) if i < 1 else c.rjust(widths[i])
                                  for i, c in enumerate(cols))
    return "\n".join([line(hdr), line(["-" * x for x in widths])] + [line(x) for x in out])


# --------------------------------------------------------------------------- main

def _sigterm(signum, frame):
    # The same path as Ctrl-C: the finally blocks stop the programs and give back hugepages.
    raise KeyboardInterrupt


def main():
    signal.signal(signal.SIGTERM, _sigterm)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--smoke", action="store_true",
                    help="a few seconds, ipv4-lpm-1k 64 B, railsw + testpmd, no hugepages; "
                         "exit non-zero unless railsw forwarded packets and the table printed")
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--sizes", default="64,512,1024,4096", help="frame sizes on the wire, FCS included")
    ap.add_argument("--workers", default="1,2", help="forwarding cores to try (as the machine allows)")
    ap.add_argument("--runs", type=int, default=3, help="runs per measurement (median, min, max)")
    ap.add_argument("--warmup", type=float, default=1.5, help="seconds after traffic starts")
    ap.add_argument("--window", type=float, default=3.0, help="seconds measured")
    ap.add_argument("--peers", default="testpmd,l3fwd,ovs")
    ap.add_argument("--huge", choices=("auto", "no"), default="auto",
                    help="auto: reserve 2 MiB hugepages, else fall back to --no-huge")
    ap.add_argument("--huge-pages", type=int, default=1024, help="2 MiB pages to reserve")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                    help="meson build dir of railsw (set up release if missing)")
    ap.add_argument("--no-build", action="store_true",
                    help="measure the railsw already in --build-dir without running ninja")
    ap.add_argument("--json", action="store_true", help="print the JSON document on stdout "
                    "(the table goes to stderr)")
    ap.add_argument("--out", help="JSON file (default perf/results/<timestamp>.json; '-' = none)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    ap.add_argument("--callgrind", type=float, metavar="SECONDS",
                    help="instead of timing: run railsw under valgrind --tool=callgrind for "
                         "SECONDS of traffic per scenario and size, and print its instructions "
                         "per packet (railsw, the pcap PMD, the FIB, the rest) and its largest "
                         "functions")
    ap.add_argument("--ab", metavar="DIR_A,DIR_B",
                    help="A/B mode: railsw from two build directories, alternated round by round "
                         "(--rounds), each round also measuring testpmd io unless --peers leaves "
                         "it out; prints each round's cycles/packet and the medians")
    ap.add_argument("--rounds", type=int, default=3, help="A/B rounds (with --ab)")
    a = ap.parse_args()
    if a.smoke:
        a.scenarios, a.sizes, a.workers, a.runs = "ipv4-lpm-1k", "64", "1", 1
        a.warmup, a.window, a.peers, a.huge = 0.5, 1.5, "testpmd", "no"
        if a.out is None:
            a.out = "-"
    if os.geteuid() != 0:
        sys.exit("perf: run as root (DPDK vdevs, telemetry under /var/run/dpdk, hugepages)")
    scen = [s for s in a.scenarios.split(",") if s]
    for s in scen:
        if s not in SCENARIOS:
            sys.exit("perf: unknown scenario %r (known: %s)" % (s, ", ".join(SCENARIOS)))
    sizes = [int(x) for x in a.sizes.split(",")]
    peers = set(a.peers.split(","))
    ncpu = len(os.sched_getaffinity(0))
    workers, skipped_w = [], []
    for w in (int(x) for x in a.workers.split(",")):
        (workers if w + 1 <= ncpu else skipped_w).append(w)
    tout = sys.stderr if a.json else sys.stdout
    t_start = time.monotonic()
    if a.callgrind:
        return callgrind_main(a, scen, sizes, tout)
    if a.ab:
        return ab_main(a, scen, sizes, peers, tout)

    ovs = ovs_status() if "ovs" in peers else "not requested"
    exe = build_railsw(a.build_dir, not a.no_build)
    if "l3fwd" in peers:
        a.l3fwd_exe = build_l3fwd()
    hz, tsc, clock_how = measure_clock()
    scratch = tempfile.mkdtemp(prefix="railsw-perf-")
    mem = Memory(scratch, a.huge == "auto", a.huge_pages)
    results = []  # raw: program, scenario/variant, size, workers, run, res
    errors = []
    try:
        b = Bench(a, scratch, mem, exe[:2])
        log("perf: %s; core clock %.3f GHz (%s), TSC %.3f GHz; scratch %s" %
            (mem.label(), hz / 1e9, clock_how, tsc / 1e9, scratch))
        variants = sorted({SCENARIOS[s]["l3fwd"] for s in scen})
        big = lambda what, size: size != min(sizes) and any(
            SCENARIOS[x].get("min_size_only") and what in (x, SCENARIOS[x]["l3fwd"]) for x in scen) \
            and not any(not SCENARIOS[x].get("min_size_only") and what == SCENARIOS[x]["l3fwd"]
                        for x in scen)
        for run in range(a.runs):
            for w in workers:
                for size in sizes:
                    jobs = []
                    if "testpmd" in peers:
                        jobs.append(("testpmd", "io", lambda: b.testpmd(size, w)))
                    if "l3fwd" in peers:
                        for v in variants:
                            jobs.append(("l3fwd", v, lambda v=v: b.l3fwd(v, size, w)))
                    if ovs is None:
                        jobs.append(("ovs", "port-to-port", lambda: b.ovs(size, w)))
                    for s in scen:
                        if SCENARIOS[s].get("min_size_only") and size != min(sizes):
                            continue
                        if b.railsw_check(s, size, w) is None and \
                                (s, size > 1518) not in b.refused_start:
                            jobs.append(("railsw", s, lambda s=s: b.railsw_run(s, size, w)))
                    for prog, what, fn in jobs:
                        if big(what, size):
                            continue
                        try:
                            res = fn()
                            log("perf: run %d/%d %-7s %-12s %5d B w%d: %.2f Mpps (rx %.2f)" %
                                (run + 1, a.runs, prog, what, size, w, res["tx_mpps"], res["rx_mpps"]))
                        except (RuntimeError, OSError, subprocess.SubprocessError, KeyError) as e:
                            res = {"error": str(e)}
                            errors.append("%s %s %d B: %s" % (prog, what, size, e))
                            log("perf: %s %s %d B failed: %s" % (prog, what, size, e))
                        results.append(dict(program=prog, what=what, size=size, workers=w,
                                            run=run, **res))
    finally:
        mem.release()
        if not a.keep:
            shutil.rmtree(scratch, ignore_errors=True)

    def agg(prog, what, size, w):
        rr = [r for r in results if r["program"] == prog and r["what"] == what
              and r["size"] == size and r["workers"] == w and r.get("tx_mpps", 0) > 0]
        s = summary([r["tx_mpps"] for r in rr])
        if s:
            # cycles/packet of each run from the clock measured around that run
            s["cycles"] = summary([run_cycles(r, w) for r in rr])
            s["core_hz"] = statistics.median(r["core_hz"] for r in rr)
        return s

    if ovs is None:
        ovs = "one PMD thread per forwarding core, in_port=1,actions=output:2 and back " \
              "(private ovsdb-server and ovs-vswitchd in the scratch folder)"
    rows = []
    notes = {}
    for w in workers:
        for s in scen:
            for size in sizes:
                if SCENARIOS[s].get("min_size_only") and size != min(sizes):
                    continue
                why = b.refused.get((s, size > 1518))
                if why and why != "not supported yet":
                    notes.setdefault("%s: railsw %s" % (s, why), None)
                    rs = "n/a (refused)"
                else:
                    rs = ("n/a (%s)" % why) if why else (agg("railsw", s, size, w) or "failed")
                l3v = SCENARIOS[s]["l3fwd"]
                rows.append(dict(scenario=s, size=size, workers=w, railsw=rs,
                                 l3fwd=agg("l3fwd", l3v, size, w) if "l3fwd" in peers else None,
                                 l3fwd_ref=l3v if s in ("ecmp-hash", "spray", "qos-full") else None,
                                 l3fwd_variant=l3v,
                                 testpmd=agg("testpmd", "io", size, w) if "testpmd" in peers else None,
                                 ovs=agg("ovs", "port-to-port", size, w)))
    for r in rows:
        w = r["workers"]
        r["cycles_per_packet"] = {k: cyc(hz, r[k], w) for k in ("railsw", "l3fwd", "testpmd", "ovs")}

    print("railsw perf  %s  memory: %s" % (datetime.datetime.now().isoformat(timespec="seconds"),
                                           "HUGEPAGES" if mem.huge else "NO HUGEPAGES (--no-huge)"),
          file=tout)
    run_hz = [r["core_hz"] for r in results if "core_hz" in r]
    print("core clock %.3f GHz median over the runs [%.3f-%.3f] (%s; TSC %.3f GHz); "
          "cycles/pkt = clock x workers / pps per run; Mpps: median [min-max] of %d run(s), "
          "%.1f s window after %.1f s warm-up" %
          (statistics.median(run_hz) / 1e9 if run_hz else hz / 1e9,
           min(run_hz or [hz]) / 1e9, max(run_hz or [hz]) / 1e9, clock_how, tsc / 1e9,
           a.runs, a.window, a.warmup), file=tout)
    print(table(rows, hz), file=tout)
    print("Mpps = frames transmitted per second by all ports (ethdev opackets via telemetry); "
          "rsw-floor / l3fwd-floor = cycles/pkt above testpmd io (the pcap PMD's own cost); "
          "* = l3fwd plain LPM (1k routes) as reference", file=tout)
    for w in skipped_w:
        print("workers=%d: skipped (needs %d cores, this machine has %d: main lcore + %d worker(s) "
              "is the maximum for railsw)" % (w, w + 1, ncpu, ncpu - 1), file=tout)
    for n in notes:
        print("note: " + n, file=tout)
    print("OVS-DPDK: %s" % ovs, file=tout)
    print("memory: %s; railsw build %s (%s)" % (mem.label(), a.build_dir, exe[2]), file=tout)
    for e in errors:
        print("error: " + e.splitlines()[0], file=tout)
    tout.flush()

    doc = dict(time=datetime.datetime.now().isoformat(timespec="seconds"),
               git=subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                                  capture_output=True, text=True).stdout.strip(),
               hugepages=mem.huge, memory=mem.label(), core_hz=hz, tsc_hz=tsc, clock_method=clock_how,
               cpus=ncpu, loadavg=open("/proc/loadavg").read().split()[:3],
               runs=a.runs, warmup_s=a.warmup, window_s=a.window, railsw_buildtype=exe[2],
               ovs=ovs, workers_skipped=skipped_w, rows=rows, raw=results, errors=errors,
               elapsed_s=round(time.monotonic() - t_start, 1))
    if a.json:
        print(json.dumps(doc, indent=1))
    if a.out != "-":
        out = a.out or os.path.join(PERF, "results",
                                    datetime.datetime.now().strftime("%Y%m%d-%H%M%S") + ".json")
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        with open(out, "w") as f:
            json.dump(doc, f, indent=1)
        print("json: %s" % out, file=tout)

    if a.smoke:
        rr = [r for r in results if r["program"] == "railsw"]
        ok = rr and all(r.get("tx_mpps", 0) > 0 and r.get("railctl_tx", 0) > 0 for r in rr)
        print("smoke: %s (railsw forwarded %s packets by railctl, %.2f Mpps by telemetry; %.1f s)" %
              ("ok" if ok else "FAILED", rr[0].get("railctl_tx", 0) if rr else 0,
               rr[0].get("tx_mpps", 0) if rr else 0, time.monotonic() - t_start), file=tout)
        return 0 if ok else 1
    return 0


def ab_main(a, scen, sizes, peers, tout):
    """Two railsw builds alternated round by round, one worker: cycles/packet per round."""
    dirs = [d for d in a.ab.split(",") if d]
    if len(dirs) != 2:
        sys.exit("perf: --ab takes two build directories, DIR_A,DIR_B")
    exes = [build_railsw(os.path.abspath(d), not a.no_build) for d in dirs]
    for d, e in zip(dirs, exes):
        if not os.path.exists(e[0]):
            sys.exit("perf: no railsw in %s" % d)
    hz, tsc, clock_how = measure_clock()
    scratch = tempfile.mkdtemp(prefix="railsw-perf-")
    mem = Memory(scratch, a.huge == "auto", a.huge_pages)
    cycles = {}  # (build index, scenario, size) -> [cycles/packet per round]
    floor = {}   # size -> [testpmd cycles/packet per round]
    errors = []
    try:
        b = Bench(a, scratch, mem, exes[0][:2])
        log("perf: A/B %s | %s; %s; core clock %.3f GHz, %d round(s)" %
            (dirs[0], dirs[1], mem.label(), hz / 1e9, a.rounds))
        for rnd in range(a.rounds):
            for size in sizes:
                if "testpmd" in peers:
                    res = b.testpmd(size, 1)
                    if res.get("tx_mpps", 0) > 0:
                        floor.setdefault(size, []).append(run_cycles(res))
                for i, e in enumerate(exes):
                    b.railsw, b.railctl = e[:2]
                    for sc in scen:
                        if SCENARIOS[sc].get("min_size_only") and size != min(sizes):
                            continue
                        try:
                            res = b.railsw_run(sc, size, 1)
                        except (RuntimeError, OSError, subprocess.SubprocessError, KeyError) as ex:
                            errors.append("%s %s %d B: %s" % ("AB"[i], sc, size, ex))
                            log("perf: %s %s %d B failed: %s" % ("AB"[i], sc, size, ex))
                            continue
                        if res.get("tx_mpps", 0) <= 0:
                            errors.append("%s %s %d B: forwarded nothing" % ("AB"[i], sc, size))
                            continue
                        c = run_cycles(res)
                        cycles.setdefault((i, sc, size), []).append(c)
                        log("perf: round %d/%d %s %-12s %5d B: %.2f Mpps, %.0f cycles/pkt" %
                            (rnd + 1, a.rounds, "AB"[i], sc, size, res["tx_mpps"], c))
    finally:
        mem.release()
        if not a.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    print("railsw perf A/B  %s  memory: %s; one worker; A = %s (%s), B = %s (%s)" %
          (datetime.datetime.now().isoformat(timespec="seconds"),
           "HUGEPAGES" if mem.huge else "NO HUGEPAGES (--no-huge)", dirs[0], exes[0][2], dirs[1],
           exes[1][2]), file=tout)
    print("%-12s %5s  %-28s %-28s %7s %7s %6s" % ("scenario", "size", "A cycles/pkt by round",
                                                 "B cycles/pkt by round", "A med", "B med",
                                                 "B-A"), file=tout)
    for sc in scen:
        for size in sizes:
            ca, cb = cycles.get((0, sc, size)), cycles.get((1, sc, size))
            if not ca or not cb:
                continue
            ma, mb = statistics.median(ca), statistics.median(cb)
            print("%-12s %5d  %-28s %-28s %7.1f %7.1f %+6.1f" %
                  (sc, size, " ".join("%.0f" % c for c in ca), " ".join("%.0f" % c for c in cb),
                   ma, mb, mb - ma), file=tout)
    for size in sizes:
        if floor.get(size):
            print("testpmd io %d B (the floor): %s cycles/pkt" %
                  (size, " ".join("%.0f" % c for c in floor[size])), file=tout)
    print("rounds alternate A and B; each figure is one run's cycles/packet from the clock "
          "measured around it; B-A below the rounds' spread is noise", file=tout)
    for e in errors:
        print("error: " + e.splitlines()[0], file=tout)
    return 1 if errors else 0


def callgrind_main(a, scen, sizes, tout):
    """--callgrind: instruction counts per packet, one table row per scenario and size."""
    if shutil.which("valgrind") is None:
        sys.exit("perf: --callgrind needs valgrind (apt-get install valgrind)")
    exe = build_railsw(a.build_dir, not a.no_build)
    scratch = tempfile.mkdtemp(prefix="railsw-perf-")
    rows = []
    try:
        b = Bench(a, scratch, Memory(scratch, False, 0), exe[:2])
        for s in scen:
            for size in sizes:
                log("perf: callgrind %s %d B (%.0f s of traffic)" % (s, size, a.callgrind))
                try:
                    rows.append(dict(scenario=s, size=size, **b.callgrind(s, size, a.callgrind)))
                except (RuntimeError, OSError, subprocess.SubprocessError, KeyError) as e:
                    rows.append(dict(scenario=s, size=size, error=str(e)))
    finally:
        if not a.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    print("railsw perf  %s  callgrind: instructions per packet (valgrind, --no-huge, one worker; "
          "railsw build %s, %s)" % (datetime.datetime.now().isoformat(timespec="seconds"),
                                   a.build_dir, exe[2]), file=tout)
    hdr = ("scenario", "size", "packets", "railsw", "pcap PMD", "FIB", "other")
    print("%-12s %5s %11s %7s %8s %5s %6s" % hdr, file=tout)
    for r in rows:
        if "error" in r:
            print("%-12s %5d  error: %s" % (r["scenario"], r["size"], r["error"].splitlines()[0]),
                  file=tout)
            continue
        ipp = r["ir_per_packet"]
        print("%-12s %5d %11d %7.1f %8.1f %5.1f %6.1f" %
              (r["scenario"], r["size"], r["packets"], ipp["railsw"], ipp["pcap PMD"],
               ipp["FIB"], ipp["other"]), file=tout)
        print("  railsw functions: " + ", ".join("%s %.1f" % fv for fv in r["railsw_functions"]),
              file=tout)
    print("other = libc, the dynamic linker's TLS lookups of the PMD's per-lcore variables, EAL; "
          "the rate under valgrind means nothing, the counts do", file=tout)
    if a.json:
        print(json.dumps(rows, indent=1))
    # A row without packets, or without railsw's own instructions, measured nothing.
    bad = [r for r in rows if "error" in r or not r["packets"] or not r["ir_per_packet"]["railsw"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
