"""A reproduction's table of claims: what the paper says, what airtcp measured, the verdict,
the rule that decided it (thresholds included), and why where the verdict is not "agrees".

Verdicts (``MEANINGS`` says each in a line, and the CLI and the report print it):
- "agrees" when the rule's strict test holds, "partly" when only its weaker test holds (a
  claim true only by a loose reading), "differs" otherwise;
- "calibrated" when the scenario was set from the very value the claim states, so that
  agreement is by construction: the rule then checks only that the calibration still holds
  ("differs" if not);
- "beyond the paper" for our own extension (something the paper proposes without building,
  or never names): there is nothing of the paper's to compare with, and the row shows ours;
- "not significant" when the claim compares means and their 95 % confidence intervals over
  the replications overlap, so the runs cannot tell the order the claim states.
The rule is printed with the verdict everywhere (CLI, claims.csv, report.html), so a reader
can check the judgement.
"""

from __future__ import annotations

import html
import math
from dataclasses import asdict, dataclass

import pandas as pd

from ..experiments.report import _table_html

MEANINGS = {
    "agrees": "the rule's strict test holds",
    "partly": "only the rule's weaker test holds: true by a loose reading only",
    "differs": "neither of the rule's tests holds",
    "calibrated": "the scenario was set from this value of the paper's, so agreement is by "
    "construction, not a result; the rule checks that the calibration still holds",
    "beyond the paper": "our extension, which the paper proposes without building or does not "
    "have: nothing of the paper's to compare with; ours is shown",
    "not significant": "the means the claim compares have overlapping 95 % confidence "
    "intervals over the replications: the runs cannot order them",
}
VERDICTS = tuple(MEANINGS)


@dataclass(frozen=True)
class Claim:
    claim: str
    ours: str
    verdict: str
    rule: str
    why: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of {VERDICTS}")


def verdict(agrees: bool, partly: bool = False) -> str:
    """The verdict of a rule whose strict test is ``agrees`` and weaker test ``partly``."""
    if agrees:
        return "agrees"
    return "partly" if partly else "differs"


def order(a: float, a_half: float, b: float, b_half: float) -> int:
    """+1 if the interval a ± a_half lies wholly above b ± b_half, -1 if wholly below, 0 if
    they overlap. A NaN half-width (one run, or no replications) counts as no width: where
    there are no intervals, the means decide."""
    a_half, b_half = (0.0 if math.isnan(h) else h for h in (a_half, b_half))
    if a - a_half > b + b_half:
        return 1
    if a + a_half < b - b_half:
        return -1
    return 0


def ranked(pairs: list[tuple[float, float, float, float]], strong: float, weak: float) -> str:
    """The verdict of a claim that in every pair (a, a_half, b, b_half) a is above b:
    "differs" if some a's interval lies wholly below its b's, "not significant" if some
    intervals overlap; with every a wholly above, "agrees" if every a / b is at least
    ``strong``, "partly" if at least ``weak``, "differs" otherwise."""
    orders = [order(*pair) for pair in pairs]
    if not pairs or -1 in orders:
        return "differs"
    if 0 in orders:
        return "not significant"
    ratios = [a / b for a, _, b, _ in pairs]
    return verdict(min(ratios) >= strong, min(ratios) >= weak)


def interval(mean: float, half: float, scale: float = 1.0, digits: int = 2) -> str:
    """``mean ± half`` divided by ``scale``, or the mean alone without an interval."""
    if math.isnan(half):
        return f"{mean / scale:.{digits}f}"
    return f"{mean / scale:.{digits}f} ± {half / scale:.{digits}f}"


def table(claims: list[Claim]) -> pd.DataFrame:
    return pd.DataFrame([asdict(c) for c in claims], columns=list(Claim.__dataclass_fields__))


def legend_html() -> str:
    """What each verdict means, for under a report's claims table."""
    items = "".join(
        f"<li><b>{html.escape(name)}</b>: {html.escape(meaning)}</li>"
        for name, meaning in MEANINGS.items()
    )
    return f"<p>Verdicts:</p><ul>{items}</ul>"


def section_html(frame: pd.DataFrame) -> str:
    """A report's claims section: the table, then the verdicts' legend."""
    return _table_html(frame) + legend_html()
