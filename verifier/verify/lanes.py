"""The search lane: `verify`'s searches for broken rules in a forked process, racing the proofs.

With a core to spare (one player count and `--jobs` 2 or more), the searches need not wait
for the proofs, nor the proofs for them: random play, the search for an endless game and the
first directed search (beam and swarm) run in a child process while the parent builds the
transition system and proves — what the searches-first order does before its proofs, with the
same shares of the time (see `LanePlan.shares`). The second, longer directed search, which the
searches-first order runs after the invariants' proofs, the child runs when the parent asks
(`search`), beside the parent's proofs of the run-time checks and deadlocks, instead of before
them; the extreme-score games stay in the parent. The first conclusive answer for a property
wins:

- a violation the child finds is a real game, replayed by the engine before it is sent (as
  every search's findings are); the parent takes it at its next stage and proves no more of
  that property;
- what the parent settles (proved, or violated by bounded model checking) the child stops
  aiming at, within `falsify.POLL_S`.

Neither lane trusts the other with anything a result rests on: a violation is a game, a proof
is the parent's. The child's stages keep their own deadlines (the count's budget, and
`--search` for the directed search), so it ends by itself; `finish` stops the directed search
early when the parent has nothing left to prove.

This module owns the child's program, the messages both ways and their relay in the parent.
"""
from __future__ import annotations

import collections
import multiprocessing
import queue
import threading
import time
from dataclasses import dataclass

from . import explore
from .falsify import confirms, falsify

__all__ = ["LanePlan", "SearchLane"]



@dataclass(frozen=True)
class LanePlan:
    """What the child searches for, and until when."""
    n: int  # the player count (also the searches' seed)
    targets: tuple  # properties the directed search aims at (invariants, no_deadlock, well_formed)
    games: int  # random games (0: none)
    max_steps: int
    falsify: float  # seconds of directed search at most (0: none)
    lasso: bool  # look for an endless game
    deadline: float | None  # time.perf_counter() at which the count's budget ends
    # the shares of the time left that random play, the endless-game search and the directed
    # search take, as when the searches come first (run.py). The child does only what that
    # order does before its proofs: on this machine's two cores a second busy process slows a
    # Z3 query 1.56 times (a pigeonhole query, 14.5 s alone, 22.6 s beside a busy loop), so a
    # search beside the proofs for as long as they ran cost a one-count example its proofs
    # (breakthrough at `--budget 60`); the second directed search waits for the parent's
    # `SearchLane.search`, after the invariants' proofs
    shares: tuple = (0.1, 0.2, 0.1)


class SearchLane:
    """The parent's side: the child started, its messages relayed (`say` as they come; the
    others kept for `messages`), the properties settled here sent to it."""

    def __init__(self, game, program, plan: LanePlan, say):
        ctx = multiprocessing.get_context("fork")  # the compiled engine is inherited, not rebuilt
        self._out, self._settled, self._stop = ctx.Queue(), ctx.Queue(), ctx.Event()
        self._requests = ctx.Queue()  # the parent's asks for a second directed search
        self._answered = threading.Event()  # the child ended the search asked for, or ended
        self._proc = ctx.Process(target=_child, args=(game, program, plan, self._out, self._settled, self._stop,
                                                      self._requests), daemon=True)
        self._proc.start()
        self._say = say
        self._inbox: collections.deque = collections.deque()
        self._sent: set = set()
        # a thread, so that the child's progress shows while the parent is inside a solver call
        self._relay = threading.Thread(target=self._listen, daemon=True)
        self._relay.start()

    def _listen(self) -> None:
        while True:
            try:
                kind, payload = self._out.get(timeout=0.5)
            except queue.Empty:
                if not self._proc.is_alive():
                    self._inbox.append(("done", f"the search process ended with code {self._proc.exitcode}"))
                    self._answered.set()
                    return
                continue
            except (EOFError, OSError):
                self._inbox.append(("done", "the search process's messages were cut off"))
                self._answered.set()
                return
            if kind == "say":
                self._say(payload)
            elif kind == "searched":
                self._answered.set()
            else:
                self._inbox.append((kind, payload))
                if kind == "done":
                    self._answered.set()
                    return

    def messages(self) -> list:
        """The child's findings since the last call: ("found", (findings, method, seconds)),
        ("lasso", (lasso or None, seconds)),
        ("done", "" or why it stopped early)."""
        out = []
        while self._inbox:
            out.append(self._inbox.popleft())
        return out

    def settle(self, names) -> None:
        """Properties settled here: the child stops aiming at them."""
        new = set(names) - self._sent
        if new:
            self._sent |= new
            self._settled.put(sorted(new))

    def search(self, targets, seconds: float, seed: int) -> None:
        """Ask the child for the second directed search (`seconds` at most, for `targets`, less
        what is settled by then); `wait` for its end. Only once: the child answers one ask."""
        self._answered.clear()
        self._requests.put((tuple(targets), seconds, seed))

    def wait(self, timeout: float | None) -> None:
        """Until the search asked for ended (its findings are then in `messages`), the child
        ended, or `timeout` seconds."""
        self._answered.wait(timeout)

    def finish(self, timeout: float = 60.0) -> list:
        """Stop the directed search, let the child send what it found, and return its last
        messages."""
        self._stop.set()
        self._relay.join(timeout)
        if self._proc.is_alive():
            self._proc.join(1.0)
        if self._proc.is_alive():
            self._proc.terminate()
            self._proc.join()
        return self.messages()


def _property(finding) -> str:
    return {explore.DEADLOCK: "no_deadlock", explore.RULE_ERROR: "well_formed"}.get(finding.kind, finding.name)


def _child(game, program, plan: LanePlan, out, settled_q, stop, requests) -> None:
    """The child's program: random play, the endless-game search, the directed search, each
    sending what it found as soon as it has it; then, until told to stop, the second directed
    search when the parent asks for it."""
    def say(text: str) -> None:
        out.put(("say", text))

    def left() -> float | None:
        return None if plan.deadline is None else max(0.0, plan.deadline - time.perf_counter())

    def within(share: float) -> float | None:
        """A time.monotonic() deadline `share` of the time left from now (the searches' clock)."""
        rest = left()
        return None if rest is None else time.monotonic() + share * rest

    random_share, lasso_share, directed_share = plan.shares
    settled: set = set()
    sent: dict = {}  # property -> the length of the game sent for it

    def poll(found: dict):
        # each new (or shorter) game the directed search found goes to the parent now, confirmed
        # by replay as at the search's end: the first conclusive answer wins the race
        for name, f in found.items():
            if len(f.history) < sent.get(name, len(f.history) + 1) and confirms(game, f):
                sent[name] = len(f.history)
                out.put(("found", ([f], "directed", f.seconds)))
        if stop.is_set():
            return None
        got = set()
        while True:
            try:
                got.update(settled_q.get_nowait())
            except queue.Empty:
                break
        settled.update(got)
        return got

    def directed(targets: list, seconds: float, seed: int) -> None:
        findings = falsify(game, program, targets, seconds=seconds, seed=seed, progress=say,
                           max_steps=plan.max_steps, strategies=("beam", "swarm"), poll=poll)
        out.put(("found", ([f for f in findings if len(f.history) < sent.get(_property(f), len(f.history) + 1)],
                           "directed", None)))

    error = ""
    try:
        broken: set = set()
        if plan.games > 0:
            say(f"searching {plan.games} random games, beside the proofs")
            t = time.perf_counter()
            found = explore.search(game, games=plan.games, max_steps=plan.max_steps, seed=plan.n,
                                   deadline=within(random_share))
            broken |= {_property(f) for f in found.findings}
            out.put(("found", (found.findings, "search", time.perf_counter() - t)))
        if plan.lasso:
            say("looking for an endless game, beside the proofs")
            t = time.perf_counter()
            lasso = explore.find_lasso(game, seed=plan.n, max_steps=plan.max_steps, deadline=within(lasso_share)).lasso
            out.put(("lasso", (lasso, time.perf_counter() - t)))
        # the directed search, for what is neither broken nor settled
        poll({})
        targets = [x for x in plan.targets if x not in broken and x not in settled]
        rest = left()
        if plan.falsify > 0 and targets and not stop.is_set() and (rest is None or rest > 1):
            say(f"beam and swarm search for {len(targets)} properties, beside the proofs")
            seconds = plan.falsify if rest is None else min(plan.falsify, directed_share * rest)
            directed(targets, seconds, plan.n)
        # (the child waits idle meanwhile: the parent's queries run faster without a busy
        # neighbour, and the second search's targets are what its proofs left open)
        while not stop.is_set() and (left() is None or left() > 1):
            try:
                targets, seconds, seed = requests.get(timeout=0.2)
            except queue.Empty:
                continue
            poll({})
            targets = [x for x in targets if x not in broken and x not in settled and x not in sent]
            rest = left()
            if targets and not stop.is_set() and (rest is None or rest > 1):
                say(f"beam and swarm search for {len(targets)} properties, beside the proofs")
                directed(targets, seconds if rest is None else min(seconds, rest), seed)
            out.put(("searched", None))
    except BaseException as exc:  # told to the parent, which reports the proofs without this lane
        error = f"{type(exc).__name__}: {exc}"
    finally:
        out.put(("done", error))
        out.close()
        out.join_thread()
