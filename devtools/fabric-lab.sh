#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
#
# A leaf-spine fabric of railsw switches on one machine (docs/fabric-lab.md).
#
# Usage: devtools/fabric-lab.sh up [OPTIONS] [TOPOLOGY_FILE]   build the fabric (default config/fabric-lab.yaml)
#        devtools/fabric-lab.sh status                processes, links, admin state, counters, CPU
#        devtools/fabric-lab.sh ping                  ping, tracepath and ECMP over the spines
#        devtools/fabric-lab.sh check-lldp            compare each switch's LLDP neighbours with the plan
#        devtools/fabric-lab.sh failover link|stop    measure how long flows take to move off a spine
#        devtools/fabric-lab.sh down                  stop and remove everything
#        devtools/fabric-lab.sh impair LINK WORDS...  injected faults on both ends of a link
# up OPTIONS: --bgp (FRR on every switch: eBGP unnumbered, BFD; routes over FPM),
#   --numbered (with --bgp: sessions over the /31s), --no-bfd (with --bgp: hold timer only),
#   --lldp (kernel interfaces and lldpd without BGP; --bgp implies it),
#   --miscable (swap two cables of the last spine on purpose),
#   --cbfc (credit-based flow control on every leaf-spine link, for lossless TC 3 = DSCP 26)
#
# devtools/fabric_lab.py does the work (this file runs it). `up` asks `railctl
# plan --json` for every switch, cable and address of the topology, writes one
# railsw configuration per switch into the state directory, starts one railsw
# per switch (its own --file-prefix; spines first), links leaves to spines over
# memif (one socket per cable: the spine is the server), and puts every server
# in a network namespace holding the TAP of its leaf downlink, with its address
# and a default route via the leaf's .254. A lab that is (half) up is torn down
# first. `down` stops every railsw by PID (SIGTERM, bounded wait, SIGKILL),
# removes the namespaces, memif sockets, the state directory and stale
# /var/run/dpdk/<prefix> directories. `impair LINK WORDS...` runs `railctl port
# NAME impair WORDS...` on both ends of a leaf-spine link (docs/link.md): LINK
# is SWITCH:PORT of either end (leaf0:up0) or LEAF--SPINE (the first link
# between them); WORDS as railctl's (loss 0.01 seed 3, or off).
#
# Environment (all optional):
#   RAILSW_BUILD         meson build directory (default: build)
#   RAILSW_LAB_STATE     state directory (default: /run/railsw/fabric)
#   RAILSW_LAB_TAG       1-8 letters/digits naming this lab's objects (default: rf):
#                        EAL prefixes <tag>-<switch>, TAPs <tag><leaf>d<server>,
#                        namespaces <tag>-<server>
#   RAILSW_LAB_MEM       EAL -m per railsw, MB (default: 256, with --no-huge; 384 with --bgp,
#                        whose route updates build a second generation of tables, as
#                        `railctl reload` does, which needs 320)
#   RAILSW_LAB_LCORES    EAL -l for every railsw (default: 0,1)
#   RAILSW_LAB_IDLE_US   switch.idle_sleep_us (default: 1000)
#   RAILSW_LAB_BFD_MS    BFD transmit and receive interval with --bgp (default: 300; x3 to detect)
#   RAILSW_LAB_FRR_DEBUG 1: FRR logs at level debugging, with BGP neighbour events, BFD,
#                        zebra RIB and FPM debugs (default: 0)
# With --bgp or --lldp each switch has kernel interfaces in namespace <tag>-sw-<switch>,
# where its zebra (dplane_fpm_nl to railsw), bgpd, bfdd and lldpd run, each with its
# pid file, sockets and log in STATE/frr/<switch>/ and STATE/lldp/<switch>/ (never the
# packaged services).
# Must run as root (TAP devices, network namespaces).

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The messages name the lab as it was called.
export _FABRIC_LAB_ME="$0"
exec /usr/bin/python3 "$root/devtools/fabric_lab.py" "$@"
