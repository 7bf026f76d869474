# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""The `llr` experiment (docs/link.md "Measured"): a lossless RoCE class over lossy links,
with and without UEC Link-Level Retry between the switches.

Two leaves and a spine; every leaf-spine port injects random loss into what it transmits
(`ports[].impair`), 1e-3 or 1e-2, both directions. RoCEv2 RC flows (go-back-N, as the hosts
of perf/hosts) cross both fabric links in TC 3, lossless (PFC). Without LLR a frame lost on
a link is lost end to end: the receiver NAKs the gap, or the sender's timeout fires, and the
sender goes back N. With LLR on the fabric ports the link replays it within a round trip of
one hop: nothing is lost end to end and the hosts never retransmit.

LLR does not protect PFC frames: a lost XOFF lets a burst overflow the peer's headroom
(lossless drops), a lost XON pauses for the full quanta. The cbfc-llr modes run UEC
credit-based flow control (`cbfc: true`) with LLR on the same four ports: TC 3 crosses a
fabric link only against credits, so no pause frame is needed there, and a lost credit
message is healed by the next (docs/link.md "Credit-based flow control").
"""

import os
import re

from exp_base import HEADROOM, XOFF, XON
from lab import Fabric, rate

PAUSE_MS = 25  # what one XOFF pauses for (its quanta), a quarter of the hosts' RTO


def make(Exp, qos_yaml, lb_yaml, plt):
    """The experiment's class, built on exp_base.py's Exp (experiments.py registers it: no
    circular import)."""

    class LossyFabric(Fabric):
        """A Fabric whose leaf-spine ports inject loss and may run LLR; every port MTU 9000."""

        # The calibrated lab's settings (calib.py, applied to every Fabric by
        # experiments.py): 64-slot rings, hosts at 97 % of line, 5 ms shaper buckets.

        def __init__(self, *a, loss=0.0, llr=False, cbfc=False, seed=1, **kw):
            super().__init__(*a, **kw)
            self.loss, self.llr, self.cbfc, self.seed = loss, llr, cbfc, seed

        def generate(self):
            confs = super().generate()
            for name, path in confs.items():
                spine = not any(s["name"] == name for s in self.leaves)
                with open(path) as f:
                    lines = f.read().split("\n")
                out = []
                for k, line in enumerate(lines):
                    if line.startswith("  - { name: ") and "devargs:" in line:
                        fabric = spine or "role: uplink" in line
                        extra = ""
                        if fabric and self.loss > 0:
                            extra += f", impair: {{ loss: {self.loss}, seed: {self.seed + k} }}"
                        if fabric and self.llr:
                            extra += ", llr: true"
                        if fabric and self.cbfc:
                            extra += ", cbfc: true"
                        line = re.sub(r" }$", extra + " }", line)
                    out.append(line)
                with open(path, "w") as f:
                    f.write("\n".join(out))
            return confs


    class Llr(Exp):
        name = "llr"
        title = "A lossless class over lossy links, with and without Link-Level Retry, and CBFC"
        MODES = ["clean", "lossy-1e-3", "llr-1e-3", "lossy-1e-2", "llr-1e-2", "cbfc-llr-1e-2"]

        def run(self):
            fspeed = "100M"
            size = (2 << 20) if self.smoke else (8 << 20)
            topo = dict(design="rail-optimized", sus=2, servers_per_su=1, rails=1, spines=1,
                        radix=16, gpu_prefix="10.0.0.0/8", fabric_prefix="172.16.0.0/12")
            # PFC frames are not replayed: a lost XON leaves the peer paused for the XOFF's
            # quanta. At 400 Gb/s 65535 quanta are 84 µs, far below a NIC's retransmission
            # timeout; in the lab at 100 Mb/s they are 335 ms, above the hosts' 100 ms RTO,
            # and one lost XON made the hosts go back N although nothing was lost end to end.
            # The lab's XOFF pauses for a quarter of the RTO (railsw refreshes it at half
            # that while the queue stays above xon).
            quanta = round(PAUSE_MS * 1e-3 * rate(fspeed) / 512)
            qos = qos_yaml(lossless=True, quanta=quanta)
            self.calibrate(topo, fspeed)
            self.config = {
                "topology": "2 leaves x 1 host, 1 spine (3 railsw); each flow crosses two "
                            "leaf-spine links",
                "link speed": f"{fspeed} b/s everywhere",
                "flows": f"2 RoCEv2 RC flows (go-back-N, 1 KiB payload: rswhost's largest is "
                         f"1400 B), {size >> 20} MiB each, one each way, DSCP 26 -> TC 3 "
                         "(lossless, PFC), no DCQCN",
                "faults": "random loss on every leaf-spine port's transmit (data, ACKs, PFC "
                          "and LLR frames alike), both directions",
                "modes": "clean: no loss; lossy-P: loss P, no LLR; llr-P: loss P, LLR on the "
                         "four leaf-spine ports (TC 3 guarded by PFC); cbfc-llr-P: loss P, LLR "
                         "and CBFC on the four leaf-spine ports (TC 3 sent against credits, "
                         "no PFC on those links)",
                "PFC": f"xoff {XOFF[:-2]} KB, xon {XON[:-2]} KB, headroom {HEADROOM[:-2]} KB, quanta {quanta} "
                       f"({PAUSE_MS} ms at {fspeed}b/s: a lost XON pauses for less than the "
                       "hosts' 100 ms RTO)",
                "runs per mode": self.runs_n,
            }
            for mode in self.modes():
                loss = 0.0 if mode == "clean" else float(re.search(r"[0-9.]+e-[0-9]+$",
                                                                   mode).group(0))
                for run in range(self.runs_n):
                    fab = LossyFabric(self.a.build, "ll", topo, fspeed, qos, lb_yaml("hash", 1),
                                      log=self.log, loss=loss, llr="llr" in mode,
                                      cbfc=mode.startswith("cbfc"), seed=101 + run)
                    try:
                        fab.start()
                        h = sorted(x["name"] for x in fab.hosts)
                        flows = [{"id": i, "role": "background", "src": h[i], "dst": h[1 - i],
                                  "transport": "roce", "bytes": size, "dscp": 26, "prio": 3,
                                  "dcqcn": False, "sport": 50000 + 10 * run + i}
                                 for i in range(2)]
                        rec = self.run_once(fab, mode, "roce", run, h, flows,
                                            self.host_params(0.0, {"max_s": 40 if self.smoke
                                                                   else 60}))
                        rec["llr"] = {n: fab.ctl[n]("show llr")["llr"] for n in fab.ctl}
                        rec["cbfc"] = {n: fab.ctl[n]("show cbfc")["cbfc"] for n in fab.ctl}
                        rec["pgs"] = {n: [r for r in fab.ctl[n]("show buffer")["pgs"]
                                          if r["lossless_drops"]] for n in fab.ctl}
                    finally:
                        fab.stop()
            self.assess()

        def agree(self, fab, rec, snap, stats):
            """With faults a frame the wire lost may be replayed (LLR) or sent again by the
            host: the hosts' own view is the check: every flow complete, nothing delivered
            twice to the application."""
            bad = [f"flow {f['id']} incomplete" for f in rec["flows"] if not f["complete"]]
            rec["agreement"] = {"ok": not bad, "problems": bad}
            self.check(not bad, f"{rec['mode']} run {rec['run']}: every flow completed"
                       + ("" if not bad else ": " + "; ".join(bad)))

        # ---- figures ------------------------------------------------------------

        @staticmethod
        def port_sum(rec, key):
            return sum(p.get(key, 0) for s in rec["switches"].values() for p in s["ports"].values())

        @staticmethod
        def fabric_port(sw, port):
            """A leaf-spine port: every spine port, a leaf's uplinks (up<n>)."""
            return sw.startswith("spine") or port.startswith("up")

        def fabric_pfc(self, rec):
            """PFC frames (XOFF and XON) the switches sent on the leaf-spine links."""
            return sum(v["tx_xoff"] + v["tx_xon"] for n, s in rec["switches"].items()
                       for k, v in s["pfc"].items() if self.fabric_port(n, k.split("/")[0]))

        @staticmethod
        def lossless_drops(rec):
            return sum(max(s["lossless_drops"], s["drops"].get("lossless_drops", 0))
                       for s in rec["switches"].values())

        def fabric_pfc_lost(self, rec):
            """PFC frames lost on the leaf-spine links: what their ports sent less what their
            peers (leaf-spine ports too) received."""
            tx = rx = 0
            for n, s in rec["switches"].items():
                for k, v in s["pfc"].items():
                    if self.fabric_port(n, k.split("/")[0]):
                        tx += v["tx_xoff"] + v["tx_xon"]
                        rx += v["rx_xoff"] + v["rx_xon"]
            return tx - rx

        @staticmethod
        def longest_stall_ms(rec):
            """The longest run of 10 ms bins in which a flow, started and not yet complete,
            delivered nothing (the longest of the flows): a stall the hosts' RTO may see."""
            b = rec["series"]["bin_s"]
            out = 0
            for f in rec["flows"]:
                bins = rec["series"]["delivered"][str(f["id"])]
                end = int(((f.get("started_s") or 0) + (f["fct_s"] or len(bins) * b)) / b)
                run = 0
                for x in bins[int((f.get("started_s") or 0) / b):end]:
                    run = run + 1 if x == 0 else 0
                    out = max(out, run)
            return round(out * b * 1e3)

        def fabric_lossless_drops(self, rec):
            """Lossless drops of the PGs whose ingress is a leaf-spine port (the buffers the
            link's flow control, PFC or CBFC, guards); the rest came in from a server."""
            return sum(r["lossless_drops"] for n, rows in rec.get("pgs", {}).items()
                       for r in rows if self.fabric_port(n, r["port"]))

        def cbfc_rows(self, rec):
            """show cbfc rows (VC 3) of the leaf-spine ports, whatever their state."""
            return [r for n, rows in rec.get("cbfc", {}).items() for r in rows
                    if self.fabric_port(n, r["port"]) and r["vc"] == 3]

        def figures(self, rec):
            sw = rec["switches"]
            cb = self.cbfc_rows(rec)
            impair = sum(s["drops"].get("impair_dropped", 0) for s in sw.values())
            llr_rows = [r for rows in rec.get("llr", {}).values() for r in rows
                        if r["state"] != "off"]
            data_bytes = sum(f["delivered_bytes"] for f in rec["flows"])
            frames = sum(r["tx_frames"] for r in llr_rows)
            ctl = sum(r["acks_tx"] + r["nacks_tx"] + r["inits_tx"] + r["init_echoes_tx"]
                      for r in llr_rows)
            replayed = sum(r["tx_replayed"] for r in llr_rows)
            return {
                "fct": max((f["fct_s"] or 0) for f in rec["flows"]),
                "goodput": sum(f["goodput_bps"] for f in rec["flows"]) / len(rec["flows"]),
                "retx": sum(f["retransmits"] for f in rec["flows"]),
                "timeouts": sum(f["timeouts"] for f in rec["flows"]),
                "impair": impair,
            "buffer_drops": self.data_queue_drops(rec),
                "replayed": replayed,
                "nacks": sum(r["nacks_tx"] for r in llr_rows),
                "replay_timeouts": sum(r["tx_replay_timeouts"] for r in llr_rows),
                "flushes": sum(r["tx_flushes"] for r in llr_rows),
                "peak": max((r["replay_buffer_peak"] for r in llr_rows), default=0),
                # Wire bytes the shim (16 B a sequenced frame) and the control frames (60 B +
                # 24 B preamble, FCS and gap) add, per byte of goodput; replays apart.
                "overhead": (16 * frames + 84 * ctl) / data_bytes if data_bytes else 0,
                "replay_share": replayed / frames if frames else 0,
                "acks_per_frame": ctl / frames if frames else 0,
                "lossless_drops": self.lossless_drops(rec),
                "fabric_lossless_drops": self.fabric_lossless_drops(rec),
                "fabric_pfc": self.fabric_pfc(rec),
                "fabric_pfc_lost": self.fabric_pfc_lost(rec),
                "stall_ms": self.longest_stall_ms(rec),
                "cbfc_ports": len(cb),
                "cbfc_active": sum(1 for r in cb if r["state"] == "active"),
                "credit_stall_ms": sum(r["stalled_ns"] for r in cb) / 1e6,
                "credit_watchdog": sum(r["watchdog_stalls"] for r in cb),
                "credits_healed": sum(r["credits_healed"] for r in cb),
            }

        def assess(self):
            for m in self.MODES:
                for r in self.mode_runs(m):
                    f = self.figures(r)
                    self.log(f"{m} run {r['run']}: {f}")
            for p in ("1e-3", "1e-2"):
                lossy, llr = self.mode_runs(f"lossy-{p}"), self.mode_runs(f"llr-{p}")
                if not lossy or not llr:
                    continue
                fl = [self.figures(r) for r in lossy]
                fr = [self.figures(r) for r in llr]
                self.check(all(x["impair"] > 0 for x in fl + fr),
                           f"{p}: the links lost frames in both modes "
                           f"({[x['impair'] for x in fl]} / {[x['impair'] for x in fr]})")
                # A frame lost on the wire is replayed by the link; what the hosts still
                # send again was dropped in a buffer (PFC frames are not replayed: a lost
                # XOFF lets a burst overflow the peer's headroom).
                bufd = [self.data_queue_drops(r) for r in llr]
                self.check(all(x["retx"] == 0 or b > 0 for x, b in zip(fr, bufd)),
                           f"llr-{p}: no frame lost on the wire was lost end to end (host "
                           f"retransmissions {[x['retx'] for x in fr]} only after buffer "
                           f"drops {bufd})")
                self.observe(all(x["retx"] == 0 for x in fr),
                             f"llr-{p}: no host retransmitted at all")
                self.check(self.mean([x["retx"] for x in fr]) <
                           self.mean([x["retx"] for x in fl]) / 5,
                           f"{p}: LLR cuts the hosts' retransmissions by 5x or more")
                self.check(all(x["retx"] > 0 for x in fl),
                           f"lossy-{p}: the hosts went back N ({[x['retx'] for x in fl]} "
                           "retransmissions)")
                self.check(all(x["flushes"] == 0 for x in fr), f"llr-{p}: no FLUSH")
                self.observe(self.mean([x["fct"] for x in fr]) < self.mean([x["fct"] for x in fl]),
                             f"{p}: flows complete sooner with LLR")
            for p in ("1e-3", "1e-2"):
                cbfc = [self.figures(r) for r in self.mode_runs(f"cbfc-llr-{p}")]
                pfc = [self.figures(r) for r in self.mode_runs(f"llr-{p}")]
                if not cbfc:
                    continue
                m = f"cbfc-llr-{p}"
                # Two leaf-spine links, CBFC at both ends of each: 4 rows of VC 3.
                self.check(all(x["cbfc_ports"] == 4 and x["cbfc_active"] == 4 for x in cbfc),
                           f"{m}: CBFC active on all 4 leaf-spine ports "
                           f"({[(x['cbfc_active'], x['cbfc_ports']) for x in cbfc]})")
                self.check(all(x["impair"] > 0 for x in cbfc),
                           f"{m}: the links lost frames ({[x['impair'] for x in cbfc]})")
                self.check(all(x["fabric_lossless_drops"] == 0 for x in cbfc),
                           f"{m}: no lossless-class buffer drop behind a leaf-spine link "
                           f"({[x['fabric_lossless_drops'] for x in cbfc]})")
                # A server's link is still PFC (over memif or a TAP: frames in the ring
                # overrun a headroom sized for a wire): it overflows when credits hold the
                # uplink back for long.
                self.observe(all(x["lossless_drops"] == 0 for x in cbfc),
                             f"{m}: no lossless-class buffer drop at all, server links "
                             f"included ({[x['lossless_drops'] for x in cbfc]})")
                self.check(all(x["fabric_pfc"] == 0 for x in cbfc),
                           f"{m}: no PFC frame on the leaf-spine links "
                           f"({[x['fabric_pfc'] for x in cbfc]})")
                self.check(all(x["flushes"] == 0 for x in cbfc), f"{m}: no FLUSH")
                self.observe(all(x["retx"] == 0 for x in cbfc),
                             f"{m}: no host retransmitted at all "
                             f"({[x['retx'] for x in cbfc]})")
                if pfc:
                    # What CBFC replaces: PFC + LLR pauses the fabric links, and a lost XOFF
                    # may overflow a headroom (not every run: it needs the queues to build).
                    self.observe(any(x["fabric_pfc"] > 0 for x in pfc),
                                 f"llr-{p}: PFC frames on the leaf-spine links "
                                 f"({[x['fabric_pfc'] for x in pfc]}) where {m} sent none")

        def plots(self):
            p = plt()
            modes = [m for m in self.MODES if self.mode_runs(m)]
            fig, ax = p.subplots(1, 2, figsize=(11, 4))
            ax[0].bar(modes, [self.mean([self.figures(r)["fct"] for r in self.mode_runs(m)])
                              for m in modes])
            ax[0].set_ylabel("slowest flow completion (s)")
            ax[0].set_title("completion time")
            ax[1].bar(modes, [self.mean([self.figures(r)["retx"] for r in self.mode_runs(m)])
                              for m in modes])
            ax[1].set_ylabel("host retransmissions")
            ax[1].set_title("end-to-end recovery")
            for a in ax:
                a.tick_params(axis="x", labelrotation=20)
            fig.tight_layout()
            fig.savefig(os.path.join(self.out, "llr.png"), dpi=100)
            p.close(fig)

        def report(self):
            lines = self.report_header()
            lines += ["## Results", "",
                      "| mode | slowest FCT s | goodput Mb/s | lost on the wire | host retransmits"
                      " | host timeouts | longest stall ms | buffer drops"
                      " | lossless drops (behind fabric links)"
                      " | PFC frames on fabric links (lost)"
                      " | CBFC credit stall ms | credit watchdog stalls | LLR replays | NACKs"
                      " | replay timeouts | replay peak "
                      "(frames) | shim + control overhead | replays per frame |",
                      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
            for m in self.MODES:
                rs = self.mode_runs(m)
                if not rs:
                    continue
                fs = [self.figures(r) for r in rs]

                def col(k, fmt="{:.0f}"):
                    return fmt.format(self.mean([f[k] for f in fs]))
                lines.append(f"| {m} | {col('fct', '{:.3f}')} | "
                             f"{self.mean([f['goodput'] for f in fs]) / 1e6:.1f} | {col('impair')} | "
                             f"{col('retx')} | {col('timeouts')} | {col('stall_ms')} | "
                             f"{col('buffer_drops')} | "
                             f"{col('lossless_drops')} ({col('fabric_lossless_drops')}) | "
                             f"{col('fabric_pfc')} ({col('fabric_pfc_lost')}) | "
                             f"{col('credit_stall_ms', '{:.1f}')} | {col('credit_watchdog')} | "
                             f"{col('replayed')} | "
                             f"{col('nacks')} | {col('replay_timeouts')} | {col('peak')} | "
                             f"{self.mean([f['overhead'] for f in fs]) * 100:.2f} % | "
                             f"{self.mean([f['replay_share'] for f in fs]):.3f} |")
            lines += ["", "![llr](llr.png)"]
            return "\n".join(lines + self.report_checks()) + "\n"

    return Llr
