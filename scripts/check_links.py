#!/usr/bin/env python3
"""Every relative link in the repository's Markdown resolves to a file inside the repository.

Checks `[text](target)` links (outside fenced code) of every tracked or untracked-but-not-ignored
*.md file; a target may not leave the repository (`../shared/...` exists on one machine only).
Skipped: URLs, in-page anchors, and the experiment suite's saved sections (`*/sections/*.md`),
fragments whose links are relative to the report they are assembled into.

    scripts/check_links.py [ROOT]      exit 1 and one line per broken link
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
EXTERNAL = re.compile(r"^([a-z][a-z0-9+.-]*:|#)", re.I)


def markdown_files(root: Path) -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.md"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [root / f for f in out if "/sections/" not in f and (root / f).is_file()]


def broken_links(root: Path, md: Path) -> list[str]:
    text = FENCE.sub("", md.read_text(errors="replace"))
    bad = []
    for m in LINK.finditer(text):
        target = m.group(1)
        if EXTERNAL.match(target):
            continue
        path = target.split("#", 1)[0]
        if not path:
            continue
        resolved = (md.parent / path).resolve()
        rel = md.relative_to(root)
        if root != resolved and root not in resolved.parents:
            bad.append(f"{rel}: link leaves the repository: {target}")
        elif not resolved.exists():
            bad.append(f"{rel}: no such file: {target}")
    return bad


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else Path(__file__).resolve().parents[1]).resolve()
    files = markdown_files(root)
    bad = [line for md in files for line in broken_links(root, md)]
    for line in bad:
        print(f"links: {line}")
    if not bad:
        print(f"links: ok ({len(files)} Markdown files)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
