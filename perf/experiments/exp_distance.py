# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""distance: a lossless class over a long link (docs/experiments.md).

PFC stops the sender at the far end of a link only after the XOFF has crossed it, and the
bytes already on the wire arrive after that: the receiver's headroom must hold about
2 × one-way delay × link rate, plus what the lab's own links hold. A leaf-spine link is
made long with `impair.delay_us` on both its ends; an incast behind it fills the near
leaf's ingress; the headroom is the lab's fixed one, or sized for the distance.
"""

import os

from lab import Fabric, rate
from exp_base import HEADROOM, Exp, lb_yaml, plt, qos_yaml

TOPO = dict(design="rail-optimized", sus=2, servers_per_su=2, rails=1, spines=1, radix=16,
            gpu_prefix="10.0.0.0/8", fabric_prefix="172.16.0.0/12")


def kb(s):
    return int(s[:-2]) * 1024


class Distance(Exp):
    name = "distance"
    title = "PFC headroom against distance: a lossless class over a long link"
    SMOKE_RUNS = 1
    FULL_RUNS = 2
    MODES = ["0us/fixed"] + [f"{d}us/{h}" for d in (2000, 5000, 10000, 20000)
                             for h in ("fixed", "sized")]

    def __init__(self, a):
        super().__init__(a)
        delays = [0, 20000] if a.smoke else [0, 2000, 5000, 10000, 20000]
        self.points = [(d, h) for d in delays for h in ("fixed", "sized") if d or h == "fixed"
                       if self.only is None or f"{d}us/{h}" in self.only]

    def headroom(self, delay_us, how):
        """The lab's fixed headroom, or that plus the round trip's bytes on the link."""
        if how == "fixed":
            return kb(HEADROOM)
        flight = 2 * delay_us * 1e-6 * rate(self.fspeed) / 8
        return kb(HEADROOM) + int(flight * 1.25)

    def run(self):
        speed, self.fspeed = "50M", "100M"
        self.calibrate(TOPO, self.fspeed, host_speed=speed)
        dur = 1.5 if self.smoke else 3.0
        self.config = {
            "topology": "2 leaves x 2 hosts, 1 spine (3 railsw)",
            "link speed": f"hosts {speed} b/s, leaf-spine {self.fspeed} b/s",
            "long link": "leaf 0 - spine: impair.delay_us on both ends (the data toward leaf 0 "
                         "and leaf 0's PFC toward the spine)",
            "traffic": f"both hosts of leaf 1 send to host 0 of leaf 0 for {dur} s (RoCEv2, "
                       "lossless TC 3): 2 x 50 Mb/s into a 50 Mb/s downlink, so leaf 0's "
                       "ingress from the spine fills and pauses the spine",
            "headroom": f"fixed: {HEADROOM} (the lab's, for its 0-distance links); sized: that "
                        "plus 1.25 x 2 x delay x the link rate",
            "points": ", ".join(self.MODES),
            "runs per point": self.runs_n,
        }
        for d, how in self.points:
            for run in range(self.runs_n):
                self.one(d, how, run, speed, dur)
        self.assess()

    def one(self, d, how, run, speed, dur):
        hr = self.headroom(d, how)
        qos = qos_yaml(lossless=True, headroom=f"{(hr + 1023) // 1024}KB")
        leaf0 = None

        def extra(sw, port):
            long_end = (sw.startswith("leaf-su0") and port.startswith("up")) or \
                (sw.startswith("spine") and port == "down0")
            return f"impair: {{ delay_us: {d} }}" if d and long_end else ""
        fab = Fabric(self.a.build, "ds", TOPO, self.fspeed, qos, lb_yaml("hash", run + 1),
                     host_speed=speed, log=self.log, port_extra=extra)
        mode = f"{d}us/{how}"
        try:
            fab.start()
            leaf0 = fab.leaves[0]["name"]
            l0 = [h["name"] for h in fab.hosts if h["leaf"] == leaf0]
            l1 = [h["name"] for h in fab.hosts if h["leaf"] != leaf0]
            flows = [{"id": i, "role": "incast", "src": s, "dst": l0[0], "transport": "roce",
                      "bytes": 0, "stop_s": dur, "dscp": 26, "sport": 50000 + 17 * i}
                     for i, s in enumerate(l1)]
            rec = self.run_once(fab, mode, "roce", run, l0 + l1, flows,
                                self.host_params(dur, {"window": 256}))
        finally:
            fab.stop()
        sw = rec["switches"]
        rec.update({"delay_us": d, "headroom_bytes": hr, "headroom": how, "seed": run + 1,
                    "lossless_drops": sum(s["lossless_drops"] for s in sw.values()),
                    "xoff": sum(s["tx_xoff"] for s in sw.values()),
                    "flight_bytes": int(2 * d * 1e-6 * rate(self.fspeed) / 8),
                    "goodput_bps": sum(f["goodput_bps"] for f in rec["flows"])})
        self.log(f"{mode}: headroom {hr} B, round trip on the link {rec['flight_bytes']} B, "
                 f"lossless drops {rec['lossless_drops']}, XOFF {rec['xoff']}")

    def at(self, d, how):
        return [r for r in self.runs if r.get("delay_us") == d and r.get("headroom") == how]

    def assess(self):
        near = self.at(0, "fixed")
        far = max(d for d, _ in self.points)
        self.check(near and all(r["lossless_drops"] == 0 for r in near),
                   "0 µs: the lab's headroom holds what arrives after an XOFF (lossless drops "
                   f"{[r['lossless_drops'] for r in near]})")
        sized = self.at(far, "sized")
        self.check(sized and all(r["lossless_drops"] == 0 for r in sized),
                   f"{far} µs with headroom sized for the distance: no lossless drops "
                   f"({[r['lossless_drops'] for r in sized]})")
        short = self.at(far, "fixed")
        self.check(short and all(r["lossless_drops"] > 0 for r in short),
                   f"{far} µs with the fixed headroom: the lossless class drops "
                   f"({[r['lossless_drops'] for r in short]}; the round trip holds "
                   f"{short[0]['flight_bytes'] if short else 0} B against "
                   f"{short[0]['headroom_bytes'] if short else 0} B of headroom)")

    def plots(self):
        p = plt()
        fig, ax = p.subplots(1, 2, figsize=(11, 4.2))
        for how, c in (("fixed", "C3"), ("sized", "C2")):
            rs = [r for r in self.runs if r.get("headroom") == how]
            ax[0].scatter([r["delay_us"] / 1e3 for r in rs], [r["lossless_drops"] for r in rs],
                          color=c, label=f"headroom {how}")
            ax[1].scatter([r["delay_us"] / 1e3 for r in rs],
                          [r["goodput_bps"] / 1e6 for r in rs], color=c, label=f"headroom {how}")
        ax[0].set_xlabel("one-way delay of the leaf-spine link (ms)")
        ax[0].set_ylabel("lossless drops")
        ax[0].legend(fontsize=8)
        ax[1].set_xlabel("one-way delay of the leaf-spine link (ms)")
        ax[1].set_ylabel("incast goodput, sum (Mb/s)")
        ax[1].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(self.out, "distance.png"), dpi=100)
        p.close(fig)

    def report(self):
        lines = self.report_header()
        lines += ["## Results", "", "| delay µs | headroom | headroom B | round trip on the "
                  "link B | lossless drops | XOFF | goodput Mb/s |", "|---|---|---|---|---|---|---|"]
        for r in self.runs:
            lines.append(f"| {r['delay_us']} | {r['headroom']} | {r['headroom_bytes']} | "
                         f"{r['flight_bytes']} | {r['lossless_drops']} | {r['xoff']} | "
                         f"{r['goodput_bps'] / 1e6:.1f} |")
        lines += ["", "![distance](distance.png)", "",
                  "What it shows: the headroom a lossless class needs grows with the link's "
                  "round trip (2 x delay x rate); below it PFC no longer keeps the class "
                  "lossless. At 400 Gb/s a 10 km link (50 µs each way) needs 5 MB per "
                  "priority and port, beyond most switch buffers: PFC does not reach across "
                  "a metro distance."]
        return "\n".join(lines + self.report_checks()) + "\n"
