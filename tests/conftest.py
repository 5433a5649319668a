"""Shared test settings: hypothesis profiles and helpers to build engines."""
from __future__ import annotations

import gc
import os
from pathlib import Path

from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]

# "dev" for local runs, "ci" for CI (fewer examples, same properties),
# "thorough" for `make verify`-style deep runs.
settings.register_profile("dev", max_examples=100, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=40, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=1000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# `rulebook verify` keeps results in a cache: each test session gets its own, so that no test
# reads what an earlier run (or another checkout's code) left there
if "RULEBOOK_CACHE" not in os.environ:
    import tempfile
    os.environ["RULEBOOK_CACHE"] = tempfile.mkdtemp(prefix="rulebook-cache-")


def pytest_sessionfinish(session, exitstatus):
    """Freeze the heap once the tests are over.

    pytest's clean-up then runs five full garbage collections to flush unraisable exceptions,
    and each walks every object the tests left alive (over a million in an xdist worker, 1 to 2 s
    a pass). Past 5 s, execnet stops the worker with a SIGINT, which lands in hypothesis's gc
    callback and was printed as a PytestUnraisableExceptionWarning ... KeyboardInterrupt, one
    per worker. Frozen objects are not collected again: the collections take no time, and the
    process exits as soon as its work is done.
    """
    gc.freeze()
