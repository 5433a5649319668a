"""A simulation's report (the JSON of `rulebook simulate`) and its text; options compared.

The report's numbers depend only on the spec, the settings and the seed — never on the
workers or the time taken, which are kept apart under `run`.
"""
from __future__ import annotations

from . import stats
from .play import Setup
from .runner import Run


def _rate(k: int, n: int) -> dict:
    ci = stats.wilson(k, n)
    return {"count": k, "rate": round(k / n, 4) if n else None,
            "ci95": [round(ci[0], 4), round(ci[1], 4)] if ci else None}


def build(setup: Setup, game, run: Run) -> dict:
    t = run.tally
    n = game.num_players
    finished = t["games"] - t["unfinished"]
    seats = []
    for p in range(n):
        seats.append({"seat": f"P{p + 1}", "wins": _rate(t["wins"][p], finished),
                      "shared_wins": _rate(t["shared"][p], finished), "score": stats.describe(t["scores"][p])})
    all_moves = sum(t["moves"].values())
    report = {
        "kind": "simulation",
        "spec": setup.spec_path, "game": game.module.GAME_NAME, "title": game.module.GAME_TITLE,
        "players": n, "options": game.option_strings(), "policy": _policy_name(setup.policy),
        "seed": setup.seed, "games": t["games"], "finished": finished, "unfinished": t["unfinished"],
        "interrupted": run.interrupted,
        "draws": _rate(t["draws"], finished),
        "seats": seats,
        "seat_test": stats.equal_seats_test(t["wins"]),
        "length": {"decisions": stats.describe(t["decisions"]), "chance": stats.describe(t["chance"])},
        "moves": [{"move": name, "count": c, "share": round(c / all_moves, 4)}
                  for name, c in sorted(t["moves"].items(), key=lambda kv: (-kv[1], kv[0]))],
        "run": {"backend": run.backend, "workers": run.workers, "chunks": run.chunks, "planned_chunks": run.planned,
                "seconds": round(run.seconds, 3),
                "games_per_second": round(t["games"] / run.seconds, 1) if run.seconds > 0 else None},
    }
    if setup.usage:
        report.update(rule_usage(game, t))
    return report


def _policy_name(policy) -> str:
    return policy if isinstance(policy, str) else getattr(policy, "__name__", type(policy).__name__)


def rule_usage(game, t: dict) -> dict:
    """Per rule ID (the rulebook's order, then any cited but undeclared): the games in which a
    dynamic clause citing it fired; and the dynamic clauses that fired in no game."""
    from ..ir import nodes as N
    clauses = game.engine.clauses
    games = t["games"]
    usage = t["usage"]
    declared = [r.id for sec in game.engine.program.spec.of_kind(N.RulesDecl) for r in sec.rules]
    cited: dict[str, list] = {}
    for c in clauses:
        for rule in c.rules:
            cited.setdefault(rule, []).append(c)
    order = declared + [r for r in cited if r not in declared]
    rules = []
    for rule in order:
        mine = cited.get(rule, [])
        dynamic = [c for c in mine if c.fires]
        if not mine:
            status, count = "uncited", None
        elif not dynamic:
            status, count = "static", None
        else:
            count = t["rule_games"].get(rule, 0)  # games in which any of its clauses fired
            status = "fired" if count else "never"
        rules.append({"id": rule, "status": status, "games": count,
                      "rate": round(count / games, 4) if count is not None and games else None,
                      "clauses": [dict(c.to_json(), games=usage.get(c.index, 0) if c.fires else None) for c in mine]})
    never = [dict(c.to_json(), games=0) for c in clauses if c.fires and not usage.get(c.index)]
    return {"rules": rules, "never_fired": never}


# ------------------------------------------------------------------ text

def _pct(r: dict) -> str:
    if r["rate"] is None:
        return "—"
    lo, hi = r["ci95"]
    return f"{r['rate'] * 100:5.1f}% [{lo * 100:.1f}, {hi * 100:.1f}]"


def format_report(r: dict) -> str:
    opts = ", ".join(f"{k}={v}" for k, v in r["options"].items()) or "none"
    run = r["run"]
    lines = [f"{r['title']} — {r['players']} players, {r['games']} games ({r['policy']} policy), seed {r['seed']}, "
             f"options: {opts}",
             f"{run['games_per_second']} games/s ({run['seconds']} s, {run['backend']}, {run['workers']} worker(s))"]
    if r["interrupted"]:
        lines.append(f"INTERRUPTED: {run['chunks']} of {run['planned_chunks']} chunks done; these are their games")
    if r["unfinished"]:
        lines.append(f"{r['unfinished']} game(s) did not end within the move limit (not in the wins or scores)")
    lines.append("")
    lines.append(f"{'seat':<6}{'wins alone [95% CI]':<26}{'mean score [95% CI]':<26}{'sd':>7}"
                 f"{'p5':>6}{'p25':>6}{'p50':>6}{'p75':>6}{'p95':>6}")
    for s in r["seats"]:
        sc = s["score"]
        if sc["mean"] is None:
            lines.append(f"{s['seat']:<6}{_pct(s['wins']):<26}—")
            continue
        q = sc["quantiles"]
        mean = f"{sc['mean']:.2f} [{sc['ci95'][0]:.2f}, {sc['ci95'][1]:.2f}]"
        lines.append(f"{s['seat']:<6}{_pct(s['wins']):<26}{mean:<26}{sc['stdev']:>7.2f}"
                     + "".join(f"{q[k]:>6}" for k in ("p5", "p25", "p50", "p75", "p95")))
    shared = sum(s["shared_wins"]["count"] for s in r["seats"])
    if r["draws"]["count"] or shared:
        lines.append(f"draws {_pct(r['draws'])}; shared wins (seat-games) {shared}")
    test = r["seat_test"]
    if test is not None:
        verdict = "seats differ" if test["p_value"] < stats.ALPHA else "no evidence that seats differ"
        lines.append(f"all seats equal? chi-square {test['statistic']} (df {test['df']}, {test['games']} games won "
                     f"alone): p = {test['p_value']:.4g} — {verdict} at 5%")
    d, c = r["length"]["decisions"], r["length"]["chance"]
    if d["mean"] is not None:
        lines.append(f"length: {d['mean']:.1f} decisions (min {d['min']}, median {d['quantiles']['p50']}, "
                     f"max {d['max']}); {c['mean']:.1f} chance draws (min {c['min']}, max {c['max']})")
    if r["moves"]:
        lines.append("moves chosen: " + ", ".join(f"{m['move']} {m['share'] * 100:.1f}%" if m["share"] >= 0.001
                                                  else f"{m['move']} {m['count']}x" for m in r["moves"]))
    if "rules" in r:
        lines.append("")
        lines.extend(format_usage(r))
    return "\n".join(lines)


def format_usage(r: dict) -> list[str]:
    lines = ["rule usage (games in which a clause citing the rule fired):"]
    row = []
    for rule in r["rules"]:
        if rule["status"] == "fired":
            rate = rule["rate"] * 100
            row.append(f"@{rule['id']} {rate:.0f}%" if rate >= 1 else f"@{rule['id']} {rate:.1f}%")
        elif rule["status"] == "never":
            row.append(f"@{rule['id']} NEVER")
    for i in range(0, len(row), 6):
        lines.append("  " + "  ".join(row[i:i + 6]))
    static = [rule["id"] for rule in r["rules"] if rule["status"] == "static"]
    if static:
        lines.append(f"  static (declarations, options, invariants only): {' '.join('@' + x for x in static)}")
    if r["never_fired"]:
        lines.append(f"never fired ({len(r['never_fired'])} clauses: candidates for dead or unreachable rules):")
        for c in r["never_fired"]:
            own = f"{c['kind']} {c['name']}" if c["name"] else c["kind"]
            ctx = f" (in {c['context']})" if c["context"] and c["context"] != own else ""
            lines.append(f"  {own}{ctx} [{c['fires']}]  {c['where']}  cites {' '.join('@' + x for x in c['rules'])}")
    return lines


# ------------------------------------------------------------------ option comparison

def compare(option: str, runs: list[tuple[str, dict, dict]]) -> dict:
    """`runs`: (value, report, tally) per option value; every later value against the first."""
    base_value, base, bt = runs[0]
    tests = []
    for value, rep, t in runs[1:]:
        fa, fb = base["finished"], rep["finished"]
        for p in range(rep["players"]):
            tests.append(("win rate", f"P{p + 1}", base["seats"][p]["wins"]["rate"], rep["seats"][p]["wins"]["rate"],
                          stats.two_proportions(bt["wins"][p], fa, t["wins"][p], fb), value))
            tests.append(("mean score", f"P{p + 1}", base["seats"][p]["score"]["mean"],
                          rep["seats"][p]["score"]["mean"], stats.two_means(bt["scores"][p], t["scores"][p]), value))
        tests.append(("mean decisions", "all", base["length"]["decisions"]["mean"],
                      rep["length"]["decisions"]["mean"], stats.two_means(bt["decisions"], t["decisions"]), value))
        tests.append(("draw rate", "all", base["draws"]["rate"], rep["draws"]["rate"],
                      stats.two_proportions(bt["draws"], fa, t["draws"], fb), value))
    made = [x for x in tests if x[4] is not None]
    threshold = stats.ALPHA / max(1, len(made))
    diffs = [{"measure": m, "who": who, "value": value, "base": a, "other": b, "p_value": p,
              "significant": p is not None and p < threshold} for m, who, a, b, p, value in tests]
    return {"kind": "comparison", "option": option, "base_value": base_value,
            "values": [v for v, _, _ in runs], "alpha": stats.ALPHA, "threshold": float(f"{threshold:.4g}"),
            "correction": "Bonferroni over the tests made", "differences": diffs,
            "runs": [rep for _, rep, _ in runs]}


def format_comparison(c: dict) -> str:
    lines = [f"--compare-option {c['option']}: " + " vs ".join(c["values"]) + f" (each against {c['base_value']})"]
    for rep in c["runs"]:
        lines.append("")
        lines.append(f"== {c['option']}={rep['options'].get(c['option'])}")
        lines.append(format_report(rep))
    lines.append("")
    sig = [d for d in c["differences"] if d["significant"]]
    lines.append(f"significant differences (p < {c['threshold']:.3g}: 5% over {len(c['differences'])} tests, "
                 f"Bonferroni): {len(sig) or 'none'}")
    for d in sig:
        lines.append(f"  {d['measure']} {d['who']}: {d['base']} ({c['option']}={c['base_value']}) -> {d['other']} "
                     f"({c['option']}={d['value']}), p = {d['p_value']:.3g}")
    return "\n".join(lines)
