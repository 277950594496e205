"""The shell every command shares: the app, common options, output for people or JSON, one way to fail."""


from __future__ import annotations

import functools
import inspect
import json
import os
import re
import sys
import typing
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Any, NoReturn, TextIO

import typer
from pydantic import BaseModel
from rich.console import Console
from rich.table import Table
from rich.text import Text

from synapse_graph import render
from synapse_graph.backends import embedded_store
from synapse_graph.cli.usage import PlainCommand, PlainGroup
from synapse_graph.errors import NotFoundError, SynapseError
from synapse_graph.memory import Memory
from synapse_graph.models import Fact

app = typer.Typer(
    name="synapse-graph",
    help="A durable, temporal knowledge-graph memory for AI agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=PlainGroup,
)
_app = app  # the top level, for command(app=None): the parameter of that name shadows it there


Db = Annotated[str | None, typer.Option("--db", envvar="SYNAPSE_DB", show_envvar=True, metavar="PATH|URL",
                                        help="Database: a file path (embedded FalkorDB) or a redis://, falkordb://, "
                                             "bolt:// or neo4j:// URL. Default: memory.db in the user data directory.")]

Scope = Annotated[str, typer.Option("--scope", envvar="SYNAPSE_SCOPE", show_envvar=True,
                                    help="Scope (tenant/repo/session) to read and write.")]

AsJson = Annotated[bool, typer.Option("--json", help="Print JSON for machines instead of tables (errors too, "
                                                     "on stderr).")]

User = Annotated[str | None, typer.Option("--user", envvar="SYNAPSE_NEO4J_USER", help="Neo4j user.")]

Password = Annotated[str | None, typer.Option("--password", envvar="SYNAPSE_NEO4J_PASSWORD",
                                              help="Neo4j password (prefer the environment variable).")]

MaxFacts = Annotated[int | None, typer.Option("--max-facts", help="Fact quota of the scope (stored with it; "
                                                                 "default: the stored one, else 10000).")]

MaxEntities = Annotated[int | None, typer.Option("--max-entities", help="Entity quota of the scope (stored with it; "
                                                                       "default: the stored one, else 5000).")]

_as_json: ContextVar[bool] = ContextVar("as_json", default=False)
"""Whether the running command prints JSON (set by :func:`command`)."""

USAGE_EXIT = 2
"""Exit code of every error the command expects: bad input, a missing file, a refusing database."""

NOT_FOUND_EXIT = 1
"""Exit code of a lookup that found nothing (``entity``) or a question answered no (``purge``)."""

_UNLIMITED = 1_000_000
"""The width of a console that never wraps (output piped, no COLUMNS)."""

def _console(stream: TextIO) -> Console:
    """A console that prints text as text (no markup, no highlighting) and, when piped, never wraps."""
    piped = not stream.isatty() and not os.environ.get("COLUMNS")
    return Console(file=stream, markup=False, highlight=False, emoji=False, width=_UNLIMITED if piped else None)

def say(*parts: str | Text) -> None:
    """Print a line for people on stdout."""
    _console(sys.stdout).print(*parts, soft_wrap=True)

def _emit(value: Any, as_json: bool, show: Callable[[Any], None] | None = None) -> None:
    if as_json or show is None:
        print(json.dumps(_jsonable(value), ensure_ascii=False))
    else:
        show(value)

def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value

def _table(columns: Sequence[str], rows: Sequence[Sequence[str]], title: str | None = None, *,
           optional: Sequence[str] = (), line: Callable[[int], str] | None = None) -> None:
    """A table that fits the terminal without cutting a cell (an id, a name, a predicate is never wrapped).

    Too wide, it leaves out the ``optional`` columns, in that order, until it fits; still too wide, it
    shows each row as one line: ``line(index)``, or the first cell then each other as ``header value``.
    """
    console = _console(sys.stdout)
    shown = list(range(len(columns)))
    for dropped in (None, *optional):
        if dropped is not None:
            shown.remove(columns.index(dropped))
        table = Table(title=title, title_justify="left")
        for index in shown:
            table.add_column(columns[index], no_wrap=True)
        for row in rows:
            table.add_row(*(Text(row[index]) for index in shown))  # Text: a name like "[/x]" is shown, not parsed
        if console.measure(table, options=console.options.update_width(_UNLIMITED)).maximum <= console.width:
            console.print(table)
            return
    if title:
        say(title)
    for number, row in enumerate(rows):
        say("  " + (line(number) if line is not None else "  ".join(
            [row[0], *(f"{header} {cell}" for header, cell in zip(columns[1:], row[1:], strict=True) if cell)])))


def _fact_table(facts: Sequence[Fact], title: str | None = None) -> None:
    if not facts:
        say(f"{title}: no facts" if title else "no facts")
        return
    _table(render.FACT_COLUMNS, [render.fact_cells(fact) for fact in facts], title, optional=("seen", "conf."),
           line=lambda number: render.fact_text(facts[number]))

def fail(kind: str, message: str, as_json: bool, code: int = USAGE_EXIT) -> NoReturn:
    """Print one error (``error: ...``, or ``{"error": kind, "message": ...}`` under --json) and exit."""
    if as_json:
        print(json.dumps({"error": kind, "message": message}, ensure_ascii=False), file=sys.stderr)
    else:
        _console(sys.stderr).print(Text("error: ", style="red"), Text(message), sep="", soft_wrap=True)
    raise typer.Exit(code)

def _option_names(func: Callable[..., Any]) -> dict[str, str]:
    """``max_entities`` -> ``--max-entities`` for the command's options whose names have an underscore."""
    names: dict[str, str] = {}
    hints = typing.get_type_hints(func, include_extras=True)
    for name in inspect.signature(func).parameters:
        if "_" not in name:
            continue
        for extra in getattr(hints.get(name), "__metadata__", ()):
            if isinstance(extra, typer.models.OptionInfo):
                decls = (extra.default, *(extra.param_decls or ()))
                declared = [d for d in decls if isinstance(d, str) and d.startswith("--")]
                names[name] = declared[0] if declared else "--" + name.replace("_", "-")
    return names

def _cli_words(message: str, options: dict[str, str]) -> str:
    """A library message in the command's words: its option names instead of the API's argument names."""
    for name, flag in options.items():
        message = re.sub(rf"(?<![\w-]){re.escape(name)}\b", flag, message)
    return message

def _file_problem(exc: OSError) -> str:
    where = exc.filename if exc.filename is not None else "the file"
    if isinstance(exc, FileNotFoundError) and exc.filename is not None:
        folder = Path(str(exc.filename)).parent
        if not folder.is_dir():
            return f"cannot open {where}: the folder {folder} does not exist (create it, or choose another path)"
    return f"cannot use {where}: {exc.strerror or exc}"

def command(name: str | None = None, *, app: typer.Typer | None = None
            ) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register a command (on ``app``, default the top level) whose expected errors become one message and
    exit code 2 (JSON under --json)."""

    def register(func: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(func)
        def run(*args: Any, **kwargs: Any) -> None:
            as_json = bool(kwargs.get("as_json"))
            _as_json.set(as_json)
            try:
                func(*args, **kwargs)
            except SynapseError as exc:
                fail(type(exc).__name__, _cli_words(str(exc), _option_names(func)), as_json)
            except UnicodeDecodeError as exc:
                fail("FileError", f"the file is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
                                  f"{exc.start}); give a JSON Lines export written by 'synapse-graph export'",
                     as_json)
            except OSError as exc:
                fail("FileError", _file_problem(exc), as_json)

        (app or _app).command(name, cls=PlainCommand)(run)
        return run

    return register

def _auth(user: str | None, password: str | None) -> tuple[str, str] | None:
    return (user or "neo4j", password) if password is not None else None


@contextmanager
def _open(db: str | None, scope: str, user: str | None = None, password: str | None = None, *,
          client: str = "synapse-graph-cli", create: bool = True, init: bool = False,
          **options: Any) -> Iterator[Memory]:
    """The memory a command works on. Reads (``create=False``) never create a store; a write that creates
    one says so on stderr, and creates the folders of a ``--db`` path only with ``init``."""
    new_store = _store_to_create(db, init) if create else None
    with Memory(db, scope=scope, client=client, auth=_auth(user, password), create=create, **options) as memory:
        if new_store is not None:
            notice = f"created a new store at {new_store}"
            if _as_json.get():
                print(json.dumps({"notice": notice, "location": str(new_store)}, ensure_ascii=False), file=sys.stderr)
            else:
                _console(sys.stderr).print(notice, soft_wrap=True)
        yield memory


def _store_to_create(db: str | None, init: bool) -> Path | None:
    """The embedded store a write would create (None: a URL, or a store is there); a ``--db`` path whose
    folder does not exist is refused (a mistyped path) unless the command is ``init``."""
    from synapse_graph.backends.embedded import EmbeddedServer

    path = embedded_store(db)
    if path is None or EmbeddedServer(path).exists():
        return None
    if db is not None and not init and not path.parent.is_dir():
        raise NotFoundError(f"the folder {path.parent} does not exist, so there is no store at {path}; check "
                            f"--db, or create a new store there with: synapse-graph init --db {path}")
    return path
