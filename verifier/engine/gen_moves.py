"""Code generation for decision points: legal actions, steps, move texts, explanations.

For each decision point the engine gets:

- `_legal<D>(s, P)`: the legal action ids, ascending, built by comprehensions;
- `_step<D>(s, P, a)` (one-player decisions): decode `a`, check the move's
  requirements, run its effects, then run the flow to the next decision point —
  the whole move in one call, the hot path of every playout;
- `_draw<D>` and `_outcomes<D>` (chance), and for a weighted chance `_chances<D>`: the
  outcomes of positive weight with their exact probabilities (`_outcomes<D>` then lists
  those outcomes only, so every reader of the outcomes skips the impossible ones);
- per move `_apply_m<k>` (effects), `_text_m<k>` (display) and `_why_m<k>`
  (the labels of broken requirements, used to explain an illegal move).

Action ids: a move's parameters in mixed radix over their domains, after the
move's offset; the first parameter is the most significant digit.
"""
from __future__ import annotations

import functools

from ..ir import nodes as N
from ..ir.types import ArrayT, PlayerT, SeqT, SetT, Type


def reads_state_only(method):
    """Generate `method`'s code in read-only mode: memoised definitions (`R_`) may be called."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self.reading():
            return method(self, *args, **kwargs)
    return wrapper


def _lo(t: Type) -> int:
    return getattr(t, "lo", 0) or 0


class MoveGen:
    """Mixin of CodeGen: expects `expr`, `iter_code`, `show`, `block`, `where`, `T`."""

    def move_scope(self, mi) -> set:
        names = {p.name for p in mi.move.params}
        if mi.player_var:
            names.add(mi.player_var)
        return names

    def param_size(self, t: Type) -> int:
        return t.size(self.p.max_players)

    def strides(self, mi) -> list[int]:
        out, stride = [], 1
        for t in reversed(mi.param_types):
            out.insert(0, stride)
            stride *= self.param_size(t)
        return out

    def player_arg(self, mi) -> str:
        return f"v_{mi.player_var}" if mi.player_var else "_P"

    # ------------------------------------------------------------ table
    def gen_decisions(self, out) -> None:
        table = []
        for info in self.p.decisions:
            cont = self.decision_cont[info.index]
            node = info.node
            if isinstance(node, N.Chance):
                self.gen_chance(out, info, cont)
                chances = f"_chances{info.index}" if node.weight is not None else "None"
                table.append(f"('chance', {cont}, _outcomes{info.index}, _draw{info.index}, {self.where(node)}, "
                             f"{chances})")
                continue
            kind = "choose" if isinstance(node, N.Choose) else "simultaneous"
            for mi in info.moves:
                self.gen_move(out, mi)
            self.gen_legal(out, info)
            step = "None"
            if kind == "choose":
                self.gen_step(out, info, cont)
                step = f"_step{info.index}"
            moves = ", ".join(str(m.index) for m in info.moves)
            table.append(f"({kind!r}, {cont}, _legal{info.index}, ({moves},), {self.where(node)}, {step})")
        out(0, "")
        out(0, "DECISIONS = (" + "".join(f"\n    {t}," for t in table) + "\n)")
        moves = []
        for mi in self.p.moves:
            sizes = [self.param_size(t) for t in mi.param_types]
            los = [_lo(t) for t in mi.param_types]
            moves.append(f"({mi.move.name!r}, {mi.offset}, {sizes!r}, {los!r}, _apply_m{mi.index}, "
                         f"_text_m{mi.index}, _why_m{mi.index}, {mi.decision})")
        out(0, "MOVES = (" + "".join(f"\n    {m}," for m in moves) + "\n)")

    # ------------------------------------------------------------ chance
    def gen_chance(self, out, info, cont: int) -> None:
        node = info.node
        et = self.T(node.source)
        elem = et.elem
        out(0, "")
        out(0, "")
        out(0, f"def _outcomes{info.index}(s):")
        with self.reading():
            src = self.iter_code(node.source)
        # ascending, as OpenSpiel requires of outcomes (a set's bits already are)
        values = f"sorted(L.unique({src}))" if isinstance(et, SeqT) else \
            src if src.startswith("L.bits(") and src.endswith(")") else f"list({src})"  # L.bits makes a new list
        if node.weight is None:
            out(1, f"return {values}")
        else:
            out(1, f"return [v for v, _ in _chances{info.index}(s)]")
            out(0, "")
            out(0, "")
            self.locals_stack.append({node.var})
            with self.reading():
                weight = self.expr(node.weight)
            self.locals_stack.pop()
            options = self.options_read([node.source, node.weight], frozenset({node.var}))
            chances = f"L.weighted(values, [{weight} for v_{node.var} in values], {self.where(node.weight)})"
            if options is None:
                out(0, f"def _chances{info.index}(s):")
                out(1, f"values = {values}")
                out(1, f"return {chances}")
            else:
                # the outcomes and weights read only options: exact probabilities (Fractions, the
                # slow part of a chance node) are computed once per player count and options
                key = "".join(f", s.O_{name}" for name in sorted(options))
                out(0, f"_CHANCES{info.index} = {{}}")
                out(0, "")
                out(0, "")
                out(0, f"def _chances{info.index}(s):")
                out(1, f"key = (s.n{key})")
                out(1, f"r = _CHANCES{info.index}.get(key)")
                out(1, "if r is None:")
                out(2, f"values = {values}")
                out(2, f"r = _CHANCES{info.index}[key] = {chances}")
                out(1, "return list(r)")
        out(0, "")
        out(0, "")
        out(0, f"def _draw{info.index}(s, v):")
        out(1, f"s.L_{node.var} = v")
        out(0, f"_draw{info.index}.lo = {_lo(elem)}")
        out(0, f"_draw{info.index}.var = {node.var!r}")
        out(0, f"_draw{info.index}.show = lambda s, v: {self.show(elem, 'v')}")

    def options_read(self, exprs, bound: frozenset) -> set | None:
        """The options `exprs` read, following the definitions they call; None when they may
        read anything else that changes from state to state (a variable, a flow variable, a
        score, the winners).  `bound`: names bound around them (a chance's variable)."""
        found: set = set()
        seen_defs: set = set()

        def visit(node, bound: frozenset) -> bool:
            if isinstance(node, N.Name):
                if node.name in bound or node.name in ("num_players", "players") \
                        or node.name in self.p.type_names:
                    return True
                sym = self.p.symbols.get(node.name)
                if sym is None or node.name in self.flow_var_names:
                    return False
                if sym.kind == "option":
                    found.add(node.name)
                return sym.kind in ("option", "const", "enum_item")
            if isinstance(node, N.Aggregate):
                inner = bound | {node.var}
                return visit(node.source, bound) and all(visit(part, inner) for part in (node.where, node.body)
                                                         if part is not None)
            if isinstance(node, N.Call):
                if node.func == "score":
                    return False
                d = self.p.defs.get(node.func)
                if d is not None and node.func not in seen_defs:
                    seen_defs.add(node.func)
                    if not visit(d.body, frozenset(q.name for q in d.params)):
                        return False
            if isinstance(node, N.FieldAccess):
                return visit(node.base, bound)
            return all(visit(child, bound) for child in node.children() if isinstance(child, N.Node))

        return found if all(visit(e, bound) for e in exprs) else None

    # ------------------------------------------------------------ one move
    def move_function(self, out, prefix: str, mi) -> None:
        """Open `def <prefix><k>(s, player, params...)` with the move's names in scope."""
        args = "".join(f", v_{p.name}" for p in mi.move.params)
        self.locals_stack.append(self.move_scope(mi))
        out(0, "")
        out(0, "")
        out(0, f"def {prefix}{mi.index}(s, {self.player_arg(mi)}{args}):")

    def gen_move(self, out, mi) -> None:
        mv = mi.move
        self.move_function(out, "_apply_m", mi)
        self.block(mv.body.stmts, out, 1)
        self.locals_stack.pop()
        self.gen_text_and_why(out, mi)

    @reads_state_only
    def gen_text_and_why(self, out, mi) -> None:
        mv = mi.move
        args = "".join(f", v_{p.name}" for p in mv.params)
        player = self.player_arg(mi)
        self.move_function(out, "_text_m", mi)
        if mv.text is not None:
            out(1, f"return {self.expr(mv.text)}")
        elif mv.params:
            shown = [self.show(mi.param_types[i], f"v_{p.name}") for i, p in enumerate(mv.params)]
            out(1, f"return {mv.name!r} + '(' + " + " + ', ' + ".join(shown) + " + ')'")
        else:
            out(1, f"return {mv.name!r}")
        out(0, "")
        out(0, "")
        out(0, f"def _why_m{mi.index}(s, {player}{args}):")
        out(1, '"""Labels of the requirements this move breaks, in order (empty when legal)."""')
        out(1, "failed = []")
        for i, p in enumerate(mv.params):
            if isinstance(mi.param_types[i], PlayerT):
                out(1, f"if not 0 <= v_{p.name} < s.n:")
                out(2, f"return [({('player_' + p.name)!r}, 'there is no such player', ())]")
            if p.source is not None:
                out(1, f"if not ({self.member_test(p)}):")
                out(2, f"return [({('from_' + p.name)!r}, 'the {p.name} must be one of the listed choices', ())]")
        for req in mv.requires:
            out(1, f"if not {self.expr(req.cond)}:")
            out(2, f"failed.append(({req.label!r}, {req.message!r}, {req.cites!r}))")
        out(1, "return failed")
        self.locals_stack.pop()

    def member_test(self, p) -> str:
        ct = self.T(p.source)
        src = self.expr(p.source)
        if isinstance(ct, SetT):
            return f"(({src}) >> (v_{p.name} - {_lo(ct.elem)})) & 1"
        return f"v_{p.name} in {src}"

    # ------------------------------------------------------------ legal actions
    def param_source(self, p, t: Type) -> tuple[str, bool]:
        """Python iterable of a parameter's candidate values; True if not ascending."""
        if p.source is None:
            return self.domain_values(t), False
        src = self.iter_code(p.source)
        if isinstance(self.T(p.source), (SeqT, ArrayT)):
            return f"L.unique({src})", True
        return src, False

    def action_id(self, mi) -> str:
        strides = self.strides(mi)
        terms = [str(mi.offset)] if mi.offset or not mi.move.params else []
        for i, p in enumerate(mi.move.params):
            lo = _lo(mi.param_types[i])
            term = f"(v_{p.name} - {lo})" if lo else f"v_{p.name}"
            terms.append(term + (f" * {strides[i]}" if strides[i] != 1 else ""))
        return " + ".join(terms)

    @reads_state_only
    def gen_legal(self, out, info) -> None:
        player_var = info.moves[0].player_var if info.moves else None
        out(0, "")
        out(0, "")
        out(0, f"def _legal{info.index}(s, {'v_' + player_var if player_var else '_P'}):")
        parts, unordered = [], False
        for mi in info.moves:
            self.locals_stack.append(self.move_scope(mi))
            part, unsorted = self.legal_comprehension(out, mi)
            parts.append(part)
            unordered |= unsorted
            self.locals_stack.pop()
        if not parts:
            out(1, "return []")
            return
        out(1, f"r = {parts[0]}")
        for part in parts[1:]:
            out(1, f"r += {part}")
        if unordered:
            out(1, "r.sort()")
        out(1, "return r")

    def legal_comprehension(self, out, mi) -> tuple[str, bool]:
        """One move's legal action ids as a comprehension.

        Each requirement is tested as soon as the parameters it mentions are
        bound, and each parameter's candidates are computed once per value of
        the parameters they depend on — pruning early instead of testing
        every combination.  Requirements are pure, so the order of testing
        does not change the result.
        """
        params = [p.name for p in mi.move.params]
        # (code, deps) per test: each requirement's conjuncts, so that a conjunct runs as soon
        # as it and the conjuncts before it in its requirement are bound
        pending = [test for r in mi.move.requires for test in self.require_tests(r, params)]
        guards = [code for code, deps in pending if not deps]
        pending = [(code, deps) for code, deps in pending if deps]
        clauses, bound, unordered = [], set(), False
        for i, p in enumerate(mi.move.params):
            src, unsorted = self.param_source(p, mi.param_types[i])
            unordered |= unsorted
            deps = self.param_deps(p.source, params) if p.source is not None else set()
            if i > 0 and deps != bound and p.source is not None:
                # hoist: compute the candidates right after the last parameter they use
                name = f"_c{i}"
                at = max((params.index(d) for d in deps), default=-1)
                binding = f"for {name} in ({src},)"
                if at < 0:
                    out(1, f"{name} = {src}")
                else:
                    clauses.insert(self.clause_after(clauses, params[at]), binding)
                src = name
            clauses.append(f"for v_{p.name} in {src}")
            bound.add(p.name)
            for code, rdeps in [x for x in pending if x[1] <= bound]:
                clauses.append(f"if {code}")
            pending = [x for x in pending if not x[1] <= bound]
        if not mi.move.params:
            body = f"[{mi.offset}]"
        else:
            body = f"[{self.action_id(mi)} {' '.join(clauses)}]"
        if guards:
            body = f"({body} if {' and '.join(guards)} else [])"
        return body, unordered

    @staticmethod
    def clause_after(clauses: list[str], param: str) -> int:
        """Index just after the clause that binds `param` (and its own tests)."""
        for k, clause in enumerate(clauses):
            if clause.startswith(f"for v_{param} in "):
                k += 1
                while k < len(clauses) and clauses[k].startswith(("if ", "for _c")):
                    k += 1
                return k
        return len(clauses)

    def require_tests(self, r, params: list[str]) -> list[tuple[str, set]]:
        """A requirement as tests for the legal-move enumeration: (code, parameters it
        waits for).  The requirement's `and` chain is split, and so is the body of a
        definition it calls when that body is an `and` chain without bound variables and
        every argument fits its parameter (no range check is skipped).  Each test waits for
        everything the tests before it wait for: they run in the requirement's own order,
        so a conjunct that guards another (an index kept on the board) still comes first."""
        if type(self).require_code is not MoveGen.require_code:
            return [(self.require_code(r), self.param_deps(r.cond, params))]  # records each requirement
        tests: list[tuple[str, set]] = []
        deps: set = set()
        for code, own in self.conjuncts(r.cond, {q: {q} for q in params}, 0):
            deps = deps | own
            tests.append((code, deps))
        return tests

    def require_code(self, r) -> str:
        """A requirement's test where play decides legality (legal actions, steps); the
        rule-usage engine (`gen_usage.py`) records there which requirement ruled a move out."""
        return self.expr(r.cond)

    def param_deps(self, expr, params: list[str]) -> set:
        from ..frontend.typecheck import walk
        return {n.name for n in walk(expr) if isinstance(n, N.Name) and n.name in params}

    # ------------------------------------------------------------ the whole move
    def gen_step(self, out, info, cont: int) -> None:
        """Decode, check, apply, and run on to the next decision point."""
        out(0, "")
        out(0, "")
        out(0, f"def _step{info.index}(s, _P, a):")
        for k, mi in enumerate(info.moves):
            total = 1
            for t in mi.param_types:
                total *= self.param_size(t)
            out(1, f"{'if' if k == 0 else 'elif'} {mi.offset} <= a < {mi.offset + total}:")
            self.gen_decode(out, mi)
            self.locals_stack.append(self.move_scope(mi))
            checks = []
            for i, p in enumerate(mi.move.params):
                if isinstance(mi.param_types[i], PlayerT):
                    checks.append(f"v_{p.name} < s.n")
                if p.source is not None:
                    checks.append(f"({self.member_test(p)})")
            checks += [self.require_code(r) for r in mi.move.requires]
            args = "".join(f", v_{p.name}" for p in mi.move.params)
            if checks:
                out(2, f"if not ({' and '.join(checks)}):")
                out(3, f"raise L.IllegalMove(a, _why_m{mi.index}(s, _P{args}))")
            self.locals_stack.pop()
            out(2, f"_apply_m{mi.index}(s, _P{args})")
        out(1, "else:")
        out(2, "raise L.IllegalMove(a, [('not_now', 'not a move at this point of the game', ())])")
        if cont < 0:  # the move ends the game
            return
        out(1, f"seg = {cont}")
        out(1, "for _ in L.FLOW_STEPS:")  # a bounded `while seg >= 0` (see lib.FLOW_STEPS)
        out(2, "seg = SEGMENTS[seg](s)")
        out(2, "if seg < 0:")
        out(3, "return")
        out(1, "L.flow_without_decision()")

    def gen_decode(self, out, mi) -> None:
        params = mi.move.params
        if not params:
            return
        out(2, f"r = a - {mi.offset}" if mi.offset else "r = a")
        strides = self.strides(mi)
        for i, p in enumerate(params):
            lo = _lo(mi.param_types[i])
            size = self.param_size(mi.param_types[i])
            value = "r" if strides[i] == 1 else f"r // {strides[i]}"
            if i > 0:
                value = f"({value}) % {size}" if strides[i] != 1 else f"r % {size}"
            if lo:
                value = f"{value} + {lo}"
            out(2, f"v_{p.name} = {value}")
