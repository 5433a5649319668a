"""A game's *Balance* page on the site, from the JSON of `rulebook simulate` runs.

`rulebook docs --simulation FILE` (repeatable) reads `simulate --json` output; each report
goes to its game's page: seat win rates with their intervals and the equal-seats test, scores,
lengths, rule usage and the never-fired clauses, option comparisons with their significant
differences, and the SVG plots the run wrote (`--plots`), copied into the site.
"""
from __future__ import annotations

import os

from ..commands.common import UserError
from .site import json_reports, md_escape, rule_link


def read_simulations(paths: list[str]) -> dict[str, list]:
    """Game name -> its simulation and comparison reports, in the order given."""
    by_game: dict[str, list] = {}
    for path in paths:
        reports = json_reports(path)
        if not isinstance(reports, list) or not all(isinstance(r, dict) and r.get("kind") in
                                                    ("simulation", "comparison") for r in reports):
            raise UserError(f"{path} is not the output of `rulebook simulate --json`")
        for r in reports:
            game = r["runs"][0]["game"] if r["kind"] == "comparison" else r["game"]
            by_game.setdefault(game, []).append(r)
    return by_game


def _pct(rate: dict) -> str:
    if rate.get("rate") is None:
        return "—"
    lo, hi = rate["ci95"]
    return f"{rate['rate'] * 100:.1f}% [{lo * 100:.1f}, {hi * 100:.1f}]"


def _run(r: dict, site, game: str) -> list[str]:
    opts = ", ".join(f"`{k}={v}`" for k, v in r["options"].items()) or "none"
    out = [f"## {r['players']} players — {r['games']:,} games", "",
           f"Policy `{r['policy']}`, seed {r['seed']}, options: {opts}."
           + (" **Interrupted**: these are the games finished." if r.get("interrupted") else ""), "",
           "| seat | won alone [95% CI] | mean score [95% CI] | sd | median | 5%–95% |", "|---|---|---|---|---|---|"]
    for s in r["seats"]:
        sc = s["score"]
        if sc.get("mean") is None:
            out.append(f"| {s['seat']} | {_pct(s['wins'])} | — | | | |")
            continue
        q = sc["quantiles"]
        out.append(f"| {s['seat']} | {_pct(s['wins'])} | {sc['mean']:.2f} [{sc['ci95'][0]:.2f}, {sc['ci95'][1]:.2f}] "
                   f"| {sc['stdev']:.2f} | {q['p50']} | {q['p5']}–{q['p95']} |")
    out.append("")
    test = r.get("seat_test")
    if test:
        verdict = "the seats differ" if test["p_value"] < 0.05 else "no evidence that the seats differ"
        out += [f"All seats equal? Chi-square {test['statistic']} with {test['df']} degrees of freedom over "
                f"{test['games']:,} games won alone: p = {test['p_value']:.3g} — {verdict} (5% level).", ""]
    d, c = r["length"]["decisions"], r["length"]["chance"]
    if d.get("mean") is not None:
        out += [f"Length: {d['mean']:.1f} decisions (from {d['min']} to {d['max']}), {c['mean']:.1f} chance "
                "draws per game.", ""]
    if r["draws"]["count"]:
        out += [f"Draws (every player tied): {_pct(r['draws'])}.", ""]
    if "rules" in r:
        never = [x for x in r["rules"] if x["status"] == "never"]
        rare = [x for x in r["rules"] if x["status"] == "fired" and x["rate"] < 0.05]
        if never:
            out.append("Rules no game reached: " + ", ".join(rule_link(x["id"], "rules.md") for x in never) + ".")
        if rare:
            out.append("Rules reached in fewer than 5% of games: " + ", ".join(
                f"{rule_link(x['id'], 'rules.md')} ({x['rate'] * 100:.1f}%)" for x in rare) + ".")
        if r["never_fired"]:
            out += ["", "Clauses that never fired (candidates for dead or unreachable rules):", ""]
            out += [f"- {c['kind']}{' ' + c['name'] if c['name'] else ''} ({c['fires']}) at `{c['where']}`, citing "
                    + ", ".join(rule_link(x, "rules.md") for x in c["rules"]) for c in r["never_fired"]]
        out.append("")
    out += _pictures(r, site, game)
    return out


def _pictures(r: dict, site, game: str) -> list[str]:
    out = []
    for path in r.get("plots", []):
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as fh:
            site.write(f"{game}/img/sim/{os.path.basename(path)}", fh.read())
        out += [f"![{md_escape(os.path.basename(path))}](img/sim/{os.path.basename(path)})", ""]
    return out


def _comparison(c: dict, site, game: str) -> list[str]:
    runs = c["runs"]
    out = [f"## Option `{c['option']}`, {runs[0]['players']} players — {runs[0]['games']:,} games per value", "",
           f"Values: {', '.join(f'`{v}`' for v in c['values'])}; each compared with `{c['base_value']}`. A "
           f"difference is significant when p < {c['threshold']:.3g} (5% over {len(c['differences'])} tests, "
           "Bonferroni).", "",
           "| measure | who | " + " | ".join(f"`{v}`" for v in c["values"][:1]) + " | other value | p | significant |",
           "|---|---|---|---|---|---|"]
    for d in c["differences"]:
        out.append(f"| {d['measure']} | {d['who']} | {d['base']} | {d['other']} (`{d['value']}`) | "
                   f"{d['p_value'] if d['p_value'] is not None else '—'} | {'**yes**' if d['significant'] else 'no'} |")
    out.append("")
    return out + _pictures(c, site, game)


def balance_page(title: str, game: str, reports: list, site) -> str:
    out = [f"# {md_escape(title)}: balance", "",
           "Measured by `rulebook simulate` (many games under a policy): who wins, by how much, how long "
           "games run, and which rules play reaches. Intervals are 95% (Wilson for rates).", ""]
    for r in reports:
        out += _comparison(r, site, game) if r["kind"] == "comparison" else _run(r, site, game)
    return "\n".join(out) + "\n"
