# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""The classes and rails experiments (docs/experiments.md)."""

import os
import random
import statistics

from lab import Fabric
from exp_base import Exp, lb_yaml, plt, qos_yaml


class Classes(Exp):
    name = "classes"
    title = "Traffic classes: bulk beside RoCE, ETS shares, small-message latency"
    MODES = ["idle", "fifo", "fifo+dcqcn", "ets"]

    def run(self):
        speed, fspeed = "50M", "100M"
        dur = 2.0 if self.smoke else 4.0
        nprobe = 8 if self.smoke else 18
        topo = dict(design="rail-optimized", sus=2, servers_per_su=2, rails=1, spines=1,
                    radix=16, gpu_prefix="10.0.0.0/8", fabric_prefix="172.16.0.0/12")
        self.config = {
            "topology": "2 leaves x 2 hosts, 1 spine (3 railsw)",
            "link speed": f"hosts {speed} b/s, leaf-spine {fspeed} b/s: the bottleneck is "
                          "the downlink of host 0 on leaf 0",
            "bulk": "checkpoint-like: a UET-like (selective repeat) flow, DSCP 8 -> TC 0 "
                    f"(lossy, DWRR weight 1), leaf 1 host 0 -> leaf 0 host 0, 0-{dur} s",
            "roce": "a RoCEv2 flow with DCQCN, DSCP 26 -> TC 3 (lossless, DWRR weight 4, ECN "
                    f"kmin 8 KB kmax 48 KB), leaf 1 host 1 -> leaf 0 host 0, 0-{dur} s",
            "probes": f"{nprobe} RoCE messages of 32 KiB, one every 0.1 s from 0.3 s, leaf 0 "
                      "host 1 -> leaf 0 host 0, in the RoCE class; their completion time is "
                      "the small class's latency",
            "modes": "idle: probes alone (in their class of ets); fifo: everything in TC 0 (one "
                     "queue, lossy); fifo+dcqcn: the same with ECN on TC 0 and DCQCN on the "
                     "RoCE flow and the probes (the control for ets: only the classes differ); "
                     "ets: bulk in TC 0, RoCE in lossless TC 3 (DCQCN), probes in their own "
                     "TC 5 (DSCP 34, DWRR weight 2), CNPs strict in TC 6",
            "runs per mode": self.runs_n,
        }
        self.calibrate(topo, fspeed, host_speed=speed)
        ecn = ("8KB", "48KB", 0.2)
        for mode in self.modes():
            qos = qos_yaml(lossless=True, ecn={0: ecn, 3: ecn} if mode == "fifo+dcqcn" else
                           {3: ecn}, dwrr="{ 0: 1, 1: 4, 2: 1, 3: 4, 5: 2 }")
            fifo = mode.startswith("fifo")
            dc = mode in ("ets", "fifo+dcqcn")
            for run in range(self.runs_n):
                fab = Fabric(self.a.build, "cl", topo, fspeed, qos, lb_yaml("hash", run + 1),
                             host_speed=speed, log=self.log)
                try:
                    fab.start()
                    h = {x["name"]: x for x in fab.hosts}
                    l0 = sorted(n for n in h if n.startswith("server-su0"))
                    l1 = sorted(n for n in h if n.startswith("server-su1"))
                    dscp_bulk, dscp_roce = (8, 8) if fifo else (8, 26)
                    dscp_probe = 8 if fifo else 34
                    flows = []
                    if mode != "idle":
                        flows.append({"id": 0, "role": "background", "src": l1[0],
                                      "dst": l0[0], "transport": "uet", "bytes": 0,
                                      "stop_s": dur, "dscp": dscp_bulk, "prio": 0,
                                      "sport": 50000 + run})
                        flows.append({"id": 1, "role": "victim", "src": l1[1], "dst": l0[0],
                                      "transport": "roce", "bytes": 0, "stop_s": dur,
                                      "dscp": dscp_roce, "dcqcn": dc,
                                      "prio": 0 if fifo else 3,
                                      "sport": 51000 + run})
                    for k in range(nprobe):
                        flows.append({"id": 10 + k, "role": "incast", "src": l0[1],
                                      "dst": l0[0], "transport": "roce", "bytes": 32 << 10,
                                      "start_s": 0.3 + 0.1 * k, "dscp": dscp_probe,
                                      "prio": 0 if fifo else 5, "dcqcn": dc,
                                      "sport": 52000 + 7 * k + run})
                    for f in flows:
                        f["role"] = {"incast": "probe"}.get(f["role"], f["role"])
                    self.run_once(fab, mode, "roce", run, l0 + l1, flows,
                                  self.host_params(dur))
                finally:
                    fab.stop()
        self.assess()

    def shares(self, rec):
        """Bytes dequeued per TC on the bottleneck downlink, as shares."""
        leaf0 = next(n for n in rec["switches"] if n.startswith("leaf-su0"))
        q = {k.split("/")[1]: v["dequeued_bytes"]
             for k, v in rec["switches"][leaf0]["queues"].items() if k.startswith("down0/")}
        tot = sum(q.values()) or 1
        return {tc: b / tot for tc, b in q.items()}

    def probes(self, rec):
        return [f["fct_s"] for f in rec["flows"] if f["role"] == "probe"]

    def goodput(self, rec, role):
        return sum(f["goodput_bps"] for f in rec["flows"] if f["role"] == role)

    def assess(self):
        ets, fifo, idle = self.mode_runs("ets"), self.mode_runs("fifo"), self.mode_runs("idle")
        sh = self.mean([self.shares(r).get("3", 0) for r in ets])
        sb = self.mean([self.shares(r).get("0", 0) for r in ets])
        self.check(sh >= 0.65, f"ets: the lossless class keeps its share of the downlink "
                   f"({sh * 100:.0f} % for weight 4 of 5)")
        self.check(sb >= 0.1, f"ets: the bulk class is not starved ({sb * 100:.0f} % for "
                   "weight 1 of 5)")
        ll = sum(s["lossless_drops"] for r in ets for s in r["switches"].values())
        self.check(ll == 0, f"ets: no lossless drops ({ll})")
        pe = self.mean([self.mean(self.probes(r)) for r in ets])
        pf = self.mean([self.mean(self.probes(r)) for r in fifo])
        fd = self.mode_runs("fifo+dcqcn")
        pfd = self.mean([self.mean(self.probes(r)) for r in fd]) if fd else None
        pi = self.mean([self.mean(self.probes(r)) for r in idle])
        inc = sum(1 for r in ets + idle for x in self.probes(r) if x is None)
        self.check(inc == 0, f"idle, ets: every probe message completed ({inc} did not)")
        self.check(pe is not None and pf is not None and pe < pf,
                   f"ets: probes complete sooner than in one shared queue (mean {pe:.4f} s < "
                   f"{pf if pf is not None else float('nan'):.4f} s; idle {pi:.4f} s)")
        if pfd is not None:
            # The control: one queue with DCQCN too, so only the classes differ.
            self.observe(pe is not None and pe < pfd,
                         f"ets: probes complete sooner than in one queue with DCQCN (mean "
                         f"{pe:.4f} s < {pfd:.4f} s)")

    def plots(self):
        p = plt()
        fig, ax = p.subplots(1, 2, figsize=(11, 4.2))
        modes = [m for m in self.MODES if self.mode_runs(m)]
        data = [[x for r in self.mode_runs(m) for x in self.probes(r) if x is not None]
                for m in modes]
        ax[0].boxplot(data, labels=modes)
        ax[0].set_ylabel("32 KiB probe completion time (s)")
        ax[0].set_yscale("log")
        ax[0].set_title("small-message latency")
        for i, m in enumerate(modes):
            rs = self.mode_runs(m)
            sh = {}
            for r in rs:
                for tc, v in self.shares(r).items():
                    sh[tc] = sh.get(tc, 0) + v / len(rs)
            bottom = 0
            for tc in sorted(sh):
                ax[1].bar(i, sh[tc] * 100, bottom=bottom, label=f"TC {tc}" if i == 2 else None)
                bottom += sh[tc] * 100
        ax[1].set_xticks(range(len(modes)), modes)
        ax[1].set_ylabel("% of the downlink's bytes")
        ax[1].set_title("ETS shares on the bottleneck")
        ax[1].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(self.out, "classes.png"), dpi=100)
        p.close(fig)

    def report(self):
        lines = self.report_header()
        lines += ["## Results", "",
                  "| mode | probe FCT s mean (min-max) | bulk goodput Mb/s | RoCE goodput Mb/s |"
                  " downlink shares by TC | drops | lossless drops | XOFF | CNPs |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for m in self.MODES:
            rs = self.mode_runs(m)
            if not rs:
                continue
            pr = [x for r in rs for x in self.probes(r)]
            sh = {}
            for r in rs:
                for tc, v in self.shares(r).items():
                    sh[tc] = sh.get(tc, 0) + v / len(rs)
            lines.append(
                f"| {m} | {self.spread(pr)} | "
                f"{self.mean([self.goodput(r, 'background') for r in rs]) / 1e6:.1f} | "
                f"{self.mean([self.goodput(r, 'victim') for r in rs]) / 1e6:.1f} | "
                + ", ".join(f"TC {k}: {v * 100:.0f} %" for k, v in sorted(sh.items())) + " | "
                f"{sum(s['dropped'] for r in rs for s in r['switches'].values())} | "
                f"{sum(s['lossless_drops'] for r in rs for s in r['switches'].values())} | "
                f"{sum(s['tx_xoff'] for r in rs for s in r['switches'].values())} | "
                f"{sum(f['cnps'] for r in rs for f in r['flows'])} |")
        lines += ["", "![classes](classes.png)", "",
                  "What it shows: in one shared queue the small messages wait behind the bulk "
                  "transfer's standing queue and are dropped with it; with classes, DWRR gives "
                  "the lossless RoCE class its ETS share whatever the bulk class offers, PFC "
                  "keeps it lossless, DCQCN keeps its queue short, so its small messages "
                  "complete close to their idle time; CNPs ride the strict class."]
        return "\n".join(lines + self.report_checks()) + "\n"


# ---------------------------------------------------------------------------
# 4. rails


class Rails(Exp):
    name = "rails"
    title = "Rail-optimized against rail-only: the same collectives on both"
    MODES = ["rail-optimized", "rail-only"]
    SMOKE_RUNS = 2

    def topo(self, design, sus=2, servers=2, rails=2, spines=None, radix=16):
        # Equal capacity: 2 uplinks per leaf on both designs (rail-optimized: one to each of
        # 2 spines; rail-only: 2 parallel links to its rail's spine), 1:1 with 2 servers.
        return dict(design=design, sus=sus, servers_per_su=servers, rails=rails,
                    spines=spines or 2, radix=radix,
                    gpu_prefix="10.0.0.0/8", fabric_prefix="172.16.0.0/12")

    def plan_counts(self, topo):
        f = Fabric(self.a.build, "rp", topo, "50M", "", "")
        try:
            p = f.make_plan()
        except RuntimeError:
            # railctl refuses a plan that does not fit (a rail-only rail over radix SUs).
            return {"switches": "refused", "fabric_links": "-", "host_links": "-",
                    "tiers": {}, "leaf_ratio": "-"}
        finally:
            f.stop()
        links = [ln for ln in p["links"] if ln["kind"] != "server"]
        return {"switches": len(p["switches"]), "fabric_links": len(links),
                "host_links": len(p["links"]) - len(links),
                "tiers": {t["tier"]: t["count"] for t in p["tiers"]},
                "leaf_ratio": next((t["ratio"] for t in p["tiers"] if t["tier"] == "leaf"), "?")}

    def run(self):
        speed = "50M"
        scaleup = 400e6
        ar = (1 << 20) if self.smoke else (4 << 20)
        chunk = (128 << 10) if self.smoke else (512 << 10)
        self.config = {
            "topology": "2 SUs x 2 servers x 2 rails (8 NICs): rail-optimized = 4 leaves + 2 "
                        "spines shared by the rails; rail-only = 4 leaves + 1 spine per rail, each "
                        "leaf with 2 parallel uplinks to it (railctl plan): equal capacity, "
                        "1:1 on both",
            "link speed": f"{speed} b/s on every NIC and fabric link",
            "scale-up": f"{scaleup / 1e6:.0f} Mb/s per GPU inside a server (NVLink stand-in, 8x "
                        "the NIC): on rail-only a flow to another rail is first copied to the "
                        "server's NIC on the destination rail (PXN-style relay), which sends it; "
                        "the copy's time (bytes / scale-up rate) delays the flow's start and is "
                        "added to its completion; same-server pairs use scale-up only, on both "
                        "designs. Scale-up links are not contended in this model",
            "allreduce": f"ring all-reduce of {ar >> 20} MiB within each rail (4 NICs) with its "
                         "step dependencies: 2(N-1) = 6 steps of one chunk (buffer/N) each; in "
                         "step s a NIC sends to its ring successor once it has received step "
                         "s-1's chunk from its predecessor",
            "alltoall": f"every NIC sends {chunk >> 10} KiB to every other NIC (MoE dispatch)",
            "transport": "roce with PFC (TC 3 lossless) and DCQCN, 1 QP per flow, hash ECMP",
            "runs per mode": self.runs_n,
        }
        self.counts = {m: self.plan_counts(self.topo(m)) for m in self.MODES}
        big = dict(sus=8, servers=32, rails=8, radix=64)
        self.counts_big = {m: self.plan_counts(self.topo(m, spines=(16 if m == "rail-optimized"
                                                                    else 4), **big))
                           for m in self.MODES}
        # At equal leaf oversubscription: S spines for rail-optimized, S per rail for
        # railctl's rail-only (radix 64: 32 / S to 1 on both).
        self.counts_eq = [(s, {m: self.plan_counts(self.topo(m, spines=s, **big))
                               for m in self.MODES}) for s in (4, 8, 16)]
        self.calibrate(self.topo("rail-optimized"), speed)
        qos = qos_yaml(lossless=True, ecn={3: ("8KB", "48KB", 0.2)})
        for mode in self.modes():
            for run in range(self.runs_n):
                fab = Fabric(self.a.build, "rl", self.topo(mode), speed, qos,
                             lb_yaml("hash", run + 1), log=self.log)
                try:
                    fab.start()
                    for coll in ("allreduce", "alltoall"):
                        flows = self.flows(fab, mode, coll, ar, chunk, scaleup, run)
                        hosts = [h["name"] for h in fab.hosts]
                        rec = self.run_once(fab, f"{mode}/{coll}", "roce", run, hosts, flows,
                                            self.host_params(0.2))
                        rec["design"], rec["collective"] = mode, coll
                        rec["scaleup_s"] = {str(f["id"]): f.get("_relay_s", 0) for f in flows}
                        rec["local_s"] = chunk * 8 / scaleup if coll == "alltoall" else 0
                        rec["hops"] = {str(f["id"]): f["_hops"] for f in flows}
                finally:
                    fab.stop()
        self.assess()

    def flows(self, fab, mode, coll, ar, chunk, scaleup, run):
        nic = {(h["server"], int(h["nic"][3:])): h for h in fab.hosts}
        rails = sorted(set(r for _, r in nic))
        servers = sorted(set(s for s, _ in nic))
        rnd = random.Random(500 + run)
        out = []

        def add(src, dst, nbytes, relay_s=0.0, after=None):
            hops = 1 if src["leaf"] == dst["leaf"] else 3
            out.append({"id": len(out), "role": "background", "src": src["name"],
                        "dst": dst["name"], "transport": "roce", "bytes": nbytes,
                        "start_s": relay_s, "dscp": 26, "dcqcn": True,
                        "sport": 49152 + rnd.randrange(16000), "_relay_s": relay_s,
                        "_hops": hops})
            if after is not None:
                out[-1]["after"] = after
            return out[-1]["id"]
        if coll == "allreduce":
            # Ring all-reduce with its step dependencies: 2(N-1) steps (reduce-scatter, then
            # all-gather) of one chunk of buffer/N each; in step s a NIC sends to its ring
            # successor only once it has received step s-1's chunk from its predecessor.
            n = len(servers)
            for r in rails:
                prev = [None] * n  # prev[i]: the flow that delivered to NIC i last step
                for step in range(2 * (n - 1)):
                    cur = [None] * n
                    for i, s in enumerate(servers):
                        j = (i + 1) % n
                        cur[j] = add(nic[(s, r)], nic[(servers[j], r)], ar // n,
                                     after=prev[i])
                    prev = cur
        else:
            for (s1, r1), a in sorted(nic.items()):
                for (s2, r2), b in sorted(nic.items()):
                    if s1 == s2:
                        continue  # same server: scale-up only, on both designs
                    if mode == "rail-only" and r1 != r2:
                        add(nic[(s1, r2)], b, chunk, chunk * 8 / scaleup)
                    else:
                        add(a, b, chunk)
        return out

    def coll_time(self, rec):
        t = []
        for f in rec["flows"]:
            if f["fct_s"] is None:
                return None
            # A step of a ring starts when its predecessor's chunk arrived (started_s).
            t0 = f.get("started_s")
            t.append((t0 if t0 is not None else rec["scaleup_s"][str(f["id"])]) + f["fct_s"])
        return max(t + [rec["local_s"]])

    def tier_load(self, rec):
        up = sum(c["tx_bytes"] for n, s in rec["switches"].items() if n.startswith("leaf")
                 for p, c in s["ports"].items() if p.startswith("up"))
        sp = sum(c["tx_bytes"] for n, s in rec["switches"].items() if n.startswith("spine")
                 for c in s["ports"].values())
        down = sum(c["tx_bytes"] for n, s in rec["switches"].items() if n.startswith("leaf")
                   for p, c in s["ports"].items() if p.startswith("down"))
        return {"leaf_up": up, "spine": sp, "leaf_down": down}

    def sel(self, mode, coll):
        return [r for r in self.runs if r.get("design") == mode and r.get("collective") == coll]

    def assess(self):
        ro = self.mean([self.coll_time(r) for r in self.sel("rail-only", "allreduce")])
        rop = self.mean([self.coll_time(r) for r in self.sel("rail-optimized", "allreduce")])
        # Asserted over 3 or more runs per design (full runs): the smoke's 2 runs of a ring
        # of dependent steps spread 0.31-0.53 s on one design, more than the 35 % tested.
        (self.check if self.runs_n >= 3 else self.observe)(
            ro is not None and rop is not None and abs(ro - rop) <= 0.35 * rop,
            f"all-reduce within a rail is unaffected by the design ({ro:.3f} s rail-only "
            f"vs {rop:.3f} s rail-optimized, within the lab's 35 % run-to-run noise)")
        a1 = self.mean([self.coll_time(r) for r in self.sel("rail-only", "alltoall")])
        a2 = self.mean([self.coll_time(r) for r in self.sel("rail-optimized", "alltoall")])
        self.check(a1 is not None and a2 is not None, f"all-to-all completed on both designs "
                   f"({a1} s rail-only, {a2} s rail-optimized)")
        # The relay moves same-SU traffic between rails into the servers: less on the uplinks.
        u1 = self.mean([self.tier_load(r)["leaf_up"] for r in self.sel("rail-only", "alltoall")])
        u2 = self.mean([self.tier_load(r)["leaf_up"]
                        for r in self.sel("rail-optimized", "alltoall")])
        self.check(u1 is not None and u2 is not None and u1 < u2,
                   f"all-to-all: rail-only sends less over the leaf uplinks ({(u1 or 0) / 1e6:.1f} "
                   f"MB < {(u2 or 0) / 1e6:.1f} MB): traffic between rails crosses the servers' "
                   "scale-up domain")
        big = self.counts_big
        cut = 1 - big["rail-only"]["switches"] / big["rail-optimized"]["switches"]
        self.notes.append(f"at 8 SUs x 32 servers x 8 rails (radix 64) railctl plan counts "
                          f"{big['rail-optimized']['switches']} switches rail-optimized vs "
                          f"{big['rail-only']['switches']} rail-only ({cut * 100:.0f} % fewer)")

    def plots(self):
        p = plt()
        fig, ax = p.subplots(1, 2, figsize=(11, 4.2))
        colls = ["allreduce", "alltoall"]
        for i, m in enumerate(self.MODES):
            ax[0].bar([k + i * 0.4 for k in range(2)],
                      [self.mean([self.coll_time(r) for r in self.sel(m, c)]) or 0 for c in colls],
                      0.4, label=m)
        ax[0].set_xticks([0.2, 1.2], colls)
        ax[0].set_ylabel("completion time (s)")
        ax[0].set_title("collective completion time")
        ax[0].legend(fontsize=8)
        keys = ["leaf_up", "spine", "leaf_down"]
        for i, m in enumerate(self.MODES):
            rs = self.sel(m, "alltoall")
            if rs:
                tl = self.tier_load(rs[0])
                ax[1].bar([k + i * 0.4 for k in range(3)], [tl[k] / 1e6 for k in keys], 0.4,
                          label=m)
        ax[1].set_xticks([0.2, 1.2, 2.2], keys)
        ax[1].set_ylabel("MB sent (all-to-all, run 0)")
        ax[1].set_title("per-tier load")
        ax[1].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(self.out, "rails.png"), dpi=100)
        p.close(fig)

    def report(self):
        lines = self.report_header()
        lines += ["## Results", "",
                  "| design | switches | fabric links | all-reduce s | all-to-all s | "
                  "mean hops (all-to-all, by flow) | leaf-up / spine / leaf-down MB (all-to-all) "
                  "| CNPs (all runs) |", "|---|---|---|---|---|---|---|---|"]
        for m in self.MODES:
            c = self.counts[m]
            rs = self.sel(m, "alltoall")
            hops = self.mean([statistics.mean(r["hops"].values()) for r in rs]) or 0
            tl = self.tier_load(rs[0]) if rs else {"leaf_up": 0, "spine": 0, "leaf_down": 0}
            lines.append(
                f"| {m} | {c['switches']} | {c['fabric_links']} | "
                f"{self.spread([self.coll_time(r) for r in self.sel(m, 'allreduce')])} | "
                f"{self.spread([self.coll_time(r) for r in rs])} | {hops:.2f} | "
                f"{tl['leaf_up'] / 1e6:.1f} / {tl['spine'] / 1e6:.1f} / "
                f"{tl['leaf_down'] / 1e6:.1f} | "
                f"{sum(f['cnps'] for r in self.sel(m, 'allreduce') + rs for f in r['flows'])} |")
        big = self.counts_big
        lines += ["", "At a larger size (railctl plan only, no traffic: 8 SUs x 32 servers x 8 "
                  "rails, radix 64; rail-optimized with 16 spines, rail-only with 4 per rail):",
                  "", "| design | switches | fabric links | leaf oversubscription |",
                  "|---|---|---|---|"]
        for m in self.MODES:
            lines.append(f"| {m} | {big[m]['switches']} | {big[m]['fabric_links']} | "
                         f"{big[m]['leaf_ratio']} |")
        lines += ["", "At equal leaf oversubscription (the same size; railctl plan only). The "
                  "last column is a rail-only fabric without any spine tier, as Wang et al. "
                  "build it: the rail leaves alone, every pair between rails through the "
                  "servers' scale-up domain:", "",
                  "| leaf oversubscription | rail-optimized switches / fabric links | "
                  "railctl rail-only switches / fabric links | leaves only (no spine tier) "
                  "switches / fabric links |", "|---|---|---|---|"]
        for _, c in getattr(self, "counts_eq", []):
            ro, rn = c["rail-optimized"], c["rail-only"]
            leaves = ro["tiers"].get("leaf", 0)
            lines.append(f"| {ro['leaf_ratio']} / {rn['leaf_ratio']} | {ro['switches']} / "
                         f"{ro['fabric_links']} | {rn['switches']} / {rn['fabric_links']} | "
                         f"{leaves} / 0 ({(1 - leaves / ro['switches']) * 100:.0f} % fewer "
                         "switches than rail-optimized) |")
        lines += ["", "railctl's rail-only puts each rail's leaf uplinks on as few spines of "
                  "the rail as the radix allows, spread round-robin so that every leaf reaches "
                  "every spine of its rail; the 38-77 % savings Wang et al. "
                  "report come from removing the spine tier altogether, which railctl plans "
                  "as `spines: 0` where a rail's NICs fit one switch."]
        lines += ["", "![rails](rails.png)", "",
                  "What it shows: a ring all-reduce stays inside its rail, so both designs carry "
                  "it alike; all-to-all traffic between rails takes the spine tier on a "
                  "rail-optimized fabric, and on rail-only it first crosses the server's "
                  "scale-up domain, then rides the destination rail."]
        return "\n".join(lines + self.report_checks()) + "\n"
