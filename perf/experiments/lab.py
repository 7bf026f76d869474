# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""The experiments' lab: the fabric lab's orchestrator (devtools/fabric_lab.py, the one
devtools/fabric-lab.sh runs) with rswhost playing the servers, devtools/fabric_lab_rswhost.py.

`Fabric` asks `railctl plan --json` for the switches and cables of a topology, writes one
railsw configuration per switch (memif everywhere: a leaf downlink is the memif server of
one host, a spine downlink the server of one leaf uplink), starts the switches (spines
first), talks to their control sockets, and runs one rswhost process that plays every
host. The experiments import it from here."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "devtools"))

from fabric_lab_rswhost import Ctl, Fabric, proc_cpu, rate  # noqa: E402

__all__ = ["Ctl", "Fabric", "proc_cpu", "rate"]
