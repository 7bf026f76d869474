#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""How many FPM route changes per second railsw absorbs while it forwards, and whether
any frame to a prefix that did not change is lost (docs/routing.md "Measured").

A railsw with the pkt-tests' three TAP ports and an FPM listener; a client (lib/fpm.py,
no FRR) installs one stable FPM route, then blasts N adds of distinct /24s and N deletes
of them in frames of --batch messages, as fast as TCP takes them. Meanwhile a thread sends
UDP frames at a fixed rate into p0 towards the stable FPM prefix and a static prefix, and a
capture on p1 and p2 counts what comes out. Reports the changes per second (from the
first add sent until `show routes` shows the last change applied), the table generations
built, and frames sent / received on the unchanged prefixes.

Run as root, under the lab lock:
  flock /tmp/railsw-net.lock perf/fpm_rate.py [--routes 20000] [--batch 50] [--pps 500]
"""

import argparse
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "pkt-tests", "lib"))

import fpm  # noqa: E402
from frr import free_port  # noqa: E402
import railsw  # noqa: E402
import topo  # noqa: E402
from topo import HOST_IP, udp4  # noqa: E402


def prefixes(n):
    return ["%d.%d.%d.0/24" % (11 + i // 65536, i // 256 % 256, i % 256) for i in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--routes", type=int, default=20000, help="routes added, then deleted")
    ap.add_argument("--batch", type=int, default=50, help="messages per FPM frame")
    ap.add_argument("--pps", type=int, default=500, help="frames per second to each prefix")
    ap.add_argument("--build", default=os.environ.get("RAILSW_BUILD", "build"))
    a = ap.parse_args()
    build = a.build if os.path.isabs(a.build) else os.path.join(railsw.REPO, a.build)
    port = free_port()
    cfg = topo.three_ports(control={"fpm": {"listen": f"127.0.0.1:{port}", "stale_s": 10}})
    railsw.cleanup_stale()
    with topo.running(build, cfg) as sw:
        inj = railsw.Injector()
        c = fpm.Client(port)
        c.send(fpm.frame(fpm.route("10.50.0.0/16", [HOST_IP["p1"]])))
        railsw.wait_until(lambda: any(r["prefix"] == "10.50.0.0/16" and r["active"]
                                      for r in sw.ctl("show", "routes")["routes"]), 5)
        stop = threading.Event()
        sent = {"fpm": 0, "static": 0}

        def traffic():
            frames = {"fpm": udp4(sw, "p0", "10.50.1.1"), "static": udp4(sw, "p0", "10.20.1.1")}
            t0 = time.monotonic()
            i = 0
            while not stop.is_set():
                for k, f in frames.items():
                    inj.send(sw.tap["p0"], f)
                    sent[k] += 1
                i += 1
                delay = t0 + i / a.pps - time.monotonic()
                if delay > 0:
                    time.sleep(delay)

        g0 = sw.ctl("show", "fpm")["fpm"]["generations"]
        with railsw.Capture([sw.tap["p1"]]) as cap:
            th = threading.Thread(target=traffic)
            th.start()
            time.sleep(0.5)
            pfx = prefixes(a.routes)
            t0 = time.monotonic()
            for i in range(0, len(pfx), a.batch):
                c.send(fpm.frame(*[fpm.route(p, [HOST_IP["p2"]]) for p in pfx[i:i + a.batch]]))
            railsw.wait_until(lambda: sw.ctl("show", "fpm")["fpm"]["routes_active"] ==
                              a.routes + 1, 120, interval=0.02, what="all routes active")
            t_add = time.monotonic() - t0
            t1 = time.monotonic()
            for i in range(0, len(pfx), a.batch):
                c.send(fpm.frame(*[fpm.route(p, delete=True) for p in pfx[i:i + a.batch]]))
            railsw.wait_until(lambda: sw.ctl("show", "fpm")["fpm"]["routes"] == 1, 120,
                              interval=0.02, what="all routes deleted")
            # The RIB is empty; the generation holding the last deletes follows within
            # one batch interval (RSW_FPM_BATCH_MS).
            g = sw.ctl("show", "fpm")["fpm"]["generations"]
            try:
                railsw.wait_until(lambda: sw.ctl("show", "fpm")["fpm"]["generations"] > g,
                                  0.2, interval=0.01)
            except TimeoutError:
                pass
            t_del = time.monotonic() - t1
            time.sleep(0.5)
            stop.set()
            th.join()
            got = cap.collect(timeout=2, quiet=0.5)
        st = sw.ctl("show", "fpm")["fpm"]
        n_p1 = len(got)
        c.close()
        inj.close()
        print(f"routes: {a.routes} added in {t_add:.2f} s ({a.routes / t_add:.0f}/s), "
              f"deleted in {t_del:.2f} s ({a.routes / t_del:.0f}/s), frames of {a.batch}")
        print(f"generations built: {st['generations'] - g0}, errors: {st['errors']}")
        print(f"traffic to unchanged prefixes (10.50.0.0/16 FPM, 10.20.0.0/16 static, both "
              f"out of p1): sent {sent['fpm'] + sent['static']}, received {n_p1}, "
              f"lost {sent['fpm'] + sent['static'] - n_p1}")


if __name__ == "__main__":
    main()
