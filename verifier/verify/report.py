"""`rulebook verify`'s text output: a summary table per spec, then each violation as a game.

JSON output is `Report.as_json()` (run.py); this module is the human side only. It prints
only what is established: the longest game is a bound only where termination is proved,
and the time of a row that merges player counts is labelled as their sum.
"""
from __future__ import annotations

from typing import Callable

from .run import Report, Result

MARK = {"proved": "proved", "violated": "VIOLATED", "unknown": "unknown"}


def _players(counts: list) -> str:
    counts = sorted(counts)
    if counts and counts == list(range(counts[0], counts[-1] + 1)) and len(counts) > 1:
        return f"{counts[0]}-{counts[-1]}"
    return ",".join(map(str, counts))


def rows(report: Report) -> list[dict]:
    """One row per property and outcome: player counts with the same status, method and
    expectation are merged."""
    out: list[dict] = []
    for r in report.results:
        for row in out:
            if (row["name"], row["status"], row["method"], row["expected"]) == (r.name, r.status, r.method, r.expected):
                row["players"].append(r.players)
                row["seconds"] += r.seconds
                break
        else:
            out.append({"name": r.name, "status": r.status, "method": r.method, "expected": r.expected,
                        "players": [r.players], "seconds": r.seconds, "result": r})
    return out


def proved_lengths(report: Report) -> list[str]:
    """The longest game per player count, where termination is proved for that count (the
    static bound is a bound only then)."""
    ends = {r.players for r in report.results if r.name == "termination" and r.status == "proved"}
    return [f"{n} players: {v['decisions']} decisions, {v['chance']} chance draws"
            for n, v in report.lengths.items() if n in ends and v["decisions"] is not None]


def finished_line(result: Result, spec: str, elapsed: float) -> str:
    """One finished property, for progress off a terminal."""
    line = (f"[{elapsed:7.1f}s] {spec}, {result.players} players: {result.name} {MARK[result.status]} "
            f"({result.method or 'no method'}, {result.seconds:.1f} s)")
    if result.contradicts:
        line += f" — NOT as the spec expects ({result.expected})"
    elif result.inconclusive:
        line += " — expected proved"
    return line


def format_report(report: Report, traces: bool = True,
                  counterexample: Callable[[Result], str] | None = None) -> str:
    """The table, the verdict and (with `traces`) each violation's game, as `counterexample`
    renders it (default: the game as the verifier rendered it)."""
    lines = [f"{report.spec}" + (f"  (options: {', '.join(f'{k}={v}' for k, v in report.options.items())})"
                                 if report.options else "")]
    table = rows(report)
    width = max([len(r["name"]) for r in table] + [8])
    mwidth = max([len(r["method"]) for r in table] + [13])  # "bounded-complete to 29" is wider
    summed = any(len(row["players"]) > 1 for row in table)
    time_head = "Σ time" if summed else "time"
    lines.append(f"  {'property':<{width}}  {'players':<7}  {'status':<9}  {'method':<{mwidth}}  {time_head:>7}  expected")
    for row in table:
        r = row["result"]
        exp = "yes" if row["status"] == row["expected"] else f"NO (expected {row['expected']})"
        if row["expected"] != "proved" and row["status"] == row["expected"]:
            exp = f"yes ({row['expected']}, as the spec says)"
        lines.append(f"  {row['name']:<{width}}  {_players(row['players']):<7}  {MARK[row['status']]:<9}  "
                     f"{row['method']:<{mwidth}}  {row['seconds']:>6.1f}s  {exp}")
        detail = r.reason if row["status"] != "proved" or r.method in ("bounded", "ranking") else ""
        if detail:
            lines.append(f"  {'':<{width}}    {detail}")
        if r.expected_text and row["expected"] != "proved":
            lines.append(f"  {'':<{width}}    the spec: {r.expected_text}")
    resting: dict[tuple, list[str]] = {}  # (basis, its status with that player count) -> names
    status = {(r.name, r.players): r.status for r in report.results}
    for r in report.results:
        for basis in r.rests_on:
            names = resting.setdefault((basis, status.get((basis, r.players), "not checked")), [])
            if r.name not in names:
                names.append(r.name)
    for (basis, how), names in resting.items():
        lines.append(f"  proofs that assume {basis} ({how}): {', '.join(names)}")
    if summed:
        lines.append("  (Σ time: the seconds of a row's player counts, added up)")
    lengths = proved_lengths(report)
    if lengths:
        lines.append("  longest game (proved bound): " + "; ".join(lengths))
    if report.score_bounds:
        lines.append("  final scores (proved interval | best witness games):")
        for b in report.score_bounds:
            lo, hi = b["proved"]
            wl, wh = b["witness"]
            gap = f", gap {b['gap']}" if b["gap"] is not None else ""
            gap += " (every end enumerated)" if b.get("by") == "exhaustive" else ""
            lines.append(f"    {b['players']} players, P{b['player'] + 1}: [{_num(lo)}, {_num(hi)}] | "
                         f"seen [{_num(wl)}, {_num(wh)}]{gap}")
    open_ = sum(1 for r in report.results if r.inconclusive)
    differ = sum(1 for r in report.results if r.contradicts)
    verdict = {"as_expected": "as the spec expects",
               "inconclusive": f"none contradicts the spec, but {open_} not proved (unknown)",
               "differs": f"{differ} NOT as the spec expects" + (f", {open_} not proved (unknown)" if open_ else "")
               }[report.outcome]
    reused = sum(1 for r in report.results if r.reused)
    if reused:
        lines.append(f"  {reused} of {len(report.results)} results reused from the cache (the spec's slice they "
                     "depend on is unchanged; --no-cache runs them again)")
    lines.append(f"  {len(report.results)} results, {verdict}, {report.seconds:.1f} s")
    if traces:
        for r in report.results:
            text = (counterexample(r) if counterexample is not None and r.trace is not None else "") or r.trace_text
            if r.status == "violated" and text:
                lines.append("")
                lines.append(f"── {r.name} is violated with {r.players} players: the game ──")
                lines.append(text)
    return "\n".join(lines)


def _num(x) -> str:
    return "?" if x is None else str(x)
