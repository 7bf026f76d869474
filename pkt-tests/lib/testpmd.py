# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""dpdk-testpmd as a peer of railsw in the packet tests (the "VM" of a
vhost-user port): started in interactive mode on a virtio_user (or any) vdev,
driven through its prompt, stopped by PID.

Memory: virtio_user hands its memory to the vhost-user back end as file
descriptors, so it must be shareable. Without hugepages, DPDK 22.11's
`--no-huge --single-file-segments` backs memory with one memfd, which works;
plain `--no-huge` (anonymous memory) does not. With a hugetlbfs mount, pass
huge_dir instead.
"""

import os
import re
import shutil
import subprocess
import threading

import railsw


class TestPmdError(Exception):
    """testpmd did not start or answer as expected."""


class TestPmd:
    """One dpdk-testpmd process. args: testpmd application arguments (after --)."""

    _seq = 0

    def __init__(self, vdevs, args=(), lcores="0,1", mem=512, huge_dir=None):
        TestPmd._seq += 1
        # rswt-<pid>-<n>: cleanup_stale() removes the runtime dir of a killed run.
        self.prefix = f"rswt-{os.getpid()}-{900 + TestPmd._seq}"
        eal = ["-l", lcores, "--no-pci", "--file-prefix", self.prefix, "-m", str(mem)]
        if huge_dir:
            eal += ["--huge-dir", huge_dir]
        else:
            eal += ["--no-huge", "--single-file-segments"]
        for v in vdevs:
            eal += ["--vdev", v]
        # stdbuf: testpmd's stdio output to a pipe would otherwise wait in a buffer.
        self.cmd = ["stdbuf", "-o0", "-e0", "dpdk-testpmd"] + eal + ["--", "-i", "--total-num-mbufs=4096"] + list(args)
        self.out = []
        self.lock = threading.Lock()
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, bufsize=0)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        try:
            self._wait_prompt(0, timeout=30)
        except TestPmdError:
            self.kill()
            raise

    def _read(self):
        # Raw chunks, not lines: the prompt "testpmd> " ends without a newline.
        fd = self.proc.stdout.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            with self.lock:
                self.out.append(chunk.decode(errors="replace"))

    def text(self, since=0):
        with self.lock:
            return "".join(self.out[since:])

    def _wait_prompt(self, since, timeout):
        def ready():
            if self.proc.poll() is not None:
                raise TestPmdError(f"testpmd exited with {self.proc.returncode}:\n"
                                   + self.text()[-3000:])
            return "testpmd> " in self.text(since)
        try:
            railsw.wait_until(ready, timeout, interval=0.05, what="the testpmd prompt")
        except TimeoutError as e:
            raise TestPmdError(f"{e}\n{self.text()[-3000:]}") from None

    def command(self, line, timeout=10):
        """Send one command; return what testpmd printed up to its next prompt."""
        with self.lock:
            since = len(self.out)
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()
        self._wait_prompt(since, timeout)
        return self.text(since)

    def port_stats(self, port=0):
        """{"rx_packets", "rx_bytes", "tx_packets", "tx_bytes"} of `show port stats`."""
        out = self.command(f"show port stats {port}")
        m_rx = re.search(r"RX-packets:\s*(\d+)\s+RX-missed:\s*\d+\s+RX-bytes:\s*(\d+)", out)
        m_tx = re.search(r"TX-packets:\s*(\d+)\s+TX-errors:\s*\d+\s+TX-bytes:\s*(\d+)", out)
        if not m_rx or not m_tx:
            raise TestPmdError(f"cannot parse port stats:\n{out}")
        return {"rx_packets": int(m_rx.group(1)), "rx_bytes": int(m_rx.group(2)),
                "tx_packets": int(m_tx.group(1)), "tx_bytes": int(m_tx.group(2))}

    def stop(self, timeout=15):
        """quit, then wait (bounded); SIGKILL by PID if it hangs."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b"quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=timeout)
            except (OSError, subprocess.TimeoutExpired):
                self.kill()
        self._forget()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self._forget()

    def _forget(self):
        shutil.rmtree(os.path.join(railsw.RUN_DPDK, self.prefix), ignore_errors=True)
