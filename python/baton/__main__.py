"""``python -m baton`` runs the command line (same as the ``baton`` command)."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
