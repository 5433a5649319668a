"""IC3/PDR through Z3's Spacer, one claim at a time, on the claim's cone of the transition system.

Spacer (`z3.Fixedpoint`, engine `spacer`) finds the strengthening that one-step induction lacks:
given the initial state, the transitions and "the claim fails", it either derives an inductive
invariant that excludes the failure or a path to it. On the whole relation of a seed game it
settles nothing in minutes (measured: docs/architecture.md), so each claim is asked on its *cone*:

- the state leaves the claim reads, closed under "a move writes a cone leaf from these leaves"
  (data dependencies), and then — while the cone stays under `CONE_LEAVES` — the leaves that the
  conditions of those moves read (control dependencies);
- one predicate per reachable decision point (and one for the end of the game), over the cone's
  leaves; a rule per feasible move and successor, whose body keeps only the move's conditions
  that read nothing outside the cone and the interval facts at its decision point.

Dropping a condition only adds behaviours: what holds on the cone holds on the game (resting, as
the interval facts do, on the run-time checks: `well_formed`). A path Spacer finds may use a
dropped condition, so `sat` is never a violation here: it is `unknown` ("the cone admits a
failure"), and the next, wider cone is tried while time is left.

Before a claim is called proved, the invariant Spacer returns is checked again by independent
solver queries (initiation, consecution over every rule, and that it implies the claim): a
Spacer answer that fails them is not a proof. The invariants that pass are lemmas for the checks
after this engine (`lemmas`).
"""
from __future__ import annotations

import time

from ..encode import CTX, SetVal, and_all, eq_leaf, implies, not_, num, z3
from ..system import System
from .induction import Claim, Outcome
from .intervals import Intervals

__all__ = ["Spacer"]

CONE_LEAVES = 60  # the most leaves a cone may grow to by control dependencies
# Spacer sometimes fails on its own ("Stuck on a lemma"): the query is asked again with another
# random seed, this many times, before the answer is `error`
STUCK = "Stuck on a lemma"
STUCK_RETRIES = 1


class Spacer:
    """The `Induction` engine's interface: `run(claims, lemmas)` -> name -> Outcome; `lemmas`."""

    def __init__(self, system: System, facts: Intervals | None, timeout: float = 20.0,
                 deadline: float | None = None, progress=None):
        self.sys = system
        self.facts = facts if facts is not None and facts.complete else None
        self.timeout_ms = max(1, int(timeout * 1000))
        self.deadline = deadline
        self.progress = progress or (lambda text: None)
        self.lemmas: list = []
        self.log: list = []  # (claim, cone size, answer, seconds, why) per Spacer call
        self._state_ids = set(system.leaves)
        self._reader = None  # an `Induction`, for its reading of the interval facts
        # the member bits of each set-valued variable: a cone holding all of them also gets the
        # set's size as an integer argument, so that Spacer can state sums ("the pool loses one
        # item per round") that over the bits alone are a cube per combination
        rel = system.rel
        values = [rel.state.vars[x] for x in rel.p.var_types] + [rel.state.locals[x] for x in rel.p.flow_locals]
        self._sets = [[system.dag.add(b) for b in v] for v in values if isinstance(v, SetVal) and len(v) > 1]

    # ------------------------------------------------------------ the claims
    def run(self, claims: list[Claim], lemmas: list | None = None) -> dict[str, Outcome]:
        results = {}
        final = self.deadline
        for i, c in enumerate(claims):
            if final is not None:  # a fair share of the time left each
                left = final - time.perf_counter()
                if left <= 0.05:
                    results[c.name] = Outcome(False, "time", detail="the time budget ran out")
                    continue
                self.deadline = time.perf_counter() + left / (len(claims) - i)
            try:
                results[c.name] = self._claim(c, list(lemmas or []))
            finally:
                self.deadline = final
        return results

    def _claim(self, claim: Claim, lemmas: list) -> Outcome:
        target = and_all(claim.instances)
        self._lemmas = lemmas
        self._points = self._relevant(target)
        # the cone with the conditions' leaves when it stays small (a loop's counter is read only by
        # the loop's condition), else the data cone alone
        wide = self._cone(target, control=True)
        cones = [wide] if len(wide) <= CONE_LEAVES else [self._cone(target, control=False)]
        last = Outcome(False, "unknown", detail="no cone was tried")
        for cone in cones:
            if self._late():
                return Outcome(False, "time", detail="the time budget ran out")
            self.progress(f"Spacer on {claim.name} ({len(cone)} leaves)")
            usable = [f for f in self._lemmas if self._leaves(f) - {self.sys.pc_leaf} <= cone]
            last = self._solve(claim, target, cone, usable)
            if last.proved or last.kind == "time":
                return last
        return last

    # ------------------------------------------------------------ the cone
    def _leaves(self, term) -> set:
        dag = self.sys.dag
        return {x for x in dag.leaves_of(dag.support(dag.add(term))) if x in self._state_ids}

    def _relevant(self, target) -> set:
        """The decision points (-1: the end) from which one where `target` may fail can be reached:
        only moves among them bear on the claim (a run-time check at one point of a loop that the
        game leaves for good needs nothing of the rest of the game)."""
        pc = self.sys.term(self.sys.pc_leaf)
        may_fail = set()
        for d in self._reachable() + [-1]:
            s = z3.Solver(ctx=CTX)
            s.set("timeout", 1000)
            s.add(eq_leaf(pc, num(d)), *self._facts(d, sorted(self._leaves(target))), not_(target))
            if s.check() != z3.unsat:
                may_fail.add(d)
        into: dict[int, set] = {}
        for d in self._reachable():
            for tr in self._feasible(d):
                for v, _ in tr.cases:
                    if v is not None:
                        into.setdefault(v, set()).add(d)
        out, stack = set(may_fail), list(may_fail)
        while stack:
            for d in into.get(stack.pop(), ()):
                if d not in out:
                    out.add(d)
                    stack.append(d)
        return out

    def _feasible(self, d: int) -> list:
        return self.facts.feasible.get(d, self.sys.transitions(d)) if self.facts else self.sys.transitions(d)

    def _transitions(self):
        """(decision point, transition, successor decision points) for every feasible move among
        the relevant decision points."""
        out = []
        for d in self._reachable():
            if d not in self._points:
                continue
            for tr in self._feasible(d):
                cases = [v for v, _ in tr.cases if v is not None and v in self._points
                         and (self.facts is None or self.facts.states.get(v) is not None)]
                out.append((d, tr, cases))
        return out

    def _reachable(self) -> list[int]:
        if self.facts is None:
            return self.sys.decisions
        return [d for d in self.sys.decisions if self.facts.states.get(d) is not None]

    def _cone(self, target, control: bool) -> frozenset:
        sys, dag = self.sys, self.sys.dag
        cone = self._leaves(target)
        cone.discard(sys.pc_leaf)
        moves = self._transitions()
        while True:
            if self._late():  # the caller sees the time is up too, and solves nothing
                return frozenset(cone)
            grown = set(cone)
            for _, tr, _ in moves:
                # the supports as one bit set per move, read back into leaves once (per written
                # leaf, reading them cost minutes on a game of a few thousand leaves)
                bits, writes = 0, False
                for leaf in cone:
                    k = sys.index[leaf]
                    if tr.post[k] != leaf:
                        writes = True
                        bits |= dag.support(tr.post[k])
                if not writes:
                    continue
                grown |= {x for x in dag.leaves_of(bits) if x in self._state_ids}
                if control and len(grown) <= CONE_LEAVES:
                    # the move's conditions, and what decides where it leads (a loop's counter)
                    bits = 0
                    for i in tr.pre + [c for _, c in tr.cases if c is not None]:
                        bits |= dag.support(i)
                    grown |= {x for x in dag.leaves_of(bits) if x in self._state_ids}
            grown.discard(sys.pc_leaf)
            if grown == cone:
                return frozenset(cone)
            cone = grown

    # ------------------------------------------------------------ the Horn clauses
    def _solve(self, claim: Claim, target, cone: frozenset, lemmas: list) -> Outcome:
        """`lemmas`: proved facts of every reachable state that read only the cone (and the pc):
        assumed before each move, as the interval facts are."""
        sys, dag = self.sys, self.sys.dag
        order = [leaf for leaf in sys.leaves if leaf in cone]
        terms = [dag.term[leaf] for leaf in order]
        sorts = [t.sort() for t in terms]
        pc = sys.term(sys.pc_leaf)
        points = [d for d in self._reachable() + [-1] if d in self._points]
        if self.sys.initial_pc not in self._points:  # no relevant point is ever reached
            points.append(self.sys.initial_pc)
        at = {leaf: k for k, leaf in enumerate(order)}
        groups = [[at[b] for b in g] for g in self._sets if all(b in cone for b in g)]

        def sizes(values: list) -> list:
            return [z3.Sum([z3.If(values[k], num(1), num(0)) for k in g]) for g in groups]
        ghosts = [z3.Int(f"size!{k}", ctx=CTX) for k in range(len(groups))]
        preds = {d: z3.Function(f"at_{d if d >= 0 else 'end'}", *sorts, *[g.sort() for g in ghosts],
                                z3.BoolSort(ctx=CTX)) for d in points}
        bad = z3.Function("fails", z3.BoolSort(ctx=CTX))
        fp = z3.Fixedpoint(ctx=CTX)
        fp.set(engine="spacer")
        fp.register_relation(*preds.values(), bad)
        posts = [z3.Const(f"next!{k}", s) for k, s in enumerate(sorts)]
        next_ghosts = [z3.Int(f"next_size!{k}", ctx=CTX) for k in range(len(groups))]
        # by id: z3 terms' `==` builds a formula
        variables = {t.get_id(): t for t in [*terms, *posts, *ghosts, *next_ghosts, pc]}
        defined = [eq_leaf(g, x) for g, x in zip(ghosts, sizes(terms))]  # each size is its set's
        allowed = set(cone) | {sys.pc_leaf}
        rules = []  # (d, body, v, successor terms): kept for the independent check
        init = []
        for leaf, t in zip(order, terms):
            value = sys.initial[sys.index[leaf]]
            if value is None:  # not a literal when the game starts: any value
                init.append(z3.Const(f"start!{len(init)}", t.sort()))
                variables[init[-1].get_id()] = init[-1]
            else:
                init.append(z3.BoolVal(bool(value), ctx=CTX) if dag.is_bool[leaf] else num(value))
        # (head, body): added once every variable is declared
        clauses = [(preds[sys.initial_pc](*init, *[z3.simplify(x) for x in sizes(init)]), [])]
        for d, tr, cases in self._transitions():
            body = [eq_leaf(pc, num(d)), *defined, *self._facts(d, order), *lemmas]
            for t, i in zip(tr.pre_terms, tr.pre):
                if self._within(i, allowed):
                    body.append(t)
            for p in tr.params:
                variables[dag.term[p].get_id()] = dag.term[p]
            succ = [tr.post_terms[sys.index[leaf]] for leaf in order]
            for v in cases:
                case = tr.case_terms.get(v)
                extra = [case] if case is not None and self._within(dag.add(case), allowed) else []
                rules.append((d, body + extra, v, succ))
                clauses.append((preds[v](*posts, *next_ghosts), [
                    preds[d](*terms, *ghosts), *body, *extra, *[eq_leaf(a, b) for a, b in zip(posts, succ)],
                    *[eq_leaf(g, x) for g, x in zip(next_ghosts, sizes(posts))]]))
        for d in points:
            clauses.append((bad(), [preds[d](*terms, *ghosts), eq_leaf(pc, num(d)), *defined, *self._facts(d, order),
                                    *lemmas, not_(target)]))
        for x in dag.leaves_of(dag.support(dag.add(target))):  # a move's parameters, in a run-time check
            if x not in self._state_ids:
                variables[dag.term[x].get_id()] = dag.term[x]
        fp.declare_var(*variables.values())  # before the rules: a rule quantifies what is declared then
        for head, body in clauses:
            fp.rule(head, body)
        ms = self.timeout_ms
        if self.deadline is not None:
            ms = max(1, min(ms, int((self.deadline - time.perf_counter()) * 1000)))
        fp.set("timeout", ms)
        t0 = time.perf_counter()

        def ask() -> dict:
            """In the child: Spacer's answer, and its invariant as text over the state's leaves."""
            for attempt in range(1 + STUCK_RETRIES):
                try:
                    r = fp.query(bad())
                    break
                except z3.Z3Exception as exc:  # a time-out (`canceled`), or a construct Spacer does not take
                    if STUCK in str(exc) and attempt < STUCK_RETRIES:
                        # Spacer's own failure on one run (a seed game's query answered it after
                        # 0.57 s once, and was proved when asked again): once more, another seed
                        fp.set("spacer.random_seed", attempt + 1)
                        continue
                    return {"answer": "canceled" if "canceled" in str(exc) else "error", "why": str(exc)[:200]}
            if r == z3.unsat:
                inv = self._answer(fp, preds, terms + ghosts)
                if inv is not None and ghosts:  # over the state's own leaves: each size as its sum
                    inv = {d: z3.substitute(f, *zip(ghosts, sizes(terms))) for d, f in inv.items()}
                return {"answer": "unsat", "invariant": None if inv is None else {d: f.sexpr() for d, f in inv.items()}}
            return {"answer": str(r), "why": fp.reason_unknown() if r == z3.unknown else ""}

        got = isolated(ask, ms / 1000 + 5)
        spent = round(time.perf_counter() - t0, 2)
        answer = got.get("answer")
        self.log.append((claim.name, len(order), answer, spent, str(got.get("why", ""))[:200]))
        if answer == "canceled" or (answer in ("unknown", "error", "crash") and self._late()):
            return Outcome(False, "time", detail="the time budget ran out")
        if answer == "crash":
            return Outcome(False, "unknown", detail=f"Spacer crashed ({got.get('why')}); no answer")
        if answer == "error":
            return Outcome(False, "unknown", detail=f"Spacer refused the clauses: {got.get('why')}")
        if answer == "sat":
            return Outcome(False, "sat", detail=f"the cone of {len(order)} leaves admits a failure (a condition "
                                                "outside it may forbid the path)")
        if answer != "unsat":
            return Outcome(False, "unknown", detail=f"Spacer gave up: {got.get('why')}")
        invariant = _parse_invariant(got.get("invariant"), terms)
        if invariant is None:
            return Outcome(False, "unknown", detail="Spacer's answer could not be read back")
        if not self._recheck(invariant, rules, order, terms, target, init, lemmas):
            return Outcome(False, "unknown", detail="Spacer's invariant failed the independent check")
        # quantified lemmas (Spacer may answer with them) would slow every later query, and Z3's
        # optimiser (the score bounds) does not take them: the proof stands, the lemma is not kept
        self.lemmas += [implies(eq_leaf(pc, num(d)), f) for d, f in invariant.items()
                        if not z3.is_true(f) and not _quantified(f)]
        return Outcome(True, detail=f"Spacer, on a cone of {len(order)} leaves")

    def _within(self, i: int, allowed: set) -> bool:
        dag = self.sys.dag
        return all(x in allowed or x not in self._state_ids for x in dag.leaves_of(dag.support(i)))

    def _facts(self, d: int, order: list) -> list:
        """The interval facts at d about the cone's leaves (read as the induction reads them)."""
        if self.facts is None:
            return []
        if self._reader is None:
            from .induction import Induction
            self._reader = Induction(self.sys, self.facts)
        return self._reader.fact_terms(d, order)

    @staticmethod
    def _answer(fp, preds: dict, terms: list) -> dict | None:
        """d -> the invariant at d over the cone's leaves, read from Spacer's answer."""
        out = {}
        answer = fp.get_answer()
        parts = answer.children() if z3.is_and(answer) else [answer]
        by_name = {p.name(): d for d, p in preds.items()}
        for part in parts:
            body = part.body() if z3.is_quantifier(part) else part
            if not z3.is_eq(body):
                continue
            head, formula = body.arg(0), body.arg(1)
            if not z3.is_app(head) or head.decl().name() not in by_name:
                continue
            d = by_name[head.decl().name()]
            if z3.is_quantifier(part):
                n = part.num_vars()
                mapping = [None] * n
                for k in range(head.num_args()):
                    a = head.arg(k)
                    if not z3.is_var(a):
                        return None
                    mapping[z3.get_var_index(a)] = terms[k]
                if any(m is None for m in mapping):
                    return None
                formula = z3.substitute_vars(formula, *mapping)
            out[d] = formula
        for d in preds:
            out.setdefault(d, z3.BoolVal(False, ctx=CTX))  # a predicate Spacer left out holds nowhere
        return out

    def _recheck(self, invariant: dict, rules: list, order: list, terms: list, target, init: list,
                 lemmas: list) -> bool:
        """Initiation, consecution over every rule, and the claim at every point: each an
        independent query (a fresh solver), so that a wrong Spacer answer is not a proof."""
        def valid(hyps: list, goal) -> bool:
            # within the deadline too: one query per rule at the full time-out each overran a
            # 60 s budget by 25 s (a check not finished in time is no proof)
            ms = self.timeout_ms
            if self.deadline is not None:
                ms = min(ms, int(1000 * (self.deadline - time.perf_counter())))
            if ms <= 0:
                return False
            s = z3.Solver(ctx=CTX)
            s.set("timeout", ms)
            s.add(*hyps, not_(goal))
            return s.check() == z3.unsat
        first = z3.substitute(invariant[self.sys.initial_pc], *zip(terms, init))
        if not valid([], first):
            return False
        for d, body, v, succ in rules:
            after = z3.substitute(invariant[v], *zip(terms, succ))
            if not valid([invariant[d], *body], after):
                return False
        pc = self.sys.term(self.sys.pc_leaf)
        for d, f in invariant.items():
            if not valid([f, eq_leaf(pc, num(d)), *self._facts(d, order), *lemmas], target):
                return False
        return True

    def _late(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline - 0.01


def _quantified(f) -> bool:
    """Whether the formula has a quantifier anywhere in it."""
    seen, stack = set(), [f]
    while stack:
        t = stack.pop()
        if z3.is_quantifier(t):
            return True
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_app(t):
            stack.extend(t.children())
    return False


def isolated(work, seconds: float) -> dict:
    """`work()` (a JSON-ready dict) in a forked child: Z3's Spacer can crash the process (a
    segmentation fault was seen on a small game), and a crash there must leave an `unknown`, not
    end `verify`. The child is killed past `seconds`."""
    import json
    import os
    import select
    import signal
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer, then leave without running the parent's clean-up
        import faulthandler
        faulthandler.disable()  # a crash here is reported by the parent, as an answer
        os.close(read_end)
        try:
            data = json.dumps(work())
        except BaseException as exc:  # noqa: BLE001 - anything goes back as text
            data = json.dumps({"answer": "error", "why": f"{type(exc).__name__}: {exc}"[:200]})
        with os.fdopen(write_end, "w") as out:
            out.write(data)
        os._exit(0)
    os.close(write_end)
    chunks, until = [], time.monotonic() + seconds
    with os.fdopen(read_end) as inp:
        while True:
            left = until - time.monotonic()
            ready, _, _ = select.select([inp], [], [], max(0.0, left))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                break
            chunk = inp.read()
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status) and not chunks:
        return {"answer": "crash", "why": f"signal {os.WTERMSIG(status)}"}
    try:
        return json.loads("".join(chunks))
    except ValueError:
        return {"answer": "crash", "why": "no answer"}


def _parse_invariant(texts: dict | None, terms: list) -> dict | None:
    """The child's invariant (decision point -> SMT-LIB text over the leaves) as formulas."""
    if texts is None:
        return None
    decls = {t.decl().name(): t.decl() for t in terms}
    out = {}
    try:
        for d, text in texts.items():
            (f,) = z3.parse_smt2_string(f"(assert {text})", decls=decls, ctx=CTX)
            out[int(d)] = f
    except (z3.Z3Exception, ValueError):
        return None
    return out
