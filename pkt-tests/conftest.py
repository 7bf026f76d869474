# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The railsw authors
"""pytest set-up for the railsw packet tests.

Run as root from the repository root:
    RAILSW_BUILD=build /usr/bin/python3 -m pytest -v pkt-tests
RAILSW_BUILD is the meson build directory (absolute, or relative to the
repository root); it defaults to `build`.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))

import railsw  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "soak: long-running soak test (RAILSW_SOAK_SECONDS, "
                            "default 60); deselect with -m 'not soak'")
    config.addinivalue_line("markers", "unconserved(reason): the test's switches need not "
                            "account for every frame afterwards (say why)")


def pytest_collection_modifyitems(config, items):
    if os.geteuid() != 0:
        skip = pytest.mark.skip(reason="packet tests need root (TAP devices, raw sockets, "
                                "network namespaces): run them with sudo")
        for item in items:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def build():
    """The build directory holding control/railsw and control/railctl."""
    b = os.environ.get("RAILSW_BUILD", "build")
    if not os.path.isabs(b):
        b = os.path.join(railsw.REPO, b)
    for exe in ("railsw", "railctl"):
        path = os.path.join(b, "control", exe)
        if not os.access(path, os.X_OK):
            pytest.fail(f"{path} not found: build first (devtools/build.sh {b}) "
                        "or point RAILSW_BUILD at a build directory", pytrace=False)
    return b


@pytest.fixture(scope="session", autouse=True)
def _stale_state():
    """Clear what a killed earlier run left behind, before and after the run."""
    if os.geteuid() == 0:
        railsw.cleanup_stale()
    yield
    if os.geteuid() == 0:
        railsw.cleanup_stale()


def _passed(request):
    rep = getattr(request.node, "rep_call", None)
    return rep is not None and rep.passed


def _check_conserved(request, switches):
    """After a passed test: every running switch of switches accounts for each frame it
    received (railsw.assert_conserved), unless the test or the switch says why not."""
    if not _passed(request) or request.node.get_closest_marker("unconserved"):
        return
    errors = []
    for sw in switches:
        if sw.running() and not sw.unconserved:
            try:
                railsw.assert_conserved(sw)
            except AssertionError as e:
                errors.append(str(e))
    if errors:
        pytest.fail("frames not accounted for (show drops totals):\n" + "\n".join(errors),
                    pytrace=False)


@pytest.fixture(autouse=True)
def _conserved(request):
    """After each test, the switches still running (module-scoped ones, those a test started
    itself) account for every frame: checked after the test's own fixtures are done."""
    yield
    _check_conserved(request, list(railsw.Switch.live))


@pytest.fixture
def injector():
    inj = railsw.Injector()
    yield inj
    inj.close()


@pytest.fixture
def make_switch(build, request):
    """Factory: make_switch(config, **kw) -> a started railsw.Switch.
    Every switch is stopped (SIGTERM, checked) at teardown; on a test failure
    its log is printed."""
    switches = []

    def factory(config, start=True, **kw):
        sw = railsw.Switch(build, config, start=False, **kw)
        switches.append(sw)
        return sw.start() if start else sw

    yield factory
    failed = getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed
    conserved = None
    try:
        _check_conserved(request, switches)  # before they stop
    except pytest.fail.Exception as e:
        conserved = e
    errors = []
    for sw in switches:
        if failed:
            print(sw.log_tail(80))
        try:
            if sw.running():
                sw.stop()
        except railsw.SwitchError as e:
            errors.append(str(e))
        finally:
            sw.cleanup()
    if errors and not failed:
        pytest.fail("railsw did not stop cleanly:\n" + "\n".join(errors), pytrace=False)
    if conserved is not None:
        raise conserved


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Expose each phase's report to fixtures (request.node.rep_call)."""
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)
