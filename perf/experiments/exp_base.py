# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""What the experiments of experiments.py share: the QoS and load-balancing configuration
they give the switches, and Exp (runs, counters, agreement checks, results and report)."""

import datetime
import json
import os
import statistics
import subprocess
import time

import calib


ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# DSCP plan (the lab's, as config/uet-trim-lab.yaml): 8 bulk (TC 0, lossy), 10 UET
# trimmable (TC 1), 11/21 trimmed (TC 2), 26 RoCE/UET data (TC 3), 34 small messages
# (TC 5), 46 control (TC 7), 48 CNP (TC 6).
DSCP_MAP = "{ 8: 0, 10: 1, 11: 2, 21: 2, 26: 3, 34: 5, 46: 7, 48: 6 }"
# PFC headroom of the lossless class: what can arrive after an XOFF on the lab's memif
# links (calib.RING_LOG2 explains the sum).
HEADROOM = "224KB"
# The lossless class's PFC thresholds: XOFF above what a switch back from a few ms away puts
# into its peer at once (with 32 KB a clean sprayed permutation on rails' fabric paused 2-3
# times in 2 s on a quiet machine; with 64 KB none).
XOFF, XON = "64KB", "32KB"


def qos_yaml(lossless=True, ecn=None, trim=False, queue_limit="64KB", dwrr="{ 0: 1, 1: 4, 2: 1, 3: 4 }",
             total="4MB", xoff=XOFF, xon=XON, headroom=None, trim_threshold="32KB",
             quanta=65535):
    headroom = headroom or HEADROOM
    y = ["qos:", "  trust: dscp", f"  dscp_to_tc: {DSCP_MAP}", "  default_tc: 0",
         f"  scheduler: {{ strict: [7, 6], dwrr: {dwrr} }}",
         f"  lossless: [{'3' if lossless else ''}]",
         "  buffer:", f"    total: {total}", f"    queue_limit: {queue_limit}"]
    if lossless:
        y.append(f"    pfc: {{ xoff: {xoff}, xon: {xon}, headroom: {headroom}, quanta: {quanta} }}")
        # A storm is a TC paused 2 s without progress: the lab's time runs about 100x
        # slower than a 400G fabric's (its RTT), and a switch process descheduled on busy
        # CPUs holds its XON back for tens of ms (the default 200 ms dropped frames there).
        y.append("  pfc_watchdog: { detect_ms: 2000, restore_ms: 2000, action: drop }")
    if ecn:
        y.append("  ecn:")
        for tc, (kmin, kmax, pmax) in ecn.items():
            y.append(f"    {tc}: {{ kmin: {kmin}, kmax: {kmax}, pmax: {pmax} }}")
        y.append("  ecn_mark_point: dequeue")
    if trim:
        y += ["  trim:", "    tcs: [1]", f"    threshold: {trim_threshold}", "    size: 128", "    dscp: 11",
              "    dscp_lasthop: 21", "    tc: 2"]
    y.append("  cnp: { tc: 6 }")
    return "\n".join(y)


def lb_yaml(mode="hash", seed=1, flowlet_us=2000):
    def f(sw):
        s = seed * 2 + (0 if sw["tier"] == "leaf" else 1)
        return "\n".join([
            "load_balance:", f"  mode: {mode}",
            "  hash_fields: [src_ip, dst_ip, proto, src_port, dst_port]",
            f"  hash_seed: {s}", "  spray: round-robin", f"  flowlet_timeout_us: {flowlet_us}"])
    return f


class Failed(Exception):
    pass


class Exp:
    """Common machinery: fabric, runs, counters, checks, output."""

    name = "?"
    title = "?"
    SMOKE_RUNS = 1   # runs per mode of --smoke without --runs
    RUNS_TABLE = True  # report.md lists every run (experiments with their own table: False)

    def __init__(self, a):
        self.a = a
        self.out = a.out
        self.smoke = a.smoke
        self.runs_n = a.runs
        self.runs = []
        self.checks = []     # (ok, text)
        self.observed = []   # (seen, text): expected directions reported, not asserted
        self.notes = []
        self.config = {}
        self.calibration = None
        self.fabric = None
        self.commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                     capture_output=True, text=True).stdout.strip() or "?"
        self.date = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
        self.only = set(a.modes.split(",")) if getattr(a, "modes", None) else None

    def modes(self):
        """The modes this invocation runs (--modes filters them)."""
        return [m for m in self.MODES if self.only is None or m in self.only]

    def log(self, *a):
        print(f"[{self.name}]", *a, flush=True)

    def check(self, ok, text):
        self.checks.append((bool(ok), text))
        self.log(("PASS " if ok else "FAIL ") + text)

    def observe(self, ok, text):
        """A direction the published results lead one to expect that this lab does not
        reproduce reliably yet: reported (in the log and report.md), not asserted."""
        self.observed.append((bool(ok), text))
        self.log(("SEEN " if ok else "NOT SEEN ") + text)

    # ---- one run -----------------------------------------------------------

    def host_params(self, duration, extra=None):
        p = {"duration_s": duration, "max_s": duration + 40, "drain_s": 5, "payload": 1024,
             "window": 256, "ack_every": 4, "rto_ms": 100, "idle_us": 20, "bin_ms": 10,
             "dcqcn_time_scale": 20, "ctrl_dscp": 46, "cnp_dscp": 48, "trim_dscp": 11,
             "trim_dscp_lasthop": 21}
        p.update(extra or {})
        return p

    def run_once(self, fab, mode, transport, run, hosts, flows, params, sample_port=None):
        fab.clear()
        series = {"t": [], "depth": {}}
        sampler = None
        if sample_port:
            tcs = sample_port[0][2]

            def sampler(stop_ev, t0):
                while not stop_ev.is_set():
                    series["t"].append(time.time())  # on the hosts' clock below
                    for sw, port, _ in sample_port:
                        d = 0
                        try:
                            q = fab.ctl[sw](f"show queues {port}", timeout=1)["queues"]
                            d = sum(r["depth_bytes"] for r in q if r["tc"] in tcs)
                        except (OSError, ValueError, KeyError):
                            pass
                        series["depth"].setdefault(f"{sw}:{port}", []).append(d)
                    stop_ev.wait(0.02)
        tag = f"{mode}-{run}".replace("+", "_").replace("/", "_")
        stats, sw_cpu, wall, log = fab.run_hosts(
            hosts, flows, params, os.path.join(self.out, f"hosts-{tag}.json"),
            timeout=params["max_s"] + 30, sampler=sampler)
        snap = fab.snapshot()
        # The sampler's times on the hosts' clock: rswhost's time 0 (its flows' start_s) is
        # after its EAL start, its links and settle_ms, which the sampler does not see.
        t0h = stats.get("t0_unix")
        series["t"] = [round(x - t0h, 3) for x in series["t"]] if t0h else []
        cpu_total = sum(sw_cpu.values()) + stats["cpu_s"]
        rec = {"mode": mode, "transport": transport, "run": run,
               "flows": [self.flow_record(f) for f in stats["flows"]],
               "switches": self.switch_counters(fab, snap),
               "hosts": stats["hosts"], "dcqcn": stats["dcqcn"],
               "cpu": {"switches_s": {k: round(v, 2) for k, v in sw_cpu.items()},
                       "hosts_s": round(stats["cpu_s"], 2), "wall_s": round(wall, 2),
                       "share_of_2_cores": round(cpu_total / (2 * wall), 3)},
               "series": {"bin_s": stats["bin_s"],
                          "delivered": {str(f["id"]): f["delivered_per_bin"]
                                        for f in stats["flows"]},
                          "rate": {str(f["id"]): f["rate_per_bin_bps"] for f in stats["flows"]},
                          "queue_t": series["t"], "queue_depth": series["depth"]}}
        self.agree(fab, rec, snap, stats)
        self.runs.append(rec)
        slow = max((f["fct_s"] or 0) for f in rec["flows"])
        self.log(f"{mode} run {run}: {len(flows)} flows, slowest fct {slow:.3f} s, "
                 f"cpu {rec['cpu']['share_of_2_cores'] * 100:.0f}% of 2 cores, wall {wall:.1f} s")
        return rec

    def run_tcp(self, fab, mode, run, pairs, size, timeout=60):
        """Kernel TCP (iperf3, cubic, ECN on) between the namespaces of FAB's TAP hosts."""
        by = {h["name"]: h for h in fab.hosts}
        fab.clear()
        c0 = {n: fab.tap_counters(h) for n, h in by.items()}

        def reorder_count(h):
            out = subprocess.run(["ip", "netns", "exec", h["netns"], "nstat", "-az",
                                  "TcpExtTCPOFOQueue"], capture_output=True, text=True,
                                 timeout=10).stdout
            for line in out.splitlines():
                if line.startswith("TcpExtTCPOFOQueue"):
                    return int(line.split()[1])
            return 0
        reorder0 = {d: reorder_count(by[d]) for _, d in pairs}
        servers, clients = [], []
        for i, (s_, d) in enumerate(pairs):
            servers.append(subprocess.Popen(
                ["ip", "netns", "exec", by[d]["netns"], "iperf3", "-s", "-1", "-p",
                 str(5201 + i)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(0.5)
        t0 = time.time()
        for i, (s_, d) in enumerate(pairs):
            clients.append(subprocess.Popen(
                ["ip", "netns", "exec", by[s_]["netns"], "iperf3", "-c", by[d]["ip"], "-p",
                 str(5201 + i), "-n", str(size), "-C", "cubic", "-J", "-l", "64K"],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True))
        flows = []
        for i, c in enumerate(clients):
            try:
                out, _ = c.communicate(timeout=max(1, timeout - (time.time() - t0)))
            except subprocess.TimeoutExpired:
                c.kill()
                out, _ = c.communicate()
            s_, d = pairs[i]
            try:
                j = json.loads(out)["end"]
                sent, secs = j["sum_sent"]["bytes"], j["sum_sent"]["seconds"]
                rt = j["sum_sent"].get("retransmits", 0)
                ok = sent >= size
            except (ValueError, KeyError, TypeError):
                sent, secs, rt, ok = 0, None, 0, False
            flows.append({"id": i, "role": "background", "src": s_, "dst": d, "bytes": size,
                          "goodput_bps": sent * 8 / secs if secs else 0,
                          "fct_s": secs if ok else None, "retransmits": rt,
                          "retransmit_bytes": rt * 1448, "out_of_order": 0, "cnps": 0,
                          "transport": "tcp", "qps": 1, "entropy": "flow", "dcqcn": False,
                          "delivered_bytes": sent, "complete": ok, "nacks": 0, "trimmed": 0,
                          "timeouts": 0, "pause_s": 0, "tx_packets": None, "start_s": 0})
        for p in servers:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        wall = time.time() - t0
        for f in flows:
            # One flow per receiver: its namespace's out-of-order segments are the flow's.
            f["out_of_order"] = reorder_count(by[f["dst"]]) - reorder0[f["dst"]]
        snap = fab.snapshot()
        rec = {"mode": mode, "transport": "tcp", "run": run, "flows": flows,
               "switches": self.switch_counters(fab, snap), "hosts": [],
               "cpu": {"wall_s": round(wall, 2)}, "series": {}}
        bad = []
        for n, h in by.items():
            tx, rx = fab.tap_counters(h)
            tx -= c0[n][0]
            rx -= c0[n][1]
            p = next(p for p in snap[h["leaf"]]["ports"]["ports"] if p["name"] == h["port"])
            if p["rx_packets"] != tx or p["tx_packets"] != rx:
                bad.append(f"{n}: TAP tx/rx {tx}/{rx}, {h['leaf']}:{h['port']} rx/tx "
                           f"{p['rx_packets']}/{p['tx_packets']}")
        rec["agreement"] = {"ok": not bad, "problems": bad}
        self.check(not bad, f"{mode} run {run}: the kernel hosts' TAP counters agree with the "
                   "switch ports'" + ("" if not bad else ": " + "; ".join(bad[:3])))
        self.runs.append(rec)
        slow = max((f["fct_s"] or 0) for f in flows)
        self.log(f"{mode} run {run}: {len(flows)} TCP flows, slowest {slow:.3f} s, "
                 f"retransmits {sum(f['retransmits'] for f in flows)}")
        return rec

    @staticmethod
    def flow_record(f):
        return {k: f[k] for k in ("id", "role", "src", "dst", "bytes", "goodput_bps", "fct_s",
                                  "retransmits", "retransmit_bytes", "out_of_order", "cnps",
                                  "transport", "qps", "entropy", "dcqcn", "delivered_bytes",
                                  "complete", "nacks", "trimmed", "timeouts", "pause_s",
                                  "tx_packets", "start_s")} | {"started_s": f.get("started_s")}

    def switch_counters(self, fab, snap):
        out = {}
        for n, s in snap.items():
            ports = {p["name"]: {k: p.get(k, 0) for k in ("rx_packets", "tx_packets", "rx_bytes",
                                                          "tx_bytes", "cnp_rx", "cnp_tx")}
                     for p in s["ports"]["ports"]}
            q = {}
            for r in s["queues"]["queues"]:
                if r["enqueued_packets"] or r["dropped_packets"]:
                    q[f"{r['port']}/{r['tc']}"] = {k: r.get(k, 0) for k in (
                        "enqueued_packets", "dequeued_bytes", "dropped_packets", "ecn_marked",
                        "trimmed", "watermark_bytes", "lossless_drops")}
            pfc = {}
            for r in s["pfc"]["pfc"]:
                if r["tx_xoff"] or r["rx_xoff"]:
                    pfc[f"{r['port']}/{r['priority']}"] = {k: r.get(k, 0) for k in (
                        "tx_xoff", "tx_xon", "rx_xoff", "rx_xon", "paused_ns")}
            drops = {d["reason"]: d["packets"] for d in s["drops"]["drops"] if d["packets"]}
            reasons = {d["reason"] for d in s["drops"]["drops"]}
            if "totals" in s["drops"]:
                dropped = s["drops"]["totals"]["dropped"]
            elif "queue_drops" in reasons:  # the buffer's drops are reasons of their own
                dropped = sum(drops.values())
            else:  # an older railsw lists only the port reasons; add the queues'
                qd = sum(v["dropped_packets"] for v in q.values())
                ld = sum(v["lossless_drops"] for v in q.values())
                dropped = sum(drops.values()) + qd + ld
                if qd:
                    drops["queue_drops"] = qd
                if ld:
                    drops["lossless_drops"] = ld
            out[n] = {"ports": ports, "queues": q, "pfc": pfc, "drops": drops,
                      "dropped": dropped,
                      "trimmed": sum(v["trimmed"] for v in q.values()),
                      "ecn_marked": sum(v["ecn_marked"] for v in q.values()),
                      "tx_xoff": sum(v["tx_xoff"] for v in pfc.values()),
                      "lossless_drops": sum(v["lossless_drops"] for v in q.values())}
        return out

    def agree(self, fab, rec, snap, stats):
        """The hosts' sent, received and retransmitted counts against the switches'."""
        by = {h["name"]: h for h in fab.hosts}
        bad = []
        for h in stats["hosts"]:
            leaf, port = by[h["name"]]["leaf"], by[h["name"]]["port"]
            p = next(p for p in snap[leaf]["ports"]["ports"] if p["name"] == port)
            if p["rx_packets"] != h["tx_packets"] or p["tx_packets"] != h["rx_packets"]:
                bad.append(f"{h['name']}: host tx/rx {h['tx_packets']}/{h['rx_packets']}, "
                           f"{leaf}:{port} rx/tx {p['rx_packets']}/{p['tx_packets']}")
        sent = sum(h["tx_packets"] for h in stats["hosts"])
        got = sum(h["rx_packets"] - h["rx_pfc"] - h["rx_pause"] for h in stats["hosts"])
        dropped = sum(s["dropped"] for s in rec["switches"].values())
        trims_sw = sum(s["trimmed"] for s in rec["switches"].values())
        trims_host = sum(h["rx_trimmed"] for h in stats["hosts"])
        retx = sum(f["retransmits"] for f in rec["flows"])
        complete = all(f["complete"] for f in rec["flows"])
        if sent - dropped != got:
            bad.append(f"hosts sent {sent} frames, switches dropped {dropped}, "
                       f"hosts received {got} (not PFC)")
        # A trimmed header can itself be dropped further on (its class is lossy): the
        # hosts see at most what the switches trimmed, and the difference is among the drops.
        if not trims_host <= trims_sw <= trims_host + dropped:
            bad.append(f"switches trimmed {trims_sw}, hosts received {trims_host} trimmed, "
                       f"{dropped} dropped")
        # Every data frame dropped in a queue, or trimmed and delivered, is sent again at
        # least once (a trimmed frame dropped later is counted once, among the drops).
        qdrops = self.data_queue_drops(rec)
        if complete and retx < qdrops + trims_host:
            bad.append(f"{retx} retransmissions for {qdrops} data drops in queues and "
                       f"{trims_host} trimmed arrivals")
        ok = not bad
        rec["agreement"] = {"ok": ok, "sent": sent, "received": got, "dropped": dropped,
                            "trimmed_switch": trims_sw, "trimmed_host": trims_host,
                            "retransmits": retx, "problems": bad}
        self.check(ok, f"{rec['mode']} run {rec['run']}: host and switch counters agree "
                   f"(sent {sent} = received {got} + dropped {dropped}; trims {trims_sw}; "
                   f"retransmits {retx})" + ("" if ok else ": " + "; ".join(bad[:4])))

    @staticmethod
    def data_queue_drops(rec):
        """Drops of data frames in the queues (not the control classes 6 and 7): each needs
        at least one retransmission."""
        n = 0
        for s in rec["switches"].values():
            for k, v in s["queues"].items():
                if not (k.endswith("/6") or k.endswith("/7")):
                    n += v["dropped_packets"] + v["lossless_drops"]
        return n

    # ---- output ---------------------------------------------------------------

    def calibrate(self, topo, speed, host_speed=None, lossless_headroom=None):
        """Measure the lab first (calib.py): base RTT, BDP, clean permutation."""
        return calib.calibrate(self, topo, speed,
                               qos_yaml(lossless=True, headroom=lossless_headroom),
                               lb_yaml("spray"), host_speed=host_speed)

    def bdp(self):
        """The measured BDP in bytes (calibration), or None."""
        return self.calibration["bdp_bytes"] if self.calibration else None

    def mode_runs(self, mode):
        return [r for r in self.runs if r["mode"] == mode]

    def write(self):
        doc = {"experiment": self.name, "calibration": self.calibration,
               "config": self.config, "runs": self.runs,
               "checks": [{"ok": ok, "check": t} for ok, t in self.checks],
               "observed": [{"seen": ok, "direction": t} for ok, t in self.observed],
               "date": self.date, "commit": self.commit, "smoke": self.smoke,
               "loadavg": list(os.getloadavg())}
        doc.update(getattr(self, "doc_extra", {}))
        with open(os.path.join(self.out, "results.json"), "w") as f:
            json.dump(doc, f, indent=1)
        try:
            self.plots()
        except Exception as e:  # a plot must not hide the numbers
            self.notes.append(f"plotting failed: {e}")
            self.log(f"plotting failed: {e}")
        with open(os.path.join(self.out, "report.md"), "w") as f:
            f.write(self.report())

    def report_header(self):
        r = self.runs[0] if self.runs else {}
        dc = r.get("dcqcn", {})
        cpu = [x["cpu"]["share_of_2_cores"] for x in self.runs if "share_of_2_cores" in x["cpu"]]
        lines = [f"# {self.title}", "",
                 f"Run {self.date}, railsw commit {self.commit}"
                 f"{', smoke' if self.smoke else ''}; {self.runs_n} run(s) per mode.", "",
                 "## Setup", ""]
        for k, v in self.config.items():
            lines.append(f"- {k}: {v}")
        lines += calib.report_lines(self.calibration)
        if dc:
            lines.append(f"- DCQCN defaults at {dc['line_bps'] / 1e6:.0f} Mb/s (time scale "
                         f"{dc['time_scale']:g}): g = {dc['g']:.5f}, CNP interval "
                         f"{dc['cnp_interval_us']:.0f} µs, α interval {dc['alpha_us']:.0f} µs, "
                         f"T = {dc['timer_us']:.0f} µs, B = {dc['byte_counter']} B, "
                         f"F = {dc['f']}, R_AI = {dc['rai_bps'] / 1e3:.0f} kb/s, "
                         f"R_HAI = {dc['rhai_bps'] / 1e3:.0f} kb/s, floor "
                         f"{dc['min_bps'] / 1e3:.0f} kb/s")
        if cpu:
            lines.append(f"- CPU: {min(cpu) * 100:.0f}-{max(cpu) * 100:.0f} % of the 2 cores "
                         "over a run (switches and hosts together)")
        lines += [""]
        return lines

    def report_runs(self):
        """Every run on its own, from the counters every run has."""
        lines = ["", "## Every run", "",
                 "| mode | run | flows complete | slowest FCT s | retransmits | timeouts | "
                 "drops | lossless drops | XOFF | CPU share |", "|---|---|---|---|---|---|---|---|---|---|"]
        for r in self.runs:
            fl = r.get("flows", [])
            sw = list(r.get("switches", {}).values())
            fct = max(((f.get("fct_s") or 0) for f in fl), default=0)
            lines.append(
                f"| {r['mode']} | {r.get('run')} | {sum(1 for f in fl if f.get('complete'))}/"
                f"{len(fl)} | {fct:.3f} | {sum(f.get('retransmits', 0) for f in fl)} | "
                f"{sum(f.get('timeouts', 0) for f in fl)} | {sum(s.get('dropped', 0) for s in sw)} | "
                f"{sum(s.get('lossless_drops', 0) for s in sw)} | {sum(s.get('tx_xoff', 0) for s in sw)} | "
                f"{r.get('cpu', {}).get('share_of_2_cores', '')} |")
        return lines

    def report_checks(self):
        lines = self.report_runs() if self.RUNS_TABLE else []
        lines += ["", "## Checks", ""]
        for ok, t in self.checks:
            lines.append(f"- {'PASS' if ok else 'FAIL'}: {t}")
        for ok, t in self.observed:
            lines.append(f"- {'SEEN' if ok else 'NOT SEEN'} (reported, not asserted): {t}")
        for n in self.notes:
            lines.append(f"- note: {n}")
        return lines

    def mean(self, xs):
        xs = [x for x in xs if x is not None]
        return statistics.mean(xs) if xs else None

    def spread(self, xs):
        xs = [x for x in xs if x is not None]
        if not xs:
            return "n/a"
        if len(xs) == 1:
            return f"{xs[0]:.3f}"
        return f"{statistics.mean(xs):.3f} ({min(xs):.3f}-{max(xs):.3f})"


def plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as p
    return p
