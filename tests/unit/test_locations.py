"""Locations that name no store are refused before anything is created (no server needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from synapse_graph import Memory
from synapse_graph.backends import open_backend
from synapse_graph.errors import ConfigurationError


@pytest.mark.parametrize("location", ["", "   ", "http://x", "https://example.com/x.db", "ftp://x/y", "htp://x"])
def test_a_location_that_is_no_store_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                location: str) -> None:
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    for create in (True, False):
        with pytest.raises(ConfigurationError) as raised:
            open_backend(location, create=create)
        assert repr(location) in str(raised.value)
    with pytest.raises(ConfigurationError):
        Memory(location)
    assert list(work.iterdir()) == []  # no store named after the folder, no http: folder


def test_a_directory_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError):
        open_backend(tmp_path, create=True)
    assert not tmp_path.with_name(tmp_path.name + ".aof").exists()
