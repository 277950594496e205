"""Offload: extract durable facts from conversation turns with a local model, in the background."""

from synapse_graph.offload.client import ChatClient, OpenAIChatClient, check_endpoint
from synapse_graph.offload.jobs import FileJobLog, Job, JobLog, default_job_log_path
from synapse_graph.offload.offloader import Offloader
from synapse_graph.offload.parse import Parsed, parse_reply
from synapse_graph.offload.turns import Turn

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
