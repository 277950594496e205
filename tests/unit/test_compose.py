"""compose/docker-compose.yml agrees with its README and with scripts/neo4j-local."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "compose" / "docker-compose.yml"
COMPOSE_README = ROOT / "compose" / "README.md"
NEO4J_LOCAL = ROOT / "scripts" / "neo4j-local"
VALIDATE_COMPOSE = ROOT / "scripts" / "validate-compose"


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    document = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))
    assert isinstance(document, dict), "the compose file is not a mapping"
    found = document.get("services")
    assert isinstance(found, dict), "the compose file has no services"
    return found


def published_ports(service: dict[str, Any]) -> set[int]:
    """Host ports a service publishes, from the short ("[ip:]host:container[/proto]") or long syntax."""
    ports: set[int] = set()
    for entry in service.get("ports", []):
        if isinstance(entry, dict):
            published = entry.get("published")
            if published is not None:
                ports.add(int(str(published)))
            continue
        spec = str(entry).split("/", 1)[0]
        parts = spec.rsplit(":", 2)
        if len(parts) >= 2:  # [ip:]host:container
            ports.add(int(parts[-2]))
    return ports


def environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        return dict(str(item).split("=", 1) for item in env if "=" in str(item))
    return {str(key): str(value) for key, value in env.items()}


def test_services_exist(services: dict[str, Any]) -> None:
    assert "neo4j" in services
    assert "falkordb" in services


def test_neo4j_publishes_browser_and_bolt_and_has_a_healthcheck(services: dict[str, Any]) -> None:
    neo4j = services["neo4j"]
    assert {7474, 7687} <= published_ports(neo4j)
    assert neo4j.get("healthcheck", {}).get("test"), "neo4j needs a healthcheck"


def test_falkordb_publishes_redis_port_and_has_a_healthcheck(services: dict[str, Any]) -> None:
    falkordb = services["falkordb"]
    assert 6379 in published_ports(falkordb)
    assert falkordb.get("healthcheck", {}).get("test"), "falkordb needs a healthcheck"


def test_images_are_pinned(services: dict[str, Any]) -> None:
    for name in ("neo4j", "falkordb"):
        image = str(services[name]["image"])
        assert ":" in image and not image.endswith(":latest"), f"{name} image {image!r} has no concrete tag"


def test_readme_documents_the_compose_password(services: dict[str, Any]) -> None:
    auth = environment(services["neo4j"])["NEO4J_AUTH"]
    user, password = auth.split("/", 1)
    assert user == "neo4j"
    readme = COMPOSE_README.read_text(encoding="utf-8")
    exported = re.findall(r"SYNAPSE_NEO4J_PASSWORD=(\S+)", readme)
    in_python = re.findall(r"""auth=\(\s*["']neo4j["']\s*,\s*["']([^"']+)["']\s*\)""", readme)
    assert exported, "compose/README.md does not export SYNAPSE_NEO4J_PASSWORD"
    assert in_python, "compose/README.md shows no Memory(..., auth=('neo4j', ...))"
    assert set(exported) == {password}
    assert set(in_python) == {password}


def test_readme_names_the_compose_images(services: dict[str, Any]) -> None:
    readme = COMPOSE_README.read_text(encoding="utf-8")
    for name in ("neo4j", "falkordb"):
        assert str(services[name]["image"]) in readme


def test_neo4j_image_matches_the_local_script_version(services: dict[str, Any]) -> None:
    script = NEO4J_LOCAL.read_text(encoding="utf-8")
    match = re.search(r"^NEO4J_VERSION=([0-9][0-9A-Za-z.\-]*)\s*$", script, re.MULTILINE)
    assert match, "scripts/neo4j-local has no NEO4J_VERSION=... line"
    script_major_minor = match.group(1).split(".")[:2]

    image = str(services["neo4j"]["image"])
    tag = image.rsplit(":", 1)[1]
    tag_match = re.match(r"(\d+)\.(\d+)", tag)
    assert tag_match, f"the neo4j image tag {tag!r} has no major.minor version"
    assert list(tag_match.groups()) == script_major_minor


def test_scripts_are_executable() -> None:
    for script in (NEO4J_LOCAL, VALIDATE_COMPOSE):
        assert os.access(script, os.X_OK), f"{script.relative_to(ROOT)} is not executable"


def _compose_tool_available() -> bool:
    if shutil.which("docker-compose"):
        return True
    if shutil.which("docker"):
        try:
            probe = subprocess.run(["docker", "compose", "version"], capture_output=True, timeout=60, check=False)
        except (OSError, subprocess.SubprocessError):
            return False
        return probe.returncode == 0
    return False


def test_validate_compose_accepts_the_file() -> None:
    if not _compose_tool_available():
        reason = "neither docker-compose nor `docker compose` is installed (apt-get install docker-compose)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI must validate the compose file", pytrace=False)
        pytest.skip(reason)
    result = subprocess.run([str(VALIDATE_COMPOSE)], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
