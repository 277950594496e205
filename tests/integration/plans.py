"""The query plans of the statements a call runs, as each database explains them (not a test module).

A plan is read from the database itself (Neo4j ``EXPLAIN``, FalkorDB ``GRAPH.EXPLAIN``) for the statement
and parameters a real call sent, so a test can say which index answered it: an outcome of the schema and the
planner, not of the query's text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from synapse_graph import Memory
from synapse_graph.backends.falkordb_params import params_header
from synapse_graph.backends.neo4j import encode
from synapse_graph.catalogue import query


def statements_of(memory: Memory, call: Callable[[], Any], *, writes: bool = False) -> list[tuple[str, dict[str, Any]]]:
    """The reads ``call`` sent through the memory's backend, alone or together (``read_many``): (statement name,
    parameters), in order; with ``writes``, every statement it sent, writes and those of locked writes too."""
    backend: Any = memory.backend
    sent: list[tuple[str, dict[str, Any]]] = []

    def record(runner: Any, method: str, many: bool = False) -> None:
        original = getattr(runner, method)

        def recording(*arguments: Any) -> Any:
            requests = arguments[0] if many else [arguments]
            sent.extend((str(name), dict(params)) for name, params in requests)
            return original(*arguments)

        setattr(runner, method, recording)

    def recorded(runner: Any) -> None:
        record(runner, "read")
        if "read_many" in type(runner).__dict__:  # its own, not the default that reads one by one (recorded)
            record(runner, "read_many", many=True)
        if writes:
            record(runner, "write")
            if "write_last" in type(runner).__dict__:  # else it writes through write (recorded)
                record(runner, "write_last")

    if writes:
        locked = backend.locked

        @contextmanager
        def recording_locked(scope: str, init: Any, timeout: float) -> Iterator[Any]:
            with locked(scope, init, timeout) as runner:
                recorded(runner)
                yield runner

        backend.locked = recording_locked
    recorded(backend)
    try:
        call()
    finally:
        for attribute in ("read", "write", "read_many", "locked"):
            backend.__dict__.pop(attribute, None)
    return sent


def plan(memory: Memory, name: str, params: dict[str, Any]) -> list[str]:
    """The operators of a statement's plan, one line each: the operator and what it works on (an index
    seek names its index, or its label and properties)."""
    backend: Any = memory.backend
    text = query(name, backend.dialect)
    if backend.dialect == "neo4j":
        with backend._driver.session(database=backend._database) as session:
            summary = session.run("EXPLAIN " + text, encode(params)).consume()
        lines: list[str] = []

        def walk(step: Any) -> None:
            arguments = step.get("args", {}) if isinstance(step, dict) else step.arguments
            operator = step.get("operatorType") if isinstance(step, dict) else step.operator_type
            lines.append(f"{operator} {arguments.get('Details', '')}")
            for child in (step.get("children", []) if isinstance(step, dict) else step.children):
                walk(child)

        walk(summary.plan)
        return lines
    reply = backend._client.execute_command("GRAPH.EXPLAIN", backend.graph, params_header(params) + text)
    return [(line.decode() if isinstance(line, bytes) else str(line)).strip() for line in reply]


def rows_read(memory: Memory, name: str, params: dict[str, Any]) -> int:
    """How many rows the operators of a statement's plan produced, all together, as the database profiles it
    running (Neo4j ``PROFILE``: each operator's rows; FalkorDB ``GRAPH.PROFILE``: each one's records produced): what
    a statement read, whatever its text says."""
    backend: Any = memory.backend
    text = query(name, backend.dialect)
    if backend.dialect == "neo4j":
        with backend._driver.session(database=backend._database) as session:
            summary = session.run("PROFILE " + text, encode(params)).consume()
        total = 0

        def walk(step: Any) -> None:
            nonlocal total
            total += int(step.get("rows", 0) if isinstance(step, dict) else step.rows)
            for child in (step.get("children", []) if isinstance(step, dict) else step.children):
                walk(child)

        walk(summary.profile)
        return total
    reply = backend._client.execute_command("GRAPH.PROFILE", backend.graph, params_header(params) + text)
    lines = [(line.decode() if isinstance(line, bytes) else str(line)) for line in reply]
    return sum(int(found) for line in lines for found in re.findall(r"Records produced: (\d+)", line))


def plans_of(memory: Memory, call: Callable[[], Any]) -> dict[str, list[str]]:
    """The plan of each statement ``call`` reads with, by statement name."""
    return {name: plan(memory, name, params) for name, params in statements_of(memory, call)}
