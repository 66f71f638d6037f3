"""scripts/check_layers.py (run by `make lint`): upward includes (by name and by relative path),
private headers reached from public headers or from outside code, and CMake links to a higher
layer are reported; a clean tree passes."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import run_repo_script, write_tree

CMAKE = "target_link_libraries(baton_topic PUBLIC baton_memory)\n"


def _tree(tmp: Path, files: dict[str, str], cmake: str = CMAKE) -> Path:
    return write_tree(tmp, {"CMakeLists.txt": cmake, **files})


def _check(root: Path) -> subprocess.CompletedProcess:
    return run_repo_script("check_layers.py", root)


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
