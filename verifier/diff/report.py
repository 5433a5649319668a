"""A diff as a person reads it: the structural changes with their source diffs, the behavioural
verdict with each witness (position, move, what each spec says, what is responsible, how to
replay it), and the properties whose status changed."""
from __future__ import annotations

from .run import Diff

WORDS = {"added": "+", "removed": "-", "changed": "~", "renamed": "=", "reordered": "="}


def format_diff(d: Diff) -> str:
    out = [f"diff {d.old} -> {d.new}  (players {', '.join(map(str, d.players))})"]
    if d.old_options != d.new_options:
        changed = {k: (v, d.new_options.get(k)) for k, v in d.old_options.items() if d.new_options.get(k) != v}
        out.append("options: " + ", ".join(f"{k}: {a} (old) / {b} (new)" for k, (a, b) in changed.items()))
    out += ["", "Structure"]
    st = d.structure
    if st.identical:
        out.append("  no change")
    for c in st.changes:
        head = f"  {WORDS[c.what]} {c.what} {c.kind}"
        if c.name:
            head += f" {c.name}"
        if c.new_name:
            head += f" -> {c.new_name}"
        if c.detail:
            head += f": {c.detail}"
        out.append(head)
        if c.diff and c.what != "renamed":
            out += ["      " + line for line in c.diff.splitlines()]
    out += ["", "Behaviour", f"  {d.sentence}"]
    if d.proof is not None and d.proof.verdict != "same":
        said = {"differs": "Z3: not one game move for move: {}", "unknown": "Z3's proof: unknown ({})",
                "skipped": "Z3's proof not tried: {}"}[d.proof.verdict]
        out.append("  " + said.format(d.proof.reason))
    if d.search is not None:
        for i, w in enumerate(d.search.witnesses, 1):
            out += [""] + witness_lines(i, w, d)
    out += ["", "Verification"]
    v = d.verification
    if "skipped" in v:
        out.append(f"  not run: {v['skipped']}")
    else:
        changed = v.get("changed", [])
        if not changed:
            out.append(f"  no property changed status ({len(v['properties'])} compared)")
        for r in changed:
            out.append(f"  {r['property']} ({r['players']} players): {r['old']} -> {r['new']}")
        out.append(f"  ({v['note']}; {v['budget']:g} s per spec and player count, {v['seconds']:.1f} s in all)")
    return "\n".join(out)


def witness_lines(i: int, w, d: Diff) -> list:
    out = [f"  witness {i}: {w.summary}  [{w.players} players]",
           f"    position: {'the start of the game' if not w.old_texts else f'after {len(w.old_texts)} step' + ('s' if len(w.old_texts) != 1 else '')}"
           + (f" (shortened from {w.found_steps})" if w.found_steps is not None else "")]
    if w.move:
        out.append(f"    move:     {w.move}")
    out += [f"    OLD says: {w.old_says}", f"    NEW says: {w.new_says}"]
    for r in w.responsible:
        rules = (" @" + " @".join(r["rules"])) if r.get("rules") else ""
        out.append(f"    because ({r['side'].upper()}): {r['what']}{rules}  {r['at']}".rstrip())
    check = "confirmed: replayed under both specs" if w.replayed else "NOT confirmed by a replay"
    opts = {"old": "".join(f" --option {k}={v}" for k, v in d.old_options.items() if d.new_options.get(k) != v),
            "new": "".join(f" --option {k}={v}" for k, v in d.new_options.items() if d.old_options.get(k) != v)}
    ask = "--legal" if not w.move else f"--move \"{w.move.split(': ', 1)[-1]}\""
    out.append(f"    replay ({check}; {len(w.old_texts)} steps):")
    for side, path, texts in (("old", d.old, w.old_texts), ("new", d.new, w.new_texts)):
        if side == "new" and texts == w.old_texts and not opts["new"]:
            break
        history = "; ".join(texts).replace('"', '\\"')
        out.append(f"      rulebook query {path} --players {w.players}{opts[side]} --history \"{history}\" {ask}")
    if w.new_texts == w.old_texts and not opts["new"]:
        out.append(f"      (the same history replays under {d.new})")
    return out
