"""How the command line reads to people: help in the usual notation, and usage errors as one line.

Help names a value the usual Unix way: ``FILE`` for a required argument, ``[SUBJECT]`` for an
optional one, ``--db TEXT`` for an option's value, nothing after a flag. An error the command line
framework finds (a missing file, a value out of range, an unknown option) is one ``error:`` line on
stderr, exit 2, like every other expected error (JSON under ``--json``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

import typer.core
from rich.console import Console
from rich.text import Text

_VALUE_NAMES = {"str": "TEXT", "int": "INTEGER", "float": "NUMBER", "Path": "PATH", "bool": "BOOLEAN"}


class _Argument(typer.core.TyperArgument):
    """An argument shown by its name alone (``FILE``): the name says what it is."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None


def _value_name(param: typer.core.TyperOption) -> str:
    if param.is_flag or param.count:
        return ""
    kind = param.bare_type()
    if kind.startswith("list[") and kind.endswith("]"):
        kind = kind[5:-1]
    return _VALUE_NAMES.get(kind, kind.upper())


def _plain_params(params: Sequence[Any]) -> None:
    for param in params:
        if isinstance(param, typer.core.TyperOption) and param.metavar is None:
            param.metavar = _value_name(param)
        elif isinstance(param, typer.core.TyperArgument) and not isinstance(param, _Argument):
            if param.metavar is None:
                param.metavar = (param.name or "value").upper()
            param.__class__ = _Argument


class PlainCommand(typer.core.TyperCommand):
    """A command whose help uses the usual notation (see the module)."""

    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)
        _plain_params(params)
        return params

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, typer.core.TyperArgument):
                name = param.metavar or (param.name or "").upper()
                shown = name if param.required else f"[{name}]"
                pieces.append(shown + ("..." if param.nargs != 1 else ""))
        return pieces


class PlainGroup(typer.core.TyperGroup):
    """A group of commands whose own help uses the usual notation."""

    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)
        _plain_params(params)
        return params


def run(app: Callable[..., Any], args: list[str]) -> int:
    """Run the app on ``args``; a usage error becomes one line (JSON under --json). Returns the exit code."""
    try:
        code = app(args=args, prog_name="synapse-graph", standalone_mode=False)
    except Exception as exc:
        exit_code, message = getattr(exc, "exit_code", None), getattr(exc, "format_message", None)
        if not isinstance(exit_code, int) or message is None:
            raise
        if type(exc).__name__ == "NoArgsIsHelpError":
            return exit_code  # the help was printed: asked with no arguments
        text = message()
        ctx = getattr(exc, "ctx", None)
        if ctx is not None and type(exc).__name__ != "FileError":
            text += f" (see {ctx.command_path} --help)"
        if "--json" in args:
            print(json.dumps({"error": "UsageError", "message": message()}, ensure_ascii=False), file=sys.stderr)
        else:
            Console(file=sys.stderr, markup=False, highlight=False, emoji=False).print(
                Text("error: ", style="red"), Text(text), sep="", soft_wrap=True)
        return exit_code
    return code if isinstance(code, int) else 0
