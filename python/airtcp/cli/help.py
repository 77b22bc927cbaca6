"""Command help in the usual Unix form. Typer's own shows a required argument as
``{scenario}``, and arguments and flags with a type (``<str>``, ``<bool>``); here arguments
read ``SCENARIO`` (or ``[NAME]`` when optional) and neither shows a type, as in click,
argparse and man pages; the command list gives each command's summary as one line, not
broken where its docstring is."""

from __future__ import annotations

from typing import Any

import typer.core


class _NamedArgument(typer.core.TyperArgument):
    """An argument whose name and help say what it is: no ``<str>`` or ``<path>`` beside it."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None


def _untyped_flags(params: list[Any]) -> list[Any]:
    for param in params:
        if isinstance(param, typer.core.TyperOption) and param.is_flag:
            param.metavar = ""
        elif type(param) is typer.core.TyperArgument:
            # Typer makes its own; only how the help shows its type differs.
            param.__class__ = _NamedArgument
    return params


class Command(typer.core.TyperCommand):
    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, typer.core.TyperArgument):
                name = (param.metavar or param.name or "").upper()
                pieces.append(name if param.required else f"[{name}]")
        return pieces

    def get_params(self, ctx: Any) -> list[Any]:
        return _untyped_flags(super().get_params(ctx))


class Group(typer.core.TyperGroup):
    def get_params(self, ctx: Any) -> list[Any]:
        return _untyped_flags(super().get_params(ctx))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        # The command list shows each command's first paragraph; typer keeps its line
        # breaks (docstrings wrap at the code's width), so it is joined into one line.
        command = super().get_command(ctx, cmd_name)
        if command is not None and command.short_help is None and command.help:
            first = command.help.split("\n\n")[0]
            command.short_help = " ".join(first.split())
        return command
