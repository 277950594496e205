"""Offload extraction eval: labelled conversations, precision and recall with a scripted or a real local model."""
