# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""perf/bench.py's --ab and --callgrind modes."""

import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from bench_common import Memory, SCENARIOS, build_railsw, log, measure_clock
from bench_peers import Bench
from bench_report import run_cycles


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
