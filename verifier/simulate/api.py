"""`simulate` and `compare_option`: the Python API the command line is a thin layer over."""
from __future__ import annotations

from ..diagnostics import SpecError, Span, error
from . import report as rep
from .play import DEFAULT_MAX_MOVES, DEFAULT_SIMULATIONS, Setup, build_game
from .runner import run

COMPARE_MAX_VALUES = 12


def make_setup(spec_path: str, players: int | None = None, options=None, policy="random", seed: int = 0,
               max_moves: int = DEFAULT_MAX_MOVES, usage: bool = True,
               simulations: int = DEFAULT_SIMULATIONS, sources=None) -> Setup:
    from ..diagnostics import Sources
    from ..frontend import read_source
    text = read_source(spec_path, sources if sources is not None else Sources())
    opts = tuple(sorted((str(k), str(v)) for k, v in dict(options or {}).items()))
    # players 0: the spec's minimum, as `play` (the game built from the setup says which)
    return Setup(spec_path, text, players or 0, opts, policy, seed, max_moves, usage, simulations)


def simulate(spec_path: str, games: int = 1000, players: int | None = None, options=None, policy="random",
             seed: int = 0, jobs: int = 1, ray: str | None = None, usage: bool = True,
             max_moves: int = DEFAULT_MAX_MOVES, simulations: int = DEFAULT_SIMULATIONS,
             progress: bool = False, with_tally: bool = False, sources=None):
    """The report of `games` games (`rulebook simulate --json`'s); with `with_tally`, also the raw
    counts (for plots and comparisons). `ray`: None (no Ray), "local", or a cluster address."""
    setup = make_setup(spec_path, players, options, policy, seed, max_moves, usage, simulations, sources)
    result = run(setup, games, jobs, ray, progress)
    report = rep.build(setup, build_game(setup), result)
    return (report, result.tally) if with_tally else report


def option_values(spec_path: str, option: str, players: int | None = None, sources=None) -> list[str]:
    """The values `--compare-option` runs: the value random play uses first, then the others."""
    setup = make_setup(spec_path, players, usage=False, sources=sources)
    game = build_game(setup)
    m = game.module
    if option not in m.OPTION_KINDS:
        known = ", ".join(sorted(m.OPTION_KINDS)) or "none"
        raise SpecError([error(Span.unknown(spec_path), f"unknown option {option!r}", f"this spec's options: {known}",
                               code="option")])
    kind = m.OPTION_KINDS[option]
    if kind[0] == "bool":
        values = ["false", "true"]
    elif kind[0] == "enum":
        values = list(kind[1:])
    else:
        lo, hi = kind[1], kind[2]
        if hi - lo + 1 > COMPARE_MAX_VALUES:
            raise SpecError([error(Span.unknown(spec_path), f"option {option} has {hi - lo + 1} values "
                                   f"({lo}..{hi}); --compare-option runs at most {COMPARE_MAX_VALUES}",
                                   "compare a few values one --option at a time instead", code="option")])
        values = [str(v) for v in range(lo, hi + 1)]
    first = game.option_strings()[option]
    return [first] + [v for v in values if v != first]


def compare_option(spec_path: str, option: str, games: int = 1000, options=None, with_tallies: bool = False,
                   **kwargs):
    """The same simulation under each value of `option`, with the significant differences."""
    options = dict(options or {})
    runs = []
    for value in option_values(spec_path, option, kwargs.get("players"), kwargs.get("sources")):
        report, tally = simulate(spec_path, games, options=dict(options, **{option: value}), with_tally=True,
                                 **kwargs)
        runs.append((value, report, tally))
        if report["interrupted"]:
            break
    out = rep.compare(option, runs)
    return (out, [t for _, _, t in runs]) if with_tallies else out
