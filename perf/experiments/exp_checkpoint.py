# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""checkpoint: periodic checkpoint bursts meeting a training collective (docs/experiments.md).

Six hosts run a ring all-reduce, step after step; at the start of every step each of them
also writes a checkpoint burst to one storage host (many-to-few). The checkpoint shares the
collective's class, has its own class, or runs on a network of its own: a front-end fabric
beside the back-end (a leaf and a spine of their own), where each of the 7 hosts has a
second NIC, played by the same rswhost process as the back-end hosts.
"""

import os
import statistics

from lab import Fabric
from exp_base import Exp, lb_yaml, plt, qos_yaml

TOPO = dict(design="rail-optimized", sus=2, servers_per_su=4, rails=1, spines=4, radix=16,
            gpu_prefix="10.0.0.0/8", fabric_prefix="172.16.0.0/12")
ECN = ("8KB", "48KB", 0.2)
# The front-end network of `own-network`: one leaf (and the spine railctl plan requires) with
# a second NIC of each of the 7 hosts, in address space of its own.
FRONT = dict(design="rail-optimized", sus=1, servers_per_su=7, rails=1, spines=1, radix=16,
             gpu_prefix="11.0.0.0/8", fabric_prefix="172.32.0.0/12")
FE = "fe-"  # the front-end switches' names in the counters: fe-leaf-su0-r0, fe-spine-0


class TwoNetworks(Fabric):
    """The back-end fabric and, beside it, a front-end Fabric of its own (FRONT): both start
    and stop together, hosts lists the back-end's hosts and the front-end's (named by
    front_names, their leaf prefixed FE), and one rswhost process drives them all; the
    counters (snapshot) hold both networks' switches, the front-end's prefixed FE."""

    def __init__(self, *a, front=None, front_names=None, **kw):
        super().__init__(*a, **kw)
        self.front = front
        self.front_names = front_names  # front-end host (plan name) -> its name here

    def start(self):
        super().start()
        try:
            self.front.start()
        except Exception:
            super().stop()
            raise
        for h in self.front.hosts:
            self.hosts.append(dict(h, name=self.front_names(h), leaf=FE + h["leaf"]))

    def stop(self):
        self.front.stop()
        super().stop()

    def clear(self):
        super().clear()
        self.front.clear()

    def snapshot(self):
        out = super().snapshot()
        out.update({FE + n: v for n, v in self.front.snapshot().items()})
        return out

    def cpu(self):
        out = super().cpu()
        out.update({FE + n: v for n, v in self.front.cpu().items()})
        return out


class Checkpoint(Exp):
    name = "checkpoint"
    title = "Checkpoint bursts meeting a ring all-reduce: same class, own class, own network"
    MODES = ["none", "same-class", "own-class", "own-network"]
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
                          "DSCP 8 (lossy TC 0, DWRR 1 against TC 3's 4); own-network: DSCP 8 "
                          "from each host's second NIC to the storage host's, on a front-end "
                          "fabric of its own (1 leaf, 1 spine, 50 Mb/s, the same switch "
                          "settings); the back-end then carries none of it",
            "runs per mode": self.runs_n,
        }
        for mode in self.modes():
            for run in range(self.runs_n):
                self.one(mode, run, speed)
        self.assess()

    def flows(self, ring, storage, mode, front=None):
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
                src, dst = (front[ring[i]], front[storage]) if front else (ring[i], storage)
                f = {"id": fid, "role": "checkpoint", "src": src, "dst": dst,
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
        lb = lb_yaml("hash", seed=run + 1)
        # The 7 hosts in order: hosts 0-2 of each leaf (the ring), then the storage host.
        order = ["server-su0-0", "server-su0-1", "server-su0-2", "server-su1-0",
                 "server-su1-1", "server-su1-2", "server-su0-3"]
        if mode == "own-network":
            # Front-end server k is the second NIC of the k-th host of `order`.
            def name(h):
                return order[int(h["server"].rsplit("-", 1)[1])] + ".fe0"
            fab = TwoNetworks(self.a.build, "ck", TOPO, speed, qos, lb, log=self.log,
                              front=Fabric(self.a.build, "cf", FRONT, speed, qos, lb,
                                           log=self.log), front_names=name)
        else:
            fab = Fabric(self.a.build, "ck", TOPO, speed, qos, lb, log=self.log)
        try:
            fab.start()
            names = {h["name"].split(".")[0]: h["name"] for h in fab.hosts
                     if not h["leaf"].startswith(FE)}
            ring, storage = [names[s] for s in order[:6]], names[order[6]]
            front = ({names[s]: s + ".fe0" for s in order} if mode == "own-network"
                     else None)
            flows, phase = self.flows(ring, storage, mode, front)
            rec = self.run_once(fab, mode, "roce", run, ring + [storage] + (
                                    [front[h] for h in ring + [storage]] if front else []),
                                flows, self.host_params(0.0, {
                                    "max_s": 60 if self.smoke else 120, "window": 64}))
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
        for r in self.mode_runs("own-network"):
            be, fe = self.tc0_bytes(r, False), self.tc0_bytes(r, True)
            ck = sum(f["delivered_bytes"] for f in r["flows"] if f["role"] == "checkpoint")
            self.check(be == 0 and ck > 0 and fe >= ck,
                       f"own-network run {r['run']}: the checkpoint ({ck} B delivered) crossed "
                       f"only the front-end network (its switches sent {fe} B in TC 0, the "
                       f"back-end's {be} B)")
        net = self.p50("own-network")
        if net and base:
            self.observe(net <= 1.05 * base, f"its own network costs the step nothing "
                         f"measurable (p50 {net:.4f} s against {base:.4f} s without a "
                         "checkpoint)")
        if net and own:
            self.observe(net < own, f"its own network costs the collective less than its own "
                         f"class (p50 {net:.4f} s against {own:.4f} s)")

    @staticmethod
    def tc0_bytes(rec, front):
        """Bytes the front-end's (FRONT) or the back-end's switches sent in TC 0, the
        checkpoint's class outside same-class."""
        return sum(q["dequeued_bytes"] for n, sw in rec["switches"].items()
                   if n.startswith(FE) == front
                   for k, q in sw["queues"].items() if k.endswith("/0"))

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
        ax[0].set_title("every step of every run")
        ax[1].set_title("every checkpoint burst")
        fig.tight_layout()
        fig.savefig(os.path.join(self.out, "checkpoint.png"), dpi=100)
        p.close(fig)

    def report(self):
        lines = self.report_header()
        base = self.p50("none")
        lines += ["## Results", "", "| mode | step p50 s | x none | checkpoint burst p50 s |",
                  "|---|---|---|---|"]
        for m in self.MODES:
            p = self.p50(m)
            ck = [x for r in self.mode_runs(m) for x in r.get("checkpoint_s", []) if x]
            lines.append(f"| {m} | {p} | {p / base if p and base else float('nan'):.2f} | "
                         f"{statistics.median(ck) if ck else '-'} |")
        lines += ["", "Every run on its own (own-network: the front-end's drops apart):", "",
                  "| mode | seed | steps s | checkpoints s | XOFF | drops | front-end drops |",
                  "|---|---|---|---|---|---|---|"]
        for r in self.runs:
            sw = r["switches"]
            be = [v for n, v in sw.items() if not n.startswith(FE)]
            fe = [v for n, v in sw.items() if n.startswith(FE)]
            lines.append(f"| {r['mode']} | {r['seed']} | {r['step_times_s']} | "
                         f"{r['checkpoint_s']} | {sum(s['tx_xoff'] for s in sw.values())} | "
                         f"{sum(s['dropped'] for s in be)} | "
                         f"{sum(s['dropped'] for s in fe) if fe else '-'} |")
        lines += ["", "![checkpoint](checkpoint.png)", "",
                  "What it shows: a checkpoint written by the training hosts shares their "
                  "NICs whatever its class, and in the same class it also shares the "
                  "fabric's queues and pauses; its own class keeps the fabric's share of the "
                  "collective (DWRR), and only a network of its own (front-end NICs) removes "
                  "both. In own-network the same rswhost process plays both NICs of a host "
                  "(one CPU loop for all of them), so what remains of the cost there is the "
                  "lab's, not the network's."]
        return "\n".join(lines + self.report_checks()) + "\n"
