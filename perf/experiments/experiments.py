# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""The fabric's lessons as experiments (docs/experiments.md).

    perf/experiments/run.sh NAME [--smoke] [--out DIR] [--runs N]
    perf/experiments/run.sh --list

Each experiment starts a fabric of railsw switches on memif (lab.py: the fabric
lab's orchestrator, devtools/fabric_lab_rswhost.py), runs the reacting hosts of
perf/hosts (rswhost) through it once per mode and run, reads the switches'
counters, checks that the hosts' and the switches' counts agree, and writes
DIR/results.json, PNG plots and DIR/report.md. --smoke runs short and asserts
the direction of each effect; a failed assertion exits 1.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calib  # noqa: E402
from lab import Fabric  # noqa: E402
from exp_base import Exp, ROOT, lb_yaml, plt, qos_yaml  # noqa: E402
from exp_elephants_incast import Elephants, Incast  # noqa: E402
from exp_classes_rails import Classes, Rails  # noqa: E402
from exp_roce_uet import RoceVsUet  # noqa: E402
from exp_distance import Distance  # noqa: E402
from exp_checkpoint import Checkpoint  # noqa: E402


class Calibrate(Exp):
    """The calibration alone, on the elephants fabric."""
    name = "calibrate"
    title = "Calibration: base RTT, BDP and a clean permutation on the elephants fabric"
    MODES = []

    def run(self):
        self.config = {"topology": "2 leaves x 4 hosts, 4 spines (6 railsw), 50 Mb/s links"}
        self.calibrate(dict(design="rail-optimized", sus=2, servers_per_su=4, rails=1,
                            spines=4, radix=16, gpu_prefix="10.0.0.0/8",
                            fabric_prefix="172.16.0.0/12"), "50M")

    def plots(self):
        pass

    def report(self):
        return "\n".join(self.report_header() + self.report_checks()) + "\n"


EXPERIMENTS = {"calibrate": Calibrate, "elephants": Elephants, "incast": Incast, "classes": Classes, "rails": Rails}
EXPERIMENTS["roce-vs-uet"] = RoceVsUet
EXPERIMENTS["distance"] = Distance
EXPERIMENTS["checkpoint"] = Checkpoint
EXPERIMENTS["llr"] = __import__("llr").make(Exp, qos_yaml, lb_yaml, plt)  # docs/link.md


def main(argv=None):
    ap = argparse.ArgumentParser(prog="perf/experiments/run.sh", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("name", nargs="?", help="experiment, or 'all'")
    ap.add_argument("--list", action="store_true", help="list the experiments")
    ap.add_argument("--smoke", action="store_true", help="short run that asserts directions")
    ap.add_argument("--out", help="results folder (default perf/experiments/out/NAME)")
    ap.add_argument("--runs", type=int, default=None, help="runs per mode (default 1 smoke, 3)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--modes", help="run only these modes (comma-separated); the direction "
                    "checks, which compare modes, are then skipped")
    ap.add_argument("--host-ports", choices=["memif", "tap"], default="memif",
                    help="rswhost's ports: memif (default), or TAP downlinks that rswhost "
                    "opens with net_af_packet")
    a = ap.parse_args(argv)
    Fabric.rswhost_ports = a.host_ports
    Fabric.ring_log2 = calib.RING_LOG2
    Fabric.pace = calib.PACE
    Fabric.shaper_burst_us = calib.BURST_US
    if a.list or not a.name:
        for k, c in EXPERIMENTS.items():
            print(f"{k:10s} {c.title}")
        return 0 if a.list else 2
    # "all": every experiment (each calibrates its own fabric first; `calibrate` alone is
    # for a look at the lab).
    names = [n for n in EXPERIMENTS if n != "calibrate"] if a.name == "all" else [a.name]
    for n in names:
        if n not in EXPERIMENTS:
            print(f"unknown experiment {n!r}; --list lists them", file=sys.stderr)
            return 2
    base = a.out
    runs_given = a.runs
    failed = []
    for n in names:
        a.out = os.path.abspath(os.path.join(base, n) if base and len(names) > 1 else
                                base or os.path.join(ROOT, "perf", "experiments", "out", n))
        os.makedirs(a.out, exist_ok=True)
        cls = EXPERIMENTS[n]
        a.runs = runs_given or (cls.SMOKE_RUNS if a.smoke else getattr(cls, "FULL_RUNS", 3))
        e = cls(a)
        t0 = time.time()
        if a.modes:
            bad_modes = set(a.modes.split(",")) - set(cls.MODES)
            if bad_modes:
                print(f"{n}: unknown modes {sorted(bad_modes)}; modes: {cls.MODES}",
                      file=sys.stderr)
                return 2
            cls.assess = lambda self: self.notes.append(
                "direction checks skipped: --modes ran a subset")
        try:
            e.run()
        except Exception as ex:  # record what ran, then fail
            e.checks.append((False, f"the experiment stopped: {ex}"))
            print(f"[{n}] ERROR: {ex}", file=sys.stderr)
        e.write()
        bad = [t for ok, t in e.checks if not ok]
        print(f"[{n}] {len(e.checks) - len(bad)}/{len(e.checks)} checks passed in "
              f"{time.time() - t0:.0f} s; {a.out}/report.md")
        if bad:
            failed.append(n)
    if failed:
        print("FAILED: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
