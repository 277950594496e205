"""Running a page of the docs as a reader would: every code block, as written, in order (with Sybil).

- ``python`` blocks run in one namespace per page; a block starting with ``>>>`` is a doctest whose output
  must match (``...`` stands for what changes from run to run: ids, times of *now*).
- ``bash`` blocks run through ``bash -euo pipefail`` as one shell session per page: what a block exports, or
  the folder it ``cd``s into, holds for the next block. ``synapse-graph`` is this installation's real CLI.
- ``console`` blocks are ``$ command`` lines, each followed by the output it must print (stdout and stderr
  together, doctest rules: ``...`` matches anything, runs of spaces are one).
- ``json`` and ``toml`` blocks must parse (``test_agent_hosts`` also launches the servers they configure).
- ``text`` blocks show output or layout and are not run; ``diff`` blocks show a change to a file.

A page runs in a fresh folder that is also its ``HOME`` and its user data and config folders, so the default
store (``memory.db`` in the user data directory) is the page's own. A block that cannot run here is preceded
by ``<!-- skip: next "why" -->``: the reason is required, and the test lists what it skipped.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
import unittest
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sybil import Document, Example, Sybil
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
BIN = Path(sys.executable).parent
RUN = {"python", "bash", "console"}
PARSED = {"json", "toml"}
SHOWN = {"text", "diff"}
BLOCK_SECONDS = 180
OUTPUT = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
SKIP_WITHOUT_REASON = re.compile(r"<!--\s*skip:\s*(next|start)\s*-->")


def pages() -> list[Path]:
    """The README and every page of the docs site."""
    return [ROOT / "README.md", *sorted(DOCS.glob("**/*.md"))]


@dataclass
class Shell:
    """One bash session per page: each block starts from the variables and folder the previous one left."""

    folder: Path
    state: Path = field(init=False)

    def __post_init__(self) -> None:
        self.state = self.folder.parent / f".{self.folder.name}-shell-state"
        self.state.write_text(f"cd {shlex.quote(str(self.folder))}\n", encoding="utf-8")

    def run(self, source: str, env: Mapping[str, str], *, errexit: bool = True) -> subprocess.CompletedProcess[str]:
        """Runs ``source`` after the session so far; with ``errexit`` (a script), its first failure ends it."""
        state = shlex.quote(str(self.state))
        script = (f"source {state}\n{'set -e' if errexit else 'set +e'}\n{source}\n"
                  f"{{ export -p; echo \"cd $(printf %q \"$PWD\")\"; }} > {state}\n")
        return subprocess.run(["bash", "-uo", "pipefail", "-c", script], env=dict(env), capture_output=True,
                              text=True, timeout=BLOCK_SECONDS, stdin=subprocess.DEVNULL, check=False)


@dataclass
class Page:
    """A page being run: its folder, its environment, its shell, and what it skipped."""

    path: Path
    folder: Path
    env: dict[str, str]
    shell: Shell
    skipped: list[str] = field(default_factory=list)
    ran: dict[str, int] = field(default_factory=dict)


def page_env(folder: Path, extra: Mapping[str, str]) -> dict[str, str]:
    """The environment of a page: this installation first on PATH, and a home folder of its own whose standard
    places (``~/.local/share``, ``~/.config``) hold the default store and config, as for every process a page
    starts (an MCP server started with the SDK's minimal environment included)."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("SYNAPSE_", "XDG_"))}
    home = folder / "home"
    home.mkdir(parents=True, exist_ok=True)
    return {**keep, "HOME": str(home), "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "COLUMNS": "120", "NO_COLOR": "1", "TERM": "dumb", **extra}


class _Evaluators:
    """The evaluators of one run; they find the page being run here."""

    page: Page | None = None

    def current(self) -> Page:
        assert self.page is not None, "no page is being run"
        return self.page

    def bash(self, example: Example) -> str | None:
        page = self.current()
        done = page.shell.run(str(example.parsed), page.env)
        if done.returncode != 0:
            return f"bash block exited {done.returncode}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
        return None

    def console(self, example: Example) -> str | None:
        page = self.current()
        problems = []
        for command, wanted in console_steps(str(example.parsed)):
            done = page.shell.run(f"{{\n{command}\n}} 2>&1", page.env, errexit=False)
            got = done.stdout
            if done.returncode != 0:
                problems.append(f"$ {command}\nexited {done.returncode}:\n{got}{done.stderr}")
            elif not doctest.OutputChecker().check_output(wanted, got, OUTPUT):
                problems.append(f"$ {command}\n--- expected\n{wanted}--- got\n{got}")
        return "\n".join(problems) or None

    def parsed(self, example: Example) -> str | None:
        import json
        import tomllib

        language = example.region.lexemes.get("arguments", "")
        try:
            (json.loads if language == "json" else tomllib.loads)(str(example.parsed))
        except ValueError as exc:
            return f"the {language} block does not parse: {exc}"
        return None


def console_steps(text: str) -> Iterator[tuple[str, str]]:
    """``(command, expected output)`` for each ``$ `` line of a console block (``\\`` continues a command)."""
    command: list[str] = []
    output: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            if command:
                yield "\n".join(command), "".join(f"{o}\n" for o in output)
            command, output = [line[2:]], []
            while command[-1].endswith("\\") and i + 1 < len(lines):
                i += 1
                command.append(lines[i])
        else:
            output.append(line)
        i += 1
    if command:
        yield "\n".join(command), "".join(f"{o}\n" for o in output)


EVALUATORS = _Evaluators()
SYBIL = Sybil(parsers=[
    PythonCodeBlockParser(doctest_optionflags=OUTPUT),
    CodeBlockParser("bash", EVALUATORS.bash),
    CodeBlockParser("console", EVALUATORS.console),
    CodeBlockParser("json", EVALUATORS.parsed),
    CodeBlockParser("toml", EVALUATORS.parsed),
    SkipParser(),
])


def fences(path: Path) -> list[str]:
    """The language of every fenced code block of a page, in order."""
    document = Document(path.read_text(encoding="utf-8"), str(path))
    lexer = FencedCodeBlockLexer(language=r"[^\n]*", mapping={"language": "language"})
    return [str(region.lexemes["language"]).strip() for region in lexer(document)]


@contextmanager
def environment(env: Mapping[str, str]) -> Iterator[None]:
    """``os.environ`` and the working folder as the page's, for its Python blocks; restored afterwards."""
    saved, cwd = dict(os.environ), os.getcwd()
    os.environ.clear()
    os.environ.update(env)
    os.chdir(env["HOME"])
    try:
        yield
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(saved)


def run_page(path: Path, folder: Path, extra_env: Mapping[str, str] | None = None) -> Page:
    """Runs every block of ``path`` in order; raises at the first one that fails, naming it."""
    text = path.read_text(encoding="utf-8")
    bare = SKIP_WITHOUT_REASON.search(text)
    if bare:
        line = text[: bare.start()].count("\n") + 1
        raise AssertionError(f"{path.name}:{line}: a skip needs its reason: <!-- skip: next \"why\" -->")
    env = page_env(folder, extra_env or {})
    page = Page(path, folder, env, Shell(Path(env["HOME"])))
    document = SYBIL.parse(path)
    document.namespace["__name__"] = "__docs__"
    EVALUATORS.page = page
    try:
        with environment(env):
            for example in document.examples():
                kind = _kind(example)
                try:
                    example.evaluate()
                except unittest.SkipTest as skip:
                    page.skipped.append(f"{path.name}:{example.line} ({kind}): {skip}")
                    continue
                page.ran[kind] = page.ran.get(kind, 0) + 1
    finally:
        EVALUATORS.page = None
    return page


def _kind(example: Example) -> str:
    lexemes: dict[str, Any] = example.region.lexemes
    return str(lexemes.get("arguments") or lexemes.get("language") or type(example.region.evaluator).__name__)
