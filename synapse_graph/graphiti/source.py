"""Reading a Graphiti graph through ``graphiti-core``'s own drivers and models (the ``graphiti`` extra).

Nothing here writes to the Graphiti graph: a driver of ``graphiti-core`` builds its indexes when it
is created inside an event loop, and that task is cancelled before it starts. Entity nodes and entity
edges are read a page at a time (``EntityNode.get_by_group_ids`` / ``EntityEdge.get_by_group_ids``,
by uuid), and kept as plain :class:`GraphitiNode` / :class:`GraphitiEdge` values.

Where the groups are: on Neo4j a group is a ``group_id`` property in one database; on FalkorDB,
Graphiti keeps each group it writes episodes to in a graph of that name (the default group ``_`` in
``default_db``), so every graph of the server is asked which groups it holds.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit, urlunsplit

from synapse_graph.backends.urls import FALKORDB_SCHEMES, NEO4J_SCHEMES, safe_url
from synapse_graph.errors import (
    AuthenticationError,
    BackendUnavailableError,
    ConfigurationError,
    NotFoundError,
    SynapseError,
)

if TYPE_CHECKING:
    from graphiti_core.driver.driver import GraphDriver

PAGE = 1_000
"""Nodes or edges read per query on Neo4j. On FalkorDB a group is read in one query: its plans for graphiti-core's
next-page query (``e.uuid < $uuid``) took 5-15 s a page where the whole group of 5,000 edges took 1.6 s."""
NEO4J_DEFAULT_GROUP = ""
FALKORDB_DEFAULT_GROUP = "_"
"""The group Graphiti writes to when given none (``graphiti_core.helpers.get_default_group_id``)."""
_GROUPS = "MATCH (n:Entity) WHERE n.group_id IS NOT NULL RETURN DISTINCT n.group_id AS group_id"


@dataclass(frozen=True)
class GraphitiNode:
    """An entity node as Graphiti keeps it (what the import uses of it)."""

    uuid: str
    name: str
    group_id: str
    labels: tuple[str, ...]
    created_at: datetime
    summary: str = ""


@dataclass(frozen=True)
class GraphitiEdge:
    """An entity edge (``RELATES_TO``) as Graphiti keeps it: world times ``valid_at``/``invalid_at``, and
    ``created_at``/``expired_at``, when Graphiti recorded it and when it stopped holding it as it was."""

    uuid: str
    group_id: str
    source: str
    """The source node's uuid."""
    target: str
    name: str
    fact: str
    created_at: datetime
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    expired_at: datetime | None = None
    reference_time: datetime | None = None
    episodes: tuple[str, ...] = ()


@dataclass
class GraphitiGroup:
    """One group of a Graphiti graph: its entity nodes and entity edges."""

    group_id: str
    nodes: list[GraphitiNode] = field(default_factory=list)
    edges: list[GraphitiEdge] = field(default_factory=list)


def is_neo4j(source: str) -> bool:
    return source.strip().lower().startswith(NEO4J_SCHEMES)


def default_group(source: str) -> str:
    """The group Graphiti writes to when given none, on the database ``source`` names."""
    return NEO4J_DEFAULT_GROUP if is_neo4j(source) else FALKORDB_DEFAULT_GROUP


def needs_graphiti() -> None:
    """Raise :class:`~synapse_graph.errors.MissingExtraError` naming the extra if graphiti-core is missing."""
    from synapse_graph.extras import needs_extra

    with needs_extra("graphiti", "reading a Graphiti graph"):
        import graphiti_core  # noqa: F401


# -- connecting -----------------------------------------------------------------------------------------------


def _credentials(source: str, auth: tuple[str, str] | None) -> tuple[str, tuple[str, str] | None]:
    """A Neo4j URL without its user and password, and the credentials (``auth`` wins over the URL's)."""
    parts = urlsplit(source)
    if parts.username is None and parts.password is None:
        return source, auth
    netloc = parts.netloc.rsplit("@", 1)[1]
    plain = urlunsplit(parts._replace(netloc=netloc))
    return plain, auth or (unquote(parts.username or "neo4j"), unquote(parts.password or ""))


async def _driver(source: str, auth: tuple[str, str] | None, database: str | None, graph: str | None = None
                  ) -> GraphDriver:
    """A graphiti-core driver for ``source``; call inside the event loop that will use it."""
    lowered = source.strip().lower()
    if not lowered.startswith(NEO4J_SCHEMES + FALKORDB_SCHEMES):
        raise ConfigurationError(
            f"{safe_url(source)!r} is not a Graphiti database: give the URL of the Neo4j (bolt://, neo4j://) or "
            "FalkorDB (falkordb://, redis://, unix://) server Graphiti writes to")
    needs_graphiti()
    if lowered.startswith(NEO4J_SCHEMES):
        from graphiti_core.driver.neo4j_driver import Neo4jDriver
        from neo4j import AsyncGraphDatabase

        url, credentials = _credentials(source, auth)
        user, password = credentials or (None, None)
        driver: GraphDriver = _no_index_build(Neo4jDriver(url, user, password, database=database or "neo4j"))
        # Graphiti's reads name keys a graph may not hold (reference_time): the server's notice of each is noise.
        noisy, driver.client = driver.client, AsyncGraphDatabase.driver(  # type: ignore[attr-defined]
            url, auth=(user or "", password or ""), notifications_min_severity="OFF")
        await noisy.close()
        try:
            await driver.client.verify_connectivity()  # type: ignore[attr-defined]  # at once, not after retries
        except BaseException:
            await driver.client.close()  # type: ignore[attr-defined]
            raise
        return driver
    from falkordb.asyncio import FalkorDB
    from graphiti_core.driver.falkordb_driver import FalkorDriver

    from synapse_graph.backends.falkordb import redis_url

    try:
        client = FalkorDB.from_url(redis_url(source), socket_timeout=None)  # redis-py's 5 s cuts long reads
    except ValueError as exc:
        raise ConfigurationError(f"invalid FalkorDB URL {safe_url(source)}: {exc}") from None
    return _no_index_build(FalkorDriver(falkor_db=client, database=graph or "default_db"))


def _no_index_build(driver: GraphDriver) -> GraphDriver:
    """Cancel the index build a graphiti-core driver schedules when created in a loop, before it starts (nothing
    may be awaited in between): reading writes nothing."""
    task = getattr(driver, "_init_task", None)
    if task is not None:
        task.cancel()
    return driver


def _failure(exc: Exception, source: str) -> SynapseError:
    """What a failure to read the Graphiti graph means for the user."""
    shown = safe_url(source)
    if is_neo4j(source):
        from neo4j import exceptions as neo4j_errors

        if isinstance(exc, neo4j_errors.AuthError):
            return AuthenticationError(f"Neo4j at {shown} refused the credentials of the Graphiti graph: give its "
                                       "user and password (auth=(user, password); the CLI's --from-user and "
                                       "--from-password, or NEO4J_USER and NEO4J_PASSWORD as Graphiti reads them)")
        from synapse_graph.backends.neo4j import connect_error

        found = connect_error(exc, shown)
    else:
        import redis

        from synapse_graph.backends.falkordb_wire import error

        found = error(exc, shown) if isinstance(exc, redis.RedisError) else BackendUnavailableError(str(exc))
    return type(found)(f"reading the Graphiti graph: {found}")


async def _reading[T](source: str, read: Callable[[], Awaitable[T]]) -> T:
    from redis import RedisError

    try:
        return await read()
    except SynapseError:
        raise
    except (OSError, RedisError) as exc:
        raise _failure(exc, source) from exc
    except Exception as exc:
        if type(exc).__module__.startswith("neo4j"):
            raise _failure(exc, source) from exc
        raise


@contextlib.asynccontextmanager
async def _opened(source: str, auth: tuple[str, str] | None, database: str | None, graph: str | None = None
                  ) -> AsyncIterator[GraphDriver]:
    driver = await _reading(source, partial(_driver, source, auth, database, graph))
    try:
        yield driver
    finally:
        closing: Any = driver.close  # untyped in graphiti-core
        with contextlib.suppress(Exception):
            await closing()


# -- reading ------------------------------------------------------------------------------------------------


async def _groups_of(driver: GraphDriver) -> list[str]:
    found = await driver.execute_query(_GROUPS, routing_="r")
    records = found[0] if found else []
    return [str(r["group_id"]) for r in records]


async def _placed_groups(source: str, auth: tuple[str, str] | None, database: str | None
                         ) -> dict[str, list[str | None]]:
    """Each group id, and the graphs (FalkorDB) that hold it; ``[None]`` on Neo4j (one database)."""
    async with _opened(source, auth, database) as driver:
        if is_neo4j(source):
            return {group: [None] for group in sorted(await _reading(source, lambda: _groups_of(driver)))}
        client: Any = driver.client  # type: ignore[attr-defined]
        graphs: list[str] = await _reading(source, client.list_graphs)
    placed: dict[str, list[str | None]] = {}
    for graph in sorted(graphs):
        async with _opened(source, auth, database, graph) as in_graph:
            for group in await _reading(source, partial(_groups_of, in_graph)):
                placed.setdefault(group, []).append(graph)
    return dict(sorted(placed.items()))


async def graphiti_groups_async(source: str, *, auth: tuple[str, str] | None = None, database: str | None = None
                                ) -> list[str]:
    """The group ids of the Graphiti graph at ``source`` (sorted; ``""`` or ``"_"`` is the default group)."""
    return list(await _placed_groups(source, auth, database))


async def _pages[T](fetch: Callable[[int | None, str | None], Awaitable[list[T]]], uuid_of: Callable[[T], str],
                    paged: bool) -> list[T]:
    """Everything ``fetch(limit, cursor)`` gives, a page at a time when ``paged``, else in one call."""
    if not paged:
        return await fetch(None, None)
    found: list[T] = []
    cursor: str | None = None
    while True:
        page = await fetch(PAGE, cursor)
        found += page
        if len(page) < PAGE:
            return found
        cursor = uuid_of(page[-1])


async def _read_graph(driver: GraphDriver, group: GraphitiGroup) -> None:
    from graphiti_core.driver.driver import GraphProvider
    from graphiti_core.edges import EntityEdge
    from graphiti_core.errors import GroupsEdgesNotFoundError
    from graphiti_core.nodes import EntityNode

    async def nodes(limit: int | None, cursor: str | None) -> list[Any]:
        return list(await EntityNode.get_by_group_ids(driver, [group.group_id], limit=limit, uuid_cursor=cursor))

    async def edges(limit: int | None, cursor: str | None) -> list[Any]:
        try:
            return list(await EntityEdge.get_by_group_ids(driver, [group.group_id], limit=limit, uuid_cursor=cursor))
        except GroupsEdgesNotFoundError:  # graphiti-core's answer to an empty page
            return []

    paged = driver.provider == GraphProvider.NEO4J

    for node in await _pages(nodes, lambda n: str(n.uuid), paged):
        group.nodes.append(GraphitiNode(
            uuid=node.uuid, name=node.name, group_id=node.group_id,
            labels=tuple(label for label in node.labels if label != "Entity"), created_at=node.created_at,
            summary=node.summary or ""))
    for edge in await _pages(edges, lambda e: str(e.uuid), paged):
        group.edges.append(GraphitiEdge(
            uuid=edge.uuid, group_id=edge.group_id, source=edge.source_node_uuid, target=edge.target_node_uuid,
            name=edge.name, fact=edge.fact, created_at=edge.created_at, valid_at=edge.valid_at,
            invalid_at=edge.invalid_at, expired_at=edge.expired_at, reference_time=edge.reference_time,
            episodes=tuple(edge.episodes or ())))


async def read_group_async(source: str, group_id: str | None = None, *, auth: tuple[str, str] | None = None,
                           database: str | None = None) -> GraphitiGroup:
    """One group of the Graphiti graph at ``source``: ``group_id``, or the only group it holds.

    Raises :class:`~synapse_graph.errors.NotFoundError` if the group is not there, or if no group is given
    and the graph holds several (the message lists them).
    """
    placed = await _placed_groups(source, auth, database)
    shown = safe_url(source)
    if not placed:
        raise NotFoundError(f"no Graphiti entity nodes at {shown}: is it the database Graphiti writes to?")
    if group_id is None:
        if len(placed) > 1:
            raise NotFoundError(f"the Graphiti graph at {shown} holds {len(placed)} groups "
                                f"({_listed(placed)}): choose one with group_id")
        [group_id] = placed
    if group_id not in placed:
        raise NotFoundError(f"the Graphiti graph at {shown} holds no group {group_id!r}; it holds {_listed(placed)}")
    group = GraphitiGroup(group_id)
    for graph in placed[group_id]:
        async with _opened(source, auth, database, graph) as driver:
            await _reading(source, partial(_read_graph, driver, group))
    return group


def _listed(placed: dict[str, Any]) -> str:
    shown = [repr(g) for g in list(placed)[:10]]
    return ", ".join(shown) + (", ..." if len(placed) > 10 else "")


def run_sync[T](make: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine to the end from synchronous code, also where an event loop already runs (Jupyter)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_awaited(make))
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(1, thread_name_prefix="synapse-graphiti")
    try:
        return pool.submit(asyncio.run, _awaited(make)).result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


async def _awaited[T](make: Callable[[], Awaitable[T]]) -> T:
    return await make()
