"""A clean test run prints no traceback (issue 17, item 11).

`make test` ended with two `PytestUnraisableExceptionWarning ... KeyboardInterrupt` tracebacks:
pytest's clean-up runs five full garbage collections in each xdist worker, each over every
object the tests left alive; past 5 s execnet interrupts the worker, and the interrupt landed
in hypothesis's gc callback. tests/conftest.py freezes the heap when the session ends. This
test runs a small xdist session whose tests leave a large heap, with that conftest.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

HEAVY = '''
import gc
import time

from hypothesis import given, strategies as st

KEPT = []


def slow_full_collections(phase, info):
    # a full collection walks the old generation: here it costs 2 microseconds per object there
    if phase == "start" and info["generation"] == 2:
        time.sleep(2e-6 * len(gc.get_objects(2)))


@given(st.integers())
def test_hypothesis_installs_its_gc_callback(n):
    assert isinstance(n, int)


def test_a_large_heap_stays_alive():
    KEPT.extend((i, [i]) for i in range({count}))
    gc.callbacks.append(slow_full_collections)
'''


@pytest.mark.slow
def test_an_xdist_run_with_a_large_heap_ends_without_a_traceback(tmp_path):
    # one worker runs both tests: hypothesis's gc callback and the large heap in one process
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    # five full collections of this heap take longer than execnet's 5-second grace
    (tmp_path / "test_heavy.py").write_text(HEAVY.format(count=500_000), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "pytest", "-n", "1", "-q", "-p", "no:cacheprovider",
                             "-p", "no:randomly", str(tmp_path)], cwd=tmp_path, capture_output=True, text=True,
                            timeout=600)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output


def test_the_session_end_freezes_the_heap():
    import conftest
    before = __import__("gc").get_freeze_count()
    try:
        conftest.pytest_sessionfinish(None, 0)
        assert __import__("gc").get_freeze_count() > before
    finally:
        __import__("gc").unfreeze()
