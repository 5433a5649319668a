"""The statistics of a simulation, from the standard library alone (no SciPy).

- a proportion's 95 % interval is Wilson's score interval (it stays inside [0, 1] and is
  sound for rates near 0 or 1, where the normal approximation is not);
- "all seats win equally often" is Pearson's chi-square goodness-of-fit test on the games
  won alone, against an equal share per seat; its p-value is the chi-square survival
  function, which has a closed form for whole degrees of freedom;
- two runs are compared by two-sided z-tests (two proportions pooled; two means Welch's),
  which is what thousands of games make exact enough; a difference is *significant* when its
  p-value is below 0.05 divided by the number of tests made (Bonferroni).

Distributions are kept as `Counter`s of whole values (scores, lengths), so chunks merge
exactly and in any order, and quantiles are exact.
"""
from __future__ import annotations

import math
from collections import Counter

Z95 = 1.959963984540054  # the standard normal's 97.5 % quantile
ALPHA = 0.05
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson's score interval for a proportion (None without trials)."""
    if n == 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def normal_sf(z: float) -> float:
    """P(Z > z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2))


def chi2_sf(x: float, df: int) -> float:
    """P(X > x) for X chi-square with `df` (a whole number >= 1) degrees of freedom."""
    if x <= 0:
        return 1.0
    half = x / 2
    if df % 2 == 0:  # exp(-x/2) * sum_{i < df/2} (x/2)^i / i!
        term, total = 1.0, 1.0
        for i in range(1, df // 2):
            term *= half / i
            total += term
        return min(1.0, math.exp(-half) * total)
    # odd: 2 * P(Z > sqrt x) + 2 * phi(sqrt x) * sum_{i=1}^{(df-1)/2} x^(i-1/2) / (1*3*...*(2i-1))
    root = math.sqrt(x)
    total, term = 0.0, root
    for i in range(1, (df - 1) // 2 + 1):
        if i > 1:
            term *= x / (2 * i - 1)
        total += term
    phi = math.exp(-half) / math.sqrt(2 * math.pi)
    return min(1.0, 2 * normal_sf(root) + 2 * phi * total)


def equal_seats_test(wins: list[int]) -> dict | None:
    """Chi-square test that every seat wins alone equally often (None: fewer than 2 seats or no win)."""
    n, total = len(wins), sum(wins)
    if n < 2 or total == 0:
        return None
    expected = total / n
    statistic = sum((w - expected) ** 2 / expected for w in wins)
    return {"test": "chi-square, equal share of the games won alone", "games": total,
            "statistic": round(statistic, 4), "df": n - 1, "p_value": _p(chi2_sf(statistic, n - 1))}


def _p(p: float) -> float:
    return float(f"{p:.4g}")


# ------------------------------------------------------------------ distributions

def total(counter: Counter) -> int:
    return sum(counter.values())


def mean(counter: Counter) -> float | None:
    n = total(counter)
    return sum(v * c for v, c in counter.items()) / n if n else None


def variance(counter: Counter) -> float | None:
    """The sample variance (n - 1); 0 for a single value."""
    n = total(counter)
    if n == 0:
        return None
    m = mean(counter)
    return sum(c * (v - m) ** 2 for v, c in counter.items()) / (n - 1) if n > 1 else 0.0


def quantile(counter: Counter, q: float):
    """The smallest value with at least a fraction q of the values at or below it."""
    n = total(counter)
    if n == 0:
        return None
    need = max(1, math.ceil(q * n))
    seen = 0
    for v in sorted(counter):
        seen += counter[v]
        if seen >= need:
            return v
    return max(counter)


def describe(counter: Counter) -> dict:
    """Mean (with its 95 % interval), spread and quantiles of a distribution of whole values."""
    n = total(counter)
    if n == 0:
        return {"n": 0, "mean": None}
    m, var = mean(counter), variance(counter)
    sd = math.sqrt(var)
    half = Z95 * sd / math.sqrt(n)
    out = {"n": n, "mean": round(m, 4), "ci95": [round(m - half, 4), round(m + half, 4)], "stdev": round(sd, 4),
           "min": min(counter), "max": max(counter)}
    out["quantiles"] = {f"p{round(q * 100)}": quantile(counter, q) for q in QUANTILES}
    return out


# ------------------------------------------------------------------ two runs compared

def two_proportions(k1: int, n1: int, k2: int, n2: int) -> float | None:
    """Two-sided p-value of the pooled z-test that two proportions are equal."""
    if not n1 or not n2:
        return None
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0
    return _p(2 * normal_sf(abs(k1 / n1 - k2 / n2) / se))


def two_means(a: Counter, b: Counter) -> float | None:
    """Two-sided p-value of Welch's z-test that two distributions have equal means."""
    na, nb = total(a), total(b)
    if na < 2 or nb < 2:
        return None
    se = math.sqrt(variance(a) / na + variance(b) / nb)
    if se == 0:
        return 1.0 if mean(a) == mean(b) else 0.0
    return _p(2 * normal_sf(abs(mean(a) - mean(b)) / se))
