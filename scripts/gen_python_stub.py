"""Writes python/baton/_baton.pyi, the type stubs of the native module, from the built module.

The stubs are what editors and type checkers see of baton's Python API, so they must say what the
module does now: this script is their only source (python/tests/test_python_stub.py fails when
the committed file differs from what it writes). nanobind's stubgen reads the built module; its
docstrings come out as one line each: ruff formats the code, and the docstrings are wrapped to the
project's 100 columns here.

Usage (after building the module, `make build`):
    PYTHONPATH=build/python .venv/bin/python scripts/gen_python_stub.py          # rewrite
    PYTHONPATH=build/python .venv/bin/python scripts/gen_python_stub.py --check  # compare only
"""

from __future__ import annotations

import argparse
import difflib
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STUB = ROOT / "python" / "baton" / "_baton.pyi"
COLUMNS = 100
COMMAND = "PYTHONPATH=build/python .venv/bin/python scripts/gen_python_stub.py"


def _wrap_docstrings(text: str) -> str:
    """Wraps docstring lines over COLUMNS at spaces, keeping their indent (stubgen writes each
    docstring on one line between its quotes; code lines are ruff's)."""
    out, in_doc = [], False
    for line in text.splitlines():
        if line.count('"""') % 2 == 1:
            in_doc = not in_doc
        elif in_doc and len(line) > COLUMNS:
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(
                textwrap.wrap(
                    line.strip(),
                    width=COLUMNS,
                    initial_indent=indent,
                    subsequent_indent=indent,
                    break_long_words=False,
                    break_on_hyphens=False,
                )
            )
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def generate() -> str:
    """The stub text for the module on PYTHONPATH (built in build/python by `make build`)."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "_baton.pyi"
        subprocess.run(
            [sys.executable, "-m", "nanobind.stubgen", "-q", "-m", "baton._baton", "-o", str(raw)],
            check=True,
        )
        ruff = Path(sys.executable).parent / "ruff"
        subprocess.run(
            [str(ruff), "format", "-q", "--config", str(ROOT / "pyproject.toml"), str(raw)],
            check=True,
        )
        return _wrap_docstrings(raw.read_text())


def difference(committed: str, generated: str) -> str:
    """A unified diff from the committed stub to the generated one ('' if they are the same)."""
    return "".join(
        difflib.unified_diff(
            committed.splitlines(keepends=True),
            generated.splitlines(keepends=True),
            "python/baton/_baton.pyi (committed)",
            "python/baton/_baton.pyi (from the built module)",
        )
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 if they differ")
    args = parser.parse_args()
    generated = generate()
    if args.check:
        diff = difference(STUB.read_text(), generated)
        if diff:
            sys.stdout.write(diff)
            print(f"the stub is out of date: run `{COMMAND}`", file=sys.stderr)
            return 1
        return 0
    STUB.write_text(generated)
    return 0


if __name__ == "__main__":
    sys.exit(main())
