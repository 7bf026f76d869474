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
    hdr.append("notes")
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
        row.append(row_notes(r))
        out.append(row)
    widths = [max(len(x[i]) for x in out + [hdr]) for i in range(len(hdr))]
    line = lambda cols: "  ".join(c.ljust(widths[i]) if i < 1 or i == len(hdr) - 1 else c.rjust(widths[i])
                                  for i, c in enumerate(cols))
    return "\n".join([line(hdr), line(["-" * x for x in widths])] + [line(x) for x in out])


SHARED = "shared CPUs: correctness, not a measure"


def row_notes(r):
    """A row's notes: lcores sharing CPUs; frames railsw dropped (`show drops`, all runs)."""
    notes = []
    if r.get("shared_cpus"):
        notes.append(SHARED)
    d = r.get("dropped_inside") or {}
    if d:
        notes.append("railsw dropped %d frames (%s)" % (
            sum(d.values()), ", ".join("%s %d" % kv for kv in sorted(d.items()))))
    return "; ".join(notes)


def lcore_note(workers, ncpu):
    """How the lcores sit on the CPUs, per worker count."""
    from bench_common import lcore_cpus  # noqa: E402 (the report needs no machine otherwise)
    out = []
    for w in workers:
        cpus = lcore_cpus(w)
        how = "main lcore 0@%d, workers %s" % (cpus[0], ",".join(
            "%d@%d" % (i, c) for i, c in enumerate(cpus) if i))
        if w > ncpu:
            how += " (%s)" % SHARED
        elif w + 1 > ncpu:
            how += " (the control thread shares CPU %d with a worker; counts)" % cpus[0]
        out.append("workers=%d: %s" % (w, how))
    return "lcores (%d CPUs): " % ncpu + "; ".join(out)


def scaling(rows):
    """Throughput with w workers over one worker's, railsw and testpmd io measured in the same
    run (testpmd's ratio is what the machine itself gives), and railsw's ratio over testpmd's."""
    one = {(r["scenario"], r["size"]): r for r in rows if r["workers"] == 1}
    lines = []
    for r in rows:
        b = one.get((r["scenario"], r["size"]))
        if r["workers"] == 1 or b is None:
            continue
        rat = lambda k: r[k]["median"] / b[k]["median"] \
            if isinstance(r.get(k), dict) and isinstance(b.get(k), dict) and b[k]["median"] > 0 \
            else None
        rs, tp = rat("railsw"), rat("testpmd")
        f = lambda v: "-" if v is None else "%.2fx" % v
        lines.append("%-12s %5d %3d  %8s  %8s  %12s  %s" % (
            r["scenario"], r["size"], r["workers"], f(rs), f(tp),
            "-" if rs is None or tp is None else "%.2f" % (rs / tp),
            SHARED if r.get("shared_cpus") else ""))
    if not lines:
        return ""
    hdr = "%-12s %5s %3s  %8s  %8s  %12s" % ("scaling", "size", "wk", "railsw", "testpmd",
                                               "rsw/testpmd")
    return "\n".join([hdr] + lines + [
        "scaling = Mpps with wk workers / Mpps with one worker (medians, same run); "
        "rsw/testpmd = railsw's ratio over testpmd io's"])
