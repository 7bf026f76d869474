# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Fluid models of the experiments' fabrics: what a flow gets at best.

Flows share links max-min fairly (progressive filling: raise every unfrozen flow's rate
together until a link fills, freeze its flows, repeat). With ECMP hashing a flow is
unsplittable: it takes one of the equal-cost links at random (each hash seed is one
draw); with per-packet spraying it is split evenly over all of them. Rates are in units
of the line rate (every link 1.0).

    python3 perf/experiments/fluid.py      # the elephants fabric's hash and spray figures
"""

import random
import statistics


def max_min(flows, cap=1.0):
    """FLOWS: one list of (link, weight) per flow (weight: the flow's share on that link,
    1 for an unsplittable flow). Return each flow's max-min fair rate."""
    rate = [0.0] * len(flows)
    frozen = [False] * len(flows)
    links = {l for f in flows for l, _ in f}
    used = {l: 0.0 for l in links}
    while not all(frozen):
        # The smallest increment that fills a link, over the unfrozen flows' weights on it.
        step = None
        for l in links:
            w = sum(wt for i, f in enumerate(flows) if not frozen[i] for ll, wt in f if ll == l)
            if w > 0:
                s = (cap - used[l]) / w
                step = s if step is None else min(step, s)
        if step is None:
            break
        for i, f in enumerate(flows):
            if not frozen[i]:
                rate[i] += step
                for l, wt in f:
                    used[l] += step * wt
        full = {l for l in links if used[l] >= cap - 1e-9}
        for i, f in enumerate(flows):
            if not frozen[i] and any(l in full for l, _ in f):
                frozen[i] = True
    return rate


def leaf_spine_paths(pairs, leaf_of, spines, spray, rnd, qps=1):
    """Links of each flow of PAIRS (src, dst) in a 2-tier leaf-spine fabric: host uplink,
    leaf uplink to a spine, spine downlink to the destination leaf, host downlink. With
    QPS > 1 a flow is QPS unsplittable sub-flows, hashed independently."""
    flows = []
    for s, d in pairs:
        ls, ld = leaf_of[s], leaf_of[d]
        base = [(("h-up", s), 1.0), (("h-down", d), 1.0)]
        if ls == ld:
            flows.append([(base[0][0], 1.0), (base[1][0], 1.0)])
            continue
        if spray:
            f = base + [(("up", ls, k), 1.0 / spines) for k in range(spines)] + \
                [(("down", k, ld), 1.0 / spines) for k in range(spines)]
            flows.append(f)
            continue
        sub = []
        for _ in range(qps):
            k = rnd.randrange(spines)
            sub.append(k)
        w = 1.0 / qps
        f = base + [(("up", ls, k), w) for k in sub] + [(("down", k, ld), w) for k in sub]
        flows.append(_merge(f))
    return flows


def _merge(f):
    out = {}
    for l, w in f:
        out[l] = out.get(l, 0.0) + w
    return list(out.items())


def elephants(spray=False, qps=1, draws=20000, seed=1, leaves=2, hosts=4, spines=4):
    """The elephants experiment's permutation (every host of one leaf sends one flow to a
    host of the other): mean share and slowest flow's share of line, averaged over hash
    draws, and their distributions."""
    rnd = random.Random(seed)
    means, slows = [], []
    for _ in range(1 if spray else draws):
        leaf_of, pairs = {}, []
        for l in range(leaves):
            for h in range(hosts):
                leaf_of[(l, h)] = l
        perm = list(range(hosts))
        rnd.shuffle(perm)
        for l in range(leaves):
            for h in range(hosts):
                pairs.append(((l, h), ((l + 1) % leaves, perm[h])))
        r = max_min(leaf_spine_paths(pairs, leaf_of, spines, spray, rnd, qps))
        means.append(statistics.mean(r))
        slows.append(min(r))
    return {"mean_share": statistics.mean(means), "slowest_share": statistics.mean(slows),
            "mean_shares": means, "slowest_shares": slows}


def traffic_matrix(demands, leaf_of, spines, spray, rnd):
    """Max-min rates of a traffic matrix DEMANDS [(src, dst)] (hash: unsplittable, spray:
    splittable) in a 2-tier fabric; the collectives' fluid bound uses it."""
    return max_min(leaf_spine_paths(demands, leaf_of, spines, spray, rnd))


if __name__ == "__main__":
    for name, kw in (("hash", {}), ("hash-qp4", {"qps": 4}), ("spray", {"spray": True})):
        r = elephants(**kw, draws=4000)
        print(f"{name:9s} mean share {r['mean_share']:.3f}  slowest {r['slowest_share']:.3f}")
