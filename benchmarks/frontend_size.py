"""Front-end scaling: seconds to check generated specs of growing size, as a trend.

    .venv/bin/python benchmarks/frontend_size.py                 # up to 5 MB (a few minutes)
    .venv/bin/python benchmarks/frontend_size.py --max-mb 1      # quicker
    .venv/bin/python benchmarks/frontend_size.py --json

Each size doubles the previous one. A spec is made of groups of declarations (a
constant, a state variable, a definition over it and the previous one, an invariant)
plus a small flow that moves every tenth variable: the mix real specs have, in bulk.
Three variants per size:

- `ok`: a valid spec, through `rulebook check` (parse, lower, type-check, compile to
  Python, load the module, set up a game);
- `warnings`: every variable unused (one warning each), through `rulebook check`;
- `errors`: every definition ill-typed (one error each), through `rulebook check`.

For each it prints the seconds and the ratio to the previous size: a linear front end
shows ratios near 2 (the input doubles). Nothing here is asserted (benchmarks/README.md);
the tests check correctness only.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from verifier.cli import main  # noqa: E402

HEAD = '''game big "A generated spec"
players 2
var turn: Player = 0
'''


def group(i: int, variant: str) -> str:
    """One group of four declarations (about 230 bytes)."""
    prev = f"x{i - 1}" if i else "0"
    body = f"x{i} + {prev}" if variant != "errors" else f"x{i} and true"  # int and bool: a type error
    used = "" if variant == "warnings" else f"invariant inv{i} \"variable {i} stays in its range\": d{i}() <= 18\n"
    return (f"const C{i}: 0..9 = {i % 10}\n"
            f"var x{i}: 0..9 = C{i}  # state variable number {i}\n"
            f"def d{i}(): 0..18 = {body if variant != 'errors' else body}\n"
            f"{used}")


def generate(groups: int, variant: str = "ok") -> str:
    moved = list(range(0, groups, 10))[:50]  # the flow moves a few of them
    effects = " ".join(f"x{i} = (x{i} + k) % 10" for i in moved)
    flow = (f"flow {{\n  for r in 1..3 {{\n    choose turn {{\n"
            f"      move bump(k: 1..2) \"bumps by {{k}}\" {{ {effects} }}\n"
            f"    }}\n    turn = next_player(turn)\n  }}\n}}\noutcome {{ score p: 0 }}\n")
    return HEAD + "".join(group(i, variant) for i in range(groups)) + flow


def groups_for(size_bytes: int, variant: str = "ok") -> int:
    """How many groups make a spec of about `size_bytes` (group names grow with their number)."""
    low, high = 1, max(2, size_bytes // 50)
    while low < high:  # the size grows with the count: bisect
        mid = (low + high + 1) // 2
        if len(generate(mid, variant)) <= size_bytes:
            low = mid
        else:
            high = mid - 1
    return low


def time_check(text: str) -> tuple[float, int]:
    """Seconds for `rulebook check` on the text, and the exit code."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "big.rules")
        Path(path).write_text(text, encoding="utf-8")
        sink = io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            code = main(["check", path])
        return time.perf_counter() - start, code


def run(max_mb: float, start_kb: int, variants: list[str]) -> list[dict]:
    rows = []
    size = start_kb * 1000
    while size <= max_mb * 1e6 * 1.01:
        for variant in variants:
            n = groups_for(size, variant)
            text = generate(n, variant)
            seconds, code = time_check(text)
            per_group = 3 if variant == "warnings" else 4  # the warnings variant has no invariants
            rows.append({"variant": variant, "bytes": len(text.encode()), "declarations": per_group * n,
                         "seconds": round(seconds, 3), "exit": code})
        size *= 2
    return rows


def report(rows: list[dict]) -> str:
    lines = [f"{'variant':<9}{'size':>9}{'decls':>9}{'seconds':>10}{'x prev':>8}{'s/MB':>8}  exit"]
    previous: dict[str, float] = {}
    for r in rows:
        mb = r["bytes"] / 1e6
        ratio = r["seconds"] / previous[r["variant"]] if previous.get(r["variant"]) else None
        previous[r["variant"]] = r["seconds"]
        lines.append(f"{r['variant']:<9}{mb:>8.2f}M{r['declarations']:>9}{r['seconds']:>10.2f}"
                     f"{(f'{ratio:.2f}' if ratio else '—'):>8}{r['seconds'] / mb:>8.1f}  {r['exit']}")
    lines.append("x prev: seconds over the previous size's (the input doubles, so a linear front end "
                 "gives about 2)")
    return "\n".join(lines)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-mb", type=float, default=5.0, help="largest spec, in MB (default 5)")
    ap.add_argument("--start-kb", type=int, default=78, help="smallest spec, in kB (default 78: doubling six "
                    "times reaches 5 MB)")
    ap.add_argument("--variants", default="ok,warnings,errors", help="comma-separated: ok, warnings, errors")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    result = run(a.max_mb, a.start_kb, a.variants.split(","))
    print(json.dumps(result, indent=2) if a.json else report(result))
