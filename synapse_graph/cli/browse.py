"""How to look at a Neo4j memory in Neo4j Browser: its URL, the style sheet and saved queries.

Everything here is pure: it builds the instructions ``synapse-graph browse`` prints from a
connection URL, the environment and the files in ``cypher/browser/`` (shipped inside the
wheel too), and never contacts the server. The saved queries are for people exploring
the graph in Browser; the library itself never runs them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from synapse_graph.backends import NEO4J_SCHEMES
from synapse_graph.catalogue import cypher_root
from synapse_graph.errors import ConfigurationError, NotNeo4jError
from synapse_graph.rules.redaction import guard
from synapse_graph.rules.text import clean_name, name_key

BROWSER_URL_ENV = "SYNAPSE_NEO4J_BROWSER_URL"
HTTP_PORT_ENV = "SYNAPSE_NEO4J_HTTP_PORT"
DEFAULT_HTTP_PORT = 7474
# Browser's "Connect result nodes" (autoComplete) also draws every relationship between the
# nodes a query returned: superseded FACT records and facts that did not hold at the time asked.
SETTINGS = (":config autoComplete: false",)
STYLE_FILE = "synapse.grass"
# The order in which the saved queries are shown; files not listed follow by name.
QUERY_ORDER = ("current_facts", "graph_as_of", "facts_as_of", "entity_history", "aliases")
_PARAM = re.compile(r"^//\s*(:param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*(.+?))\s*$")
_AURA_SUFFIX = ".databases.neo4j.io"


@dataclass(frozen=True)
class SavedQuery:
    """One ``cypher/browser/*.cypher`` file."""

    name: str
    path: str
    text: str
    params: dict[str, str] = field(default_factory=dict)  # name -> Cypher expression of its example value

    def with_params(self, values: Mapping[str, str]) -> str:
        """The file's text with its ``// :param`` lines set to ``values`` (expressions)."""
        lines = []
        for line in self.text.splitlines():
            found = _PARAM.match(line.strip())
            if found and found.group(2) in values:
                line = f"// :param {found.group(2)} => {values[found.group(2)]}"
            lines.append(line)
        return "\n".join(lines)


@dataclass(frozen=True)
class BrowseInfo:
    """What to open, load and paste to explore a scope in Neo4j Browser."""

    db: str
    browser_url: str
    user: str
    scope: str
    style_file: str | None
    style_command: str
    params: dict[str, str]
    queries: list[SavedQuery]
    name: str | None = None
    settings: tuple[str, ...] = SETTINGS

    @property
    def param_lines(self) -> list[str]:
        return [f":param {name} => {value}" for name, value in self.params.items()]

    @property
    def setup_lines(self) -> list[str]:
        """What to run once before the saved queries: Browser settings, then the parameters."""
        return [*self.settings, *self.param_lines]

    def as_json(self) -> dict[str, Any]:
        return {
            "db": self.db,
            "browser_url": self.browser_url,
            "user": self.user,
            "scope": self.scope,
            "style_file": self.style_file,
            "style_command": self.style_command,
            "settings": list(self.settings),
            "params": self.param_lines,
            "queries": [{"name": q.name, "file": q.path, "text": q.with_params(self.params)} for q in self.queries],
        }

    def render(self) -> str:
        """Plain text for a terminal: copy-and-paste friendly, no markup."""
        out = [
            f"Neo4j Browser: {self.browser_url}",
            f"  connect to {self.db} as {self.user!r} (the password is in $SYNAPSE_NEO4J_PASSWORD)",
            "",
            "Style (entities captioned by name, FACT relationships by predicate):",
        ]
        if self.style_file:
            out.append(f"  drag {self.style_file} onto the Browser window, or run this in the editor:")
        else:
            out.append("  run this in the editor:")
        key_of = f", key of {self.name!r}" if self.name is not None else ""
        out += [self.style_command, "",
                "Settings (run once; turns off \"Connect result nodes\", which would also draw superseded facts",
                "and facts not valid at the time asked between the entities shown):", *self.settings, "",
                f"Parameters (run each line once; scope {self.scope!r}{key_of}):"]
        out += self.param_lines
        out += ["", "Saved queries (paste one into the editor, run with Ctrl+Enter):"]
        for saved in self.queries:
            out += ["", f"// ---- {saved.name} ({saved.path})", saved.with_params(self.params)]
        return "\n".join(out) + "\n"


def browser_folder() -> Traversable:
    """``cypher/browser`` in the source tree or the installed package."""
    return cypher_root() / "browser"


def _shown_path(entry: Traversable) -> str:
    return str(entry) if isinstance(entry, Path) else f"synapse_graph/cypher/browser/{entry.name}"


def saved_queries() -> list[SavedQuery]:
    """The saved Browser queries, in a sensible reading order."""
    found = []
    for entry in browser_folder().iterdir():
        if not (entry.is_file() and entry.name.endswith(".cypher")):
            continue
        text = entry.read_text(encoding="utf-8").strip()
        params = {}
        for line in text.splitlines():
            matched = _PARAM.match(line.strip())
            if matched:
                params[matched.group(2)] = matched.group(3)
        found.append(SavedQuery(entry.name.removesuffix(".cypher"), _shown_path(entry), text, params))

    def order(query: SavedQuery) -> tuple[int, str]:
        return (QUERY_ORDER.index(query.name) if query.name in QUERY_ORDER else len(QUERY_ORDER), query.name)

    return sorted(found, key=order)


def style_sheet() -> tuple[str | None, str]:
    """The ``.grass`` file's path (None inside a zipped install) and its text."""
    entry = browser_folder() / STYLE_FILE
    text = entry.read_text(encoding="utf-8")
    return (str(entry) if isinstance(entry, Path) else None), text


def style_command(grass: str) -> str:
    """``:style`` with the sheet on one line, which Browser's editor runs as one command."""
    return ":style " + " ".join(grass.split())


def cypher_string(value: str) -> str:
    """A Cypher string literal for a ``:param`` line."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def is_neo4j(url: str) -> bool:
    return url.lower().startswith(NEO4J_SCHEMES)


def resolve_db(db: str | None, environ: Mapping[str, str]) -> str | None:
    """``--db``, else the first Neo4j URL among $SYNAPSE_DB and $SYNAPSE_NEO4J_URL, else $SYNAPSE_DB."""
    if db:
        return db
    configured = environ.get("SYNAPSE_DB") or None
    neo4j_url = environ.get("SYNAPSE_NEO4J_URL") or None
    for candidate in (configured, neo4j_url):
        if candidate and is_neo4j(candidate):
            return candidate
    return configured


def _host_for_url(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def connect_url(db: str, user: str | None = None) -> str:
    """The Bolt URL without credentials; with ``user@`` if given, so Browser pre-fills the user name."""
    parts = urlsplit(db)
    host = _host_for_url(parts.hostname or "localhost")
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    if user:
        netloc = f"{quote(user, safe='')}@{netloc}"
    return f"{parts.scheme}://{netloc}"


def browser_base_url(db: str, environ: Mapping[str, str]) -> str:
    """$SYNAPSE_NEO4J_BROWSER_URL, else the Browser the Neo4j server at ``db`` serves."""
    configured = environ.get(BROWSER_URL_ENV)
    if configured:
        return configured
    parts = urlsplit(db)
    host = parts.hostname or "localhost"
    if host.endswith(_AURA_SUFFIX):
        return "https://browser.neo4j.io/"
    if "+s" in parts.scheme.lower():
        return f"https://{_host_for_url(host)}:7473/browser/"
    return f"http://{_host_for_url(host)}:{http_port(environ)}/browser/"


def http_port(environ: Mapping[str, str]) -> int:
    """$SYNAPSE_NEO4J_HTTP_PORT (the port scripts/neo4j-local serves Browser on), else 7474."""
    configured = environ.get(HTTP_PORT_ENV, "").strip()
    if not configured:
        return DEFAULT_HTTP_PORT
    if not configured.isdigit() or not 0 < int(configured) < 65536:
        raise ConfigurationError(f"{HTTP_PORT_ENV}={configured!r} is not a port number (1-65535)")
    return int(configured)


def entity_key(name: str) -> str:
    """The key the library stores for a name (NFC, whitespace collapsed, secrets redacted, case-folded).

    Cypher has no case folding (``toLower('Straße')`` is ``'straße'``, the key is ``'strasse'``),
    so the saved queries take the key as a parameter computed here.
    """
    return name_key(clean_name(guard(clean_name(name), "redact", field="name").text))


def browser_url(db: str, environ: Mapping[str, str], user: str | None = None) -> str:
    """The Browser URL with ``?connectURL=`` so Browser's connect form is pre-filled."""
    base = browser_base_url(db, environ)
    separator = "&" if "?" in base else "?"
    return f"{base}{separator}connectURL={quote(connect_url(db, user), safe=':/@')}"


def instructions(
    db: str | None,
    *,
    scope: str = "default",
    name: str | None = None,
    user: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> BrowseInfo:
    """Everything ``synapse-graph browse`` prints; raises :class:`NotNeo4jError` for other databases."""
    env = os.environ if environ is None else environ
    location = resolve_db(db, env)
    if location is None:
        raise NotNeo4jError(
            "no Neo4j database given: pass --db bolt://host:7687 or set SYNAPSE_NEO4J_URL "
            "(for the local server: eval \"$(scripts/neo4j-local env)\")"
        )
    if not is_neo4j(location):
        raise NotNeo4jError(
            f"Neo4j Browser only shows Neo4j databases, and {location!r} is a FalkorDB database. "
            "Give --db a bolt:// or neo4j:// URL. For FalkorDB, use the FalkorDB Browser instead: "
            "`docker compose -f compose/docker-compose.yml up -d falkordb` serves it at http://localhost:3000 "
            "(connect it to redis://localhost:6379 and pass --db redis://localhost:6379 to synapse-graph)."
        )
    shown_user = user or urlsplit(location).username or env.get("SYNAPSE_NEO4J_USER") or "neo4j"
    queries = saved_queries()
    params: dict[str, str] = {}
    for saved in queries:
        for key, value in saved.params.items():
            params.setdefault(key, value)
    params["scope"] = cypher_string(scope)
    if name is not None:
        params["key"] = cypher_string(entity_key(name))
    style_file, grass = style_sheet()
    return BrowseInfo(
        db=connect_url(location),
        browser_url=browser_url(location, env, shown_user),
        user=shown_user,
        scope=scope,
        style_file=style_file,
        style_command=style_command(grass),
        params=params,
        queries=queries,
        name=name,
    )
