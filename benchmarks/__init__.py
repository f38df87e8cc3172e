"""Benchmarks of derive against the baselines a user would otherwise use (run: ``python benchmarks/run.py``)."""
