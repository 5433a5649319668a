"""`mutate`: how well a spec guards its rules — mutants generated from the IR (`mutants.py`), each
judged by the spec's own checks.

For each mutant, in order, cheapest first:

1. it must type-check (else it is `invalid`, not counted);
2. `equivalent` if the diff's structural layer proves it plays as the original (not counted);
3. `killed` by an `example` block that fails on it;
4. `killed` by `verify` (a small budget, one player count): a property violated that the
   original does not violate;
5. otherwise it `survived`: `diff` against the original looks for a witness, which says what
   would have caught it; without one, `none found` (it may be equivalent: the diff could not
   prove it).

Kill rate = killed / (mutants run - invalid - equivalent). Mutants run in forked worker processes
(`--jobs`), or as Ray tasks (`--ray ADDRESS`), which get the spec's text and rebuild everything.
"""
from __future__ import annotations

import difflib
import hashlib
import time
from dataclasses import dataclass

from ..engine.examples import run_examples
from ..engine.runtime import Engine, Game
from ..frontend import check_text
from ..ir.printer import print_spec
from . import mutants as M
from . import structural as S


@dataclass
class Config:
    players: int | None = None
    options: dict | None = None
    jobs: int = 1
    ray: str | None = None
    max_mutants: int = 120
    budget: float = 10.0
    diff_budget: float = 5.0  # seconds of the diff that explains a survivor (it never decides a kill)
    games: int = 60
    seed: int = 0


def baseline(program, n: int, options: dict, budget: float) -> set:
    """The properties the original itself violates (a mutant is not killed by those)."""
    return violated(program, n, options, budget)


def violated(program, n: int, options: dict, budget: float, broken: set | None = None) -> set:
    """The properties verify finds violated within `budget`; with `broken` (the original's), verify
    stops at the first violation outside it: that kills the mutant, and the proofs it would spend
    the rest of the budget on cannot change that (a kill means a violation found, never a proof)."""
    from ..verify.run import Budget, verify
    b = Budget(games=100, timeout=min(5.0, budget), proof=budget, falsify=budget / 3)
    enough = None if broken is None else (lambda found: bool(found - broken))
    report = verify(program, options, [n], b, jobs=1, enough=enough)
    return {r.name for r in report.results if r.status == "violated"}


def head(mutant: M.Mutant) -> dict:
    return {"id": mutant.id, "operator": mutant.operator, "description": mutant.description,
            "at": str(mutant.span), "rules": list(mutant.rules)}


def judge(original, mutant: M.Mutant, text: str, n: int, options: dict, config: Config, broken: set) -> dict:
    """One mutant's fate (a JSON-ready dict), with the seconds it took."""
    t0 = time.perf_counter()
    got = _judge(original, mutant, text, n, options, config, broken)
    return {**got, "seconds": round(time.perf_counter() - t0, 3)}


def _judge(original, mutant: M.Mutant, text: str, n: int, options: dict, config: Config, broken: set) -> dict:
    out = head(mutant)
    try:
        program, diags = check_text(text, original.spec.path)
        if program is None:
            first = next((d for d in diags if d.severity == "error"), None)
            return {**out, "status": "invalid", "by": first.message if first else "does not type-check"}
        structure = S.compare(original.spec, program.spec, {})
        if structure.same_behaviour:
            return {**out, "status": "equivalent", "by": "the diff proves it plays as the original"}
        engine = Engine(program)
        game = Game(engine, n, options)
        failed = run_examples(engine, game.option_values)
        if failed:
            names = sorted({d.message.split("'")[1] for d in failed if "'" in d.message})
            return {**out, "status": "killed", "by": "example " + ", ".join(names)}
        new = violated(program, n, options, config.budget, broken) - broken
        if new:
            return {**out, "status": "killed", "by": "verify: " + ", ".join(sorted(new)) + " violated"}
        return {**out, **survivor(original, program, n, options, config)}
    except Exception as exc:  # a mutant that crashes a tool is the tool's bug, reported, not hidden
        return {**out, "status": "error", "by": f"{type(exc).__name__}: {exc}"}


def survivor(original, program, n: int, options: dict, config: Config) -> dict:
    from .run import Settings, diff_programs
    settings = Settings(players=[n], old_options=options, new_options=options, games=config.games,
                        seconds=config.diff_budget, seed=config.seed, witnesses=1, verify_budget=0)
    d = diff_programs(original, program, settings, {})
    if d.verdict == "same":
        return {"status": "equivalent", "by": d.sentence}
    if not d.differs:
        return {"status": "survived", "witness": None, "by": d.sentence,
                "catch": "no game found where it plays differently: it may be equivalent (not proved)"}
    w = d.search.witnesses[0]
    return {"status": "survived", "by": w.summary, "witness": {
        "kind": w.kind, "summary": w.summary, "move": w.move, "old": w.old_says, "new": w.new_says,
        "history": "; ".join(w.old_texts), "players": w.players}, "catch": CATCH[w.kind]}


CATCH = {
    "legality": "an example or a legality query at the witness position: the move is legal under one "
                "reading only; or an invariant over the state that move leads to",
    "successor": "an invariant relating the variables that differ after the move, or an example that "
                 "sets up the position and checks the state after it",
    "end": "an example of the final scoring at the witness's end, or a bound on scores",
    "node": "an invariant on whose turn it is, or an example of the turn order",
    "chance": "an invariant on what the draw can take (e.g. the deck's count)",
    "rule_error": "well_formed would, given more budget: the rules break under one spec only",
}


# ------------------------------------------------------------------ running them all
#
# Each mutant is judged in a child forked for it alone, from a parent that never runs Z3: the
# original's verify runs in a child too. Z3 keeps a pool of timer threads; a process forked
# after Z3 has run inherits that pool's bookkeeping but not its threads, and a multiprocessing
# pool forked after the original's verify lost a worker to a segmentation fault in libz3 (a seed
# spec, 2 jobs; notes/issue14.md): the pool replaced the worker, the mutant's result never came and the run waited
# forever. One child per mutant also turns any crash of native code into that mutant's `error`
# (the signal said), and a child past its time is killed, never awaited without end.

_JOB: tuple = ()  # what a forked child inherits: (original, mutants by id, texts, n, options, config, broken)


def _work(k: int) -> dict:
    original, by_id, texts, n, options, config, broken = _JOB
    return judge(original, by_id[k], texts[k], n, options, config, broken)


def forked(tasks: list, jobs: int, seconds: float, done=None) -> list:
    """Each `fn()` of `tasks` run in a child forked for it, at most `jobs` at once; the answers in
    the order of `tasks`, each `("ok", value)` or `("error", why)`: an exception, a child that died
    without answering (the signal named), or one killed past `seconds`. `done(count)` after each."""
    import os
    import pickle
    import select
    import signal
    answers: dict = {}
    queue = list(enumerate(tasks))
    running: dict = {}  # read end -> (pid, index, chunks, deadline)
    try:
        while queue or running:
            while queue and len(running) < max(1, jobs):
                i, fn = queue.pop(0)
                read_end, write_end = os.pipe()
                pid = os.fork()
                if pid == 0:  # the child: answer, then leave without the parent's clean-up
                    import faulthandler
                    faulthandler.disable()  # a crash here is reported by the parent, as this task's error
                    os.close(read_end)
                    try:
                        data = pickle.dumps(("ok", fn()))
                    except BaseException as exc:  # noqa: BLE001 - everything goes back as the task's error
                        data = pickle.dumps(("error", f"{type(exc).__name__}: {exc}"))
                    with os.fdopen(write_end, "wb") as out:
                        out.write(data)
                    os._exit(0)
                os.close(write_end)
                running[read_end] = (pid, i, [], time.monotonic() + seconds)
            soonest = min(d for _, _, _, d in running.values())
            ready, _, _ = select.select(list(running), [], [], max(0.0, soonest - time.monotonic()))
            for fd in list(running):
                pid, i, chunks, deadline = running[fd]
                late = False
                if fd in ready:
                    chunk = os.read(fd, 1 << 16)
                    if chunk:
                        chunks.append(chunk)
                        continue
                elif time.monotonic() < deadline:
                    continue
                else:
                    os.kill(pid, signal.SIGKILL)
                    late = True
                del running[fd]
                os.close(fd)
                _, status = os.waitpid(pid, 0)
                try:
                    answers[i] = pickle.loads(b"".join(chunks))
                except Exception:  # nothing (or half an answer) came back: say why the child ended
                    if late:
                        why = f"took longer than {seconds:.0f} s: stopped"
                    elif os.WIFSIGNALED(status):
                        sig = os.WTERMSIG(status)
                        why = f"the process died of signal {sig} ({signal.Signals(sig).name}) without answering"
                    else:
                        why = f"the process ended (status {os.WEXITSTATUS(status)}) without answering"
                    answers[i] = ("error", why)
                if done:
                    done(len(answers))
    finally:
        for fd, (pid, _, _, _) in running.items():  # interrupted: no child outlives the run
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(fd)
    return [answers[i] for i in range(len(tasks))]


def per_mutant_seconds(config: Config) -> float:
    """How long one child may take before it is stopped: several times what its stages are given
    (verify's budget, the diff's), so that only a hang is stopped, not a slow machine. Every stage
    runs to a wall-clock budget, so load stretches them little: the slowest of 360 mutants of
    the seed specs took 31 s at load 3-4 with budgets of 10 + 10 s, while one whose flow loops
    forever without a decision (`while not x` -> `while x`) never ends."""
    return 5 * (config.budget + config.diff_budget) + 60


def mutate(program, text: str, config: Config, progress=None) -> dict:
    t0 = time.perf_counter()
    options = dict(config.options or {})
    n = config.players or program.min_players
    from .run import check_settings, Settings
    check_settings(program, program, Settings(players=[n], old_options=options, new_options=options))
    generated = M.generate(program.spec)
    chosen = M.pick(generated, config.max_mutants, config.seed)
    printed = print_spec(program.spec).splitlines()
    texts = {m.id: print_spec(m.spec) for m in chosen}
    diffs = {m.id: "\n".join(difflib.unified_diff(printed, texts[m.id].splitlines(), "original", f"mutant {m.id}",
                                                  n=1, lineterm="")) for m in chosen}
    if progress:
        progress(f"verifying the original ({n} players)")
    if config.ray:
        broken = baseline(program, n, options, config.budget)
    else:  # in a child, like the mutants: this process runs no Z3 before it forks them
        [(kind, broken)] = forked([lambda: baseline(program, n, options, config.budget)], 1,
                                  per_mutant_seconds(config))
        if kind != "ok":
            raise RuntimeError(f"verifying the original failed: {broken}")
    results = run_all(program, chosen, texts, n, options, config, broken, progress)
    for r in results:
        r["diff"] = diffs[r["id"]]
    rep = summary(program, generated, results, n, options, config, broken, time.perf_counter() - t0)
    # what the docs site needs to put the report on the game's page, and to tell when it is stale
    return {**rep, "game": program.name, "spec_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}


def run_all(program, chosen, texts, n, options, config, broken, progress) -> list:
    global _JOB
    by_id = {m.id: m for m in chosen}
    ids = [m.id for m in chosen]
    if config.ray:
        return _on_ray(program, chosen, texts, n, options, config, broken, progress)
    _JOB = (program, by_id, texts, n, options, config, broken)
    try:
        done = (lambda count: progress(f"mutant {count}/{len(ids)}")) if progress else None
        answers = forked([lambda k=k: _work(k) for k in ids], config.jobs, per_mutant_seconds(config), done)
        return [value if kind == "ok" else {**head(by_id[k]), "status": "error", "by": value}
                for k, (kind, value) in zip(ids, answers)]
    finally:
        _JOB = ()


def _ray_task(spec_text: str, path: str, mutant_text: str, meta: dict, n: int, options: dict, config: Config,
              broken: set) -> dict:
    """A Ray task: the original rebuilt from its text (nothing but text crosses the wire)."""
    original, _ = check_text(spec_text, path)
    mutant = M.Mutant(meta["id"], meta["operator"], meta["description"], meta["at"], tuple(meta["rules"]),
                      original.spec)
    return judge(original, mutant, mutant_text, n, options, config, broken)


def _on_ray(program, chosen, texts, n, options, config, broken, progress) -> list:
    from ..commands.common import UserError
    try:
        import ray
    except ImportError:
        raise UserError("--ray needs the ray package (pip install ray)") from None
    try:
        if config.ray == "local":
            ray.init(num_cpus=config.jobs, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=config.ray, log_to_driver=False)
    except Exception as exc:
        raise UserError(f"--ray {config.ray}: cannot join the cluster: {exc}") from None
    try:
        task = ray.remote(_ray_task)
        spec_text = print_spec(program.spec)
        refs = [task.remote(spec_text, program.spec.path, texts[m.id],
                            {"id": m.id, "operator": m.operator, "description": m.description, "at": str(m.span),
                             "rules": list(m.rules)}, n, options, config, broken) for m in chosen]
        out = []
        for i, ref in enumerate(refs, 1):
            out.append(ray.get(ref))
            if progress:
                progress(f"mutant {i}/{len(refs)}")
        return out
    finally:
        ray.shutdown()


def summary(program, generated, results, n, options, config, broken, seconds) -> dict:
    count = {s: sum(1 for r in results if r["status"] == s)
             for s in ("killed", "survived", "equivalent", "invalid", "error")}
    judged = count["killed"] + count["survived"]
    by_op: dict = {}
    for r in results:
        row = by_op.setdefault(r["operator"], {"run": 0, "killed": 0, "survived": 0, "equivalent": 0})
        row["run"] += 1
        if r["status"] in row:
            row[r["status"]] += 1
    return {"kind": "mutate", "spec": program.spec.path, "players": n, "options": options,
            "generated": len(generated), "run": len(results), **count,
            "kill_rate": round(count["killed"] / judged, 4) if judged else None,
            "original_violates": sorted(broken), "verify_budget": config.budget, "diff_budget": config.diff_budget, "seconds": round(seconds, 3),
            "jobs": config.jobs, "ray": config.ray, "by_operator": by_op,
            "survivors": [r for r in results if r["status"] == "survived"],
            "results": [{k: v for k, v in r.items() if k != "diff"} for r in results]}


def format_mutate(rep: dict) -> str:
    rate = "n/a" if rep["kill_rate"] is None else f"{100 * rep['kill_rate']:.0f}%"
    out = [f"mutate {rep['spec']}  ({rep['players']} players; {rep['run']} of {rep['generated']} mutants run, "
           f"{rep['seconds']:.1f} s)",
           f"kill rate {rate}: {rep['killed']} killed, {rep['survived']} survived; {rep['equivalent']} equivalent "
           f"(proved, not counted), {rep['invalid']} did not type-check" +
           (f", {rep['error']} errors" if rep["error"] else "")]
    if rep["original_violates"]:
        out.append(f"(the original itself violates {', '.join(rep['original_violates'])}: not counted as kills)")
    out += ["", "by operator:"]
    for op, row in sorted(rep["by_operator"].items()):
        out.append(f"  {op:16} {row['run']:4} run  {row['killed']:4} killed  {row['survived']:4} survived  "
                   f"{row['equivalent']:4} equivalent")
    if rep["survivors"]:
        out += ["", "survivors:"]
    for r in rep["survivors"]:
        rules = (" @" + " @".join(r["rules"])) if r["rules"] else ""
        out += ["", f"  mutant {r['id']}: {r['description']}  {r['at']}{rules}"]
        out += ["    " + line for line in r["diff"].splitlines()[2:]]
        if r.get("witness"):
            w = r["witness"]
            out.append(f"    plays differently: {w['summary']}")
            out.append(f"      after: {w['history'] or 'the start of the game'}")
        else:
            out.append(f"    {r['by']}")
        out.append(f"    would be caught by: {r['catch']}")
    errors = [r for r in rep["results"] if r["status"] == "error"]
    for r in errors:
        out.append(f"  mutant {r['id']} ({r['description']}): error: {r['by']}")
    return "\n".join(out)
