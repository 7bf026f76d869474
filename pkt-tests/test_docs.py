# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""Docs whose recipes run: the command blocks of README.md and docs/*.md.

The convention (docs/lab.md, "Recipes in these docs"):

- a fenced block with the info string `sh` is a recipe: this file runs it;
- `sh illustration` is shown and not run (long runs, hardware, the network, changes
  to the machine such as hugepages);
- any other block (no info string, `yaml`, `python`, ...) is output, a diagram or
  a config excerpt, never commands to paste: test_blocks_are_marked fails on one
  that looks like commands.

The recipes of one document run in order, each as `bash -e -o pipefail` from a
scratch directory that looks like the repository (every top-level entry linked,
`build` pointing at RAILSW_BUILD, build/control on PATH), as root, with `sudo`
a shell function where sudo is not installed. HTML comment lines right before a
fence steer the run and are invisible to a reader:

    <!-- test: background -->       start the block and go on (a switch in the
                                     foreground of its own terminal); stopped by
                                     SIGTERM to its process group after the document
    <!-- test: ready=CMD -->        then poll CMD until it exits 0 (at most 30 s)
    <!-- test: check=CMD -->        after the block, CMD must exit 0 (what the
                                     text says the reader will see)
    <!-- test: timeout=N -->        seconds for the block (default 60)

Every process a block starts is tracked wherever it goes (a daemon that forks and
calls setsid, as `zebra -d` does, leaves the block's process group but not its
cgroup): one still running when its block is over (a foreground block has exited,
a background one was stopped) fails the test, named, and is killed. A recipe
stops what it starts, or runs it in the foreground of a background block.

Namespaces and interfaces a document's recipes create are removed after it. The
labs use fixed names (rsw-p0, h1, /run/railsw/railsw.sock): when one of them is
already in use (a lab someone is running) the document is skipped, not clobbered.
"""

import glob
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

import railsw

REPO = railsw.REPO
DOCS = ["README.md"] + sorted(os.path.relpath(p, REPO)
                              for p in glob.glob(os.path.join(REPO, "docs", "*.md")))
FENCE = re.compile(r"^```(.*)$")
DIRECTIVE = re.compile(r"^<!-- test: (background|ready|check|timeout)(?:=(.*))? -->$")
PRELUDE = 'command -v sudo >/dev/null || sudo() { env "$@"; }\n'
# A line that starts like a command a reader would paste.
COMMANDISH = re.compile(r"^(sudo |build/|\./devtools/|devtools/|perf/|fuzz/|ip |echo |mkdir |"
                        r"mount |modprobe |railsw -|RAILSW_|dpdk-devbind|dpdk-dumpcap |"
                        r"CC=|ninja |meson |ASAN_OPTIONS)")
LAB_NAMES = ("rsw-p0", "rsw-p1", "rsw-p2")
LAB_NETNS = ("h0", "h1", "h2", "rsw-h1", "rsw-h2")
LAB_SOCK = "/run/railsw/railsw.sock"


class Block:
    def __init__(self, doc, line, info, body, directives):
        self.doc, self.line, self.info, self.body = doc, line, info, body
        self.background = "background" in directives
        self.ready = directives.get("ready")
        self.check = directives.get("check")
        self.timeout = int(directives.get("timeout") or 60)

    def where(self):
        return f"{self.doc}:{self.line}"


def blocks(doc):
    """Every fenced block of doc: Block objects, with the directives above each."""
    lines = open(os.path.join(REPO, doc)).read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        directives, k = {}, i - 1
        while k >= 0 and DIRECTIVE.match(lines[k]):
            d = DIRECTIVE.match(lines[k])
            directives[d.group(1)] = d.group(2) if d.group(2) is not None else True
            k -= 1
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        out.append(Block(doc, i + 1, m.group(1).strip(), "\n".join(lines[i + 1:j]) + "\n",
                         directives))
        i = j + 1
    return out


def recipes(doc):
    return [b for b in blocks(doc) if b.info == "sh"]


RUNNABLE = [d for d in DOCS if recipes(d)]


def test_blocks_are_marked():
    """Verify: every block of README.md and docs/*.md is `sh` (run below), `sh
    illustration`, or something that is not commands (no info string, yaml,
    python): a block without an info string has no line that starts like a
    command to paste (sudo, build/, devtools/, ip, echo, ...; a `$ ` transcript
    is fine); directives only stand before `sh` blocks; at least the labs have
    recipes."""
    bad = []
    for doc in DOCS:
        for b in blocks(doc):
            words = b.info.split()
            if words[:1] == ["sh"] and words not in (["sh"], ["sh", "illustration"]):
                bad.append(f"{b.where()}: info string '{b.info}': use sh or sh illustration")
            if b.info == "" and any(COMMANDISH.match(ln) for ln in b.body.split("\n")):
                bad.append(f"{b.where()}: commands in a block without an info string: "
                           "mark it sh (run by pkt-tests/test_docs.py) or sh illustration")
            if b.info != "sh" and (b.background or b.ready or b.check):
                bad.append(f"{b.where()}: test directives before a block that is not run")
    assert not bad, "\n".join(bad)
    assert {"docs/lab.md", "docs/qos.md", "docs/congestion.md"} <= set(RUNNABLE), RUNNABLE


# Every Markdown page a reader can reach: README.md and docs/, subfolders included.
PAGES = ["README.md"] + sorted(os.path.relpath(p, REPO) for p in
                              glob.glob(os.path.join(REPO, "docs", "**", "*.md"), recursive=True))
INLINE_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$")
HTML_LINK = re.compile(r"<(?:a|img)\s[^>]*\b(?:href|src)=\"([^\"]+)\"", re.I)
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
EXPLICIT_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.I)


def prose(doc):
    """(line number, text) of doc outside fenced blocks, inline code blanked out."""
    out, fenced = [], False
    for n, line in enumerate(open(os.path.join(REPO, doc), encoding="utf-8").read().split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            out.append((n, re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group(0)), line)))
    return out


def github_anchor(text):
    """The anchor GitHub gives a heading: the text as rendered (links reduced to their
    text, emphasis and code marks dropped), lower-cased, every character that is not
    a letter, digit, '-', '_' or space removed, spaces turned into '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"(?<![\w])_+|_+(?![\w])", "", text)
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in "-_ ")
    return text.replace(" ", "-")


def anchors(doc):
    """Every #anchor a link into doc may use: its headings as GitHub renders them
    (a repeated heading gets -1, -2, ...) and explicit <a name=...> / id= anchors."""
    seen, out = {}, set()
    lines = open(os.path.join(REPO, doc), encoding="utf-8").read().split("\n")
    fenced = False
    for line in lines:
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        out.update(EXPLICIT_ANCHOR.findall(line))
        m = HEADING.match(line)
        if not m:
            continue
        a = github_anchor(m.group(2))
        n = seen.get(a, 0)
        seen[a] = n + 1
        out.add(a if n == 0 else f"{a}-{n}")
    return out


def doc_links(doc):
    """(line, target) of every link in doc's prose: inline, reference-style, HTML."""
    out = []
    for n, line in prose(doc):
        for rx in (INLINE_LINK, REF_LINK, HTML_LINK):
            out.extend((n, t) for t in rx.findall(line))
    return out


def broken_links(doc):
    """The relative links of doc whose file does not exist, or whose #anchor is not
    a heading (or explicit anchor) of the Markdown page it points to."""
    bad = []
    for n, target in doc_links(doc):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # https:, mailto:, ...: not ours to check here
        path, _, frag = target.partition("#")
        if path.startswith("/"):
            bad.append(f"{doc}:{n}: {target}: an absolute path (link relative to the page)")
            continue
        dest = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
        full = os.path.join(REPO, dest)
        if not os.path.exists(full) or dest.startswith(".."):
            bad.append(f"{doc}:{n}: {target}: no file {dest} in the repository")
            continue
        if frag and dest.endswith(".md") and frag not in anchors(dest):
            bad.append(f"{doc}:{n}: {target}: no heading of {dest} has the anchor #{frag}")
        elif frag and not dest.endswith(".md") and not re.fullmatch(r"L\d+(-L\d+)?", frag):
            bad.append(f"{doc}:{n}: {target}: an anchor into a file that is not Markdown")
    return bad


def test_anchor_rules():
    """Verify: the anchors GitHub makes: punctuation dropped, code marks and links
    reduced to their text, spaces to '-', a repeated heading numbered."""
    assert github_anchor("The packet path (one burst)") == "the-packet-path-one-burst"
    assert github_anchor("`qos.trim` and `qos.cnp`") == "qostrim-and-qoscnp"
    assert github_anchor("1. Where QoS sits in the packet path") == "1-where-qos-sits-in-the-packet-path"
    assert github_anchor("`show ports [PORT]` → `ports`") == "show-ports-port--ports"
    assert github_anchor("BGP unnumbered (RFC 8950)") == "bgp-unnumbered-rfc-8950"
    assert github_anchor("[cli.md](cli.md) and `snake_case`") == "climd-and-snake_case"


def test_checker_finds_broken_links(tmp_path, monkeypatch):
    """Verify: the link checker itself fails on a missing file, a missing anchor
    and an absolute path, and passes a good link, a same-page anchor, a repeated
    heading's -1 and a link inside code (not a link)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\n## Same\n\n## Same\n\n[ok](b.md#b-two) [self](#same-1)\n"
                               "[gone](nope.md) [bad](b.md#nothing) [abs](/etc/passwd)\n"
                               "`[code](nope.md)`\n\n```\n[fenced](nope.md)\n```\n")
    (docs / "b.md").write_text("# B\n\n## B two\n")
    monkeypatch.setattr(__import__(__name__), "REPO", str(tmp_path))
    bad = broken_links(os.path.join("docs", "a.md"))
    assert len(bad) == 3, bad
    assert "nope.md" in bad[0] and "#nothing" in bad[1] and "absolute" in bad[2]


def test_links_and_anchors():
    """Verify: every relative link of README.md and docs/ (inline, reference-style
    and HTML, outside code) names a file of the repository, and every #anchor of a
    link to a Markdown page is one of that page's headings as GitHub renders it."""
    bad = [b for doc in PAGES for b in broken_links(doc)]
    assert not bad, "\n".join(bad)


def links():
    return set(os.listdir("/sys/class/net"))


def netns():
    out = railsw.run(["ip", "netns", "list"], check=False).stdout
    return {ln.split()[0] for ln in out.splitlines() if ln.strip()}


def scratch_repo(build):
    """A directory that looks like the repository root, with `build` at RAILSW_BUILD."""
    d = tempfile.mkdtemp(prefix=f"rswt-{os.getpid()}-0.docs.")
    for name in os.listdir(REPO):
        if name not in ("build", ".git"):
            os.symlink(os.path.join(REPO, name), os.path.join(d, name))
    os.symlink(os.path.abspath(build), os.path.join(d, "build"))
    return d


def cgroup2_root():
    """Where the cgroup v2 hierarchy is mounted, or None."""
    with open("/proc/mounts") as f:
        for ln in f:
            w = ln.split()
            if len(w) > 2 and w[2] == "cgroup2":
                return w[1]
    return None


class Tracker:
    """Every process one block starts, wherever it goes (fork, setsid, sudo): the members of
    a cgroup v2 of its own when one can be made; else the processes whose environment holds
    the block's token (a program that clears its environment escapes that one)."""

    _seq = 0

    def __init__(self):
        Tracker._seq += 1
        self.token = f"rswt-{os.getpid()}-docs-{Tracker._seq}"
        self.cg = None
        root = cgroup2_root()
        if root is not None:
            path = os.path.join(root, self.token)
            try:
                os.mkdir(path)
                self.cg = path
            except OSError:
                pass

    def env(self, env):
        return dict(env, RAILSW_DOCS_BLOCK=self.token)

    def enter(self):
        """In the block's child, before exec: join the cgroup."""
        if self.cg is not None:
            with open(os.path.join(self.cg, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))

    def pids(self):
        if self.cg is not None:
            try:
                with open(os.path.join(self.cg, "cgroup.procs")) as f:
                    return sorted(int(x) for x in f.read().split())
            except OSError:
                return []
        found, mark = [], ("RAILSW_DOCS_BLOCK=" + self.token).encode()
        for d in os.listdir("/proc"):
            if not d.isdigit() or int(d) == os.getpid():
                continue
            try:
                with open(f"/proc/{d}/environ", "rb") as f:
                    if mark in f.read().split(b"\0"):
                        found.append(int(d))
            except OSError:
                pass
        return sorted(found)

    @staticmethod
    def describe(pid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            cmd = "?"
        return f"pid {pid}: {cmd}"

    def leftovers(self, grace=1.0):
        """What is still running, described (after a moment for exits under way)."""
        deadline = time.monotonic() + grace
        while self.pids() and time.monotonic() < deadline:
            time.sleep(0.05)
        return [self.describe(p) for p in self.pids()]

    def kill(self):
        """SIGKILL everything of the block; remove the cgroup."""
        for _ in range(50):
            pids = self.pids()
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.05)
        if self.cg is not None:
            try:
                os.rmdir(self.cg)
            except OSError:
                pass


def shell(cwd, env, script, log=None, tracker=None):
    """bash running script in a session of its own; output to log (a file) or a pipe. With a
    tracker, everything it starts is tracked."""
    return subprocess.Popen(["bash", "-e", "-o", "pipefail", "-c", PRELUDE + script], cwd=cwd,
                            env=tracker.env(env) if tracker else env,
                            stdout=log or subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True,
                            preexec_fn=tracker.enter if tracker else None)


def stop_group(proc, timeout=10):
    """SIGTERM the process group of a block we started; SIGKILL if it hangs. Its output."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
    if proc.stdout:
        return proc.stdout.read()
    with open(proc.log_path, errors="replace") as f:
        return f.read()


@pytest.mark.parametrize("doc", RUNNABLE)
def test_doc_recipes(build, doc):
    """Steps: run the `sh` blocks of the document in order (see the module
    docstring), with the directives' background, ready, check and timeout.
    Verify: every block exits 0 within its timeout, every ready and check
    command succeeds, a background block is still running when the document
    ends, no block leaves a process running once it is over; then everything
    the recipes left (processes, namespaces, interfaces) is removed."""
    busy = [n for n in LAB_NAMES if n in links()] + [n for n in LAB_NETNS if n in netns()]
    if os.path.exists(LAB_SOCK):
        busy.append(LAB_SOCK)
    if busy:
        pytest.skip(f"a lab is using {', '.join(busy)}: not touching it")
    run_recipes(build, recipes(doc))


def test_runner_catches_daemons(build):
    """Steps: run, as recipes, a block that daemonises a sleep (fork, setsid, the output
    closed: what `zebra -d` does), and a background block that starts one the same way
    before it waits in the foreground.
    Verify: the runner fails the first, naming the process; the sleep is gone
    afterwards; the background one is caught too when it is stopped."""
    def alive(tag):
        return [d for d in os.listdir("/proc") if d.isdigit()
                and tag in open(f"/proc/{d}/cmdline", "rb").read().decode(errors="replace")]

    tag = f"{os.getpid()}.{time.monotonic_ns() % 100000}"
    daemon = f"(setsid sleep 3{tag} </dev/null >/dev/null 2>&1 &)\n"
    fg = Block("test", 1, "sh", "true\n" + daemon + "echo started\n", {})
    with pytest.raises(pytest.fail.Exception) as e:
        run_recipes(build, [fg])
    assert "left running" in str(e.value) and f"sleep 3{tag}" in str(e.value), str(e.value)
    assert not alive(f"sleep 3{tag}")

    bg = Block("test", 2, "sh", daemon.replace("sleep 3", "sleep 4") + "sleep 60\n",
               {"background": True})
    with pytest.raises(pytest.fail.Exception) as e:
        run_recipes(build, [bg, Block("test", 3, "sh", "true\n", {})])
    assert f"sleep 4{tag}" in str(e.value), str(e.value)
    assert not alive(f"sleep 4{tag}")
    # A block that waits for what it started passes.
    run_recipes(build, [Block("test", 4, "sh", "sleep 0.2 &\nwait\n", {})])


def run_recipes(build, blocks_):
    """Run blocks_ (Block objects) as test_doc_recipes describes; pytest.fail on the first
    that fails."""
    cwd = scratch_repo(build)
    env = dict(os.environ, PATH=os.path.join(cwd, "build", "control") + ":" + os.environ["PATH"])
    links0, netns0 = links(), netns()
    background = []
    trackers = []

    def run_cmd(cmd, timeout=20, b=None):
        t = Tracker()
        trackers.append(t)
        p = shell(cwd, env, cmd, tracker=t)
        try:
            out = p.communicate(timeout=timeout)[0]
        except subprocess.TimeoutExpired:
            stop_group(p)
            t.kill()
            return None, f"(no exit within {timeout} s)"
        left = t.leftovers()
        t.kill()
        if left and b is not None:
            fail(b, "left running after it exited (a daemon? stop what the recipe starts, or "
                 "run it in the foreground of a `<!-- test: background -->` block): "
                 + "; ".join(left), out)
        return p.returncode, out

    def fail(b, what, out):
        logs = "".join(f"\n--- background {x.where()} ---\n{stop_group(p)[-3000:]}"
                       for x, p, _ in background)
        pytest.fail(f"{b.where()}: {what}\n--- block ---\n{b.body}--- output ---\n"
                    f"{(out or '')[-3000:]}{logs}", pytrace=False)

    try:
        for b in blocks_:
            if b.background:
                path = os.path.join(cwd, f"background-{b.line}.log")
                t = Tracker()
                trackers.append(t)
                with open(path, "w") as log:
                    p = shell(cwd, env, b.body, log=log, tracker=t)
                p.log_path = path
                background.append((b, p, t))
                time.sleep(0.2)
                if p.poll() is not None:
                    fail(b, f"background block exited {p.returncode} at once", "")
            else:
                rc, out = run_cmd(b.body, b.timeout, b)
                if rc != 0:
                    fail(b, f"exited {rc}", out)
            if b.ready:
                deadline = time.monotonic() + 30
                while True:
                    rc, out = run_cmd(b.ready, 10)
                    if rc == 0:
                        break
                    if time.monotonic() > deadline:
                        fail(b, f"not ready within 30 s: {b.ready}", out)
                    time.sleep(0.2)
            if b.check:
                rc, out = run_cmd(b.check, 30)
                if rc != 0:
                    fail(b, f"check failed: {b.check}", out)
        for b, p, _ in background:
            if p.poll() is not None:
                fail(b, f"background block exited {p.returncode} before the document ended",
                     "")
        while background:
            b, p, t = background.pop()
            out = stop_group(p)
            left = t.leftovers()
            if left:
                fail(b, "left running after it was stopped (a daemon?): " + "; ".join(left),
                     out)
    finally:
        for b, p, _ in reversed(background):
            stop_group(p)
        for t in trackers:
            t.kill()
        for ns in netns() - netns0:
            railsw.run(["ip", "netns", "del", ns], check=False)
        for name in links() - links0:
            railsw.run(["ip", "link", "del", name], check=False)
        shutil.rmtree(cwd, ignore_errors=True)
