"""Paper 001's experiment in a WLAN (`park_local_ack` with 802.11 cells): each base station
is the AP of an 802.11b BSS on a channel of its own, and the mobile host is a station of
both; the handoff moves it from one BSS to the other. Everything else, the agents, the plans,
the figures and the claims' rules, is the paper's experiment's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from . import park_local_ack as paper
from .park_local_ack import FULL, KERNEL_AGENTS, QUICK, Plan, Variant

WLAN = Variant(
    "park-local-ack-wlan",
    "park-handoff-wlan",  # built in: airtcp scenarios show park-handoff-wlan
    "wlan",
    "an 802.11b BSS at 2 Mbit/s (one channel per base station)",
)
NAME = WLAN.name
SCENARIO = WLAN.scenario
# What `runner.reproduce` and the CLI take from a reproduction.
__all__ = ["FULL", "KERNEL_AGENTS", "NAME", "QUICK", "SCENARIO", "effective_settings",
           "experiment_toml", "write_report"]  # fmt: skip


def effective_settings(settings: dict[str, Any] | None = None) -> pd.DataFrame:
    return paper.effective_settings(settings, WLAN)


def experiment_toml(plan: Plan, scenario: str, settings: dict[str, Any] | None = None) -> str:
    return paper.experiment_toml(plan, scenario, settings, WLAN)


def write_report(
    out: Path, plan_name: str, settings: dict[str, Any] | None = None, kernel: bool = False
) -> tuple[Path, pd.DataFrame]:
    return paper.write_report(out, plan_name, settings, WLAN, kernel)
