"""Pictures of game states: the data of a spec's `display` items (gen_display.draw_data) as SVG.

One picture per state: the items that are drawn once, then a panel per player with that
player's items. A `board` is a grid of squares, a `row` a line of captioned boxes, `cards`
rounded card faces, a `value` a line of text. Colours come from the label text (the same
label, the same colour, in every picture), so nothing here knows what a label means. Every
text is XML-escaped: labels come from the spec.
"""
from __future__ import annotations

import hashlib
from xml.sax.saxutils import escape

FONT = 12
LINE = 15
PAD = 8
WIDTH = 760


def colour(label: str) -> str:
    """A light colour chosen by the label (blank labels stay white)."""
    text = label.strip()
    if not text or text in (".", "0", "-", "[]", "{}", "false"):
        return "#ffffff"
    hue = int(hashlib.sha1(text.encode("utf-8")).hexdigest()[:4], 16) % 360
    return f"hsl({hue}, 70%, 88%)"


class Canvas:
    def __init__(self):
        self.parts: list[str] = []
        self.y = PAD
        self.width = WIDTH

    def text(self, x: float, y: float, s: str, size: int = FONT, weight: str = "normal", anchor: str = "start"):
        self.parts.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" font-weight="{weight}" '
                          f'text-anchor="{anchor}">{escape(s)}</text>')

    def rect(self, x, y, w, h, fill="#ffffff", rx=0, stroke="#555555"):
        self.parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{rx}" '
                          f'fill="{fill}" stroke="{stroke}"/>')

    def lines_in_box(self, x, y, w, h, label: str, size: int = FONT):
        lines = label.split("\n") if label else [""]
        top = y + h / 2 - (len(lines) - 1) * LINE / 2 + size / 3
        for i, line in enumerate(lines):
            self.text(x + w / 2, top + i * LINE, line, size, anchor="middle")

    def svg(self, title: str) -> str:
        height = self.y + PAD
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{height:.0f}" '
                f'viewBox="0 0 {self.width} {height:.0f}" font-family="sans-serif" role="img">'
                f'<title>{escape(title)}</title><rect width="100%" height="100%" fill="#fafafa"/>'
                + "".join(self.parts) + "</svg>")


def _box_width(labels: list[str], least: int = 36) -> int:
    longest = max([len(line) for label in labels for line in label.split("\n")] or [1])
    return max(least, min(260, 8 * longest + 14))


def _heading(c: Canvas, x: float, title: str):
    c.y += LINE
    c.text(x, c.y, title, FONT, "bold")
    c.y += 6


def draw_board(c: Canvas, x: float, data) -> None:
    rows, cols, labels = data
    side = max(30, min(60, _box_width(labels, 30)))
    for r in range(rows):
        for col in range(cols):
            label = labels[r * cols + col]
            c.rect(x + col * side, c.y + r * side, side, side, colour(label))
            c.lines_in_box(x + col * side, c.y + r * side, side, side, label.strip())
    c.y += rows * side


def _flow_boxes(c: Canvas, x: float, items: list[tuple[str, str]], card: bool) -> None:
    """Boxes left to right, wrapping at the canvas width; a caption above each when given."""
    if not items:
        c.y += LINE
        c.text(x, c.y, "(none)", FONT)
        return
    w = _box_width([label for _, label in items] + [cap or "" for cap, _ in items])
    lines = max(label.count("\n") + 1 for _, label in items)
    h = max(36 if not card else 54, lines * LINE + 12)
    captions = any(cap for cap, _ in items)
    per_line = max(1, int((c.width - x - PAD) // (w + 6)))
    for i, (cap, label) in enumerate(items):
        if i % per_line == 0:
            c.y += (LINE if captions else 4) + (h + 6 if i else 0)
        bx = x + (i % per_line) * (w + 6)
        if cap:
            c.text(bx + w / 2, c.y - 3, cap, FONT - 2, anchor="middle")
        c.rect(bx, c.y, w, h, colour(label), rx=6 if card else 0)
        c.lines_in_box(bx, c.y, w, h, label)
    c.y += h


def draw_item(c: Canvas, x: float, entry: dict) -> None:
    _heading(c, x, entry["title"])
    if "error" in entry:
        c.y += LINE
        c.text(x, c.y, f"(cannot be drawn in this state: {entry['error']})", FONT)
        return
    kind, data = entry["kind"], entry["data"]
    if kind == "board":
        draw_board(c, x, data)
    elif kind == "row":
        _flow_boxes(c, x, [(cap, label) for cap, label in data], card=False)
    elif kind == "cards":
        _flow_boxes(c, x, [(None, label) for label in data], card=True)
    elif kind == "value":
        c.y += LINE
        c.text(x, c.y, str(data), FONT + 1)
    else:
        raise NotImplementedError(f"no drawing for display kind {kind!r}")


def state_svg(entries: list[dict], title: str, player_name=lambda p: f"Player {p + 1}") -> str:
    """One SVG picture of a state from its `draw_data` entries."""
    c = Canvas()
    for entry in entries:
        if entry["player"] is None:
            draw_item(c, PAD, entry)
    players = sorted({e["player"] for e in entries if e["player"] is not None})
    for p in players:
        top = c.y + 10
        c.y = top + 4
        _heading(c, PAD + 8, player_name(p))
        for entry in entries:
            if entry["player"] == p:
                draw_item(c, PAD + 16, entry)
        c.y += 8
        c.parts.insert(0, f'<rect x="{PAD / 2}" y="{top:.1f}" width="{c.width - PAD}" height="{c.y - top:.1f}" '
                          f'rx="8" fill="#f0f4ff" stroke="#99a"/>')
    if not entries:
        c.y += LINE
        c.text(PAD, c.y, "(the spec declares no display)")
    return c.svg(title)
