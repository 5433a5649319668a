"""Small helpers that generated engines call (imported there as `L`).

Only general operations on the language's value representations live here:
sets are int bitmasks over a domain's index, sequences and arrays are lists.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache


class RuleError(Exception):
    """The game reached a state its rules do not cover (a spec bug, not a user error)."""

    def __init__(self, message: str, where: str = ""):
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.plain = message


MISSING = object()  # "not in the memo" (None can be a memoised value)

# A flow that runs this many segments without reaching a decision point loops forever (a rule
# edit such as `while not over` -> `while over` does it): a rule error, not a hung engine.
FLOW_STEPS = range(1_000_000)


def flow_without_decision():
    raise RuleError("the flow ran a million steps without reaching a decision point")


def loop_without_end(where: str):
    raise RuleError("this loop ran a million times without its condition becoming false", where)


class IllegalMove(ValueError):
    """An action whose move is not legal now; carries the broken requirements."""

    def __init__(self, action: int, broken: list):
        self.action = action
        self.broken = broken
        reasons = "; ".join(f"{label} ({msg})" if msg else label for label, msg, _ in broken)
        super().__init__(f"action {action} is not legal: {reasons}")


def member(mask: int, index: int, size: int) -> bool:
    """Is index (value - lo) in the set? False for values outside the domain."""
    return 0 <= index < size and (mask >> index) & 1 == 1


def floordiv(a: int, b: int, where: str) -> int:
    if b == 0:
        raise RuleError("division by zero", where)
    return a // b


def div(a, b, where: str) -> Fraction:
    """`a / b`: the exact fraction (a whole number, or a fraction, over a non-zero divisor)."""
    if b == 0:
        raise RuleError("division by zero", where)
    return Fraction(a) / b


def frac(numerator: int, denominator: int) -> Fraction:
    """A fraction literal in generated code (a type's bound)."""
    return Fraction(numerator, denominator)


def weighted(values: list, weights: list, where: str) -> list:
    """A weighted chance node's outcomes with positive weight and their exact probabilities:
    a negative weight, or no positive one, is a rule error (the rulebook gives no odds)."""
    for v, w in zip(values, weights):
        if w < 0:
            raise RuleError(f"the weight of outcome {v} is {w}, below 0", where)
    total = sum(weights)
    if total <= 0:
        raise RuleError("every outcome of this chance node has weight 0", where)
    return [(v, Fraction(w) / total) for v, w in zip(values, weights) if w > 0]


def check_utility(kind: str, total, returns: list, where: str) -> None:
    """A finished game's returns against the spec's `utility` declaration."""
    if kind == "identical":
        broken = len(set(returns)) > 1
        wanted = "be equal"
    else:
        total = 0 if kind == "zero_sum" else total
        broken = sum(returns) != total
        wanted = f"add up to {total}"
    if broken:
        shown = ", ".join(str(r) for r in returns)
        if kind != "identical":
            shown += f" (sum {sum(returns)})"
        raise RuleError(f"the game is declared {kind}, so its returns must {wanted}; "
                        f"they are {shown}", where)


def mod(a: int, b: int, where: str) -> int:
    if b == 0:
        raise RuleError("remainder of a division by zero", where)
    return a % b


def bits(mask: int, lo: int) -> list:
    """Values in a set bitmask, in ascending order.  A dense mask of more than 8 members is
    read through its binary digits (one C-level step per bit: a full 100-card deck in a third
    of the time), any other by peeling its lowest member (one Python step per member)."""
    members = mask.bit_count()
    if members > 8 and members * 4 > mask.bit_length():
        return [i for i, digit in enumerate(bin(mask)[:1:-1], lo) if digit == "1"]
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1 + lo)
        mask ^= low
    return out


def mask_of(values, lo: int) -> int:
    m = 0
    for v in values:
        m |= 1 << (v - lo)
    return m


def unique(seq) -> list:
    return list(dict.fromkeys(seq))


def seats_from(p: int, n: int) -> list:
    return [(p + i) % n for i in range(n)]


def neighbours(c: int, rows: int, cols: int) -> int:
    r, k = divmod(c, cols)
    m = 0
    if r > 0:
        m |= 1 << (c - cols)
    if r < rows - 1:
        m |= 1 << (c + cols)
    if k > 0:
        m |= 1 << (c - 1)
    if k < cols - 1:
        m |= 1 << (c + 1)
    return m


@lru_cache(maxsize=None)
def runs(c: int, n: int, rows: int, cols: int) -> tuple:
    """Horizontal then vertical runs of n cells containing cell c, each in reading order."""
    r, k = divmod(c, cols)
    out = []
    for start in range(k - n + 1, k + 1):
        if 0 <= start and start + n <= cols:
            out.append(tuple(r * cols + x for x in range(start, start + n)))
    for start in range(r - n + 1, r + 1):
        if 0 <= start and start + n <= rows:
            out.append(tuple(y * cols + k for y in range(start, start + n)))
    return tuple(out)


@lru_cache(maxsize=None)
def diagonal_runs(c: int, n: int, rows: int, cols: int) -> tuple:
    """Diagonal runs of n cells containing cell c: down-right ones, then down-left ones."""
    r, k = divmod(c, cols)
    out = []
    for dk in (1, -1):
        for back in range(n):
            r0, k0 = r - back, k - back * dk
            cells = [(r0 + i, k0 + i * dk) for i in range(n)]
            if all(0 <= y < rows and 0 <= x < cols for y, x in cells):
                out.append(tuple(y * cols + x for y, x in cells))
    return tuple(out)


def ring_next(x: int, open_mask: int, lo: int, size: int, step: int) -> int:
    """The next value after x (step +1) or before it (-1) whose bit is in open_mask."""
    i = x - lo
    for _ in range(size):
        i = (i + step) % size
        if (open_mask >> i) & 1:
            return i + lo
    raise RuleError("no open position to move to")


def first(seq: list, where: str = ""):
    if not seq:
        raise RuleError("first() of an empty sequence", where)
    return seq[0]


def last(seq: list, where: str = ""):
    if not seq:
        raise RuleError("last() of an empty sequence", where)
    return seq[-1]


def position(seq: list, x, where: str = "") -> int:
    try:
        return seq.index(x)
    except ValueError:
        raise RuleError("position(): the item is not in the sequence", where) from None


def min_of(values, where: str):
    values = list(values)
    if not values:
        raise RuleError("min over no items", where)
    return min(values)


def max_of(values, where: str):
    values = list(values)
    if not values:
        raise RuleError("max over no items", where)
    return max(values)


def arg_best(pairs, where: str, want_max: bool):
    """The item with the smallest (or largest) key; the first one on ties."""
    best_key = best = None
    found = False
    for key, item in pairs:
        if not found or (key > best_key if want_max else key < best_key):
            best_key, best, found = key, item, True
    if not found:
        raise RuleError("argmin/argmax over no items", where)
    return best


def check_named(v: int, lo: int, hi: int, name: str, where: str, why: str = "") -> int:
    """check_range for a value given to a named variable: the message names it (and `why`
    says where its range comes from, when that is not a declaration)."""
    if not lo <= v <= hi:
        raise RuleError(f"{name} = {v} is outside {lo}..{hi}, the range of {name}{why}", where)
    return v


def check_range(v: int, lo: int, hi: int, where: str) -> int:
    if not lo <= v <= hi:
        raise RuleError(f"value {v} is outside {lo}..{hi}", where)
    return v


def at(seq: list, i: int, where: str):
    if not 0 <= i < len(seq):
        raise RuleError(f"position {i} is outside a sequence of {len(seq)} items", where)
    return seq[i]


def seq_append(seq: list, x, cap: int, where: str) -> None:
    if len(seq) >= cap:
        raise RuleError(f"sequence is full ({cap} items)", where)
    seq.append(x)


def seq_remove(seq: list, x, where: str) -> None:
    try:
        seq.remove(x)
    except ValueError:
        raise RuleError("remove: the item is not in the sequence", where) from None


def set_remove(mask: int, bit: int, where: str) -> int:
    if not (mask >> bit) & 1:
        raise RuleError("remove: the item is not in the set", where)
    return mask & ~(1 << bit)


def numbered_copies(names: tuple) -> tuple:
    """Repeated names become "name #1", "name #2", ...; unique names are unchanged."""
    total: dict = {}
    for n in names:
        total[n] = total.get(n, 0) + 1
    seen: dict = {}
    out = []
    for n in names:
        if total[n] > 1:
            seen[n] = seen.get(n, 0) + 1
            n = f"{n} #{seen[n]}"
        out.append(n)
    return tuple(out)


def grid_text(cells: list, cols: int) -> str:
    """Cell texts laid out row by row, each column as wide as its widest cell."""
    rows = [cells[i:i + cols] for i in range(0, len(cells), cols)]
    widths = [max(len(r[k]) for r in rows) for k in range(cols)] if rows else []
    return "\n".join(" ".join(t.ljust(w) for t, w in zip(r, widths)).rstrip() for r in rows)


def show_bool(v: bool) -> str:
    return "true" if v else "false"


def show_player(p: int) -> str:
    return f"P{p + 1}"


def show_cell(c: int, cols: int) -> str:
    r, k = divmod(c, cols)
    return f"({r},{k})"


def show_set(mask: int, lo: int, show) -> str:
    return "{" + ", ".join(show(v) for v in bits(mask, lo)) + "}"


def show_seq(items, show) -> str:
    return "[" + ", ".join(show(v) for v in items) + "]"
