"""Several specs verified in one command, their player counts side by side in worker processes.

`rulebook verify A.rules B.rules ...` used to verify the specs one after the other, each spreading
its counts over the cores: a spec with one count (most of the bundled examples) or an odd
count left a core to its searches' lane at best, idle at worst, for the whole of that count's
budget. Here every (spec, count) is one task for a pool of `jobs` processes, so a core is free
only when no task is left. Each report is still handed back whole and in the specs' order.

Each task runs in a process of its own, forked from this one (`maxtasksperchild=1`): Z3 keeps the
memory a proof took, and a process reused across specs made a later small spec's queries slower
and its results depend on what came before (`run._isolated`, the same reason). This process
compiles the engines and reads the cache; it never asks Z3 anything.

Decisions: a task's budget starts when its process starts (one spec alone counts its engine's
compilation against its first counts; here all engines are compiled before any task starts); a
count runs its searches in its own process (no search lane): every core already has a count.
"""
from __future__ import annotations

import multiprocessing
import queue
import time
from dataclasses import dataclass
from typing import Iterator

from ..engine.runtime import Engine
from ..frontend.typecheck import Program
from .run import Budget, Report, _assembled, _cached, pass_on, verify_players

__all__ = ["SpecRun", "verify_side_by_side"]


@dataclass
class SpecRun:
    """One spec's part of the command: what `run.verify` takes for it."""
    program: Program
    given: dict
    players: list | None
    budget: Budget
    progress: object = None  # its progress callback (with `finished`), or None
    only: set | None = None
    cache: object = None  # a `cache.Cache`, or None


# what a forked worker inherits: ([(program, engine, given, budget, only)], messages)
_SHARED: tuple = ()


class _Tagged:
    """A task's progress: each message goes to the parent with the spec it is about."""

    def __init__(self, messages, spec: int):
        self.messages, self.spec = messages, spec

    def __call__(self, text: str) -> None:
        self.messages.put(("say", self.spec, text))

    def finished(self, result) -> None:
        self.messages.put(("finished", self.spec, result))


def _task(spec: int, n: int) -> tuple:
    """(verify_players' answer, when it began, when it ended): a spec's time is from its first
    count's start to its last count's end (the clock is the machine's, shared by every process)."""
    specs, messages = _SHARED
    program, engine, given, budget, only = specs[spec]
    began = time.monotonic()
    out = verify_players(program, engine, n, given, budget, _Tagged(messages, spec), only)
    return out, began, time.monotonic()


def verify_side_by_side(runs: list[SpecRun], jobs: int) -> Iterator[Report]:
    """Each run's report, in the runs' order, as soon as it and those before it are done."""
    global _SHARED
    engines = [Engine(r.program) for r in runs]
    counts = [r.players or list(range(r.program.min_players, r.program.max_players + 1)) for r in runs]
    cached = [_cached(r.program, engine, r.given, c, r.budget, r.only, r.cache, r.progress)
              for r, engine, c in zip(runs, engines, counts)]
    todo = [[n for n in c if n not in outs] for c, (outs, _) in zip(counts, cached)]
    ctx = multiprocessing.get_context("fork")
    messages = ctx.Queue()
    _SHARED = ([(r.program, engine, r.given, r.budget, r.only) for r, engine in zip(runs, engines)], messages)
    relayed = [0] * len(runs)  # per spec, the results relayed so far

    def relay(block: float) -> None:
        try:
            while True:
                kind, spec, payload = messages.get(timeout=block)
                block = 0.0
                relayed[spec] += kind == "finished"
                pass_on(runs[spec].progress, kind, payload)
        except queue.Empty:
            return

    tasks = [(i, n) for i, ns in enumerate(todo) for n in ns]
    pool = ctx.Pool(max(1, min(jobs, len(tasks))), maxtasksperchild=1)
    try:
        pending = {(i, n): pool.apply_async(_task, (i, n)) for i, n in tasks}
        for i, run in enumerate(runs):
            mine = [pending[(i, n)] for n in todo[i]]
            while not all(p.ready() for p in mine):
                relay(0.2)
            done = [p.get() for p in mine]
            outs = dict(cached[i][0])
            outs.update(zip(todo[i], (out for out, _, _ in done)))
            # a worker's last messages may reach the queue after its answer is ready (its
            # queue's feeder thread): every result is relayed before the report, a few seconds at most
            expected = sum(len(outs[n][0]) for n in todo[i])
            until = time.perf_counter() + 5.0
            relay(0.0)
            while relayed[i] < expected and time.perf_counter() < until:
                relay(0.1)
            report = _assembled(Report(run.program.spec.path, dict(run.given), counts[i]), outs, run.cache,
                                cached[i][1], todo[i], time.perf_counter())
            report.seconds = max(end for _, _, end in done) - min(began for _, began, _ in done) if done else 0.0
            yield report
        pool.close()
        pool.join()  # (each ends on its own first: `run._in_workers` says why)
    finally:
        pool.terminate()
        pool.join()
        _SHARED = ()
