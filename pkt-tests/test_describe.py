# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""`describe`: the one description of every table the socket returns. docs/cli.md's
field tables list exactly the fields it returns; every row of every table has only
described fields, of the described kind; the counters it lists are the ones the
tests' deltas see (port_down, once missing from the tests' hand-kept list)."""

import os
import re

import pytest

import railsw
import topo
from topo import deltas

KINDS = {"counter", "gauge", "label", "state"}
HEADING = re.compile(r"^#### `(?P<cmd>[a-z]+(?: [a-z]+)*)(?: \[[A-Z]+\])?` → `(?P<key>[a-z_.]+)`$")
ROW = re.compile(r"^\| `(?P<name>[a-z0-9_]+)` \| (?P<kind>[a-z]+) \| (?P<unit>[a-z]*) \|")


def doc_tables():
    """{(command, key): [(name, kind, unit)]} of docs/cli.md's field tables."""
    tables, cur = {}, None
    with open(os.path.join(railsw.REPO, "docs", "cli.md"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            m = HEADING.match(line)
            if m:
                cur = tables.setdefault((m["cmd"], m["key"]), [])
                continue
            if line.startswith("#"):
                cur = None
            m = ROW.match(line)
            if m and cur is not None:
                cur.append((m["name"], m["kind"], m["unit"]))
    return tables


@pytest.fixture(scope="module")
def sw(build):
    # A lossless TC, so that `show cbfc` has rows (state off) to describe.
    with topo.running(build, topo.three_ports(qos={"lossless": [3]})) as s:
        yield s


def test_describe_form(sw):
    """**Steps**: `railctl --json describe`.
    **Verify**: {"tables":[{"command","key","fields":[{"name","kind","unit","help"}]}]}
    with known kinds, labels and states without unit, a help line for every field, no
    field twice in a table, no table twice; nested tables (`groups.members`) sit in a
    table of the same command; `show pfc` has the watchdog's counters."""
    tables = sw.ctl("describe")["tables"]
    seen = set()
    for t in tables:
        assert set(t) == {"command", "key", "fields"}, t
        assert (t["command"], t["key"]) not in seen, t["command"]
        seen.add((t["command"], t["key"]))
        names = [f["name"] for f in t["fields"]]
        assert len(names) == len(set(names)), (t["key"], names)
        for f in t["fields"]:
            assert set(f) == {"name", "kind", "unit", "help"}, f
            assert f["kind"] in KINDS and f["help"], f
            if f["kind"] in ("label", "state"):
                assert f["unit"] == "", f
    for cmd, key in seen:
        if "." in key:
            assert (cmd, key.split(".")[0]) in seen, key
    assert {("show ports", "ports"), ("show queues", "queues"), ("show pfc", "pfc"),
            ("show buffer", "buffer"), ("show buffer", "pgs"), ("show drops", "drops"),
            ("show lb", "groups"), ("show lb", "groups.members"), ("show routes", "routes"),
            ("show neighbors", "neighbors"), ("show icmp", "icmp")} <= seen
    assert {"pfcwd_storms", "pfcwd_restores"} <= set(sw.fields("show pfc", "pfc", "counter"))


def test_docs_list_every_field(sw):
    """**Steps**: read docs/cli.md's field tables (`#### \\`COMMAND\\` → \\`KEY\\``, then
    `| \\`field\\` | kind | unit | ...`) and `describe`.
    **Verify**: the same tables; each lists every field `describe` returns, in its order,
    with its kind and unit, and no field it does not."""
    docs = doc_tables()
    described = {(t["command"], t["key"]): [(f["name"], f["kind"], f["unit"])
                                            for f in t["fields"]]
                 for t in sw.describe()}
    assert sorted(docs) == sorted(described), (
        f"tables only in docs: {sorted(set(docs) - set(described))}; "
        f"only in describe: {sorted(set(described) - set(docs))}")
    for table, fields in described.items():
        doc = docs[table]
        missing = [f for f in fields if f not in doc]
        extra = [f for f in doc if f not in fields]
        assert not missing and not extra, f"{table}: docs lack {missing}, docs add {extra}"
        assert doc == fields, f"{table}: docs order differs"


def rows_of(reply, key):
    """The rows of table key in a reply: a list, one object, or a nested list."""
    if "." in key:
        outer, inner = key.split(".")
        return [r for parent in reply[outer] for r in parent[inner]]
    v = reply[key]
    return v if isinstance(v, list) else [v]


def kind_ok(kind, v):
    if kind in ("counter", "gauge"):
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0
    if kind == "state":
        return isinstance(v, (bool, str)) or v is None
    return isinstance(v, (str, int, list)) and not isinstance(v, bool)


def test_rows_are_described(sw, injector):
    """**Steps**: send a frame so counters move; run every command `describe` lists.
    **Verify**: every table has rows; every row holds only described fields (and the
    member a nested table lives in), each of its kind's JSON type; every described field
    is in some row."""
    injector.send(sw.tap["p0"], topo.udp4(sw, "p0", topo.HOST_IP["p1"]))
    tables = sw.describe()
    nested = {t["key"].split(".")[1] for t in tables if "." in t["key"]}
    replies = {}
    for t in tables:
        if t["command"] not in replies:
            replies[t["command"]] = sw.ctl(*t["command"].split())
        rows = rows_of(replies[t["command"]], t["key"])
        assert rows, f"{t['command']}: no rows in {t['key']}"
        kinds = {f["name"]: f["kind"] for f in t["fields"]}
        present = set()
        for r in rows:
            for name, v in r.items():
                if name in nested and isinstance(v, list):
                    continue
                assert name in kinds, f"{t['command']} {t['key']}: {name} is not described"
                assert kind_ok(kinds[name], v), (t["key"], name, kinds[name], v)
                present.add(name)
        assert present == set(kinds), (t["key"], sorted(set(kinds) - present))


def test_counters_seen_in_deltas(sw, injector):
    """**Steps**: `port p1 down`, send a frame into p0 routed to p1, `port p1 up`.
    **Verify**: the tests' counter deltas (field list from `describe`) see `port_down`
    on p0, the ingress port: a counter the hand-kept list once missed."""
    assert "port_down" in sw.port_counter_names()
    before = sw.counters()
    assert sw.ctl("port", "p1", "down") == {"ok": True}
    try:
        injector.send(sw.tap["p0"], topo.udp4(sw, "p0", topo.HOST_IP["p1"]))
        railsw.wait_until(lambda: deltas(before, sw.counters()).get("p0", {}).get(
            "port_down", 0) >= 1, 5, what="port_down counted")
    finally:
        assert sw.ctl("port", "p1", "up") == {"ok": True}
    assert deltas(before, sw.counters())["p0"]["port_down"] == 1
