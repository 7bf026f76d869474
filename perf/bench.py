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
             [--workers 1,2,4] (lcores share CPUs where the machine has too few)
"""

import argparse
import datetime
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

# The sibling modules (run from any directory).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import (  # noqa: E402
    Memory,
    PERF,
    lcore_cpus,
    shared_cpus,
    ROOT,
    SCENARIOS,
    build_l3fwd,
    build_railsw,
    log,
    measure_clock,
)
from bench_peers import Bench, ovs_status  # noqa: E402
from bench_report import cyc, lcore_note, run_cycles, scaling, summary, table  # noqa: E402
from bench_modes import ab_main, callgrind_main  # noqa: E402


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
    ap.add_argument("--workers", default="1,2",
                    help="forwarding cores to try, one rx queue per port each (beyond the "
                         "CPUs the lcores share CPUs: correctness, not a measure)")
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
    workers = [int(x) for x in a.workers.split(",") if x]
    if not workers or min(workers) < 1:
        sys.exit("perf: --workers takes counts of forwarding cores, 1 or more")
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
                    if ovs is None and not shared_cpus(w):
                        jobs.append(("ovs", "port-to-port", lambda: b.ovs(size, w)))
                    for s in scen:
                        if SCENARIOS[s].get("min_size_only") and size != min(sizes):
                            continue
                        if b.railsw_check(s, size, w) is None and \
                                (s, size > 1518, w) not in b.refused_start:
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

    def dropped_inside(prog, what, size, w):
        """The drop reasons of `show drops` summed over the runs (frames railsw dropped)."""
        out = {}
        for r in results:
            if (r["program"], r["what"], r["size"], r["workers"]) == (prog, what, size, w):
                for k, v in r.get("dropped_inside", {}).items():
                    out[k] = out.get(k, 0) + v
        return out

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
                why = b.refused.get((s, size > 1518, w))
                if why and why != "not supported yet":
                    notes.setdefault("%s: railsw %s" % (s, why), None)
                    rs = "n/a (refused)"
                else:
                    rs = ("n/a (%s)" % why) if why else (agg("railsw", s, size, w) or "failed")
                l3v = SCENARIOS[s]["l3fwd"]
                rows.append(dict(scenario=s, size=size, workers=w, railsw=rs,
                                 shared_cpus=shared_cpus(w),
                                 dropped_inside=dropped_inside("railsw", s, size, w),
                                 l3fwd=agg("l3fwd", l3v, size, w) if "l3fwd" in peers else None,
                                 l3fwd_ref=l3v if s in ("ecmp-hash", "spray", "qos-full", "incast") else None,
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
    print(lcore_note(workers, ncpu), file=tout)
    sc = scaling(rows)
    if sc:
        print(sc, file=tout)
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
               ovs=ovs, lcore_cpus={w: lcore_cpus(w) for w in workers}, rows=rows, raw=results, errors=errors,
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


if __name__ == "__main__":
    sys.exit(main())
