#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Write the seed corpus of fuzz_fpm (fuzz/corpus/fuzz_fpm/): FPM streams as zebra's
dplane_fpm_nl sends them, built with pkt-tests/lib/fpm.py. Run from the repository root:
python3 fuzz/gen_fpm_corpus.py
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "pkt-tests", "lib"))
import fpm  # noqa: E402

OUT = os.path.join(HERE, "corpus", "fuzz_fpm")


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {
        "add-v4": fpm.frame(fpm.route("10.9.0.0/16", ["10.0.1.1"])),
        "add-v6-multipath": fpm.frame(fpm.route("fd00:9::/48", ["fd00:2::1", ("fd00:3::1", 3)])),
        "delete-add": fpm.frame(fpm.route("10.9.0.0/16", delete=True),
                                fpm.route("10.9.0.0/16", ["10.0.1.1", "10.0.1.2"])),
        "rfc8950": fpm.frame(fpm.route("10.8.0.0/16", ["169.254.0.1"], oif=5, onlink=True)),
        "nhobj": fpm.frame(fpm.nexthop(10, "10.0.1.1"), fpm.nexthop(11, "10.0.1.2"),
                           fpm.nexthop(20, group=[(10, 1), (11, 2)]),
                           fpm.route("10.7.0.0/16", nh_id=20)),
        "nhobj-delete": fpm.frame(fpm.nexthop(10, "10.0.1.1"), fpm.route("10.7.0.0/16", nh_id=10))
        + fpm.frame(fpm.nexthop(10, delete=True)),
        "blackhole": fpm.frame(fpm.route("10.6.0.0/16", ["10.0.1.1"], rtype=fpm.RTN_BLACKHOLE)),
        "table": fpm.frame(fpm.route("10.5.0.0/16", ["10.0.1.1"], table=1000)),
        "unknown-attr": fpm.frame(fpm.route("10.4.0.0/16", ["10.0.1.1"],
                                            extra=fpm.attr(200, b"xyz"))),
        "default": fpm.frame(fpm.route("0.0.0.0/0", ["10.0.1.1"], proto=fpm.RTPROT_OSPF)),
        "truncated": fpm.frame(fpm.route("10.3.0.0/16", ["10.0.1.1"]))[:-6],
        "short-length": fpm.frame(fpm.route("10.3.0.0/16", ["10.0.1.1"]), length=3),
        "many": b"".join(fpm.frame(fpm.route("10.%d.%d.0/24" % (100 + i // 250, i % 250),
                                             ["10.0.1.1"])) for i in range(40)),
    }
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
