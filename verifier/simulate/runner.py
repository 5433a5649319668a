"""Running a simulation's chunks: in this process, in worker processes, or as Ray tasks.

The games are cut into chunks of `CHUNK_GAMES`, each seeded by (seed, chunk index), and the
chunks' tallies are sums of counts, so the merged result does not depend on how many
workers played them or in which order they finished: `--jobs 1`, `--jobs 2` and `--ray` give
the same numbers for the same seed.

- Worker processes are forked from this one after the game is compiled, so they inherit the
  engine (and a policy given as a Python callable) instead of compiling it again; they ignore
  Ctrl-C, which the parent answers by terminating them and keeping the chunks already done.
- Ray tasks get the spec's *text* (a node of a cluster may not have the file) and compile it
  once per worker process; `ray.init(address)` connects to a cluster (`auto`, or
  `ray://HOST:10001`), or starts a local Ray without one.
"""
from __future__ import annotations

import multiprocessing
import signal
import sys
import time
from dataclasses import dataclass

from ..engine.lib import RuleError
from .play import CHUNK_GAMES, PolicyError, Setup, build_game, empty_tally, make_policy, merge, play_chunk


@dataclass
class Run:
    tally: dict
    chunks: int  # chunks completed
    planned: int  # chunks planned
    interrupted: bool
    seconds: float  # wall clock
    backend: str  # "process", "workers", "ray"
    workers: int


def plan(games: int) -> list[tuple[int, int]]:
    """(chunk index, games in it) for `games` games."""
    return [(i, min(CHUNK_GAMES, games - i * CHUNK_GAMES)) for i in range((games + CHUNK_GAMES - 1) // CHUNK_GAMES)]


def run(setup: Setup, games: int, jobs: int = 1, ray_address: str | None = None, progress: bool = False) -> Run:
    """Play `games` games of `setup`; Ctrl-C stops early and keeps the chunks done."""
    game = build_game(setup)  # compile here: spec errors surface before any worker starts
    import random
    make_policy(setup, game, random.Random(0))  # a policy that cannot play this game says so now
    chunks = plan(games)
    done: dict[int, dict] = {}
    bar = _bar(games) if progress else None
    start = time.perf_counter()
    interrupted = False
    if ray_address is not None:
        backend, workers, runner = "ray", 0, _run_ray
    elif jobs > 1 and len(chunks) > 1:
        backend, workers, runner = "workers", min(jobs, len(chunks)), _run_pool
    else:
        backend, workers, runner = "process", 1, _run_here
    try:
        workers = runner(setup, chunks, done, bar, jobs=jobs, address=ray_address) or workers
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
    tally = empty_tally(game.num_players)
    for i in sorted(done):  # chunk order: the merge is a sum, but keep it reproducible anyway
        merge(tally, done[i])
    return Run(tally, len(done), len(chunks), interrupted, time.perf_counter() - start, backend, workers)


def _bar(games: int):
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm
    return tqdm(total=games, unit="game", file=sys.stderr, leave=False)


def _done(done: dict, bar, index: int, tally: dict) -> None:
    done[index] = tally
    if bar is not None:
        bar.update(tally["games"])


def _run_here(setup, chunks, done, bar, **_):
    for index, size in chunks:
        _done(done, bar, index, play_chunk(setup, index, size))


# ------------------------------------------------------------------ worker processes

_FORKED: Setup | None = None  # the setup the forked workers inherit


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C does


def _pool_task(chunk: tuple[int, int]):
    index, size = chunk
    try:
        return index, play_chunk(_FORKED, index, size), None
    except Exception as exc:  # exceptions cross the pipe as text: ours carry unpicklable fields
        return index, None, (type(exc).__name__, str(exc))


def _reraise(error: tuple[str, str]):
    kind, message = error
    if kind == "RuleError":
        raise RuleError(message)
    if kind == "PolicyError":
        raise PolicyError(message)
    raise RuntimeError(f"a worker failed: {kind}: {message}")


def _run_pool(setup, chunks, done, bar, jobs: int, **_):
    global _FORKED
    _FORKED = setup
    workers = min(jobs, len(chunks))
    pool = multiprocessing.get_context("fork").Pool(workers, initializer=_ignore_sigint)
    try:
        for index, tally, error in pool.imap_unordered(_pool_task, chunks):
            if error is not None:
                _reraise(error)
            _done(done, bar, index, tally)
        pool.close()
    finally:
        pool.terminate()  # on Ctrl-C or an error: the chunks in flight are dropped
        pool.join()
        _FORKED = None
    return workers


# ------------------------------------------------------------------ Ray

def _ray_task(setup: Setup, index: int, size: int):
    try:
        return index, play_chunk(setup, index, size), None
    except Exception as exc:
        return index, None, (type(exc).__name__, str(exc))


def _run_ray(setup, chunks, done, bar, jobs: int, address: str):
    try:
        import ray
    except ImportError:
        raise PolicyError("--ray needs Ray: pip install 'rulebook[ray]' (or pip install ray)") from None
    started = False
    if not ray.is_initialized():
        kwargs = dict(include_dashboard=False, log_to_driver=False, logging_level="ERROR")
        if address == "local":
            ray.init(num_cpus=jobs, **kwargs)
        else:
            ray.init(address=address, **kwargs)
        started = True
    cpus = int(ray.cluster_resources().get("CPU", 0))
    remote = ray.remote(_ray_task)
    pending = [remote.remote(setup, index, size) for index, size in chunks]
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            index, tally, error = ray.get(ready[0])
            if error is not None:
                _reraise(error)
            _done(done, bar, index, tally)
    finally:
        for ref in pending:  # Ctrl-C or an error: stop what is still queued or running
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()
    return cpus
