"""bench/suite: the seeds' experiments and the peers side by side, one module per experiment.

Run: ``.venv/bin/python bench/suite/run.py --suite quick|all`` (or ``baton bench --suite quick``).
"""
