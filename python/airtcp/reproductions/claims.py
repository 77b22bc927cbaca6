"""A reproduction's table of claims: what the paper says, what airtcp measured, the verdict,
the rule that decided it (thresholds included), and why where the verdict is not "agrees".

Verdicts: "agrees" when the rule's strict test holds, "partly" when only its weaker test
holds (a claim true only by a loose reading), "differs" otherwise. The rule is printed with
the verdict everywhere (CLI, claims.csv, report.html), so a reader can check the judgement.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import pandas as pd

VERDICTS = ("agrees", "partly", "differs")


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


def table(claims: list[Claim]) -> pd.DataFrame:
    return pd.DataFrame([asdict(c) for c in claims], columns=list(Claim.__dataclass_fields__))
