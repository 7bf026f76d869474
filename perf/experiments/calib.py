# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Calibration of a lab fabric before any result counts (docs/experiments.md).

On the experiment's own topology and link speeds, with per-packet spraying and a lossless
class: rswhost measures the base RTT with 64-byte ping-pongs across the fabric (leaf,
spine, leaf), which with the host link rate gives the BDP; then every host sends one flow
to a host of the next leaf (a permutation that puts exactly one flow's worth on every
link; on an oversubscribed fabric only as many hosts per leaf as its uplinks carry) for a
few seconds. A calibrated lab carries it at >= 95 % of the largest goodput
the line allows at the lab's packet size, with no PFC pause (XOFF): the hosts pace below
what the switches' shapers deliver on shared, descheduled cores.
"""

import os
import statistics

from lab import Fabric, rate

PAYLOAD = 1024
# Per data packet on the wire: Ethernet 14 + IPv4 20 + UDP 8 + UET-like header 16 + FCS,
# preamble and inter-frame gap 24.
WIRE = PAYLOAD + 14 + 20 + 8 + 16 + 24
EFFICIENCY = PAYLOAD / WIRE
# The hosts' pacing, a fraction of their link speed (rswhost's "pace").
PACE = 0.97
# Log2 of the memif rings' slots: a ring is the lab's "wire", and what it holds arrives
# at once when a descheduled switch runs again. PFC headroom (exp_base.HEADROOM, 224 KB)
# must cover what can arrive after an XOFF: a ring (64 slots of 1.1 KB = 70 KB), the
# sender's shaper bucket (BURST_US of the hosts' line: 125 KB at 50 Mb/s) and rswhost's 16
# frames held unsent (18 KB). 32 slots stall a sprayed permutation at a third of line on
# busy CPUs.
RING_LOG2 = 6
# The switches' shaper bucket and the hosts' catch-up, µs of the hosts' line: a switch or
# host process descheduled for up to this long on a shared machine sends what it owes
# afterwards instead of losing it (switch.shaper_burst_us; on faster fabric links the same
# bytes: Fabric.switch_burst_us). With 5 ms a sprayed permutation at 97 % of line still
# paused (tens of XOFF in 2 s on a quiet 2-CPU machine): the switches were descheduled for
# longer and lost line time they could not make up.
BURST_US = 20000
# Packets in flight per calibration flow: the base BDP is a few packets, the scheduling
# jitter of a shared machine a few ms (at 50 Mb/s a packet is 0.18 ms on the wire).
WINDOW = 32


def calibrate(exp, topo, speed, qos, lb, host_speed=None, seconds=2.0, tag="cb"):
    """Measure the lab: returns results.json's `calibration` object (and records checks)."""
    host_speed = host_speed or speed
    fab = Fabric(exp.a.build, tag, topo, speed, qos, lb, host_speed=host_speed, log=exp.log)
    link = rate(host_speed)
    try:
        fab.start()
        by_leaf = {}
        for h in fab.hosts:
            by_leaf.setdefault(h["leaf"], []).append(h["name"])
        leaves = sorted(by_leaf)
        a, b = by_leaf[leaves[0]][0], by_leaf[leaves[-1]][0]
        stats, _, _, _ = fab.run_hosts(
            [h["name"] for h in fab.hosts], [],
            exp.host_params(0.0, {"pings": [{"src": a, "dst": b, "count": 200}],
                                  "max_s": 20}),
            f"{exp.out}/calibration-ping.json", timeout=60)
        rtts = sorted(stats["pings"][0]["rtt_us"])
        if not rtts:
            raise RuntimeError("calibration: no ping answered")
        base = rtts[len(rtts) // 2]  # median: the lab's scheduler noise is one-sided
        # As many hosts of each leaf as its uplinks carry at line rate: all of them on a
        # non-blocking fabric, fewer on an oversubscribed one (one flow's worth per link).
        fabric_share = rate(speed) / link
        flows = []
        for i, lf in enumerate(leaves):
            nxt = by_leaf[leaves[(i + 1) % len(leaves)]]
            uplinks = sum(1 for (_, pn, _, _) in fab.ports[lf] if not fab.is_host_port(lf, pn))
            fit = int(uplinks * fabric_share + 1e-9)
            for k, s in enumerate(by_leaf[lf]):
                if k < len(nxt) and k < fit:
                    flows.append({"id": len(flows), "role": "calibration", "src": s,
                                  "dst": nxt[k], "transport": "uet", "bytes": 0,
                                  "start_s": 0, "stop_s": seconds, "entropy": "flow",
                                  "sport": 49152 + 64 * len(flows), "dscp": 26,
                                  "cc": "nscc"})
        fab.clear()
        stats, sw_cpu, wall, _ = fab.run_hosts([h["name"] for h in fab.hosts], flows,
                                       exp.host_params(seconds, {
                                           "max_s": seconds + 20, "window": 64,
                                           "nscc": {"max_cwnd_pkts": WINDOW,
                                                    "target_delay_us": 1e6}}),
                                       f"{exp.out}/calibration-flows.json",
                                       timeout=seconds + 60)
        snap = fab.snapshot()
        cpu = (sum(sw_cpu.values()) + stats["cpu_s"]) / wall
        sw = exp.switch_counters(fab, snap)
        xoff = sum(s["tx_xoff"] for s in sw.values())
        drops = sum(s["dropped"] for s in sw.values())
        reasons = {}
        for s in sw.values():
            for k, v in s["drops"].items():
                reasons[k] = reasons.get(k, 0) + v
        gp = [f["goodput_bps"] / (link * EFFICIENCY) for f in stats["flows"]]
    finally:
        fab.stop()
    cal = {"base_rtt_us": round(base, 1), "base_rtt_min_us": round(rtts[0], 1),
           "base_rtt_p90_us": round(rtts[int(len(rtts) * 0.9)], 1),
           "bdp_bytes": int(base * 1e-6 * link / 8), "link_bps": link,
           "clean_goodput_fraction": round(statistics.mean(gp), 4),
           "clean_goodput_min_fraction": round(min(gp), 4), "clean_xoff": xoff,
           "clean_drops": drops, "clean_drop_reasons": reasons, "pace": PACE, "ring_slots": 1 << RING_LOG2, "shaper_burst_us": BURST_US,
           "packet_wire_bytes": WIRE, "lab_cpu_cores": round(cpu, 2),
           "loadavg": os.getloadavg()[0], "flows": len(gp), "seconds": seconds}
    exp.calibration = cal
    exp.log(f"calibration: base RTT {cal['base_rtt_us']:.0f} us (min {rtts[0]:.0f}, "
            f"p90 {cal['base_rtt_p90_us']:.0f}), BDP {cal['bdp_bytes']} B at "
            f"{link / 1e6:.0f} Mb/s; clean permutation {cal['clean_goodput_fraction']:.3f} "
            f"of line (slowest {min(gp):.3f}), XOFF {xoff}, drops {drops} {reasons}; the lab used {cpu:.2f} CPUs, load {os.getloadavg()[0]:.1f}")
    ok = cal["clean_goodput_fraction"] >= 0.95 and xoff == 0
    text = (f"calibrated: a one-flow-per-link permutation at "
            f"{cal['clean_goodput_fraction'] * 100:.1f} % of line (>= 95 %) with XOFF {xoff} (0); "
            f"the lab had {cpu:.2f} CPUs at load {cal['loadavg']:.1f}")
    cal["ok"] = ok
    # A full run's results count only on a calibrated lab; a smoke (CI, on whatever the
    # machine has left) reports it. Drops are a fault either way: nothing may be lost.
    (exp.observe if exp.smoke else exp.check)(ok, text)
    exp.check(drops == 0, f"calibration: no drops in the clean permutation ({reasons or 0})")
    return cal


def report_lines(cal):
    """The report's calibration paragraph."""
    if not cal:
        return ["- calibration: not run"]
    return [f"- calibration (measured before the runs): base RTT {cal['base_rtt_us']:.0f} µs "
            f"(64 B ping-pong across leaf-spine-leaf; min {cal['base_rtt_min_us']:.0f}, p90 "
            f"{cal['base_rtt_p90_us']:.0f}), link {cal['link_bps'] / 1e6:.0f} Mb/s, BDP "
            f"{cal['bdp_bytes']} B ({cal['bdp_bytes'] / cal['packet_wire_bytes']:.1f} "
            f"packets of {cal['packet_wire_bytes']} B on the wire); a one-flow-per-link "
            f"permutation reached {cal['clean_goodput_fraction'] * 100:.1f} % of line "
            f"(slowest flow {cal['clean_goodput_min_fraction'] * 100:.1f} %) with "
            f"{cal['clean_xoff']} XOFF and {cal['clean_drops']} drops; hosts pace at "
            f"{cal['pace'] * 100:.0f} % of their link, memif rings of {cal['ring_slots']} "
            "slots"]
