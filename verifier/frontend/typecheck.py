"""Names, types and ranges: IR -> a checked `Program`, or diagnostics.

All errors of a file are collected in one run.  The result records the type of
every expression (keyed by node identity), the symbol tables, the flow's local
variables (which become state, PlusCal-style, because they live across
decision points) and the moves of every decision point.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import Diagnostic, Span, error, warning
from ..ir import nodes as N
from fractions import Fraction

from ..ir.types import (ArrayT, BoolT, CatalogueT, EmptyT, EnumT, GridT, IntT, PlayerT, RatT, RecordT, SeqT, SetT,
                        StrT, Type, assignable, contains_rational, element_type, int_bounds, is_int_like, is_number,
                        num_bounds)
from .builtins import BUILTINS, BuiltinError
from .check_docs import DocsChecks

# Identifiers that generated code reserves; a spec may not use them (they
# would otherwise shadow runtime names).  Dunder names are refused outright.
RESERVED = {"s", "self", "players", "num_players", "score", "winners", "true", "false"}

# what a spec may declare of its returns (`utility`): general_sum says nothing
UTILITIES = ("zero_sum", "constant_sum", "general_sum", "identical")
# The interval of a value the checker cannot bound (a score); a loop's measure must stay below it.
UNBOUNDED = 10**9
# "did you mean" for this many unknown names per spec (as many as `check` prints of one kind)
SUGGESTIONS = 20


@dataclass
class Symbol:
    kind: str  # enum_item, const, catalogue, option, var, def, type, local, param, builtin_value
    name: str
    type: Type | None
    decl: object = None
    used: bool = False
    unknown: bool = False  # bound where its type could not be found (an error said why): reads say nothing more


@dataclass
class MoveInfo:
    move: N.Move
    index: int  # global move number
    offset: int  # first action id
    param_types: list  # domain Type per parameter
    decision: int
    player_var: str | None  # the simultaneous node's player variable


@dataclass
class DecisionInfo:
    node: object  # N.Choose | N.Simultaneous | N.Chance
    index: int
    moves: list = field(default_factory=list)
    # the flow variables the flow may read where it waits here (bound earlier in the flow; a
    # chance's own variable is not drawn yet): what an invariant `at` this point may read
    visible: frozenset = frozenset()


@dataclass
class Program:
    spec: N.Spec
    name: str
    title: str
    min_players: int
    max_players: int
    types: dict  # id(expr) -> Type
    symbols: dict  # name -> Symbol
    enums: dict
    records: dict
    catalogues: dict
    grids: dict
    options: dict  # name -> OptionDecl
    option_types: dict
    consts: dict  # name -> ConstDecl
    vars: dict  # name -> VarDecl
    var_types: dict
    defs: dict
    flow: N.FlowDecl | None
    outcome: N.OutcomeDecl | None
    invariants: list
    examples: list
    flow_locals: dict  # name -> Type
    decisions: list  # DecisionInfo, in flow order
    moves: list  # MoveInfo, in flow order
    num_actions: int
    max_chance_outcomes: int
    type_names: dict = field(default_factory=dict)
    def_param_types: dict = field(default_factory=dict)  # id(Param) -> Type
    # for each Let/For/Chance that binds a flow local: id(node) -> name
    local_names: dict = field(default_factory=dict)
    expects: list = field(default_factory=list)  # ExpectDecl, in source order
    # the flow's `while ... decreases` loops in pre-order (not those of move bodies): loop k's
    # previous measure is the engine's state field M_k
    measures: list = field(default_factory=list)
    rules: dict = field(default_factory=dict)  # rule ID -> RuleDecl, in declaration order
    displays: list = field(default_factory=list)  # DisplayItem, in declaration order
    # the `utility` declarations in source order: the first whose `when` holds for the game as loaded
    # applies (none: general_sum)
    utilities: tuple = ()
    # invariant name -> the decision points (indices) its `at` clause names; absent: every one
    invariant_points: dict = field(default_factory=dict)

    def type_of(self, expr) -> Type:
        return self.types[id(expr)]

    def symbols_param_type(self, param) -> Type:
        """The type of a definition's parameter (resolved names only: the spec type-checked)."""
        return self.def_param_types[id(param)]

    def decision_of(self, node) -> DecisionInfo:
        for d in self.decisions:
            if d.node is node:
                return d
        raise KeyError(node)


class TypeChecker(DocsChecks):
    def __init__(self, spec: N.Spec):
        self.spec = spec
        self.diags: list[Diagnostic] = []
        self.suggestions = 0  # "did you mean" searches made (see `suggest`)
        self.calls_of: dict[str, list[str]] = {}  # def name -> the defs its body calls
        self.recursive: set[str] | None = None  # the defs on a cycle of calls, once known
        self.types: dict[int, Type] = {}
        self.symbols: dict[str, Symbol] = {}
        self.scopes: list[dict[str, Symbol]] = []
        self.min_players, self.max_players = 1, 1
        self.enums: dict = {}
        self.records: dict = {}
        self.catalogues: dict = {}
        self.grids: dict = {}
        self.type_names: dict[str, Type] = {}
        self.flow_locals: dict[str, Type] = {}
        self.flow_symbols: dict[str, Symbol] = {}  # visible only inside the flow
        # while an invariant `at` decision points is checked: (name in its `at`, DecisionInfo)
        self.invariant_at: list = []
        self.def_param_types: dict = {}
        self.local_names: dict = {}
        self.decisions: list[DecisionInfo] = []
        self.moves: list[MoveInfo] = []
        self.in_move = False
        self.in_flow = False
        self.allow_score = True
        self.allow_state = True
        self.allow_winners = False
        # a condition on the game's settings (an expectation's or a utility's `when`) reads options and
        # num_players only: (what the diagnostics call it, what it says), None elsewhere
        self.settings_condition: tuple[str, str] | None = None
        self.score_calls: list = []  # `score(p)` calls: they read whole-number scores
        self.flow_loops: dict[str, N.For] = {}  # the flow's `for` loops around the statement checked
        self.option_bound_uses: set[str] = set()  # options that bound a range (they count as used)

    # -------------------------------------------------------------- reporting
    def err(self, span: Span, msg: str, *notes: str, code: str = "type") -> None:
        self.diags.append(error(span, msg, *notes, code=code))

    def warn(self, span: Span, msg: str, *notes: str, code: str = "unused") -> None:
        self.diags.append(warning(span, msg, *notes, code=code))

    def symbol(self, kind: str, name: str, t: Type | None, decl) -> Symbol:
        return Symbol(kind, name, t, decl, used=True)

    # -------------------------------------------------------------- names
    def check_identifier(self, name: str, span: Span) -> bool:
        if name.startswith("_") or "__" in name:
            self.err(span, f"names may not start with '_' or contain '__': {name!r}",
                     "underscores there are reserved for generated code", code="reserved-name")
            return False
        if name in RESERVED:
            self.err(span, f"{name!r} is a reserved word of the language", code="reserved-name")
            return False
        return True

    def declare(self, sym: Symbol, span: Span) -> None:
        if not self.check_identifier(sym.name, span):
            return
        table = self.scopes[-1] if self.scopes else self.symbols
        previous = table.get(sym.name) or (self.lookup(sym.name) if self.scopes else None)
        if previous is not None and not (previous.kind == "local" and sym.kind == "local"):
            where = getattr(previous.decl, "span", None)
            notes = (f"first declared at {where}",) if where else ()
            self.err(span, f"{sym.name!r} is already declared", *notes, code="duplicate")
            if self.scopes:  # recover: the inner name shadows, so its uses don't cascade into errors
                table[sym.name] = sym
            return
        if sym.name in BUILTINS or sym.name in self.type_names:
            what = "a built-in function" if sym.name in BUILTINS else "a type"
            self.err(span, f"{sym.name!r} is already the name of {what}",
                     "built-in names are reserved (the manual lists them): choose another name", code="duplicate")
            table[sym.name] = sym  # recover: its uses mean this declaration, so they do not cascade into errors
            return
        table[sym.name] = sym

    def lookup(self, name: str) -> Symbol | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if self.in_flow and name in self.flow_symbols:
            return self.flow_symbols[name]
        return self.symbols.get(name)

    # -------------------------------------------------------------- types
    def resolve_type(self, ref) -> Type | None:
        if isinstance(ref, N.BoolTypeRef):
            return BoolT()
        if isinstance(ref, N.PlayerTypeRef):
            return PlayerT()
        if isinstance(ref, N.TextTypeRef):
            return StrT()
        if isinstance(ref, N.NamedTypeRef):
            t = self.type_names.get(ref.name)
            if t is None:
                self.err(ref.span, f"unknown type {ref.name!r}", self.suggest(ref.name, self.type_names),
                         code="unknown-type")
            return t
        if isinstance(ref, N.RangeTypeRef):
            lo, hi = self.bound(ref.lo, ref.span, "lo"), self.bound(ref.hi, ref.span, "hi")
            if lo is None or hi is None:
                return None
            if lo > hi:
                self.err(ref.span, f"empty range {lo}..{hi}", "the lower bound must not exceed the upper",
                         code="range")
                return None
            loaded = (self.option_bound(ref.lo), self.option_bound(ref.hi))
            return IntT(lo, hi, loaded) if loaded != (None, None) else IntT(lo, hi)
        if isinstance(ref, N.RationalTypeRef):
            if self.option_bound(ref.lo) or self.option_bound(ref.hi):
                self.err(ref.span, "a fraction's bounds are numbers or constants, not options", code="range")
                return None
            lo, hi = self.bound(ref.lo, ref.span), self.bound(ref.hi, ref.span)
            if lo is None or hi is None:
                return None
            if lo > hi:
                self.err(ref.span, f"empty range {lo}..{hi}", "the lower bound must not exceed the upper",
                         code="range")
                return None
            return RatT(lo, hi)
        if isinstance(ref, N.ArrayTypeRef):
            index, elem = self.resolve_type(ref.index), self.resolve_type(ref.elem)
            if index is not None and not index.is_domain:
                self.err(ref.index.span, f"an array is indexed by a finite domain, not by {index}",
                         code="type")
                return None
            if self.depends_on_options(index, ref.index.span, "an array's index"):
                return None
            return ArrayT(index, elem) if index and elem else None
        if isinstance(ref, N.SetTypeRef):
            elem = self.resolve_type(ref.elem)
            if elem is not None and not elem.is_domain:
                self.err(ref.elem.span, f"a set holds items of a finite domain, not {elem}", code="type")
                return None
            if self.depends_on_options(elem, ref.elem.span, "a set's items"):
                return None
            return SetT(elem) if elem else None
        if isinstance(ref, N.SeqTypeRef):
            elem = self.resolve_type(ref.elem)
            if ref.capacity < 1:
                self.err(ref.span, "a sequence's maximum length must be at least 1", code="range")
            return SeqT(elem, ref.capacity) if elem else None
        raise NotImplementedError(type(ref).__name__)

    def depends_on_options(self, t: Type | None, span: Span, what: str) -> bool:
        """A domain whose size would change with the options cannot lay out arrays, sets or
        action ids (they are fixed when the spec is compiled)."""
        if isinstance(t, IntT) and t.loaded is not None:
            self.err(span, f"{what} cannot be a range bounded by options ({t.lo}..{t.hi} at the widest)",
                     "its size is fixed before the options are loaded: use a range with number or "
                     "constant bounds here, and check the option's limit with a require or an invariant",
                     code="range")
            return True
        return False

    def option_bound(self, b) -> tuple | None:
        """(option, offset) for a bound that names an option (with `+ N` or `- N`), else None."""
        name, offset = (b, 0) if isinstance(b, str) else b if isinstance(b, tuple) else (None, 0)
        if name is None or name in self.symbols and self.symbols[name].kind == "const":
            return None
        if any(d.name == name for d in self.spec.of_kind(N.OptionDecl)):
            return (name, offset)
        return None

    def option_range(self, name: str) -> tuple[int, int] | None:
        """The declared range of integer option `name`, read from its declaration (types are
        resolved before options are checked, and a type may be bounded by an option)."""
        for d in self.spec.of_kind(N.OptionDecl):
            if d.name == name and isinstance(d.type, N.RangeTypeRef) \
                    and all(isinstance(b, int) for b in (d.type.lo, d.type.hi)):
                return d.type.lo, d.type.hi
        return None

    def bound(self, b, span, end: str = "hi") -> int | None:
        """A bound's static value; a bound naming an option is its widest value (`end`: which
        end of the range it is), and the engine checks the loaded one."""
        option = self.option_bound(b)
        if option is not None:
            name, offset = option
            found = self.option_range(name)
            if found is None:
                self.err(span, f"a range bound may name an integer option with number bounds; {name!r} is not one",
                         "declare it as `option NAME: LO..HI = ...`", code="range")
                return None
            self.option_bound_uses.add(name)
            return (found[0] if end == "lo" else found[1]) + offset
        if isinstance(b, tuple):
            self.err(span, f"'{b[0]} + N' in a range bound needs an integer option; {b[0]!r} is not one",
                     code="range")
            return None
        if isinstance(b, int):
            return b
        sym = self.symbols.get(b)
        if sym is None or sym.kind != "const" or not isinstance(sym.type, IntT) or sym.type.lo != sym.type.hi:
            self.err(span, f"a range bound must be a number or an integer constant; {b!r} is not",
                     code="range")
            return None
        sym.used = True
        return sym.type.lo

    def suggest(self, name: str, names) -> str:
        """"did you mean ...?" for an unknown name; `names` is the candidates or a function giving
        them. Each suggestion compares the name with every candidate, so only the first
        SUGGESTIONS unknown names get one: a spec with thousands of them stays linear."""
        self.suggestions += 1
        if self.suggestions > SUGGESTIONS:
            return "check the spelling, or declare it"
        import difflib
        candidates = [c for c in (names() if callable(names) else names) if c != name]  # never the name itself
        close = difflib.get_close_matches(name, candidates, n=1)
        return f"did you mean {close[0]!r}?" if close else "check the spelling, or declare it"

    def size_of(self, t: Type) -> int:
        return t.size(self.max_players)

    # -------------------------------------------------------------- program
    def run(self) -> Program | None:
        spec = self.spec
        games = spec.of_kind(N.GameDecl)
        name, title = ("game", "game")
        if not games:
            self.err(Span.unknown(spec.path), "a spec must start with 'game NAME \"Title\"'",
                     code="missing-decl")
        else:
            name, title = games[0].name, games[0].title
            for extra in games[1:]:
                self.err(extra.span, "only one 'game' declaration is allowed", code="duplicate")
        players = spec.of_kind(N.PlayersDecl)
        if not players:
            self.err(Span.unknown(spec.path), "missing 'players N' or 'players MIN..MAX'",
                     code="missing-decl")
        else:
            p = players[0]
            if p.lo < 1 or p.hi < p.lo or p.hi > 16:
                self.err(p.span, f"players must be between 1 and 16 with MIN <= MAX, got {p.lo}..{p.hi}",
                         code="range")
            else:
                self.min_players, self.max_players = p.lo, p.hi
            for extra in players[1:]:
                self.err(extra.span, "only one 'players' declaration is allowed", code="duplicate")

        decls = spec.decls
        for d in decls:  # types first: every later declaration may use them
            if isinstance(d, (N.EnumDecl, N.GridDecl, N.RecordDecl, N.TypeDecl)):
                self.declare_type(d)
        for d in decls:
            if isinstance(d, N.ConstDecl):
                self.check_const(d)
            elif isinstance(d, N.CatalogueDecl):
                self.check_catalogue(d)
        for d in decls:
            if isinstance(d, N.OptionDecl):
                self.check_option(d)
        self.var_types: dict[str, Type] = {}
        for d in decls:
            if isinstance(d, N.VarDecl):
                self.check_var(d)
        for d in decls:  # defs may call each other; declare first, then check bodies
            if isinstance(d, N.DefDecl):
                self.declare_def(d)
        outcome = self.single(N.OutcomeDecl, "outcome")
        for d in decls:
            if isinstance(d, N.DefDecl):
                self.check_def(d)
        flow = self.single(N.FlowDecl, "flow")
        if flow is not None:
            self.in_flow = True
            self.check_block(flow.body)
            self.in_flow = False
        if outcome is not None:
            self.check_outcome(outcome)
        invariant_points = {}
        for d in decls:
            if isinstance(d, N.InvariantDecl):
                if d.at:
                    invariant_points[d.name] = self.check_invariant_at(d)
                else:
                    self.expect_bool(d.cond)
            elif isinstance(d, N.ExampleDecl):
                self.check_example(d)
        self.check_expects(spec.of_kind(N.ExpectDecl), spec.of_kind(N.InvariantDecl))
        utilities = self.check_utilities()
        rules = self.check_rules()
        displays = self.check_display()
        self.check_unused()
        if any(d.severity.value == "error" for d in self.diags):
            return None
        num_actions = 0
        for m in self.moves:
            m.offset = num_actions
            size = 1
            for t in m.param_types:
                size *= self.size_of(t)
            num_actions += size
        max_chance = max([self.size_of(element_type(self.types[id(d.node.source)]))
                          for d in self.decisions if isinstance(d.node, N.Chance)] or [0])
        return Program(
            spec=spec, name=name, title=title, min_players=self.min_players, max_players=self.max_players,
            types=self.types, symbols=self.symbols, enums=self.enums, records=self.records,
            catalogues=self.catalogues, grids=self.grids,
            options={d.name: d for d in spec.of_kind(N.OptionDecl)},
            option_types={d.name: self.symbols[d.name].type for d in spec.of_kind(N.OptionDecl)
                          if d.name in self.symbols},
            consts={d.name: d for d in spec.of_kind(N.ConstDecl)},
            vars={d.name: d for d in spec.of_kind(N.VarDecl)}, var_types=self.var_types,
            defs={d.name: d for d in spec.of_kind(N.DefDecl)}, flow=flow, outcome=outcome,
            invariants=spec.of_kind(N.InvariantDecl), examples=spec.of_kind(N.ExampleDecl),
            flow_locals=self.flow_locals, decisions=self.decisions, moves=self.moves,
            type_names=dict(self.type_names), def_param_types=self.def_param_types,
            num_actions=num_actions, max_chance_outcomes=max_chance, local_names=self.local_names,
            expects=spec.of_kind(N.ExpectDecl), measures=flow_measures(flow), rules=rules, displays=displays,
            utilities=utilities, invariant_points=invariant_points)

    def check_invariant_at(self, d: N.InvariantDecl) -> tuple:
        """An invariant `at` named decision points: each name is a move offered at a decision point
        or the variable a `chance` draws; the condition may read the flow variables the flow
        itself may read at every one of them (bound before each, textually)."""
        points, missing, named = [], False, {}
        for name in d.at:
            named[name] = [info for info in self.decisions
                           if (isinstance(info.node, N.Chance) and info.node.var == name)
                           or any(m.move.name == name for m in info.moves)]
            found = [info.index for info in named[name]]
            if not found:
                known = sorted({m.move.name for m in self.moves}
                               | {info.node.var for info in self.decisions if isinstance(info.node, N.Chance)})
                self.err(getattr(name, "span", d.span), f"no decision point offers a move or draws a chance named {name!r}",
                         "'at' names decision points by a move they offer or the variable a chance draws; "
                         + self.suggest(name, known), code="unknown-name")
                missing = True
            points += [i for i in found if i not in points]
        if missing:
            return ()
        visible = frozenset.intersection(*(self.decisions[i].visible for i in points))
        self.scopes.append({name: self.flow_symbols[name] for name in visible})
        self.invariant_at = [(name, info) for name in d.at for info in named[name]]
        try:
            self.expect_bool(d.cond)
        finally:
            self.scopes.pop()
            self.invariant_at = []
        return tuple(sorted(points))

    def check_utilities(self) -> tuple:
        """Each `utility`'s kind is one of UTILITIES, with a sum for constant_sum only; its `when`
        reads the settings only (options are known when a game is loaded, so the engine, Z3 and
        OpenSpiel all know which declaration applies before the game starts). A declaration
        without `when` applies always: any after it could never apply."""
        found = self.spec.of_kind(N.UtilityDecl)
        unconditional = None
        for d in found:
            if unconditional is not None:
                self.err(d.span, "this 'utility' declaration is unreachable",
                         f"the one at {unconditional.span} has no 'when' condition, so it applies to every game",
                         "give that one a 'when' condition, or put this one before it", code="unreachable")
            if d.kind not in UTILITIES:
                self.err(d.span, f"unknown utility {d.kind!r}", "a utility is one of: " + ", ".join(UTILITIES),
                         code="utility")
            elif (d.kind == "constant_sum") != (d.total is not None):
                self.err(d.span, "constant_sum needs the returns' sum (utility constant_sum 1)" if d.total is None
                         else f"{d.kind} takes no number; only constant_sum does", code="utility")
            if d.when is not None:
                self.check_settings_condition(d.when, "a utility's condition",
                                              "the condition says for which settings the declaration applies")
            elif unconditional is None:
                unconditional = d
        return tuple(found)

    def check_settings_condition(self, cond, what: str, says: str) -> None:
        """A condition on options and num_players (`what`, `says`: its words in the diagnostics)."""
        saved = self.allow_state
        self.allow_state, self.settings_condition = False, (what, says)
        self.expect_bool(cond)
        self.allow_state, self.settings_condition = saved, None

    def single(self, kind, word):
        found = self.spec.of_kind(kind)
        if not found:
            self.err(Span.unknown(self.spec.path), f"a spec needs one '{word}' declaration",
                     code="missing-decl")
            return None
        for extra in found[1:]:
            self.err(extra.span, f"only one '{word}' declaration is allowed", code="duplicate")
        return found[0]

    def declare_type(self, d) -> None:
        if not self.check_identifier(d.name, d.span):
            return
        if d.name in self.type_names or d.name in BUILTINS:
            self.err(d.span, f"type {d.name!r} is already declared", code="duplicate")
            return
        if isinstance(d, N.EnumDecl):
            names = [i.name for i in d.items]
            t = EnumT(d.name, tuple(names), tuple(i.display or i.name for i in d.items))
            shown: dict = {}
            for item, display in zip(d.items, t.displays):
                if display in shown:  # moves are told apart by their text, so displays must differ
                    self.err(item.span, f"{item.name!r} is shown as {display!r}, like {shown[display]!r}",
                             "give the items of an enum different display names", code="duplicate")
                shown.setdefault(display, item.name)
            self.enums[d.name] = t
            self.type_names[d.name] = t
            for item in d.items:
                self.declare(Symbol("enum_item", item.name, t, item, used=True), item.span)
        elif isinstance(d, N.GridDecl):
            if not (1 <= d.rows <= 64 and 1 <= d.cols <= 64):
                self.err(d.span, "a grid has 1 to 64 rows and columns", code="range")
                return
            t = GridT(d.name, d.rows, d.cols)
            self.grids[d.name] = t
            self.type_names[d.name] = t
        elif isinstance(d, N.RecordDecl):
            fields = []
            seen = set()
            for f in d.fields:
                ft = self.resolve_type(f.type)
                if f.name in seen:
                    self.err(f.span, f"field {f.name!r} is declared twice", code="duplicate")
                seen.add(f.name)
                if ft is not None:
                    fields.append((f.name, ft))
            t = RecordT(d.name, tuple(fields), d.shown)
            self.records[d.name] = t
            self.type_names[d.name] = t
        elif isinstance(d, N.TypeDecl):
            t = self.resolve_type(d.type)
            if t is not None:
                self.type_names[d.name] = t

    def check_const(self, d: N.ConstDecl) -> None:
        t = self.resolve_type(d.type)
        if t is not None and contains_rational(t):
            self.err(d.type.span, "a constant is a whole number, not a fraction",
                     "compute the fraction with a def: def half(): rational 0..1 = 1 / 2", code="rational")
            t = None
        saved = self.allow_state
        self.allow_state = False
        vt = self.infer(d.value, t)
        self.allow_state = saved
        if t and vt and not assignable(t, vt):
            self.err(d.value.span, f"constant {d.name!r} is declared {t} but its value is {vt}")
        if t is not None and isinstance(t, IntT) and isinstance(d.value, N.IntLit):
            t = IntT(d.value.value, d.value.value)  # a known integer: usable as a range bound
        self.declare(Symbol("const", d.name, t, d), d.span)

    def check_catalogue(self, d: N.CatalogueDecl) -> None:
        record = self.records.get(d.record)
        if record is None:
            self.err(d.span, f"unknown record type {d.record!r}", self.suggest(d.record, self.records),
                     code="unknown-type")
            return
        for item in d.items:
            self.check_record_literal(item, record)
        if not self.check_identifier(d.name, d.span):
            return
        if d.name in self.type_names:
            self.err(d.span, f"{d.name!r} is already declared", code="duplicate")
            return
        t = CatalogueT(d.name, record, len(d.items))
        self.catalogues[d.name] = (t, d)
        self.type_names[d.name] = t

    def check_record_literal(self, item, record: RecordT) -> None:
        if not (isinstance(item, N.Call) and item.func == record.name):
            self.err(item.span, f"a catalogue item is written {record.name}(field=value, ...)", code="type")
            return
        given = {}
        for arg in item.args:
            if not isinstance(arg, N.KeywordArg):
                self.err(arg.span, "catalogue fields are given by name: field=value", code="type")
                continue
            ft = record.field(arg.name)
            if ft is None:
                self.err(arg.span, f"record {record.name} has no field {arg.name!r}",
                         self.suggest(arg.name, dict(record.fields)), code="unknown-name")
                continue
            if arg.name in given:
                self.err(arg.span, f"field {arg.name!r} given twice", code="duplicate")
            given[arg.name] = arg
            saved = self.allow_state
            self.allow_state = False
            vt = self.infer(arg.value, ft)
            self.allow_state = saved
            self.check_assignable(ft, vt, arg.value)
        missing = [n for n, _ in record.fields if n not in given]
        if missing:
            self.err(item.span, f"missing field(s) {', '.join(missing)} of {record.name}", code="type")
        self.types[id(item)] = record

    def check_option(self, d: N.OptionDecl) -> None:
        t = self.resolve_type(d.type)
        if t is not None and not t.is_domain:
            self.err(d.type.span, "an option's type must be bool, an enum or an integer range", code="type")
        saved = self.allow_state
        self.allow_state = False
        vt = self.infer(d.default, t)
        self.check_assignable(t, vt, d.default)
        if d.finite is not None:
            self.check_assignable(t, self.infer(d.finite, t), d.finite)
        self.allow_state = saved
        if not d.reason.strip():
            self.err(d.span, f"option {d.name!r} needs a reason after 'because'", code="option-reason")
        self.declare(Symbol("option", d.name, t, d), d.span)

    def check_var(self, d: N.VarDecl) -> None:
        t = self.resolve_type(d.type)
        if t is None:
            return
        if contains_text(t):
            self.err(d.type.span, "text is for display only; state holds finite values", code="type")
            return
        if contains_rational(t):
            self.err(d.type.span, "state holds whole numbers, not fractions: the state stays finite",
                     "a fraction may be a def's result, a score, a return or a chance weight; keep its "
                     "numerator and denominator in state", code="rational")
            return
        if d.visibility == "private" and not (isinstance(t, ArrayT) and isinstance(t.index, PlayerT)):
            self.err(d.span, f"'private' state belongs to each player: declare {d.name!r} as array[Player] of ...",
                     code="visibility")
        if d.init is not None:
            saved = self.allow_state
            self.allow_state = False
            inner = t
            while isinstance(inner, ArrayT):
                inner = inner.elem
            # a list literal fills every element when the element itself is a sequence
            fills = isinstance(t, ArrayT) and isinstance(d.init, N.SeqLit) and isinstance(inner, SeqT)
            vt = self.infer(d.init, inner if fills else t)
            if isinstance(t, ArrayT) and vt is not None and not assignable(t, vt):
                inner = t
                while isinstance(inner, ArrayT):
                    inner = inner.elem
                vt = self.infer(d.init, inner)  # a scalar initial value: type it as the element
                # a scalar initial value fills every element
                inner = t
                while isinstance(inner, ArrayT) and vt is not None and not assignable(inner, vt):
                    inner = inner.elem
                self.check_assignable(inner, vt, d.init)
            else:
                self.check_assignable(t, vt, d.init)
            self.allow_state = saved
        self.var_types[d.name] = t
        self.declare(Symbol("var", d.name, t, d), d.span)

    def declare_def(self, d: N.DefDecl) -> None:
        t = self.resolve_type(d.result)
        self.declare(Symbol("def", d.name, t, d), d.span)

    def check_def(self, d: N.DefDecl) -> None:
        sym = self.symbols.get(d.name)
        if sym is None or sym.decl is not d:
            return
        self.scopes.append({})
        for p in d.params:
            pt = self.symbols_param_type(p)
            self.declare(Symbol("param", p.name, pt, p, used=True), p.span)
        vt = self.infer(d.body, sym.type)
        self.check_assignable(sym.type, vt, d.body)
        self.scopes.pop()
        self.check_recursion(d)

    def def_calls(self, name: str) -> list[str]:
        """The definitions `name`'s body calls, in walk order (computed once per definition)."""
        calls = self.calls_of.get(name)
        if calls is None:
            body = self.symbols[name].decl.body
            calls = self.calls_of[name] = [
                node.func for node in walk(body)
                if isinstance(node, N.Call) and node.func in self.symbols and self.symbols[node.func].kind == "def"]
        return calls

    def recursive_defs(self) -> set[str]:
        """Definitions on a cycle of calls: Tarjan's strongly connected components, once per spec
        (a search from every definition would be quadratic in a long chain of them)."""
        if self.recursive is not None:
            return self.recursive
        defs = [n for n, sym in self.symbols.items() if sym.kind == "def"]
        index, low, on_stack, stack, found = {}, {}, set(), [], set()
        for root in defs:
            if root in index:
                continue
            work = [(root, 0)]
            while work:  # iterative: a chain of 100,000 calls must not recurse 100,000 deep
                node, i = work.pop()
                if i == 0:
                    index[node] = low[node] = len(index)
                    stack.append(node)
                    on_stack.add(node)
                calls = self.def_calls(node)
                if i < len(calls):
                    work.append((node, i + 1))
                    nxt = calls[i]
                    if nxt not in index:
                        work.append((nxt, 0))
                    elif nxt in on_stack:
                        low[node] = min(low[node], index[nxt])
                    continue
                for nxt in calls:  # children done: their low links come back up
                    if nxt in on_stack:
                        low[node] = min(low[node], low[nxt])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1 or node in self.def_calls(node):
                        found.update(component)
        self.recursive = found
        return found

    def check_recursion(self, d: N.DefDecl) -> None:
        if d.name not in self.recursive_defs():
            return
        seen, stack = set(), [(d, ())]
        while stack:
            cur, path = stack.pop()
            for func in self.def_calls(cur.name):
                if func == d.name:
                    via = f" through {' -> '.join(repr(n) for n in path)}" if path else ""
                    self.err(d.span, f"{d.name!r} calls itself{via}; definitions may not be recursive",
                             code="recursion")
                    return
                if func not in seen:
                    seen.add(func)
                    stack.append((self.symbols[func].decl, path + (func,)))

    def check_outcome(self, o: N.OutcomeDecl) -> None:
        self.allow_score = False
        for clause in (o.score, *o.tiebreaks):
            self.scopes.append({})
            self.declare(Symbol("param", clause.var, PlayerT(), clause, used=True), clause.span)
            t = self.infer(clause.expr)
            if t is not None and not is_number(t):
                self.err(clause.expr.span, f"a score is a number, not {t}")
            if isinstance(t, RatT) and clause is o.score:
                for call in self.score_calls:
                    self.err(call.span, "score(p) reads whole-number scores, and this spec's score is a fraction",
                             "compute what you need from the score's own expression (a def)", code="rational")
            self.scopes.pop()
        self.allow_score = True
        if o.wins is not None:
            self.scopes.append({})
            self.declare(Symbol("param", o.wins.var, PlayerT(), o.wins, used=True), o.wins.span)
            self.expect_bool(o.wins.cond)
            self.scopes.pop()
        if o.returns is not None:
            self.allow_winners = True
            self.scopes.append({})
            self.declare(Symbol("param", o.returns.var, PlayerT(), o.returns, used=True), o.returns.span)
            t = self.infer(o.returns.expr)
            if t is not None and not is_number(t):
                self.err(o.returns.expr.span, f"returns are numbers, not {t}")
            self.scopes.pop()
            self.allow_winners = False

    def check_example(self, d: N.ExampleDecl) -> None:
        for item in d.items:
            if isinstance(item, N.ExampleGiven):
                if isinstance(item.target, N.Name) and item.target.name == "num_players":
                    self.infer(item.value, IntT(self.min_players, self.max_players))
                    continue
                tt = self.infer_lvalue(item.target, allow_locals=False)
                vt = self.infer(item.value, tt)
                self.check_assignable(tt, vt, item.value)
            else:
                self.allow_winners = True
                self.expect_bool(item.cond)
                self.allow_winners = False

    def check_expects(self, expects: list, invariants: list) -> None:
        """Each expectation names a property and a status; its condition reads no state."""
        properties = [d.name for d in invariants] + list(N.BUILTIN_PROPERTIES)
        unconditional: dict = {}
        for d in expects:
            if d.name not in properties:
                self.err(d.span, f"unknown property {d.name!r}",
                         "a property is an invariant of the spec or one of " + ", ".join(N.BUILTIN_PROPERTIES),
                         self.suggest(d.name, properties), code="unknown-name")
            if d.status not in N.EXPECT_STATUSES:
                close = self.suggest(d.status, N.EXPECT_STATUSES)
                self.err(d.span, f"unknown status {d.status!r}: expected one of {', '.join(N.EXPECT_STATUSES)}",
                         *([close] if close.startswith("did you") else []), code="unknown-name")
            if d.when is not None:
                self.check_settings_condition(d.when, "an expectation's condition",
                                              "the condition says for which settings the status is expected")
            elif d.name in unconditional:
                self.err(d.span, f"a second expectation for {d.name!r} without a condition",
                         f"the first is at {unconditional[d.name].span}",
                         "give each a 'when' condition on options, or keep one", code="duplicate")
            else:
                unconditional[d.name] = d

    def state_read_by(self, d: N.DefDecl) -> str | None:
        """The first piece of game state a definition reads, directly or through others."""
        seen, stack = {d.name}, [d]
        while stack:
            cur = stack.pop()
            for node in walk(cur.body):
                name = node.name if isinstance(node, N.Name) else node.func if isinstance(node, N.Call) else None
                sym = self.symbols.get(name) if name is not None else None
                if isinstance(node, N.Call) and name == "score":
                    return "the scores"
                if sym is not None and sym.kind == "var" and isinstance(node, N.Name):
                    return repr(name)
                if sym is not None and sym.kind == "def" and isinstance(node, N.Call) and name not in seen:
                    seen.add(name)
                    stack.append(sym.decl)
        return None

    def check_unused(self) -> None:
        used_in_source = set()
        for node in walk(self.spec):
            if isinstance(node, N.Name):
                used_in_source.add(node.name)
            elif isinstance(node, N.Call):
                used_in_source.add(node.func)
        for sym in self.symbols.values():
            if sym.name in self.option_bound_uses:
                continue
            if sym.kind in ("var", "def", "const", "option") and not sym.used and sym.name not in used_in_source:
                self.warn(sym.decl.span, f"{sym.kind} {sym.name!r} is never used", code="unused")

    # -------------------------------------------------------------- statements
    def check_block(self, block: N.Block) -> None:
        for stmt in block.stmts:
            self.check_stmt(stmt)

    def check_stmt(self, st) -> None:
        method = getattr(self, "stmt_" + type(st).__name__, None)
        if method is None:
            raise NotImplementedError(f"type checker has no rule for statement {type(st).__name__}")
        method(st)

    def stmt_Assign(self, st: N.Assign) -> None:
        tt = self.infer_lvalue(st.target)
        vt = self.infer(st.value, tt)
        if tt is None or vt is None:
            return
        if st.op == "=":
            self.check_assignable(tt, vt, st.value)
        elif is_int_like(tt):
            if not is_int_like(vt):
                self.err(st.value.span, f"'{st.op}' needs a whole number, got {vt}")
        elif isinstance(tt, SetT):
            self.check_assignable(tt, vt, st.value)
        else:
            self.err(st.span, f"'{st.op}' works on numbers and sets, not on {tt}")

    def stmt_Let(self, st: N.Let) -> None:
        if st.type is not None:
            self.typed_let(st)
            return
        vt = self.infer(st.value)
        if isinstance(vt, EmptyT):
            self.err(st.value.span, "cannot tell the element type of an empty collection here",
                     "declare a state variable with a type instead")
            return
        if vt is not None and contains_rational(vt):
            self.err(st.value.span, f"let {st.name} would hold a fraction ({vt}); a let holds whole numbers",
                     "compute the fraction with a def, where it is used", code="rational")
            return
        self.bind_local(st.name, vt, st)

    def typed_let(self, st: N.Let) -> None:
        """`let x: T = v`: x holds values of T (every value bound to it is checked against T)."""
        t = self.resolve_type(st.type)
        if t is None:
            return
        if contains_text(t) or contains_rational(t):
            self.err(st.type.span, f"let {st.name} holds state: whole numbers and finite values, not {t}",
                     code="type")
            return
        vt = self.infer(st.value, t)
        if vt is not None and is_int_like(t) and is_int_like(vt):
            (tlo, thi), (vlo, vhi) = int_bounds(t, self.max_players), int_bounds(vt, self.max_players)
            if vhi < tlo or vlo > thi:
                value_text = str(vlo) if vlo == vhi else f"a value in {vlo}..{vhi}"
                self.err(st.value.span, f"let {st.name}: {t} can never hold {value_text}", code="range")
        else:
            self.check_assignable(t, vt, st.value)
        self.types[id(st)] = t  # the declared type, for the back ends' range checks
        self.bind_local(st.name, t, st)

    def bind_local(self, name: str, t: Type | None, node) -> None:
        if not self.check_identifier(name, node.span):
            return
        unknown = t is None
        if t is None:
            t = BoolT()
        existing = self.lookup(name)
        if existing is not None and existing.kind != "local":
            self.err(node.span, f"{name!r} is already declared as a {existing.kind.replace('_', ' ')}",
                     code="duplicate")
            return
        if self.in_flow and not self.in_move:
            loop = self.flow_loops.get(name)
            if loop is not None:  # a flow variable is one state field: the loop would lose its place
                self.err(node.span, f"{name!r} is the variable of the enclosing loop (line {loop.span.line})",
                         "a flow variable is one value of the state, and the loop goes on with it: "
                         "choose another name", code="duplicate")
                return
            prev = self.flow_locals.get(name)
            if prev is not None and prev != t:
                if is_int_like(prev) and is_int_like(t) and isinstance(prev, IntT) and isinstance(t, IntT):
                    t = IntT(min(prev.lo, t.lo), max(prev.hi, t.hi))
                else:
                    self.err(node.span, f"flow variable {name!r} was {prev} and is now {t}",
                             "a flow variable keeps one type throughout the flow", code="type")
                    return
            self.flow_locals[name] = t
            self.local_names[id(node)] = name
            # a flow variable is visible from here to the end of the flow (and only there)
            self.flow_symbols.setdefault(name, Symbol("local", name, t, node, used=True))
            self.flow_symbols[name].type = t
            self.flow_symbols[name].unknown = unknown
        else:
            self.scopes[-1][name] = Symbol("local", name, t, node, used=True, unknown=unknown)

    def stmt_If(self, st: N.If) -> None:
        for cond, body in st.branches:
            self.expect_bool(cond)
            self.scoped_block(body)
        if st.orelse is not None:
            self.scoped_block(st.orelse)

    def scoped_block(self, body: N.Block) -> None:
        if self.in_move or not self.in_flow:
            self.scopes.append({})
            self.check_block(body)
            self.scopes.pop()
        else:
            self.check_block(body)

    def stmt_For(self, st: N.For) -> None:
        et = self.iter_type(st.source)
        if not self.in_move:
            self.bind_local(st.var, et, st)
            outer = self.flow_loops.get(st.var)
            self.flow_loops[st.var] = st
            self.check_block(st.body)
            if outer is None:
                del self.flow_loops[st.var]
            else:
                self.flow_loops[st.var] = outer
        else:
            self.scopes.append({})
            self.bind_local(st.var, et, st)
            self.check_block(st.body)
            self.scopes.pop()

    def stmt_While(self, st: N.While) -> None:
        self.expect_bool(st.cond)
        if st.decreases is not None:
            self.check_measure(st.decreases)
        self.scoped_block(st.body)

    def check_measure(self, e) -> None:
        """A loop's measure: a whole number with a known upper bound (it bounds the iterations)."""
        t = self.infer(e)
        if t is None:
            return
        if not is_int_like(t):
            self.err(e.span, f"a loop's measure (decreases) is a whole number, not {t}")
            return
        lo, hi = int_bounds(t, self.max_players)
        if hi >= UNBOUNDED:
            self.err(e.span, "the upper bound of this measure is not known",
                     "the measure bounds the loop's iterations: build it from values with declared ranges",
                     code="range")

    def stmt_Chance(self, st: N.Chance) -> None:
        self.no_decision_in_move(st)
        et = self.iter_type(st.source)
        if et is not None and not et.is_domain:
            self.err(st.source.span, f"chance picks from a collection of a finite domain, not of {et}")
        info = DecisionInfo(st, len(self.decisions), visible=frozenset(self.flow_symbols))
        self.decisions.append(info)
        self.bind_local(st.var, et, st)
        if st.weight is not None:
            wt = self.infer(st.weight)
            if wt is not None and not is_number(wt):
                self.err(st.weight.span, f"a chance weight is a number (whole or a fraction), not {wt}")

    def no_decision_in_move(self, st) -> None:
        if self.in_move:
            self.err(st.span, "a decision point (choose, simultaneous, chance) cannot be inside a move's effects",
                     "end the move, then decide in the flow", code="nested-decision")

    def stmt_Choose(self, st: N.Choose) -> None:
        self.no_decision_in_move(st)
        pt = self.infer(st.player, PlayerT())
        if pt is not None and not is_int_like(pt):
            self.err(st.player.span, f"'choose' names the player who decides; got {pt}")
        info = DecisionInfo(st, len(self.decisions), visible=frozenset(self.flow_symbols))
        self.decisions.append(info)
        self.check_moves(st.moves, info, None)

    def stmt_Simultaneous(self, st: N.Simultaneous) -> None:
        self.no_decision_in_move(st)
        info = DecisionInfo(st, len(self.decisions), visible=frozenset(self.flow_symbols))
        self.decisions.append(info)
        self.check_moves(st.moves, info, st.var)

    def check_moves(self, moves, info: DecisionInfo, player_var: str | None) -> None:
        names = set()
        for mv in moves:
            if mv.name in names:
                self.err(mv.span, f"move {mv.name!r} appears twice at this decision point", code="duplicate")
            names.add(mv.name)
            self.check_identifier(mv.name, mv.span)
            self.in_move = True
            self.scopes.append({})
            if player_var is not None:
                self.declare(Symbol("param", player_var, PlayerT(), mv, used=True), mv.span)
            ptypes = []
            for p in mv.params:
                if p.type is not None:
                    pt = self.resolve_type(p.type)
                else:
                    pt = self.iter_type(p.source)
                if pt is not None and not pt.is_domain:
                    self.err(p.span, f"a move parameter ranges over a finite domain, not over {pt}")
                    pt = None
                if p.type is not None and self.depends_on_options(pt, p.type.span, "a move parameter's type"):
                    pt = None
                ptypes.append(pt or BoolT())
                self.declare(Symbol("param", p.name, pt or BoolT(), p, used=True), p.span)
            if mv.text is not None:
                self.infer(mv.text)
            labels = set()
            for req in mv.requires:
                if req.label in labels:
                    self.err(req.span, f"requirement {req.label!r} appears twice in move {mv.name!r}",
                             code="duplicate")
                labels.add(req.label)
                self.expect_bool(req.cond)
            self.check_block(mv.body)
            self.scopes.pop()
            self.in_move = False
            mi = MoveInfo(mv, len(self.moves), 0, ptypes, info.index, player_var)
            self.moves.append(mi)
            info.moves.append(mi)

    def stmt_End(self, st: N.End) -> None:
        if self.in_move:
            self.err(st.span, "'end' belongs to the flow, not to a move's effects", code="nested-decision")

    def stmt_Say(self, st: N.Say) -> None:
        self.infer(st.text)

    def stmt_CollectionEdit(self, st: N.CollectionEdit) -> None:
        ct = self.infer_lvalue(st.target)
        if ct is None:
            self.infer(st.item)
            return
        if st.op == "append" and not isinstance(ct, SeqT):
            self.err(st.target.span, f"'append' adds to the end of a sequence; this is {ct}")
        elif st.op == "add" and not isinstance(ct, SetT):
            self.err(st.target.span, f"'add' puts an item in a set; this is {ct}",
                     "use 'append' for a sequence" if isinstance(ct, SeqT) else "")
        elif st.op == "remove" and not isinstance(ct, (SetT, SeqT)):
            self.err(st.target.span, f"'remove' takes an item out of a set or sequence; this is {ct}")
        et = element_type(ct) if isinstance(ct, (SetT, SeqT)) else None
        it = self.infer(st.item, et)
        if et is not None:
            self.check_assignable(et, it, st.item)

    # -------------------------------------------------------------- lvalues
    def infer_lvalue(self, target, allow_locals: bool = True) -> Type | None:
        root = target
        while isinstance(root, N.Index):
            root = root.base
        if not isinstance(root, N.Name):
            self.err(target.span, "only state variables and their elements can be assigned", code="lvalue")
            return None
        sym = self.lookup(root.name)
        if sym is None:
            self.err(root.span, f"unknown name {root.name!r}", self.suggest(root.name, self.visible_names),
                     code="unknown-name")
            return None
        if sym.kind == "var" or (allow_locals and sym.kind == "local"):
            if sym.kind == "local" and self.in_move and root.name in self.flow_locals and \
                    not any(root.name in sc for sc in self.scopes):
                pass  # assigning a flow variable from a move is allowed: it is state
            return self.infer(target)
        self.err(root.span, f"{root.name!r} is a {sym.kind.replace('_', ' ')} and cannot be assigned",
                 "only 'var' state and flow variables change", code="lvalue")
        return None

    # -------------------------------------------------------------- expressions
    def expect_bool(self, e) -> None:
        t = self.infer(e, BoolT())
        if t is not None and not isinstance(t, BoolT):
            self.err(e.span, f"expected a condition (true or false), got {t}")

    def check_assignable(self, target, value, node) -> None:
        if target is None or value is None:
            return
        if isinstance(value, RatT) and is_int_like(target):
            self.err(node.span, f"a fraction ({value}) cannot be stored as a whole number ({target})",
                     "'//' divides whole numbers, rounding down", code="rational")
            return
        if not assignable(target, value):
            self.err(node.span, f"expected {target}, got {value}", code="type")
            return
        if is_number(target) and is_number(value):
            tlo, thi = num_bounds(target, self.max_players)
            vlo, vhi = num_bounds(value, self.max_players)
            if vhi < tlo or vlo > thi:
                value_text = str(vlo) if vlo == vhi else f"a value in {vlo}..{vhi}"
                bounds = "" if isinstance(target, (IntT, RatT)) else f" ({tlo}..{thi})"
                self.err(node.span, f"{value_text} can never fit in {target}{bounds}", code="range")

    def iter_type(self, e) -> Type | None:
        t = self.infer(e)
        if t is None:
            return None
        et = element_type(t)
        if et is None:
            self.err(e.span, f"expected a collection to go through, got {t}")
        return et

    def infer(self, e, expected: Type | None = None) -> Type | None:
        method = getattr(self, "expr_" + type(e).__name__, None)
        if method is None:
            raise NotImplementedError(f"type checker has no rule for expression {type(e).__name__}")
        t = method(e, expected)
        if t is not None:
            self.types[id(e)] = t
        return t

    def expr_IntLit(self, e, expected):
        return IntT(e.value, e.value)  # ranges are checked where the value is stored

    def expr_BoolLit(self, e, expected):
        return BoolT()

    def expr_StrLit(self, e, expected):
        for part in e.parts:
            if not isinstance(part, str):
                self.infer(part)
        return StrT()

    def visible_names(self):
        names = set(self.symbols) | set(BUILTINS) | set(self.type_names) | {"players", "num_players"}
        for sc in self.scopes:
            names |= set(sc)
        return names

    def expr_Name(self, e, expected):
        if e.name == "num_players":
            return IntT(self.min_players, self.max_players)
        if e.name == "players":
            return SeqT(PlayerT(), self.max_players)
        if e.name == "winners":
            if not self.allow_winners:
                self.err(e.span, "'winners' is known only in 'returns' and in examples", code="unknown-name")
            return SetT(PlayerT())
        if e.name in self.type_names:
            t = self.type_names[e.name]
            if not t.is_domain:
                self.err(e.span, f"{e.name!r} is a type, not a value")
                return None
            return SeqT(t, self.size_of(t))
        sym = self.lookup(e.name)
        if sym is None:
            if e.name in self.flow_symbols and self.invariant_at:
                unbound = [f"'{name}' (line {info.node.span.line})" for name, info in self.invariant_at
                           if e.name not in info.visible]
                self.err(e.span, f"flow variable {e.name!r} is not bound where the game waits at "
                         + ", ".join(unbound),
                         "an invariant `at` decision points reads the flow variables bound before every one of them",
                         code="unknown-name")
                return None
            if e.name in self.flow_symbols and not self.in_flow:
                self.err(e.span, f"{e.name!r} is a flow variable: it has a value only where the flow has bound it",
                         "an invariant reads it at named decision points, bound before each: "
                         "`invariant NAME \"...\" at MOVE_OR_CHANCE: ...`", code="unknown-name")
                return None
            self.err(e.span, f"unknown name {e.name!r}", self.suggest(e.name, self.visible_names),
                     code="unknown-name")
            return None
        sym.used = True
        if sym.unknown:  # its binding's error said it all
            return None
        if sym.kind == "def":
            self.err(e.span, f"{e.name!r} is a definition: call it as {e.name}(...)")
            return None
        if sym.kind in ("var", "local") and not self.allow_state and sym.kind == "var":
            if self.settings_condition is not None:
                what, says = self.settings_condition
                self.err(e.span, f"{e.name!r} is game state; {what} reads options and num_players only", says,
                         code="const-state")
            else:
                self.err(e.span, f"{e.name!r} is game state; a constant or option cannot depend on it",
                         code="const-state")
        if sym.kind == "enum_item" and expected is not None and isinstance(expected, EnumT) \
                and sym.type != expected and e.name in expected.items:
            return expected
        return sym.type

    def expr_Index(self, e, expected):
        bt = self.infer(e.base)
        if bt is None:
            self.infer(e.index)
            return None
        if isinstance(bt, ArrayT):
            it = self.infer(e.index, bt.index)
            self.check_assignable(bt.index, it, e.index)
            return bt.elem
        if isinstance(bt, SeqT):
            it = self.infer(e.index, IntT(0, bt.cap - 1))
            if it is not None and not is_int_like(it):
                self.err(e.index.span, f"a sequence is indexed by a position 0..{bt.cap - 1}, not by {it}")
            return bt.elem
        self.err(e.span, f"{bt} cannot be indexed")
        return None

    def expr_FieldAccess(self, e, expected):
        if isinstance(e.base, N.Name) and e.base.name in self.enums:
            t = self.enums[e.base.name]
            if e.name not in t.items:
                self.err(e.span, f"{t.name} has no item {e.name!r}", self.suggest(e.name, t.items),
                         code="unknown-name")
            return t
        bt = self.infer(e.base)
        if bt is None:
            return None
        if isinstance(bt, CatalogueT):
            ft = bt.record.field(e.name)
            if ft is None:
                self.err(e.span, f"{bt.record.name} has no field {e.name!r}",
                         self.suggest(e.name, dict(bt.record.fields)), code="unknown-name")
            return ft
        self.err(e.span, f"{bt} has no fields")
        return None

    def expr_KeywordArg(self, e, expected):
        self.err(e.span, "name=value arguments are only for catalogue items")
        return None

    def expr_Call(self, e, expected):
        if e.func in self.grids:
            g = self.grids[e.func]
            if len(e.args) != 2:
                self.err(e.span, f"{e.func}(row, col) takes two arguments")
            for a, hi in zip(e.args, (g.rows - 1, g.cols - 1)):
                self.check_assignable(IntT(0, hi), self.infer(a, IntT(0, hi)), a)
            return g
        if e.func in self.records:
            self.err(e.span, f"record values are written only inside a catalogue of {e.func}")
            return None
        if e.func == "score":
            if not self.allow_score:
                self.err(e.span, "a score cannot depend on scores", code="recursion")
            if len(e.args) != 1:
                self.err(e.span, "score(player) takes one argument")
                return None
            self.check_assignable(PlayerT(), self.infer(e.args[0], PlayerT()), e.args[0])
            if self.settings_condition is not None:
                self.err(e.span, f"{self.settings_condition[0]} reads options and num_players only, not scores",
                         code="const-state")
            self.score_calls.append(e)
            return IntT(-UNBOUNDED, UNBOUNDED)
        sym = self.lookup(e.func)
        if sym is not None and sym.kind == "def":
            sym.used = True
            d = sym.decl
            reads = self.state_read_by(d) if self.settings_condition is not None else None
            if reads is not None:
                self.err(e.span, f"{e.func!r} reads {reads}, game state; {self.settings_condition[0]} reads "
                         "options and num_players only", code="const-state")
            if len(e.args) != len(d.params):
                self.err(e.span, f"{e.func} takes {len(d.params)} argument(s), got {len(e.args)}")
            for a, p in zip(e.args, d.params):
                pt = self.symbols_param_type(p)
                self.check_assignable(pt, self.infer(a, pt), a)
            for a in e.args[len(d.params):]:
                self.infer(a)
            return sym.type
        spec = BUILTINS.get(e.func)
        if spec is None and sym is not None:
            self.err(e.span, f"{e.func!r} is a {sym.kind.replace('_', ' ')}, not a function",
                     "only definitions (def), built-ins and grid names can be called", code="not-callable")
            for a in e.args:
                if not isinstance(a, N.KeywordArg):
                    self.infer(a)
            return None
        if spec is None:
            def names():
                return [n for n in self.visible_names() if n in BUILTINS or
                        (self.lookup(n) is not None and self.lookup(n).kind == "def")]
            self.err(e.span, f"unknown function {e.func!r}", self.suggest(e.func, names),
                     code="unknown-name")
            for a in e.args:
                if not isinstance(a, N.KeywordArg):
                    self.infer(a)
            return None
        if len(e.args) != spec.arity:
            self.err(e.span, f"{e.func} takes {spec.arity} argument(s), got {len(e.args)}")
            return None
        arg_types = [self.infer(a) for a in e.args]
        if any(t is None for t in arg_types):
            return None
        try:
            return spec.typer(arg_types, self.max_players)
        except BuiltinError as exc:
            self.err(e.span, f"{e.func}: {exc}")
            return None

    def symbols_param_type(self, p: N.Param) -> Type | None:
        t = self.resolve_type(p.type)
        if t is not None:
            self.def_param_types[id(p)] = t
        return t

    def expr_Unary(self, e, expected):
        t = self.infer(e.operand, expected if e.op == "not" else None)
        if t is None:
            return None
        if e.op == "not":
            if not isinstance(t, BoolT):
                self.err(e.span, f"'not' needs a condition, got {t}")
            return BoolT()
        if not is_number(t):
            self.err(e.span, f"'-' needs a number, got {t}")
            return None
        lo, hi = num_bounds(t, self.max_players)
        return RatT(-hi, -lo) if isinstance(t, RatT) else IntT(-hi, -lo)

    def expr_Binary(self, e, expected):
        op = e.op
        if op in ("and", "or"):
            self.expect_bool(e.left)
            self.expect_bool(e.right)
            return BoolT()
        if op in ("in", "notin"):
            ct = self.infer(e.right)
            et = element_type(ct) if ct is not None else None
            if ct is not None and et is None:
                self.err(e.right.span, f"'in' needs a collection on its right, got {ct}")
            it = self.infer(e.left, et)
            if et is not None and it is not None and not (assignable(et, it) or assignable(it, et)):
                self.err(e.left.span, f"{it} can never be in a collection of {et}")
            return BoolT()
        lt = self.infer(e.left)
        rt = self.infer(e.right, lt if lt is not None and not isinstance(lt, IntT) else None)
        if lt is None or rt is None:
            return BoolT() if op in ("==", "!=", "<", "<=", ">", ">=") else None
        if op in ("==", "!="):
            if not (assignable(lt, rt) or assignable(rt, lt)):
                self.err(e.span, f"cannot compare {lt} with {rt}")
            return BoolT()
        if op in ("<", "<=", ">", ">="):
            if not (is_number(lt) and is_number(rt)):
                self.err(e.span, f"'{op}' compares numbers, not {lt} and {rt}")
            return BoolT()
        if isinstance(lt, SetT) and op in ("+", "-"):
            if not assignable(lt, rt):
                self.err(e.span, f"'{op}' on sets needs two sets of the same items, got {lt} and {rt}")
            return lt
        if op == "/" or isinstance(lt, RatT) or isinstance(rt, RatT):
            return self.fraction(e, lt, rt)
        if not (is_int_like(lt) and is_int_like(rt)):
            self.err(e.span, f"'{op}' needs numbers, got {lt} and {rt}")
            return None
        return interval(op, int_bounds(lt, self.max_players), int_bounds(rt, self.max_players))

    def fraction(self, e, lt: Type, rt: Type) -> RatT | None:
        """`a / b`, or arithmetic with a fraction: an exact fraction with interval bounds."""
        if not (is_number(lt) and is_number(rt)):
            self.err(e.span, f"'{e.op}' needs numbers, got {lt} and {rt}")
            return None
        if e.op in ("//", "%"):
            fraction = lt if isinstance(lt, RatT) else rt
            self.err(e.span, f"'{e.op}' works on whole numbers; this operand is a fraction ({fraction})",
                     "'/' divides exactly", code="rational")
            return None
        return rat_interval(e.op, num_bounds(lt, self.max_players), num_bounds(rt, self.max_players),
                            divisor_whole=is_int_like(rt))

    def expr_RangeExpr(self, e, expected):
        lt, ht = self.infer(e.lo), self.infer(e.hi)
        if lt is None or ht is None:
            return None
        if not (is_int_like(lt) and is_int_like(ht)):
            self.err(e.span, f"a range runs between two numbers, not {lt} and {ht}")
            return None
        (llo, lhi), (hlo, hhi) = int_bounds(lt, self.max_players), int_bounds(ht, self.max_players)
        if hhi < llo:
            self.err(e.span, f"this range is always empty ({llo}..{hhi} at most)", code="range")
            return None
        return SeqT(IntT(llo, max(hhi, llo)), max(1, hhi - llo + 1))

    def expr_IfExpr(self, e, expected):
        self.expect_bool(e.cond)
        a = self.infer(e.then, expected)
        hint = expected or a
        if expected is None and isinstance(a, SeqT) and not _is_empty_literal(e.orelse):
            hint = None  # typed on its own and joined: `[4, 5]` must not make `[round - 2]` a list of 4..5
        b = self.infer(e.orelse, hint)
        if a is None or b is None:
            return a or b
        if a == b:
            return a
        if isinstance(a, SeqT) and isinstance(b, SeqT) and is_int_like(a.elem) and is_int_like(b.elem):
            (alo, ahi), (blo, bhi) = int_bounds(a.elem, self.max_players), int_bounds(b.elem, self.max_players)
            elem = a.elem if (blo, bhi) == (alo, ahi) else IntT(min(alo, blo), max(ahi, bhi))
            return SeqT(elem, max(a.cap, b.cap))
        if is_int_like(a) and is_int_like(b):  # e.g. a player, or -1 for nobody
            (alo, ahi), (blo, bhi) = int_bounds(a, self.max_players), int_bounds(b, self.max_players)
            return IntT(min(alo, blo), max(ahi, bhi))
        if is_number(a) and is_number(b):  # a fraction on one side: a fraction
            (alo, ahi), (blo, bhi) = num_bounds(a, self.max_players), num_bounds(b, self.max_players)
            return RatT(min(alo, blo), max(ahi, bhi))
        if assignable(a, b):
            return a
        if assignable(b, a):
            return b
        self.err(e.span, f"both branches must have the same type, got {a} and {b}")
        return a

    def expr_Aggregate(self, e, expected):
        src = self.infer(e.source)
        et = element_type(src) if src is not None else None
        if src is not None and et is None:
            self.err(e.source.span, f"expected a collection to go through, got {src}")
        n = 0
        if isinstance(src, SeqT):
            n = src.cap
        elif isinstance(src, SetT) and et is not None:
            n = self.size_of(et)
        elif isinstance(src, ArrayT):
            n = self.size_of(src.index)
        self.scopes.append({})
        self.declare(Symbol("local", e.var, et or BoolT(), e, used=True, unknown=et is None), e.span)
        if e.where is not None:
            self.expect_bool(e.where)
        body_t = None
        if e.body is not None:
            body_t = self.infer(e.body, BoolT() if e.kind in ("all", "any") else None)
        self.scopes.pop()
        kind = e.kind
        if kind in ("all", "any"):
            if e.body is None:
                self.err(e.span, f"{kind}(x in S: condition) needs a condition after ':'")
            elif body_t is not None and not isinstance(body_t, BoolT):
                self.err(e.body.span, f"{kind} needs a condition, got {body_t}")
            return BoolT()
        if kind == "count":
            if e.body is not None:
                self.err(e.body.span, "count(x in S where condition) takes no ':' part")
            return IntT(0, n)
        if kind == "table":
            if not isinstance(et, GridT) or not isinstance(e.source, N.Name) or e.source.name not in self.grids:
                self.err(e.source.span, "table(c in G: text) lays out the cells of a grid G; name the grid")
            if e.body is None or (body_t is not None and not isinstance(body_t, StrT)):
                self.err(e.span, "table(c in G: text) needs a text for each cell after ':'")
            return StrT()
        if kind == "collect":
            item = body_t if e.body is not None else et
            if isinstance(expected, SetT) and item is not None and is_int_like(item) \
                    and is_int_like(expected.elem):
                return expected  # collect into the domain the context asks for
            if item is not None and not item.is_domain:
                self.err(e.span, f"collect builds a set of a finite domain, not of {item}")
                return None
            return SetT(item) if item is not None else None
        if kind in ("argmin", "argmax"):
            if e.body is None:
                self.err(e.span, f"{kind}(x in S: key) needs a key after ':'")
            elif body_t is not None and not (is_number(body_t) or
                                             (isinstance(body_t, SeqT) and is_int_like(body_t.elem))):
                self.err(e.body.span, f"{kind}'s key is a number or a list of numbers, not {body_t}")
            return et
        # sum, min, max
        if e.body is None:
            body_t = et
        if body_t is None:
            return None
        if not is_number(body_t):
            self.err(e.span, f"{kind} works on numbers, got {body_t}")
            return None
        if isinstance(body_t, RatT):
            lo, hi = body_t.lo, body_t.hi
            return RatT(min(0, lo * n), max(0, hi * n)) if kind == "sum" else body_t
        lo, hi = int_bounds(body_t, self.max_players)
        if kind == "sum":
            return IntT(min(0, lo * n), max(0, hi * n))
        return IntT(lo, hi) if isinstance(body_t, IntT) else body_t

    def expr_SeqLit(self, e, expected):
        if isinstance(expected, ArrayT):
            return self.array_literal(e, expected)
        et = expected.elem if isinstance(expected, SeqT) else None
        if not e.items:
            return expected if isinstance(expected, SeqT) else EmptyT()
        types = [self.infer(i, et) for i in e.items]
        if any(t is None for t in types):
            return None
        elem = et or join_all(types)
        if elem is None:
            self.err(e.span, "the items of a list must have one type")
            return None
        for i, t in zip(e.items, types):
            self.check_assignable(elem, t, i)
        cap = expected.cap if isinstance(expected, SeqT) else len(e.items)
        if len(e.items) > cap:
            self.err(e.span, f"{len(e.items)} items do not fit in {expected}", code="range")
        return SeqT(elem, cap)

    def array_literal(self, e, expected: ArrayT) -> Type:
        """`[a, b, ...]` written where an array is expected: one item per index."""
        n = self.size_of(expected.index)
        if isinstance(expected.index, PlayerT):
            if not self.min_players <= len(e.items) <= self.max_players:
                self.err(e.span, f"an array over players has {self.min_players}..{self.max_players} items, "
                         f"not {len(e.items)}", code="range")
        elif len(e.items) != n:
            self.err(e.span, f"{expected} has {n} items, this list has {len(e.items)}", code="range")
        for item in e.items:
            self.check_assignable(expected.elem, self.infer(item, expected.elem), item)
        return expected

    def expr_SetLit(self, e, expected):
        et = expected.elem if isinstance(expected, SetT) else None
        if not e.items:
            return expected if isinstance(expected, SetT) else EmptyT()
        types = [self.infer(i, et) for i in e.items]
        if any(t is None for t in types):
            return None
        elem = et or join_all(types)
        if elem is None or not elem.is_domain:
            self.err(e.span, "a set holds items of one finite domain")
            return None
        for i, t in zip(e.items, types):
            self.check_assignable(elem, t, i)
        return SetT(elem)


def contains_text(t: Type) -> bool:
    while isinstance(t, (ArrayT, SeqT)):
        t = t.elem
    return isinstance(t, StrT)


def _is_empty_literal(e) -> bool:
    """`[]` or `{}`: a literal whose type only its context gives."""
    return isinstance(e, (N.SeqLit, N.SetLit)) and not e.items


def join_all(types: list[Type]) -> Type | None:
    first = types[0]
    if all(isinstance(t, IntT) for t in types):
        return IntT(min(t.lo for t in types), max(t.hi for t in types))
    for t in types[1:]:
        if not assignable(first, t):
            return None
    return first


def interval(op: str, a: tuple[int, int], b: tuple[int, int]) -> IntT:
    """Interval arithmetic, so every integer expression has known bounds."""
    (alo, ahi), (blo, bhi) = a, b
    if op == "+":
        return IntT(alo + blo, ahi + bhi)
    if op == "-":
        return IntT(alo - bhi, ahi - blo)
    if op == "*":
        c = [alo * blo, alo * bhi, ahi * blo, ahi * bhi]
        return IntT(min(c), max(c))
    if op == "//":
        if blo <= 0 <= bhi:
            m = max(abs(alo), abs(ahi))
            return IntT(-m, m)
        c = [alo // blo, alo // bhi, ahi // blo, ahi // bhi]
        return IntT(min(c), max(c))
    if op == "%":
        m = max(abs(blo), abs(bhi))
        return IntT(min(0, -(m - 1)) if alo < 0 or blo < 0 else 0, max(m - 1, 0))
    raise ValueError(op)


def rat_interval(op: str, a: tuple, b: tuple, divisor_whole: bool) -> RatT:
    """Interval arithmetic on exact fractions (`/` divides exactly). A divisor whose interval
    holds 0 is split around it: a whole divisor is then at least 1 away from 0, a fractional
    one may come arbitrarily close, and the quotient is not bounded."""
    (alo, ahi), (blo, bhi) = a, b
    if op in ("+", "-", "*"):
        t = interval(op, (alo, ahi), (blo, bhi))
        return RatT(t.lo, t.hi)
    if op != "/":
        raise ValueError(op)
    if blo <= 0 <= bhi and not divisor_whole:
        return RatT(-UNBOUNDED, UNBOUNDED)
    parts = [(lo, hi) for lo, hi in ((blo, min(bhi, -1)), (max(blo, 1), bhi)) if lo <= hi] \
        if blo <= 0 <= bhi else [(blo, bhi)]
    if not parts:  # the divisor is always 0: a rule error wherever it is evaluated
        return RatT(0, 0)
    c = [Fraction(x) / y for lo, hi in parts for x in (alo, ahi) for y in (lo, hi)]
    return RatT(_plain(min(c)), _plain(max(c)))


def _plain(q: Fraction):
    """A whole Fraction as an int (types print and compare more simply)."""
    return int(q) if q.denominator == 1 else q


def flow_measures(flow: N.FlowDecl | None) -> list:
    """The flow's `while` loops with a `decreases` measure, in pre-order (a loop before the loops
    in its body; if branches in order, then else), leaving out move bodies: loop k keeps its
    previous measure in the engine's state field M_k."""
    found: list = []

    def visit(stmts) -> None:
        for st in stmts:
            if isinstance(st, N.If):
                for _, body in st.branches:
                    visit(body.stmts)
                if st.orelse is not None:
                    visit(st.orelse.stmts)
            elif isinstance(st, N.While):
                if st.decreases is not None:
                    found.append(st)
                visit(st.body.stmts)
            elif isinstance(st, N.For):
                visit(st.body.stmts)

    visit(flow.body.stmts if flow is not None else ())
    return found


def walk(node):
    """Every IR node under `node`, depth first."""
    stack = [node]
    while stack:
        cur = stack.pop()
        yield cur
        if isinstance(cur, N.Node):
            for f in cur.__dataclass_fields__:
                if f == "span":
                    continue
                v = getattr(cur, f)
                if isinstance(v, N.Node):
                    stack.append(v)
                elif isinstance(v, tuple):
                    for item in v:
                        if isinstance(item, N.Node):
                            stack.append(item)
                        elif isinstance(item, tuple):
                            stack.extend(x for x in item if isinstance(x, N.Node))


def typecheck(spec: N.Spec) -> tuple[Program | None, list[Diagnostic]]:
    checker = TypeChecker(spec)
    program = checker.run()
    diags = sorted(checker.diags, key=lambda d: (d.span.line, d.span.col))
    return program, diags
