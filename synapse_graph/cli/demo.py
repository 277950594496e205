"""The demo story: a person who moves city and changes employer, with an alias."""

from __future__ import annotations

from synapse_graph.models import Triple

DEMO_SCOPE = "demo"

# Batches in the order an agent would learn them; the Berlin stay arrives late,
# after London is already known, and is spliced into the timeline.
STORY: tuple[tuple[str, tuple[Triple, ...]], ...] = (
    ("first session", (
        Triple(subject="Dana Reyes", predicate="LIVES_IN", object="Paris", valid_at="2019-03-01"),
        Triple(subject="Dana Reyes", predicate="WORKS_AT", object="Acme", valid_at="2019-04-01"),
        Triple(subject="Acme", predicate="LOCATED_IN", object="Paris", valid_at="2010-01-01"),
    )),
    ("a move", (
        Triple(subject="Dana Reyes", predicate="LIVES_IN", object="London", valid_at="2022-09-15T09:30:00Z"),
    )),
    ("a new job, two roles on one day", (
        Triple(subject="Dana Reyes", predicate="WORKS_AT", object="Globex", valid_at="2023-01-09"),
        Triple(subject="Dana Reyes", predicate="HAS_ROLE", object="Engineer", valid_at="2023-01-09T09:00:00Z"),
        Triple(subject="Dana Reyes", predicate="HAS_ROLE", object="Team Lead", valid_at="2023-01-09T17:00:00Z"),
        Triple(subject="Globex", predicate="LOCATED_IN", object="London", valid_at="2015-06-01"),
        Triple(subject="Globex", predicate="BUILDS", object="billing service", valid_at="2021-01-01"),
        Triple(subject="Sam Okafor", predicate="MANAGES", object="billing service", valid_at="2022-01-01"),
    )),
    ("a late-arriving fact", (
        Triple(subject="Dana Reyes", predicate="LIVES_IN", object="Berlin", valid_at="2021-02-01"),
    )),
    ("an alias", (
        Triple(subject="Dana Reyes", predicate="SAME_AS", object="Dana"),
    )),
    ("the agent hears it again", (
        Triple(subject="Dana", predicate="WORKS_AT", object="Globex", confidence=0.9),
    )),
)

QUESTIONS: tuple[tuple[str, str], ...] = (
    ("2020-06-01", "Where did Dana live and work in mid-2020?"),
    ("2021-06-01", "...and in mid-2021 (the late-arriving Berlin stay)?"),
    ("2023-01-09T12:00:00Z", "What was Dana's role at noon on 9 January 2023?"),
    ("2023-01-09T18:00:00Z", "...and that evening?"),
)
