"""scripts/check_layers.py (run by `make lint`): upward includes (by name and by relative path),
private headers reached from public headers or from outside code, and CMake links to a higher
layer are reported; a clean tree passes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_layers.py"
CMAKE = "target_link_libraries(baton_topic PUBLIC baton_memory)\n"


def _tree(tmp: Path, files: dict[str, str], cmake: str = CMAKE) -> Path:
    (tmp / "CMakeLists.txt").write_text(cmake)
    for name, text in files.items():
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_text(text)
    return tmp


def _check(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True, timeout=60
    )


def test_downward_includes_pass(tmp_path):
    root = _tree(
        tmp_path,
        {
            "include/baton/shm/a.hpp": "",
            "include/baton/topic/t.hpp": '#include "baton/shm/a.hpp"\n',
            "src/topic/t.cpp": '#include "baton/topic/t.hpp"\n#include "local.hpp"\n',
            "src/topic/local.hpp": "",
            "tests/x_test.cpp": '#include "../src/topic/local.hpp"\n',  # tests may
        },
    )
    r = _check(root)
    assert r.returncode == 0, r.stdout


def test_upward_includes_by_name_and_relative_path_fail(tmp_path):
    root = _tree(
        tmp_path,
        {
            "include/baton/api/api.hpp": "",
            "src/api/impl.hpp": "",
            "src/shm/s.cpp": '#include "baton/api/api.hpp"\n',
            "src/topic/t.cpp": '#include "../api/impl.hpp"\n',
            "src/memory/m.cpp": '#include "baton/memory/domain/d.hpp"\n',
        },
    )
    r = _check(root)
    assert r.returncode == 1
    assert "src/shm/s.cpp (shm) includes baton/api/api.hpp (api, a higher layer)" in r.stdout
    assert "src/topic/t.cpp (topic) includes ../api/impl.hpp (api, a higher layer)" in r.stdout
    assert "src/memory/m.cpp (memory) includes baton/memory/domain/d.hpp (domain" in r.stdout


def test_private_headers_from_public_headers_or_outside_code_fail(tmp_path):
    root = _tree(
        tmp_path,
        {
            "src/topic/private.hpp": "",
            "include/baton/topic/pub.hpp": '#include "../../../src/topic/private.hpp"\n',
            "bench/b.cpp": '#include "src/topic/private.hpp"\n',
        },
    )
    r = _check(root)
    assert r.returncode == 1
    assert "public header include/baton/topic/pub.hpp includes private" in r.stdout
    assert "bench/b.cpp (bench) includes private header src/topic/private.hpp" in r.stdout


def test_cmake_link_to_a_higher_layer_fails(tmp_path):
    root = _tree(tmp_path, {}, cmake="target_link_libraries(baton_graph PUBLIC baton_api)\n")
    r = _check(root)
    assert r.returncode == 1
    assert "CMake baton_graph links baton_api" in r.stdout
