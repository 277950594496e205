"""Offload: extract durable facts from conversation turns with a local model, in the background.

Its names load on first use: a process that reads a transcript's turns (a hook) needs ``offload.turns`` only,
not the model's HTTP client (``urllib.request``) or the worker."""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from synapse_graph.offload.client import ChatClient, OpenAIChatClient, check_endpoint
    from synapse_graph.offload.jobs import FileJobLog, Job, JobLog, default_job_log_path
    from synapse_graph.offload.offloader import Offloader
    from synapse_graph.offload.parse import Parsed, parse_reply
    from synapse_graph.offload.turns import Turn

_HOMES = {"ChatClient": "client", "OpenAIChatClient": "client", "check_endpoint": "client", "FileJobLog": "jobs",
          "Job": "jobs", "JobLog": "jobs", "default_job_log_path": "jobs", "Offloader": "offloader",
          "Parsed": "parse", "parse_reply": "parse", "Turn": "turns"}

__all__ = [
    "ChatClient",
    "FileJobLog",
    "Job",
    "JobLog",
    "Offloader",
    "OpenAIChatClient",
    "Parsed",
    "Turn",
    "check_endpoint",
    "default_job_log_path",
    "parse_reply",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
