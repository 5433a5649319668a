"""SVG plots of a simulation (matplotlib, the non-interactive Agg backend).

Per run: win rates per seat with their 95 % intervals as error bars, a histogram of final
scores per seat, and histograms of game length (decisions, chance draws). An option
comparison adds the win rates and mean scores under each value side by side. SVG text stays
text (`svg.fonttype: none`), and the hash salt is fixed so the same numbers give the same file.
"""
from __future__ import annotations

import os
from collections import Counter


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"
    matplotlib.rcParams["svg.hashsalt"] = "rulebook"
    import matplotlib.pyplot as plt
    return plt


def _stem(report: dict, tag: str) -> str:
    return f"{report['game']}-{report['players']}p{tag}"


def _save(plt, fig, path: str) -> str:
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)
    return path


def write_run(report: dict, tally: dict, out_dir: str, tag: str = "") -> list[str]:
    """The run's three SVGs in `out_dir` (names: GAME-Np[TAG]-wins.svg, ...); their paths."""
    plt = _pyplot()
    os.makedirs(out_dir, exist_ok=True)
    stem, title = _stem(report, tag), f"{report['title']}, {report['players']} players, {report['games']} games"
    paths = []
    fig, ax = plt.subplots(figsize=(6, 3.5))
    seats = report["seats"]
    rates = [s["wins"]["rate"] or 0 for s in seats]
    errs = [[r - (s["wins"]["ci95"] or [r, r])[0] for r, s in zip(rates, seats)],
            [(s["wins"]["ci95"] or [r, r])[1] - r for r, s in zip(rates, seats)]]
    ax.bar([s["seat"] for s in seats], rates, yerr=errs, capsize=6, color="#4c78a8")
    if len(seats) > 1:
        ax.axhline(1 / len(seats), color="grey", linestyle="--", linewidth=1, label="equal share")
        ax.legend(loc="upper right")
    test = report.get("seat_test")
    ax.set_title(title + (f"\nall seats equal: p = {test['p_value']:.3g}" if test else ""), fontsize=9)
    ax.set_ylabel("games won alone (95% CI)")
    paths.append(_save(plt, fig, os.path.join(out_dir, f"{stem}-wins.svg")))

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for p, counter in enumerate(tally["scores"]):
        if counter:
            _hist(ax, counter, f"P{p + 1}")
    ax.set_title("final scores per seat\n" + title, fontsize=9)
    ax.set_xlabel("score")
    ax.set_ylabel("games")
    ax.legend(loc="upper right")
    paths.append(_save(plt, fig, os.path.join(out_dir, f"{stem}-scores.svg")))

    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
    for ax, key, label in zip(axes, ("decisions", "chance"), ("decisions", "chance draws")):
        if tally[key]:
            _hist(ax, tally[key], label)
        ax.set_xlabel(f"{label} per game")
        ax.set_ylabel("games")
    fig.suptitle("game length\n" + title, fontsize=9)
    paths.append(_save(plt, fig, os.path.join(out_dir, f"{stem}-length.svg")))
    return paths


def _hist(ax, counter: Counter, label: str) -> None:
    values = sorted(counter)
    ax.step(values, [counter[v] for v in values], where="mid", label=label)


def write_comparison(comparison: dict, out_dir: str) -> list[str]:
    """Win rates (with intervals) and mean scores per seat under each value of the option."""
    plt = _pyplot()
    os.makedirs(out_dir, exist_ok=True)
    runs, option = comparison["runs"], comparison["option"]
    seats = [s["seat"] for s in runs[0]["seats"]]
    width = 0.8 / len(runs)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    for i, rep in enumerate(runs):
        xs = [k + i * width for k in range(len(seats))]
        label = f"{option}={rep['options'].get(option)}"
        rates = [s["wins"]["rate"] or 0 for s in rep["seats"]]
        err = [[r - (s["wins"]["ci95"] or [r, r])[0] for r, s in zip(rates, rep["seats"])],
               [(s["wins"]["ci95"] or [r, r])[1] - r for r, s in zip(rates, rep["seats"])]]
        axes[0].bar(xs, rates, width, yerr=err, capsize=4, label=label)
        means = [s["score"]["mean"] or 0 for s in rep["seats"]]
        merr = [[m - (s["score"].get("ci95") or [m, m])[0] for m, s in zip(means, rep["seats"])],
                [(s["score"].get("ci95") or [m, m])[1] - m for m, s in zip(means, rep["seats"])]]
        axes[1].bar(xs, means, width, yerr=merr, capsize=4, label=label)
    for ax, what in zip(axes, ("games won alone (95% CI)", "mean score (95% CI)")):
        ax.set_xticks([k + width * (len(runs) - 1) / 2 for k in range(len(seats))], seats)
        ax.set_ylabel(what)
        ax.legend(fontsize=8)
    fig.suptitle(f"{runs[0]['title']}, {runs[0]['players']} players: {option} compared", fontsize=9)
    path = os.path.join(out_dir, f"{runs[0]['game']}-{runs[0]['players']}p-compare-{option}.svg")
    return [_save(plt, fig, path)]
