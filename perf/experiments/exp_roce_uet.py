# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""roce-vs-uet: RoCEv2 against Ultra Ethernet-like transport on one training step
(docs/experiments.md).

One step is an all-to-all among the 8 hosts (about 3 BDP per pair), then a ring
all-reduce (2 × (8 − 1) steps of about 8 BDP each), repeated; every arm changes one thing
from the one before it. Sizes are in BDP (the calibration's measured BDP), printed in bytes.
"""

import os
import random
import statistics

import calib
import fluid
from lab import Fabric
from exp_base import HEADROOM, XOFF, XON, Exp, lb_yaml, plt, qos_yaml

TOPO = dict(design="rail-optimized", sus=2, servers_per_su=4, rails=1, spines=4, radix=16,
            gpu_prefix="10.0.0.0/8", fabric_prefix="172.16.0.0/12")
# The arms run on the same fabric with a fifth host on each leaf: the victim flow's pair
# (leaf 0's to leaf 1's), not part of the collective; it shares the leaf uplinks, the
# spines and their downlinks toward leaf 1 with the step's cross-leaf traffic. The
# calibration runs on TOPO (a permutation of 5 hosts a leaf would overload 4 uplinks).
TOPO_ARMS = dict(TOPO, servers_per_su=5)
VICTIM_WINDOW = 2  # the victim sends for this many times the run's fluid bound
ECN = ("8KB", "48KB", 0.2)


def kb(size):
    """Bytes of a size written "NKB"."""
    return int(size[:-2]) * 1024


# Each arm changes one thing from the arm it names (R2 two: QPs and DCQCN, as deployed).
ARMS = {
    "R1": dict(what="RoCEv2 go-back-N, PFC, ECMP hash, 1 QP, DCQCN", tr="roce", lossless=True,
               qps=1, dcqcn=True, entropy="flow", trim=False, cc="none", dscp=26, tc=3),
    "R2": dict(what="R1 with 4 QPs per connection and no DCQCN", tr="roce", lossless=True,
               qps=4, dcqcn=False, entropy="flow", trim=False, cc="none", dscp=26, tc=3),
    "U0": dict(what="UET-like selective repeat, lossy, no trimming, host spraying, no CC",
               tr="uet", lossless=False, qps=1, dcqcn=False, entropy="packet", trim=False,
               cc="none", dscp=10, tc=1),
    "U1": dict(what="U0 with trimming", tr="uet", lossless=False, qps=1, dcqcn=False,
               entropy="packet", trim=True, cc="none", dscp=10, tc=1),
    "U2": dict(what="U1 with the NSCC-like window", tr="uet", lossless=False, qps=1,
               dcqcn=False, entropy="packet", trim=True, cc="nscc", dscp=10, tc=1),
    "U3": dict(what="U2 over PFC instead of trimming", tr="uet", lossless=True, qps=1,
               dcqcn=False, entropy="packet", trim=False, cc="nscc", dscp=26, tc=3),
    "U2d": dict(what="U2 with one degraded leaf-spine link (5 % loss each way)", tr="uet",
                lossless=False, qps=1, dcqcn=False, entropy="packet", trim=True, cc="nscc",
                dscp=10, tc=1, degraded=True),
    "U2r": dict(what="U2d with REPS-like entropy recycling", tr="uet", lossless=False, qps=1,
                dcqcn=False, entropy="reps", trim=True, cc="nscc", dscp=10, tc=1,
                degraded=True),
}
LOSS = 0.05  # the degraded link's loss probability, each direction
# Robustness variants of a full run: (name, message scale, DCQCN time scale, arms).
VARIANTS = [("base", 1, 20, list(ARMS)), ("messages x10", 10, 20, ["R1", "R2", "U1", "U2"]),
            ("DCQCN time scale x4", 1, 80, ["R1", "R2", "U1", "U2"])]
# What a ranking that flips in a variant says.
FLIP_WHY = {"base": "at the base sizes the order is the other way",
            "messages x10": "burst length against the control loop decides which wins",
            "DCQCN time scale x4": "DCQCN's reaction time decides which wins"}


class RoceVsUet(Exp):
    name = "roce-vs-uet"
    title = "RoCEv2 against UET-like transport on one training step"
    MODES = list(ARMS)
    SMOKE_RUNS = 1
    FULL_RUNS = 3
    RUNS_TABLE = False  # its own per-run table

    def run(self):
        speed = "50M"
        cal = self.calibrate(TOPO, speed)
        bdp = max(cal["bdp_bytes"], 1024)
        self.iters = 2 if self.smoke else 4
        # The data packets' unloaded RTT: the probe's, plus 4 store-and-forward hops of a
        # full packet; the NSCC-like window grows toward its BDP. The lab's RTT includes its
        # scheduling jitter: the p90 probe is the one a window must cover.
        ser_us = calib.WIRE * 8 / cal["link_bps"] * 1e6
        self.data_rtt_us = cal["base_rtt_p90_us"] + 4 * ser_us
        self.cwnd = max(4, round(self.data_rtt_us * 1e-6 * cal["link_bps"] / 8 / calib.WIRE))
        self.bdp = bdp
        variants = VARIANTS[:1] if self.smoke else VARIANTS
        self.config = {
            "topology": "2 leaves x 4 hosts, 4 spines (6 railsw), 1:1 (the elephants fabric), "
                        "and the victim's host on each leaf (5 hosts, 4 uplinks a leaf)",
            "link speed": f"{speed} b/s on every link",
            "step": f"all-to-all among the 8 hosts, {3 * bdp} B per pair (3 BDP), then a ring "
                    f"all-reduce of 14 steps of {8 * bdp} B (8 BDP) each; {self.iters} steps "
                    "per run, each host's next phase waiting for its own previous one",
            "arms": "; ".join(f"{k}: {v['what']}" for k, v in ARMS.items()),
            "victim": "a fifth host on each leaf; leaf 0's sends to leaf 1's for "
                      f"{VICTIM_WINDOW}x the run's fluid bound from time 0, as much as its "
                      "link takes, with the arm's transport, class and entropy; its goodput "
                      "is measured over the 10 ms bins while the collective runs (and after "
                      "it, alone, when the collective ends first)",
            "switch": f"ECN on the data class kmin {ECN[0]}, kmax {ECN[1]}, pmax {ECN[2]} "
                      f"({8192 / bdp:.1f}-{49152 / bdp:.1f} BDP) in every arm (only the hosts' "
                      f"reaction differs); PFC xoff {XOFF[:-2]} KB, xon {XON[:-2]} KB, headroom "
                      f"{HEADROOM[:-2]} KB ({kb(XOFF) / bdp:.0f}, {kb(XON) / bdp:.0f}, "
                      f"{kb(HEADROOM) / bdp:.0f} BDP) on TC 3; lossy "
                      f"queue limit 64 KB ({65536 / bdp:.0f} BDP); trim (U1, U2) over 32 KB "
                      f"({32768 / bdp:.0f} BDP) to 128 B into TC 2, DWRR share 1 of 10",
            "hosts": f"window 64 packets (go-back-N and UET without CC); NSCC-like window "
                     f"(U2, U3) up to {self.cwnd} packets (one BDP at the data RTT "
                     f"{self.data_rtt_us:.0f} µs), delay target {2 * self.data_rtt_us:.0f} µs; "
                     "DCQCN (R1) at time scale 20 (and 80 in a variant); RTO 100 ms",
            "variants": ", ".join(v[0] for v in variants),
            "runs per arm": self.runs_n,
        }
        for vname, mscale, ts, arms in variants:
            for arm in arms:
                if self.only is not None and arm not in self.only:
                    continue
                for run in range(self.runs_n):
                    self.arm_run(speed, arm, run, vname, mscale, ts)
        self.summarise()
        self.assess()

    def qos(self, a):
        return qos_yaml(lossless=a["lossless"], ecn={a["tc"]: ECN}, trim=a["trim"])

    def flows(self, hosts, a, mscale, victim=None):
        """The steps' flows with their dependencies, and the victim's (a (src, dst) pair)
        if given; returns (flows, phase of each id)."""
        n = len(hosts)
        a2a, chunk = 3 * self.bdp * mscale, 8 * self.bdp * mscale
        flows, phase = [], {}
        prev = {i: [] for i in range(n)}  # host i's last all-reduce sends and receives

        def add(src, dst, size, after, ph):
            fid = len(flows)
            f = {"id": fid, "role": ph[0], "src": hosts[src], "dst": hosts[dst],
                 "transport": a["tr"], "bytes": size, "qps": a["qps"], "entropy": a["entropy"],
                 "dcqcn": a["dcqcn"], "cc": a["cc"], "dscp": a["dscp"],
                 "sport": 49152 + (fid * 97) % 16000, "seed": 1 + fid * 7}
            if after:
                f["after"] = sorted(set(after))
            flows.append(f)
            phase[fid] = ph
            return fid

        for it in range(self.iters):
            mine = {i: [] for i in range(n)}
            for i in range(n):
                for j in range(n):
                    if i != j:
                        fid = add(i, j, a2a, prev[i] + prev[j] if it else None,
                                  ("alltoall", it))
                        mine[i].append(fid)
                        mine[j].append(fid)
            last = None
            for s in range(2 * (n - 1)):
                cur = []
                for i in range(n):
                    dep = mine[i] if s == 0 else [last[i], last[(i - 1) % n]]
                    cur.append(add(i, (i + 1) % n, chunk, dep, ("allreduce", it)))
                last = cur
            prev = {i: [last[i], last[(i - 1) % n]] for i in range(n)}
        # The first step's all-to-all flows wait for nothing; later steps' for the sender's
        # and the receiver's previous all-reduce (at most 4 flows: MAX_AFTER in rswhost).
        if victim:
            fid = len(flows)
            flows.append({"id": fid, "role": "victim", "src": victim[0], "dst": victim[1],
                          "transport": a["tr"], "bytes": 0, "start_s": 0,
                          "stop_s": round(self.victim_s(mscale), 3), "qps": a["qps"],
                          "entropy": a["entropy"], "dcqcn": a["dcqcn"], "cc": a["cc"],
                          "dscp": a["dscp"], "sport": 33000, "seed": 99991})
            phase[fid] = ("victim", None)
        return flows, phase

    def victim_s(self, mscale):
        """How long the victim sends: VICTIM_WINDOW times the run's fluid bound."""
        return VICTIM_WINDOW * self.iters * self.fluid_bound(mscale)

    def arm_run(self, speed, arm, run, vname, mscale, ts):
        a = ARMS[arm]
        def degrade(sw, port):
            # Leaf 0's first uplink and the spine port facing it.
            bad = (sw.startswith("leaf-su0") and port == "up0") or \
                (sw == "spine-0" and port == "down0")
            return f"impair: {{ loss: {LOSS}, seed: {run + 7} }}" if bad else ""
        fab = Fabric(self.a.build, "ru", TOPO_ARMS, speed, self.qos(a), lb_yaml("hash", seed=run + 1),
                     log=self.log, port_extra=degrade if a.get("degraded") else None)
        try:
            fab.start()
            by_leaf = {}
            for h in sorted(fab.hosts, key=lambda h: int(h["port"][len("down"):])):
                by_leaf.setdefault(h["leaf"], []).append(h["name"])
            l0, l1 = (by_leaf[k] for k in sorted(by_leaf))
            hosts, victim = l0[:4] + l1[:4], (l0[4], l1[4])
            flows, phase = self.flows(hosts, a, mscale, victim)
            params = self.host_params(0.0, {
                "max_s": 60 if self.smoke else 120, "window": 64, "dcqcn_time_scale": ts,
                "nscc": {"max_cwnd_pkts": self.cwnd, "target_delay_us": 2 * self.data_rtt_us}})
            rec = self.run_once(fab, f"{arm}/{vname}" if vname != "base" else arm, a["tr"], run,
                                hosts + list(victim), flows, params)
        finally:
            fab.stop()
        rec.update({"arm": arm, "variant": vname, "seed": run + 1,
                    "message_scale": mscale, "dcqcn_time_scale": ts})
        rec.update(self.step_metrics(rec, phase))
        rec["victim"] = self.victim_metrics(rec, phase)
        v = rec["victim"]
        self.log(f"{arm} [{vname}] run {run}: steps {rec['step_times_s']} s, retransmitted "
                 f"{rec['retransmit_bytes']} B, timeouts {rec['timeouts']}, trims "
                 f"{rec['trims']}, XOFF {rec['xoff']}; victim {v['during_fraction']} of line "
                 f"during the collective ({v['during_s']} s), {v['alone_fraction']} alone")

    def victim_metrics(self, rec, phase):
        """The victim's goodput over the whole 10 ms bins in which the collective ran (from
        its first start to its last delivery, or the victim's stop if earlier), and over
        those after the collective's end (the victim alone), as fractions of the line's
        goodput; None where no whole bin fits."""
        vf = next(f for f in rec["flows"] if phase[f["id"]][0] == "victim")
        coll = [f for f in rec["flows"] if phase[f["id"]][0] != "victim"]
        bins = rec["series"]["delivered"][str(vf["id"])]
        b = rec["series"]["bin_s"]
        stop = self.victim_s(rec["message_scale"])
        t0 = min(f["started_s"] for f in coll if f.get("started_s") is not None)
        ends = [f["started_s"] + f["fct_s"] for f in coll
                if f.get("started_s") is not None and f["fct_s"] is not None]
        t1 = max(ends) if len(ends) == len(coll) else stop
        line = self.calibration["link_bps"] * calib.EFFICIENCY

        def goodput(a, z):
            lo, hi = int(-(-a // b)), int(min(z, stop) // b)  # whole bins inside [a, z]
            if hi <= lo:
                return None, 0
            got = sum(bins[lo:hi]) if lo < len(bins) else 0
            return round(got * 8 / ((hi - lo) * b) / line, 3), round((hi - lo) * b, 3)

        during, dur_s = goodput(t0, t1)
        alone, alone_s = goodput(t1, stop)
        return {"src": vf["src"], "dst": vf["dst"], "delivered_bytes": vf["delivered_bytes"],
                "goodput_bps": vf["goodput_bps"], "during_fraction": during,
                "during_s": dur_s, "alone_fraction": alone, "alone_s": alone_s,
                "stop_s": round(stop, 3), "retransmit_bytes": vf["retransmit_bytes"],
                "timeouts": vf["timeouts"], "pause_s": vf["pause_s"], "cnps": vf["cnps"]}

    def step_metrics(self, rec, phase):
        done = {}
        coll = [f for f in rec["flows"] if phase[f["id"]][0] != "victim"]
        for f in coll:
            ph, it = phase[f["id"]]
            st = f.get("started_s")
            end = st + f["fct_s"] if st is not None and f["fct_s"] is not None else None
            d = done.setdefault(it, {"start": [], "alltoall": [], "allreduce": []})
            if ph == "alltoall" and st is not None:
                d["start"].append(st)
            d[ph].append(end)
        steps, a2a, ar = [], [], []
        for it in sorted(done):
            d = done[it]
            if None in d["alltoall"] or None in d["allreduce"] or not d["start"]:
                steps.append(None)
                a2a.append(None)
                ar.append(None)
                continue
            t0, t1, t2 = min(d["start"]), max(d["alltoall"]), max(d["allreduce"])
            steps.append(round(t2 - t0, 4))
            a2a.append(round(t1 - t0, 4))
            ar.append(round(t2 - t1, 4))
        sw = rec["switches"]
        last_hop = fabric = 0
        wm = {"leaf downlinks (last hop)": 0, "leaf uplinks": 0, "spine downlinks": 0}
        for n, s in sw.items():
            for k, q in s["queues"].items():
                port = k.split("/")[0]
                if n.startswith("leaf") and port.startswith("down"):
                    last_hop += q["trimmed"]
                    tier = "leaf downlinks (last hop)"
                else:
                    fabric += q["trimmed"]
                    tier = "leaf uplinks" if n.startswith("leaf") else "spine downlinks"
                wm[tier] = max(wm[tier], q["watermark_bytes"])
        # The collective's own bytes and timeouts (the victim's are its own, in "victim").
        return {"step_times_s": steps, "alltoall_s": a2a, "allreduce_s": ar,
                "retransmit_bytes": sum(f["retransmit_bytes"] for f in coll),
                "delivered_bytes": sum(f["delivered_bytes"] for f in coll),
                "timeouts": sum(f["timeouts"] for f in coll),
                "trims": last_hop + fabric, "trims_last_hop": last_hop, "trims_fabric": fabric,
                "xoff": sum(s["tx_xoff"] for s in sw.values()),
                "lossless_drops": sum(s["lossless_drops"] for s in sw.values()),
                "watermarks_bytes": wm}

    def fluid_bound(self, mscale):
        """A lower bound on one step: the all-to-all's bytes through each host link (7
        messages; the cross-leaf share over 4 uplinks is less) and 14 dependent all-reduce
        steps, each a chunk's wire time plus half the smallest base RTT (a step waits for
        its predecessor's delivery), at the line's goodput."""
        cal = self.calibration
        line = cal["link_bps"] * calib.EFFICIENCY / 8
        half = cal["base_rtt_min_us"] * 1e-6 / 2
        # The all-to-all as a traffic matrix, sprayed (splittable): max-min rates, in lines.
        leaf_of = {(l, h): l for l in range(2) for h in range(4)}
        pairs = [(a, b) for a in leaf_of for b in leaf_of if a != b]
        rates = fluid.traffic_matrix(pairs, leaf_of, 4, True, random.Random(1))
        return 3 * self.bdp * mscale / (min(rates) * line) + half + \
            14 * (8 * self.bdp * mscale / line + half)

    def arm_runs(self, arm, variant="base"):
        return [r for r in self.runs if r.get("arm") == arm and r.get("variant") == variant]

    def summarise(self):
        arms = {}
        for arm in ARMS:
            rs = self.arm_runs(arm)
            if not rs:
                continue
            st = sorted(x for r in rs for x in r["step_times_s"] if x is not None)
            arms[arm] = {
                "step_p50_s": st[len(st) // 2] if st else None,
                "step_p99_s": st[min(len(st) - 1, int(len(st) * 0.99))] if st else None,
                "fluid_bound_s": round(self.fluid_bound(1), 4),
                "retransmit_bytes": sum(r["retransmit_bytes"] for r in rs),
                "trims": sum(r["trims"] for r in rs), "xoff": sum(r["xoff"] for r in rs),
                "victim_during_fraction": self.median([r["victim"]["during_fraction"]
                                                       for r in rs]),
                "victim_alone_fraction": self.median([r["victim"]["alone_fraction"]
                                                      for r in rs]),
                "seeds": [r["seed"] for r in rs]}
        self.arms = arms
        var = {}
        for vname, mscale, _, alist in VARIANTS[1:]:
            for arm in alist:
                rs = self.arm_runs(arm, vname)
                st = sorted(x for r in rs for x in r["step_times_s"] if x is not None)
                if st:
                    var.setdefault(vname, {})[arm] = {
                        "step_p50_s": st[len(st) // 2],
                        "fluid_bound_s": round(self.fluid_bound(mscale), 4),
                        "victim_during_fraction": self.median(
                            [r["victim"]["during_fraction"] for r in rs])}
        self.variants = var
        self.victim_fluid = self.victim_fluid_shares()
        self.doc_extra = {"arms": arms, "variants": var, "victim_fluid": self.victim_fluid}

    @staticmethod
    def median(xs):
        xs = [x for x in xs if x is not None]
        return round(statistics.median(xs), 4) if xs else None

    @staticmethod
    def victim_fluid_shares(draws=200):
        """The victim's max-min share of line during the all-to-all (fluid.py): sprayed,
        and hashed (unsplittable, the mean and the lowest over DRAWS hash draws)."""
        leaf_of = {(l, h): l for l in range(2) for h in range(5)}
        pairs = [(a, b) for a in leaf_of for b in leaf_of
                 if a != b and a[1] < 4 and b[1] < 4] + [((0, 4), (1, 4))]
        rnd = random.Random(1)
        spray = fluid.traffic_matrix(pairs, leaf_of, 4, True, rnd)[-1]
        h = [fluid.traffic_matrix(pairs, leaf_of, 4, False, rnd)[-1] for _ in range(draws)]
        return {"alltoall_spray": round(spray, 3), "alltoall_hash_mean": round(
            statistics.mean(h), 3), "alltoall_hash_lowest": round(min(h), 3)}

    def ranking(self, table, arms):
        have = [a for a in arms if a in table and table[a]["step_p50_s"] is not None]
        return sorted(have, key=lambda a: table[a]["step_p50_s"])

    def assess(self):
        arms = self.arms
        incomplete = [(r["arm"], f["id"]) for r in self.runs for f in r["flows"]
                      if not f["complete"]]
        self.check(not incomplete, f"every flow of every arm completed ({len(incomplete)} "
                   "did not)")
        nov = [(r["arm"], r["variant"], r["run"]) for r in self.runs
               if not (r["victim"]["during_fraction"] or 0) > 0]
        self.check(not nov, "the victim flow ran in every run and its goodput while the "
                   f"collective ran was measured > 0 (not in {nov or 'none'})")
        ll = sum(r["lossless_drops"] for r in self.runs if ARMS[r["arm"]]["lossless"])
        self.check(ll == 0, f"no lossless drops in the PFC arms R1, R2, U3 ({ll})")
        u0, u1 = self.arm_runs("U0"), self.arm_runs("U1")
        if u0 and u1:
            d0 = sum(self.data_queue_drops(r) for r in u0)
            t0, t1 = sum(r["timeouts"] for r in u0), sum(r["timeouts"] for r in u1)
            if d0 > 0 and t0 > 0:
                self.check(t1 < t0, f"trimming turns timeouts into NACKs: U1 {t1} timeouts, "
                           f"U0 {t0} (U0 lost {d0} frames)")
            else:
                self.observe(False, f"U0 lost {d0} frames with {t0} timeouts: no loss for "
                             "trimming to repair in this run")
        rk = self.ranking(arms, ARMS)
        if rk:
            self.log("base ranking by step p50: " + " < ".join(rk))
        if "U2" in arms and "R1" in arms:
            self.observe(arms["U2"]["step_p50_s"] < arms["R1"]["step_p50_s"],
                         f"UET with CC and spraying (U2, p50 {arms['U2']['step_p50_s']} s) "
                         f"beats RoCEv2 with DCQCN (R1, {arms['R1']['step_p50_s']} s)")
        if "U2d" in arms and "U2r" in arms:
            self.observe(arms["U2r"]["step_p50_s"] < arms["U2d"]["step_p50_s"],
                         f"REPS-like recycling steers around a lossy link (U2r p50 "
                         f"{arms['U2r']['step_p50_s']} s, oblivious spraying U2d "
                         f"{arms['U2d']['step_p50_s']} s)")
        if "R2" in arms and "R1" in arms:
            self.observe(arms["R2"]["step_p50_s"] < arms["R1"]["step_p50_s"],
                         f"more QPs without DCQCN (R2, {arms['R2']['step_p50_s']} s) beat R1 "
                         f"({arms['R1']['step_p50_s']} s) on short bursts")
        if "R1" in arms and "U2" in arms:
            r1, u2 = arms["R1"]["victim_during_fraction"], arms["U2"]["victim_during_fraction"]
            if r1 is not None and u2 is not None:
                rs = self.arm_runs("R1")
                pause = round(sum(r["victim"]["pause_s"] for r in rs), 3)
                cnps = sum(r["victim"]["cnps"] for r in rs)
                self.observe(u2 > r1, f"the victim keeps more of its line next to UET with "
                             f"trimming and the NSCC-like window (U2, {u2}) than next to "
                             f"RoCEv2 with PFC and DCQCN (R1, {r1}; there the victim was "
                             f"paused {pause} s and got {cnps} CNPs)")
        for vname, tab in self.variants.items():
            base = [a for a in self.ranking(arms, tab) if a in tab]
            vr = self.ranking(tab, tab)
            self.log(f"{vname}: ranking {' < '.join(vr)} (base: {' < '.join(base)})")
        self.robust = self.robustness()
        self.doc_extra["robustness"] = self.robust
        for k in ("holds", "flips", "unsettled"):
            for t in self.robust[k]:
                self.log(f"robustness, {k}: {t['text']}")

    def run_p50s(self, arm, variant):
        """Each run's median step time (s) of ARM in VARIANT."""
        return [statistics.median(x) for x in (
            [t for t in r["step_times_s"] if t is not None] for r in self.arm_runs(arm, variant))
            if x]

    def robustness(self):
        """The robustness rule: for each pair of the arms the variants rerun, its order in
        each variant (decided when the runs' median step times do not overlap, else not
        separated); a pair ordered the same way in every variant is a lesson ("holds"), a
        pair whose order flips between variants is reported as the lesson ("flips"), and
        one that some variant cannot separate is neither ("unsettled")."""
        arms = VARIANTS[1][3]
        names = [v[0] for v in VARIANTS if any(self.arm_runs(a, v[0]) for a in arms)]
        out = {"variants": names, "holds": [], "flips": [], "unsettled": []}
        if len(names) < 2:
            out["note"] = ("only the base variant ran (a smoke, or --modes): no ranking is "
                           "tested for robustness")
            return out
        for i, x in enumerate(arms):
            for y in arms[i + 1:]:
                order = {}
                for v in names:
                    px, py = self.run_p50s(x, v), self.run_p50s(y, v)
                    if not px or not py:
                        order[v] = "missing"
                    elif max(px) < min(py):
                        order[v] = "<"
                    elif max(py) < min(px):
                        order[v] = ">"
                    else:
                        order[v] = "not separated"
                decided = {o for o in order.values() if o in ("<", ">")}
                desc = ", ".join(f"{v}: {x} {o} {y}" if o in ("<", ">") else f"{v}: {o}"
                                 for v, o in order.items())
                row = {"pair": [x, y], "order": order}
                if decided == {"<", ">"}:
                    ref = next(o for o in order.values() if o in ("<", ">"))
                    why = "; ".join(FLIP_WHY[v] for v, o in order.items()
                                    if o in ("<", ">") and o != ref and v in FLIP_WHY)
                    row["text"] = (f"{x} against {y} flips between variants ({desc}): the "
                                   f"lesson is the flip ({why or 'the variant decides'})")
                    out["flips"].append(row)
                elif len(decided) == 1 and all(o in ("<", ">") for o in order.values()):
                    faster, slower = (x, y) if decided == {"<"} else (y, x)
                    row["text"] = f"{faster} is faster than {slower} in every variant ({desc})"
                    out["holds"].append(row)
                else:
                    row["text"] = f"{x} against {y} is not a lesson ({desc})"
                    out["unsettled"].append(row)
        return out

    def plots(self):
        p = plt()
        arms = [a for a in ARMS if self.arm_runs(a)]
        if not arms:
            return
        fig, ax = p.subplots(1, 4, figsize=(20, 4.5))
        bound = self.fluid_bound(1)
        for i, a in enumerate(arms):
            rs = self.arm_runs(a)
            st = [x / bound for r in rs for x in r["step_times_s"] if x is not None]
            ax[0].scatter([i] * len(st), st, s=14, color="C0")
            a2 = [x for r in rs for x in r["alltoall_s"] if x is not None]
            ar = [x for r in rs for x in r["allreduce_s"] if x is not None]
            ax[1].bar(i - 0.2, statistics.mean(a2) if a2 else 0, 0.4, color="C1",
                      label="all-to-all" if i == 0 else None)
            ax[1].bar(i + 0.2, statistics.mean(ar) if ar else 0, 0.4, color="C2",
                      label="all-reduce" if i == 0 else None)
            rb = sum(r["retransmit_bytes"] for r in rs) / max(1, sum(r["delivered_bytes"]
                                                                     for r in rs))
            ax[2].bar(i, rb * 100, color="C3")
            vd = [r["victim"]["during_fraction"] for r in rs
                  if r["victim"]["during_fraction"] is not None]
            va = [r["victim"]["alone_fraction"] for r in rs
                  if r["victim"]["alone_fraction"] is not None]
            ax[3].scatter([i] * len(vd), vd, s=18, color="C4",
                          label="while the collective runs" if i == 0 else None)
            ax[3].scatter([i + 0.15] * len(va), va, s=18, facecolors="none", edgecolors="C4",
                          label="alone, after it" if i == 0 else None)
        ax[0].axhline(1.0, color="k", lw=1, label="fluid lower bound")
        ax[0].set_ylabel("step time / fluid bound (every step of every run)")
        ax[0].legend(fontsize=7)
        ax[1].set_ylabel("mean phase time (s)")
        ax[1].legend(fontsize=7)
        ax[2].set_ylabel("retransmitted / delivered bytes (%)")
        ax[2].set_ylim(bottom=0)
        vf = getattr(self, "victim_fluid", None)
        if vf:
            ax[3].axhline(vf["alltoall_spray"], color="k", lw=1, ls="--",
                          label="fluid, all-to-all, sprayed")
            ax[3].axhline(vf["alltoall_hash_mean"], color="k", lw=1, ls=":",
                          label="fluid, all-to-all, hashed (mean)")
        ax[3].set_ylabel("victim goodput / line goodput")
        ax[3].set_ylim(0, 1.1)
        ax[3].legend(fontsize=7)
        ax[3].set_title("the victim flow (not in the collective)")
        for x in ax:
            x.set_xticks(range(len(arms)), arms)
        ax[0].set_title("step time over the fluid bound")
        ax[1].set_title("all-to-all and all-reduce apart")
        ax[2].set_title("retransmissions")
        fig.tight_layout()
        fig.savefig(os.path.join(self.out, "roce-vs-uet.png"), dpi=100)
        p.close(fig)

    def report(self):
        lines = self.report_header()
        lines += ["## Results", "", "| arm | what | step p50 s | p99 s | x fluid bound | "
                  "retransmitted B | timeouts | trims (last hop / fabric) | XOFF | victim "
                  "(of line) during / alone |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        bound = self.fluid_bound(1)
        for a, v in self.arms.items():
            rs = self.arm_runs(a)
            lh = sum(r["trims_last_hop"] for r in rs)
            fb = sum(r["trims_fabric"] for r in rs)
            to = sum(r["timeouts"] for r in rs)
            p50 = v["step_p50_s"]
            lines.append(f"| {a} | {ARMS[a]['what']} | {p50} | {v['step_p99_s']} | "
                         f"{p50 / bound if p50 else float('nan'):.2f} | {v['retransmit_bytes']} | "
                         f"{to} | {lh} / {fb} | {v['xoff']} | {v['victim_during_fraction']} / "
                         f"{v['victim_alone_fraction']} |")
        vf = self.victim_fluid
        lines += ["", f"Fluid lower bound of one step: {bound:.4f} s (without the victim).", "",
                  "The victim: goodput over the line's goodput while the collective runs, and "
                  "alone after it in the same run (when the collective ends before the victim "
                  "stops). In the all-to-all a fluid model (max-min) gives it "
                  f"{vf['alltoall_spray']} of line sprayed and {vf['alltoall_hash_mean']} "
                  f"hashed (mean over hash draws; lowest {vf['alltoall_hash_lowest']}); in "
                  "the all-reduce only one ring flow crosses each way.", "",
                  "Every run on its own:", "",
                  "| arm | variant | seed | steps s | all-to-all s | all-reduce s | "
                  "retransmitted / delivered B | timeouts | XOFF | watermarks B | victim "
                  "during / alone (s measured) | victim timeouts, pause s, CNPs |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in self.runs:
            lines.append(f"| {r['arm']} | {r['variant']} | {r['seed']} | {r['step_times_s']} | "
                         f"{r['alltoall_s']} | {r['allreduce_s']} | {r['retransmit_bytes']} / "
                         f"{r['delivered_bytes']} | {r['timeouts']} | {r['xoff']} | "
                         f"{r['watermarks_bytes']} | {r['victim']['during_fraction']} / "
                         f"{r['victim']['alone_fraction']} ({r['victim']['during_s']} / "
                         f"{r['victim']['alone_s']}) | {r['victim']['timeouts']}, "
                         f"{r['victim']['pause_s']}, {r['victim']['cnps']} |")
        rb = getattr(self, "robust", None)
        lines += ["", "## Robustness", "", "A ranking is a lesson only if every variant keeps "
                  "it; one that flips between variants is reported as the lesson. Pairs of "
                  f"{', '.join(VARIANTS[1][3])}, ordered by their runs' median step times "
                  "(not separated when those overlap).", ""]
        for vname, tab in self.variants.items():
            lines.append(f"- {vname} (step p50 s): " + ", ".join(
                f"{a} {v['step_p50_s']} (bound {v['fluid_bound_s']}, victim "
                f"{v['victim_during_fraction']})" for a, v in tab.items()) + "; ranking " +
                " < ".join(self.ranking(tab, tab)))
        if rb and rb.get("note"):
            lines.append(f"- {rb['note']}")
        elif rb:
            for k, title in (("flips", "Flips (the lesson)"), ("holds", "Holds (a lesson)"),
                             ("unsettled", "Not a lesson")):
                for t in rb[k]:
                    lines.append(f"- {title}: {t['text']}")
        lines += ["", "![roce-vs-uet](roce-vs-uet.png)", "",
                  "What it shows: each arm changes one thing. R1 → R2: more entropy and no "
                  "rate control; U0 → U1: what trimming does to losses (a NACK within a round "
                  "trip instead of a timeout); U1 → U2: what an end-to-end window adds when "
                  "bursts are a few BDP long; U2 → U3: PFC instead of trimming under the same "
                  "window."]
        return "\n".join(lines + self.report_checks()) + "\n"
