"""rulebook simulate: statistics, rule usage by the instrumented engine, determinism across
--jobs and Ray, plots, policies, errors and Ctrl-C."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from verifier.cli import main
from verifier.engine.codegen import generate
from verifier.engine.gen_usage import UsageEngine
from verifier.engine.play import random_step
from verifier.engine.runtime import Engine, Game
from verifier.frontend import load_program
from verifier.simulate import compare_option, simulate, stats

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "spec").rglob("*.rules"))
RULEBOOK = str(ROOT / ".venv" / "bin" / "rulebook")


def run_json(args, capsys) -> tuple[int, dict]:
    code = main(args + ["--json", "--no-progress"])
    return code, json.loads(capsys.readouterr().out)


def without_run(report: dict) -> dict:
    """A report without what depends on the machine (time, workers)."""
    return {k: v for k, v in report.items() if k not in ("run", "plots")}


# ------------------------------------------------------------------ statistics

def test_chi_square_and_normal_tails_match_scipy():
    from scipy import stats as sp  # open_spiel brings SciPy; rulebook itself does not use it
    for df in range(1, 9):
        for x in (0.01, 0.5, 1.0, 3.84, 7.3, 15.0, 40.0):
            assert stats.chi2_sf(x, df) == pytest.approx(sp.chi2.sf(x, df), rel=1e-9, abs=1e-15)
    for z in (-2.0, 0.0, 1.0, 1.96, 4.0):
        assert stats.normal_sf(z) == pytest.approx(sp.norm.sf(z), rel=1e-12)


def test_wilson_interval_and_equal_seats_test():
    lo, hi = stats.wilson(50, 100)
    assert (round(lo, 4), round(hi, 4)) == (0.4038, 0.5962)
    assert stats.wilson(0, 10)[0] == 0.0 and stats.wilson(0, 0) is None
    assert stats.equal_seats_test([100, 100, 100])["p_value"] == 1.0
    assert stats.equal_seats_test([150, 100, 50])["p_value"] < 1e-6
    assert stats.equal_seats_test([5]) is None


def test_quantiles_of_a_counter():
    from collections import Counter
    c = Counter({1: 1, 2: 1, 3: 1, 4: 1})
    assert stats.quantile(c, 0.5) == 2 and stats.quantile(c, 0.95) == 4 and stats.quantile(c, 0.05) == 1
    d = stats.describe(c)
    assert d["mean"] == 2.5 and d["min"] == 1 and d["max"] == 4


# ------------------------------------------------------------------ the instrumented engine

def test_plain_engine_has_no_probes_and_usage_engine_plays_the_same_games():
    for path in SPECS:
        program, _ = load_program(path)
        source = generate(program)  # what `rulebook compile` writes is unchanged
        assert "_F[" not in source and "_hit(" not in source
        plain, usage = Game(Engine(program), None, {}, bounded=True), Game(UsageEngine(program), None, {}, bounded=True)
        for seed in range(3):
            a, b = plain.new_initial_state(), usage.new_initial_state()
            ra, rb = random.Random(seed), random.Random(seed)
            while not a.is_terminal():
                random_step(a, ra)
                random_step(b, rb)
            assert a.history == b.history and a.scores() == b.scores() and b.is_terminal()


DEAD_RULE_SPEC = """\
game probe "Probe"
players 2

var total: 0..20 = 0
var turn: Player = 0

flow {
  while total < 6 decreases 6 - total {
    choose turn {
      move add(k: 1..2) "add {k}" @T-2
        require small "at most 2" @T-3: k <= 2
        require room "the total stays in range" @T-4: total + k <= 20
      { total += k }
    }
    if total > 50 {
      total = 0 @T-5
    }
    turn = next_player(turn)
  }
}

outcome {
  score p: if turn == p then 1 else 0
}

rules turn "Turn" {
  @T-1 "The total starts at 0."
  @T-2 "On a turn, add 1 or 2."
  @T-3 "No more than 2."
  @T-4 "The total never passes 20."
  @T-5 "A total over 50 resets to 0."
}
"""


def test_never_fired_finds_a_planted_dead_rule(tmp_path, capsys):
    spec = tmp_path / "probe.rules"
    spec.write_text(DEAD_RULE_SPEC)
    code, out = run_json(["simulate", str(spec), "--games", "30", "--jobs", "1"], capsys)
    assert code == 0, out
    rules = {r["id"]: r for r in out["reports"][0]["rules"]}
    assert rules["T-2"]["status"] == "fired" and rules["T-2"]["games"] == 30
    assert rules["T-5"]["status"] == "never"  # the reset can never run: total stays below 8
    assert rules["T-3"]["status"] == "never"  # k is 1 or 2: the requirement never rules a move out
    assert rules["T-1"]["status"] == "uncited"
    never = {(c["kind"], tuple(c["rules"])) for c in out["reports"][0]["never_fired"]}
    assert ("assignment", ("T-5",)) in never and ("require", ("T-3",)) in never


def test_rule_usage_covers_every_rule_id(capsys):
    code, out = run_json(["simulate", "spec/ramen.rules", "--players", "3", "--games", "50", "--jobs", "1"], capsys)
    assert code == 0
    r = out["reports"][0]
    program, _ = load_program("spec/ramen.rules")
    from verifier.docs.coverage import coverage
    declared = [x["id"] for x in coverage(program)["rules"]]
    assert [x["id"] for x in r["rules"]][:len(declared)] == declared
    assert all(x["status"] in ("fired", "never", "static", "uncited") for x in r["rules"])
    assert {"seats", "seat_test", "length", "moves", "never_fired", "draws"} <= set(r)
    assert r["seats"][0]["wins"]["ci95"][0] <= r["seats"][0]["wins"]["rate"] <= r["seats"][0]["wins"]["ci95"][1]
    assert r["length"]["chance"]["mean"] > 0 and r["length"]["decisions"]["mean"] > 0
    assert abs(sum(m["share"] for m in r["moves"]) - 1) < 0.01


# ------------------------------------------------------------------ determinism and parallelism

def test_same_seed_same_numbers_for_any_jobs(capsys):
    args = ["simulate", "spec/ramen_ink.rules", "--players", "3", "--games", "75", "--seed", "5"]
    _, one = run_json(args + ["--jobs", "1"], capsys)
    _, two = run_json(args + ["--jobs", "2"], capsys)
    assert one["reports"][0]["run"]["backend"] == "process" and two["reports"][0]["run"]["workers"] == 2
    assert without_run(one["reports"][0]) == without_run(two["reports"][0])
    _, other = run_json(["simulate", "spec/ramen_ink.rules", "--players", "3", "--games", "75", "--seed", "6",
                         "--jobs", "1"], capsys)
    assert without_run(other["reports"][0]) != without_run(one["reports"][0])


def test_ray_on_a_local_ray_gives_the_same_numbers():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        by_ray = simulate("spec/examples/goofspiel.rules", games=60, seed=3, ray="local")
    finally:
        ray.shutdown()
    here = simulate("spec/examples/goofspiel.rules", games=60, seed=3, jobs=1)
    assert by_ray["run"]["backend"] == "ray"
    assert without_run(by_ray) == without_run(here)


# ------------------------------------------------------------------ policies, comparison, plots

def test_policies_and_a_callable(capsys):
    greedy = simulate("spec/examples/tictactoe.rules", games=30, policy="greedy")
    mcts = simulate("spec/examples/tictactoe.rules", games=4, policy="mcts", simulations=20)
    assert greedy["policy"] == "greedy" and mcts["games"] == 4

    def lowest(state, player, legal, rng):
        return legal[0]
    first = simulate("spec/examples/tictactoe.rules", games=5, policy=lowest)
    assert first["policy"] == "lowest" and first["length"]["decisions"]["min"] == 7  # x fills 0,2,4,6 first

    def cheat(state, player, legal, rng):
        return -1
    code = main(["simulate", "spec/examples/goofspiel.rules", "--policy", "mcts", "--games", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and "sequential turns" in out["error"]["message"]
    from verifier.simulate.play import PolicyError
    with pytest.raises(PolicyError, match="not a legal action"):
        simulate("spec/examples/tictactoe.rules", games=1, policy=cheat)


def test_compare_option_and_plots(tmp_path, capsys):
    code, out = run_json(["simulate", "spec/ramen_ink.rules", "--players", "2", "--games", "50", "--jobs", "1",
                          "--compare-option", "stylist_counting", "--plots", str(tmp_path)], capsys)
    assert code == 0
    c = out["reports"][0]
    assert c["kind"] == "comparison" and len(c["runs"]) == len(c["values"]) >= 2
    assert c["values"][0] == c["base_value"]
    assert all("p_value" in d and "significant" in d for d in c["differences"])
    svgs = sorted(tmp_path.glob("*.svg"))
    assert len(svgs) == 3 * len(c["runs"]) + 1 and sorted(map(str, svgs)) == sorted(c["plots"])
    for svg in svgs:
        assert ET.parse(svg).getroot().tag.endswith("svg")


def test_plots_for_one_run(tmp_path, capsys):
    code, out = run_json(["simulate", "spec/examples/goofspiel.rules", "--games", "40", "--plots", str(tmp_path)],
                         capsys)
    assert code == 0 and len(out["reports"][0]["plots"]) == 3
    assert "P1" in (tmp_path / "goofspiel-2p-wins.svg").read_text()  # text stays text


# ------------------------------------------------------------------ errors

@pytest.mark.parametrize("args, code, kind", [
    (["--simulations", "5"], 2, "usage"),
    (["--compare-option", "turns", "--option", "turns=3"], 2, "usage"),
    (["--games", "0"], 2, "usage"),
    (["--policy", "best"], 2, "usage"),
    (["--compare-option", "nonesuch"], 1, "spec"),
    (["--option", "nonesuch=1"], 1, "spec"),
    (["--players", "9"], 1, "spec"),
])
def test_errors_answer_in_the_one_json_shape(args, code, kind, capsys):
    got = main(["simulate", "spec/examples/goofspiel.rules", "--games", "2"] + args + ["--json"])
    out = json.loads(capsys.readouterr().out)
    assert got == code and out["error"]["kind"] == kind and out["error"]["exit_code"] == code


def test_help_teaches(capsys):
    assert main(["simulate", "--help"]) == 0
    text = capsys.readouterr().out
    for words in ("--compare-option", "--ray", "Wilson", "chi-square", "never-fired", "Examples:"):
        assert words in text


def cpu_seconds(pid: int) -> float:
    """CPU time of a process and its children (Linux /proc): progress that a loaded machine cannot fake."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0.0
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return own + sum(cpu_seconds(int(c)) for c in children)


def _ctrl_c_as_at_a_terminal():
    """Ctrl-C's default disposition in the child, as a terminal gives it. A background job of a
    non-interactive shell (`make test &` in a CI script) starts with SIGINT ignored, and a child
    inherits that: Python then installs no KeyboardInterrupt handler and the simulation would
    play all its games (found in fresh clones whose `.ci/run` ran in the background)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_keeps_the_games_done(jobs):
    proc = subprocess.Popen([RULEBOOK, "simulate", "spec/ramen.rules", "--players", "4", "--games", "100000",
                             "--jobs", jobs, "--json", "--no-progress"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_ctrl_c_as_at_a_terminal)
    deadline = time.monotonic() + 60
    while cpu_seconds(proc.pid) < 3 and time.monotonic() < deadline:  # compiled, and playing for a while
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
    try:
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:  # not stopped by Ctrl-C: it must not play on beside the other tests
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    data = json.loads(out)
    r = data["reports"][0]
    assert data["error"]["kind"] == "interrupted" and r["interrupted"] is True
    assert 0 < r["games"] < 100000 and r["games"] == r["run"]["chunks"] * 25


def test_docs_site_gets_a_balance_page(tmp_path, capsys):
    sim = tmp_path / "sim.json"
    code, out = run_json(["simulate", "spec/examples/goofspiel.rules", "--games", "50", "--plots",
                          str(tmp_path / "plots")], capsys)
    sim.write_text(json.dumps(out))
    assert main(["docs", "spec/examples/goofspiel.rules", "spec/examples/tictactoe.rules", "-o", str(tmp_path / "site"),
                 "--simulation", str(sim)]) == 0
    page = (tmp_path / "site" / "docs" / "goofspiel" / "balance.md").read_text()
    assert "won alone" in page and "img/sim/goofspiel-2p-wins.svg" in page
    assert (tmp_path / "site" / "docs" / "goofspiel" / "img" / "sim" / "goofspiel-2p-wins.svg").exists()
    assert "goofspiel/balance.md" in (tmp_path / "site" / "mkdocs.yml").read_text()
    assert not (tmp_path / "site" / "docs" / "tictactoe" / "balance.md").exists()
    capsys.readouterr()
    bad = tmp_path / "bad.json"
    bad.write_text('{"reports": [{"kind": "game"}]}')
    assert main(["docs", "spec/examples/goofspiel.rules", "-o", str(tmp_path / "site2"), "--simulation", str(bad)]) == 1
    assert "not the output of `rulebook simulate --json`" in capsys.readouterr().err
