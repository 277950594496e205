from synapse_graph import Memory, Triple


def test_point_in_time_after_a_move(memory: Memory) -> None:
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="Paris", valid_at="2020-01-01"))
    memory.upsert(Triple(subject="Dana", predicate="LIVES_IN", object="London", valid_at="2023-05-01"))
    assert [f.object for f in memory.facts("Dana", "LIVES_IN", as_of="2021-01-01")] == ["Paris"]
    assert [f.object for f in memory.facts("Dana", "LIVES_IN")] == ["London"]
