"""Reading Claude Code transcripts and choosing which turns to offload."""

from __future__ import annotations

from pathlib import Path

from synapse_graph.hooks.state import Position, TranscriptState, start_index, window_start
from synapse_graph.hooks.transcript import read_transcript
from tests.hooks.transcripts import TranscriptWriter


def test_keeps_user_and_assistant_turns_and_skips_the_rest(tmp_path: Path) -> None:
    writer = TranscriptWriter(tmp_path / "t.jsonl")
    writer.header()
    writer.exchange()
    writer.compaction()
    with writer.path.open("a") as handle:
        handle.write("{not json\n")
    writer.exchange()
    turns = read_transcript(writer.path).turns
    texts = [t.turn.text for t in turns]
    assert [t.turn.role for t in turns] == ["user", "assistant", "tool", "assistant"] * 2
    assert texts[0] == "Note for later: service-1 is owned by team-1."
    assert texts[1] == "Let me look at service-1.\n[tool call Bash: command: cat services/service-1/OWNERS]"
    assert texts[2] == "team-1"
    joined = "\n".join(texts)
    for skipped in ("service-900", "service-901", "service-902", "service-903", "service-904"):
        assert skipped not in joined  # meta, thinking, sidechain, compact summary, summary record
    assert [t.prompt for t in turns] == [True, False, False, False] * 2  # a tool result is not a prompt
    assert turns[0].turn.at is not None and turns[0].uuid is not None


def test_window_keeps_the_last_exchanges(tmp_path: Path) -> None:
    writer = TranscriptWriter(tmp_path / "t.jsonl")
    for _ in range(13):
        writer.exchange()
    turns = read_transcript(writer.path).turns
    cut = window_start(turns, 10)
    assert "service-4 " in turns[cut].turn.text and turns[cut].prompt  # exchanges 1-3 are older than the window
    assert window_start(turns[:4 * 9], 10) == 0
    assert window_start(turns, 0) == len(turns)


def test_position_survives_a_rewritten_file(tmp_path: Path) -> None:
    writer = TranscriptWriter(tmp_path / "t.jsonl")
    for _ in range(3):
        writer.exchange()
    turns = read_transcript(writer.path).turns
    position = Position(turns[3].line + 1, turns[3].uuid)
    assert start_index(turns, position) == 4
    # A record inserted before: the lines shift, the uuid finds the place again.
    text = writer.path.read_text()
    writer.path.write_text('{"type": "system", "content": "x"}\n' + text)
    assert start_index(read_transcript(writer.path).turns, position) == 4


def test_state_round_trip_and_lock(tmp_path: Path) -> None:
    state = TranscriptState(tmp_path / "t.jsonl", tmp_path / "state")
    assert state.load() == Position()
    state.save(Position(12, "abc"))
    assert TranscriptState(tmp_path / "t.jsonl", tmp_path / "state").load() == Position(12, "abc")
    with state.locked() as first, TranscriptState(tmp_path / "t.jsonl", tmp_path / "state").locked() as second:
        assert first and not second
