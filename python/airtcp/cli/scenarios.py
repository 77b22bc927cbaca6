"""``airtcp validate``, ``airtcp schema`` and ``airtcp scenarios`` (the built-ins: list, show)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from .console import fail, out, plain
from .help import Command, Group
from .options import (
    ScenarioArgument,
    SetOption,
)
from .sweep import runs_text


def validate(
    scenario: ScenarioArgument,
    set_: SetOption = None,
) -> None:
    """Check a scenario or experiment file without running it (every check a run or a
    sweep makes; an experiment's every point)."""
    from ..api import prepare
    from ..scenario.schema import ScenarioError

    try:
        if _is_experiment(scenario):
            if set_:
                raise fail(f"{plain(scenario)}: --set applies to scenarios; vary an "
                           "experiment in its set, grid or zip tables")  # fmt: skip
            from ..experiments.spec import load as load_experiment

            experiment = load_experiment(scenario)
            out.print(f"{scenario}: ok (experiment: {runs_text(experiment)})", highlight=False)
            return
        resolved = prepare(scenario, None, set_ or [])
    except ScenarioError as error:
        raise fail(plain(str(error))) from None
    out.print(
        f"{scenario}: ok ({len(resolved['nodes'])} nodes, {len(resolved['links'])} links, "
        f"{len(resolved['flows'])} flows)",
        highlight=False,
    )


def _is_experiment(argument: str) -> bool:
    """Whether ``argument`` names an experiment: a built-in experiment's name, or a TOML file
    with an ``[experiment]`` table (a file that does not parse is left to the scenario's
    checks, which name what is wrong)."""
    from ..catalog import builtin_path
    from ..scenario.schema import ScenarioError, read_toml

    path = Path(argument)
    if not path.is_file():
        builtin = builtin_path(argument, "experiments")
        return builtin is not None and builtin_path(argument) is None
    try:
        _, data = read_toml(path)
    except ScenarioError:  # the scenario's own reading reports it
        return False
    return isinstance(data.get("experiment"), dict)


def schema() -> None:
    """Print the JSON Schema of scenario files."""
    from ..scenario.schema import json_schema

    sys.stdout.write(json_schema() + "\n")


scenarios_app = typer.Typer(
    cls=Group,
    help="The built-in scenarios and experiment files: list them, or print one to copy.",
)


@scenarios_app.callback(invoke_without_command=True)
def scenarios(ctx: typer.Context) -> None:
    """List the built-in scenarios and experiment files, a line on each."""
    if ctx.invoked_subcommand is not None:
        return
    from ..catalog import KINDS, built_ins

    table = Table(title="built in (run by name, or print with: airtcp scenarios show NAME)")
    for column in ("name", "kind", "what it is"):
        table.add_column(column, overflow="fold")
    for kind in KINDS:
        for item in built_ins(kind):
            table.add_row(item.name, kind.removesuffix("s"), plain(item.description))
    out.print(table)


@scenarios_app.command(cls=Command)
def show(
    name: Annotated[str, typer.Argument(help="A built-in scenario or experiment's name.")],
) -> None:
    """Print a built-in scenario or experiment file (to copy and edit)."""
    from ..catalog import KINDS, built_ins, builtin_path

    for kind in KINDS:
        path = builtin_path(name, kind)
        if path is not None:
            sys.stdout.write(path.read_text(encoding="utf-8"))
            return
    names = ", ".join(item.name for kind in KINDS for item in built_ins(kind))
    raise fail(f"{plain(name)}: no built-in scenario or experiment (built-ins: {names})")
