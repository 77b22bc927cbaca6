"""airtcp: simulate, emulate and measure TCP over wireless and asymmetric links."""

from ._core import __version__
from .api import RunResult, prepare, run
from .scenario import Scenario, ScenarioError, load

__all__ = ["RunResult", "Scenario", "ScenarioError", "__version__", "load", "prepare", "run"]
