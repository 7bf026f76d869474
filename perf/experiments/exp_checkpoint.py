# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""checkpoint: periodic checkpoint bursts meeting a training collective (docs/experiments.md).

Six hosts run a ring all-reduce, step after step; at the start of every step each of them
also writes a checkpoint burst to one storage host (many-to-few). The checkpoint shares the
collective's class, has its own class, or runs on a network of its own (the back-end then
carries none of it, and the step time is that of `none`).
"""

import os
import statistics

from lab import Fabric
from exp_base import Exp, lb_yaml, plt, qos_yaml

TOPO = dict(design="rail-optimized", sus=2, servers_per_su=4, rails=1, spines=4, radix=16,
            gpu_prefix="10.0.0.0/8", fabric_prefix="172.16.0.0/12")
ECN = ("8KB", "48KB", 0.2)


class Checkpoint(Exp):
    name = "checkpoint"
    title = "Checkpoint bursts meeting a ring all-reduce: same class, own class, own network"
    MODES = ["none", "same-class", "own-class"]
    SMOKE_RUNS = 1
    FULL_RUNS = 3
    RUNS_TABLE = False

    def run(self):
        speed = "50M"
        cal = self.calibrate(TOPO, speed)
        self.bdp = bdp = max(cal["bdp_bytes"], 1024)
        self.iters = 3 if self.smoke else 6
        self.chunk, self.ckpt = 8 * bdp, 20 * bdp
        self.config = {
            "topology": "2 leaves x 4 hosts, 4 spines (6 railsw), 50 Mb/s everywhere",
            "collective": f"ring all-reduce among hosts 0-2 of both leaves (6 hosts): 10 steps "
                          f"of {self.chunk} B (8 BDP) each, {self.iters} times, RoCEv2 with "
                          "PFC and DCQCN in lossless TC 3 (DSCP 26, DWRR 4, ECN 8-48 KB)",
            "checkpoint": f"when each all-reduce starts, each of the 6 hosts writes "
                          f"{self.ckpt} B (20 BDP) to the storage host (host 3 of leaf 0), "
                          "UET-like selective repeat; same-class: DSCP 26 (TC 3); own-class: "
                          "DSCP 8 (lossy TC 0, DWRR 1 against TC 3's 4); own network: not on "
                          "this fabric (the step time of none)",
            "runs per mode": self.runs_n,
        }
        for mode in self.modes():
            for run in range(self.runs_n):
                self.one(mode, run, speed)
        self.assess()

    def flows(self, ring, storage, mode):
        n = len(ring)
        flows, phase = [], {}
        prev = None
        for it in range(self.iters):
            first = None
            last = None
            for s in range(2 * (n - 1)):
                cur = []
                for i in range(n):
                    fid = len(flows)
                    f = {"id": fid, "role": "allreduce", "src": ring[i],
                         "dst": ring[(i + 1) % n], "transport": "roce", "bytes": self.chunk,
                         "dscp": 26, "dcqcn": True, "sport": 49152 + (fid * 97) % 16000}
                    if s == 0 and prev is not None:
                        f["after"] = sorted({prev[i], prev[(i - 1) % n]})
                    elif s > 0:
                        f["after"] = sorted({last[i], last[(i - 1) % n]})
                    flows.append(f)
                    phase[fid] = ("allreduce", it)
                    cur.append(fid)
                if s == 0:
                    first = cur
                last = cur
            prev = last
            if mode == "none":
                continue
            for i in range(n):
                fid = len(flows)
                f = {"id": fid, "role": "checkpoint", "src": ring[i], "dst": storage,
                     "transport": "uet", "bytes": self.ckpt, "entropy": "packet",
                     "dscp": 26 if mode == "same-class" else 8,
                     "prio": 3 if mode == "same-class" else 0,
                     "sport": 49152 + (fid * 97) % 16000, "seed": 1 + fid}
                # The write starts with the step (with its first ring send).
                if it > 0:
                    f["after"] = list(flows[first[i]]["after"])
                flows.append(f)
                phase[fid] = ("checkpoint", it)
        return flows, phase

    def one(self, mode, run, speed):
        qos = qos_yaml(lossless=True, ecn={3: ECN})
        fab = Fabric(self.a.build, "ck", TOPO, speed, qos, lb_yaml("hash", seed=run + 1),
                     log=self.log)
        try:
            fab.start()
            l0 = sorted(h["name"] for h in fab.hosts if h["leaf"] == fab.leaves[0]["name"])
            l1 = sorted(h["name"] for h in fab.hosts if h["leaf"] != fab.leaves[0]["name"])
            ring, storage = l0[:3] + l1[:3], l0[3]
            flows, phase = self.flows(ring, storage, mode)
            rec = self.run_once(fab, mode, "roce", run, ring + [storage], flows,
                                self.host_params(0.0, {"max_s": 60 if self.smoke else 120,
                                                       "window": 64}))
        finally:
            fab.stop()
        steps, ck = {}, {}
        for f in rec["flows"]:
            ph, it = phase[f["id"]]
            st, fct = f.get("started_s"), f["fct_s"]
            d = (steps if ph == "allreduce" else ck).setdefault(it, [])
            d.append((st, st + fct if st is not None and fct is not None else None))
        rec["seed"] = run + 1
        rec["step_times_s"] = [round(max(e for _, e in v) - min(s for s, _ in v), 4)
                               if all(e is not None for _, e in v) else None
                               for _, v in sorted(steps.items())]
        rec["checkpoint_s"] = [round(max(e for _, e in v) - min(s for s, _ in v), 4)
                               if all(e is not None for _, e in v) else None
                               for _, v in sorted(ck.items())]
        self.log(f"{mode} run {run}: steps {rec['step_times_s']} s, checkpoints "
                 f"{rec['checkpoint_s']} s")

    def p50(self, mode):
        st = [x for r in self.mode_runs(mode) for x in r["step_times_s"] if x is not None]
        return statistics.median(st) if st else None

    def assess(self):
        inc = [(r["mode"], f["id"]) for r in self.runs for f in r["flows"] if not f["complete"]]
        self.check(not inc, f"every all-reduce step and checkpoint completed ({len(inc)} did "
                   "not)")
        ll = sum(s["lossless_drops"] for r in self.runs for s in r["switches"].values())
        self.check(ll == 0, f"no lossless drops ({ll})")
        base, same, own = self.p50("none"), self.p50("same-class"), self.p50("own-class")
        if base and same:
            self.check(same > 1.05 * base, f"a checkpoint in the collective's class costs "
                       f"the step time (p50 {same:.4f} s against {base:.4f} s alone)")
        if same and own:
            self.observe(own < same, f"its own class costs the collective less (p50 "
                         f"{own:.4f} s against {same:.4f} s in the same class; the hosts' NICs "
                         "are shared either way)")

    def plots(self):
        p = plt()
        modes = [m for m in self.MODES if self.mode_runs(m)]
        fig, ax = p.subplots(1, 2, figsize=(11, 4.2))
        for i, m in enumerate(modes):
            st = [x for r in self.mode_runs(m) for x in r["step_times_s"] if x is not None]
            ck = [x for r in self.mode_runs(m) for x in r["checkpoint_s"] if x is not None]
            ax[0].scatter([i] * len(st), st, s=14, color="C0")
            ax[1].scatter([i] * len(ck), ck, s=14, color="C1")
        for x, t in ((ax[0], "all-reduce step time (s)"), (ax[1], "checkpoint burst time (s)")):
            x.set_xticks(range(len(modes)), modes)
            x.set_ylabel(t)
            x.set_ylim(bottom=0)
        ax[0].set_title("every step of every run (own network = none)")
        ax[1].set_title("every checkpoint burst")
        fig.tight_layout()
        fig.savefig(os.path.join(self.out, "checkpoint.png"), dpi=100)
        p.close(fig)

    def report(self):
        lines = self.report_header()
        base = self.p50("none")
        lines += ["## Results", "", "| mode | step p50 s | x none | checkpoint burst p50 s |",
                  "|---|---|---|---|"]
        for m in self.MODES + ["own-network"]:
            p = self.p50(m if m != "own-network" else "none")
            ck = [x for r in self.mode_runs(m) for x in r.get("checkpoint_s", []) if x]
            lines.append(f"| {m} | {p} | {p / base if p and base else float('nan'):.2f} | "
                         f"{statistics.median(ck) if ck else '-'} |")
        lines += ["", "Every run on its own:", "", "| mode | seed | steps s | checkpoints s | "
                  "XOFF | drops |", "|---|---|---|---|---|---|"]
        for r in self.runs:
            sw = r["switches"].values()
            lines.append(f"| {r['mode']} | {r['seed']} | {r['step_times_s']} | "
                         f"{r['checkpoint_s']} | {sum(s['tx_xoff'] for s in sw)} | "
                         f"{sum(s['dropped'] for s in sw)} |")
        lines += ["", "![checkpoint](checkpoint.png)", "",
                  "What it shows: a checkpoint written by the training hosts shares their "
                  "NICs whatever its class, and in the same class it also shares the "
                  "fabric's queues and pauses; its own class keeps the fabric's share of the "
                  "collective (DWRR), and only a network of its own (front-end NICs) removes "
                  "both."]
        return "\n".join(lines + self.report_checks()) + "\n"
