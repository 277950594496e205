"""Recall quality and latency on a golden memory written for the purpose (see ``golden.py`` and ``run.py``)."""
