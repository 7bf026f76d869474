# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""perf/bench.py's report: the callgrind output reader, medians, cycles per packet and the
table."""

import os
import re
import statistics


# --------------------------------------------------------------------------- callgrind

def callgrind_costs(path):
    """Self cost (Ir) per (object, function) in a callgrind output file (one event, line
    positions): the cost lines of each fn= block, less the inclusive cost lines that follow
    calls=. Names may be compressed: "(id) name" defines, "(id)" refers."""
    names = {"ob": {}, "fn": {}}
    ob = fn = None
    skip = False
    cost = {}
    with open(path) as f:
        for line in f:
            if line.startswith(("ob=", "fn=", "cob=", "cfn=")):
                key, _, val = line.rstrip("\n").partition("=")
                m = re.match(r"\((\d+)\)(?: (.*))?$", val)
                if m:
                    if m.group(2) is not None:
                        names[key[-2:]][m.group(1)] = m.group(2)
                    val = names[key[-2:]].get(m.group(1), val)
                if key == "ob":
                    ob = val
                elif key == "fn":
                    fn = val
            elif line.startswith("calls="):
                skip = True
            elif line[:1] in "+-*0123456789":
                if skip:
                    skip = False
                    continue
                parts = line.split()
                if len(parts) >= 2:
                    cost[(ob, fn)] = cost.get((ob, fn), 0) + int(parts[1])
    return cost


def callgrind_summary(cost, packets):
    """Instructions per packet: by part (railsw, pcap PMD, FIB, the rest) and railsw's
    functions, largest first."""
    parts = {"railsw": 0, "pcap PMD": 0, "FIB": 0, "other": 0}
    funcs = {}
    for (ob, fn), ir in cost.items():
        base = os.path.basename(ob or "")
        if base == "railsw":
            parts["railsw"] += ir
            funcs[fn] = funcs.get(fn, 0) + ir
        elif "net_pcap" in base:
            parts["pcap PMD"] += ir
        elif "rte_fib" in base:
            parts["FIB"] += ir
        else:
            parts["other"] += ir
    per = lambda ir: round(ir / packets, 1)
    top = sorted(funcs.items(), key=lambda kv: -kv[1])
    return dict(packets=packets, ir_per_packet={k: per(v) for k, v in parts.items()},
                railsw_functions=[(f, per(v)) for f, v in top if v >= packets / 10])


# --------------------------------------------------------------------------- report

def run_cycles(r, workers=1):
    """Cycles per packet of one run: its core clock (measured around it) x workers / pps."""
    return r["core_hz"] * workers / (r["tx_mpps"] * 1e6)


def summary(vals):
    if not vals:
        return None
    return dict(median=statistics.median(vals), min=min(vals), max=max(vals), n=len(vals))


def fmt_rate(s):
    if s is None:
        return "-"
    if isinstance(s, str):
        return s
    if s["n"] == 1:
        return "%.2f" % s["median"]
    return "%.2f [%.2f-%.2f]" % (s["median"], s["min"], s["max"])


def cyc(hz, s, workers):
    """Median cycles/packet over the runs (each with its own measured clock)."""
    if not isinstance(s, dict) or s["median"] <= 0:
        return None
    return s["cycles"]["median"]


def table(rows, hz):
    with_ovs = any(isinstance(r.get("ovs"), dict) for r in rows)
    hdr = ["scenario", "size", "wk", "railsw Mpps", "cyc/pkt", "l3fwd Mpps", "cyc/pkt",
           "testpmd Mpps", "cyc/pkt", "rsw-floor", "l3fwd-floor", "rsw/l3fwd"]
    if with_ovs:
        hdr += ["ovs Mpps", "cyc/pkt", "rsw/ovs"]
    out = []
    for r in rows:
        w = r["workers"]
        c = {k: cyc(hz, r.get(k), w) for k in ("railsw", "l3fwd", "testpmd", "ovs")}
        f = lambda v: "-" if v is None else "%.0f" % v
        above = lambda k: None if c[k] is None or c["testpmd"] is None else c[k] - c["testpmd"]
        ratio = lambda k: "-" if c["railsw"] is None or c[k] is None else \
            "%.2fx" % (r["railsw"]["median"] / r[k]["median"])
        l3 = fmt_rate(r["l3fwd"]) + ("*" if r.get("l3fwd_ref") else "")
        row = [r["scenario"], str(r["size"]), str(w), fmt_rate(r["railsw"]), f(c["railsw"]),
               l3, f(c["l3fwd"]), fmt_rate(r["testpmd"]), f(c["testpmd"]),
               f(above("railsw")), f(above("l3fwd")), ratio("l3fwd")]
        if with_ovs:
            row += [fmt_rate(r.get("ovs")), f(c["ovs"]), ratio("ovs")]
        out.append(row)
    widths = [max(len(x[i]) for x in out + [hdr]) for i in range(len(hdr))]
    line = lambda cols: "  ".join(c.ljust(widths[i]) if i < 1 else c.rjust(widths[i])
                                  for i, c in enumerate(cols))
    return "\n".join([line(hdr), line(["-" * x for x in widths])] + [line(x) for x in out])
