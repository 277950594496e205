"""What the public models look like in a plain Python REPL (issue 33): short, yet unambiguous.

A real ``python -i`` reads the session from stdin and prints each value's ``repr``. A repr names
the model and every field whose value differs from its default (required fields always), with
times in ISO form; three facts fit in well under a kilobyte (they took 1.5 KB).
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path

from synapse_graph import Fact, ScopeRules, Triple, WriteResult

SESSION = """
    from synapse_graph import Memory, Triple
    m = Memory({db!r}, scope="repl")
    _ = m.upsert([Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2019-03-01"), Triple(subject="Dana", predicate="WORKS_AT", object="Acme", valid_at="2019-04-01T09:30:00Z"), Triple(subject="Dana", predicate="LIKES", object="tea")], source="chat")
    print("--facts--")
    m.facts("Dana")
    print("--entity--")
    m.entity("Dana")
    print("--write--")
    m.upsert(("Dana", "OWNS", "bike"), model="extractor-1")
    print("--rules--")
    m.rules()
    print("--end--")
    m.close()
"""  # noqa: E501 (one REPL line)


def repl(tmp_path: Path) -> dict[str, str]:
    """Each printed section of the REPL session, as a person sees it."""
    script = textwrap.dedent(SESSION).format(db=str(tmp_path / "m.db"))
    result = subprocess.run([sys.executable, "-i", "-q"], input=script, capture_output=True, text=True, timeout=120,
                            check=False, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    shown = result.stdout.replace(">>> ", "").replace("... ", "")
    sections = dict(re.findall(r"--(\w+)--\n(.*?)(?=--\w+--)", shown + "--end--", re.DOTALL))
    return {name: text.strip() for name, text in sections.items()}


def test_three_facts_print_short_and_exact(tmp_path: Path) -> None:
    shown = repl(tmp_path)
    facts = shown["facts"]
    assert len(facts.encode()) < 800, (len(facts.encode()), facts)  # 1.5 KB before
    assert "datetime.datetime(" not in facts and "=None" not in facts and "status=" not in facts, facts
    assert facts.count("Fact(") == 3
    assert "valid_at=2019-03-01T00:00:00Z" in facts and "valid_at=2019-04-01T09:30:00Z" in facts, facts
    assert "source='chat'" in facts and "predicate='LIVES_IN'" in facts and "object='Paris'" in facts
    assert re.search(r"recorded_at=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", facts), facts  # full precision
    assert re.search(r"Fact\(id='[0-9a-z]{25}'", facts), facts
    entity = shown["entity"]
    assert entity.startswith("Entity(name='Dana', key='dana', created_at=") and "aliases=" not in entity, entity
    assert shown["write"] == "WriteResult(created=1, entities_created=1)"
    assert shown["rules"] == "ScopeRules()"


def test_a_repr_names_every_field_that_differs_from_its_default() -> None:
    when = datetime(2024, 5, 1, 12, 0, 0, 1, tzinfo=UTC)
    fact = Fact(id="x", subject="A", predicate="P", object="B", valid_at=when, recorded_at=when, confidence=0.5,
                confirmations=2, status="candidate", flag="rejected before", pinned=True)
    text = repr(fact)
    for shown in ("id='x'", "valid_at=2024-05-01T12:00:00.000001Z", "confidence=0.5", "confirmations=2",
                  "status='candidate'", "flag='rejected before'", "pinned=True"):
        assert shown in text, text
    assert "invalid_at" not in text and "source" not in text
    assert repr(Triple(subject="A", predicate="P", object="B", valid_at="2024-05-01")) == (
        "Triple(subject='A', predicate='P', object='B', valid_at='2024-05-01')")  # a string stays a string
    assert repr(WriteResult()) == "WriteResult()"
    assert repr(ScopeRules(max_facts=5, single_valued=frozenset({"B", "A"}))) == (
        "ScopeRules(max_facts=5, single_valued=frozenset({'A', 'B'}))")
