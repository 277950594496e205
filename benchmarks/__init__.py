"""Benchmarks of synapse-graph on real data; each module is self-contained and runnable with ``python -m``."""
