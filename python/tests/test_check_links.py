"""scripts/check_links.py (run by `make lint`): a link to a missing file or out of the repository
is reported and fails the check; fenced code, URLs, anchors and good links pass."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import run_repo_script, write_tree


def _repo(tmp: Path, files: dict[str, str]) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp)], check=True)  # the script lists git's files
    return write_tree(tmp, files)


def _check(root: Path) -> subprocess.CompletedProcess:
    return run_repo_script("check_links.py", root)


def test_good_links_pass(tmp_path):
    root = _repo(
        tmp_path,
        {
            "README.md": "[a](docs/a.md) [web](https://x.org) [here](#top) [sec](docs/a.md#s)\n"
            "```\n[in code](nowhere.md)\n```\n",
            "docs/a.md": "[up](../README.md)\n",
        },
    )
    r = _check(root)
    assert r.returncode == 0, r.stdout
    assert "links: ok (2 Markdown files)" in r.stdout


def test_missing_and_escaping_links_fail_with_their_file(tmp_path):
    root = _repo(tmp_path, {"README.md": "[gone](docs/none.md)\n[out](../shared/DESIGN.md)\n"})
    r = _check(root)
    assert r.returncode == 1
    assert "README.md: no such file: docs/none.md" in r.stdout
    assert "README.md: link leaves the repository: ../shared/DESIGN.md" in r.stdout
