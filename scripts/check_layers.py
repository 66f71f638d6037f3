#!/usr/bin/env python3
"""The layering check (STYLE.md §1, docs/design/core.md): dependencies point only downward.

Layers, lowest first: common < shm < memory < domain (memory/domain) < topic < graph < api < wire
(the bridged-endpoint core of a topic: a baton port + a foreign wire + exactly-once, composed by
ros2 and ros1; header-only, private) < ros2 < ros1 (ros1 reuses the .msg parser and the dynamic
Value of ros2) < bridge (ROS 2 topics mirrored onto ROS 1 graphs: it uses both). Checked:

1. includes: a file of a layer (include/baton/<layer>, src/<layer>) includes only its own layer
   and lower ones, whether it names `baton/<layer>/...` or a relative path (`../x.hpp`, resolved
   against the including file);
2. private headers stay private: a public header (include/) never includes one under src/, and
   the code that uses baton from outside — python/src, bench, tools, examples — includes public
   headers only (tests may include private ones: they test internals);
3. CMake: each `baton_<layer>` library links only `baton_<lower layer>` libraries.

    scripts/check_layers.py [ROOT]     one line per violation, exit 1 if any
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ORDER = [
    "common",
    "shm",
    "memory",
    "domain",
    "topic",
    "graph",
    "api",
    "wire",
    "ros2",
    "ros1",
    "bridge",
]
CONSUMERS = ["python/src", "bench", "tools", "examples"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
LINK = re.compile(r"target_link_libraries\(\s*baton_(\w+)\s+([^)]*)\)")
SOURCES = ("*.hpp", "*.cpp", "*.h", "*.cc")


def layer_of_path(root: Path, path: Path) -> str | None:
    """The layer a file belongs to, from where it lies (None: not in a layer folder)."""
    try:
        rel = path.resolve().relative_to(root)
    except ValueError:
        return None
    parts = rel.parts
    if len(parts) >= 3 and parts[0] == "include" and parts[1] == "baton":
        return layer_of_name(parts[2:])
    if len(parts) >= 2 and parts[0] == "src":
        return layer_of_name(parts[1:])
    return None


def layer_of_name(parts: tuple[str, ...]) -> str | None:
    """`memory/domain/...` is the domain layer; otherwise the first folder names the layer."""
    if len(parts) >= 2 and parts[0] == "memory" and parts[1] == "domain":
        return "domain"
    return parts[0] if parts and parts[0] in ORDER else None


def included(root: Path, source: Path, name: str) -> tuple[str | None, Path | None]:
    """(layer, resolved path) of an include: `baton/...` by name, else relative to the file."""
    if name.startswith("baton/"):
        return layer_of_name(tuple(name.split("/")[1:])), root / "include" / name
    candidate = (source.parent / name).resolve()
    if candidate.exists():
        return layer_of_path(root, candidate), candidate
    return None, None


def source_files(folder: Path) -> list[Path]:
    return sorted(p for pattern in SOURCES for p in folder.rglob(pattern))


def check_includes(root: Path) -> list[str]:
    bad = []
    rank = {layer: i for i, layer in enumerate(ORDER)}
    layered = source_files(root / "include" / "baton") + source_files(root / "src")
    for f in layered:
        own = layer_of_path(root, f)
        public = f.resolve().is_relative_to((root / "include").resolve())
        for name in INCLUDE.findall(f.read_text(errors="replace")):
            dep, target = included(root, f, name)
            rel = f.relative_to(root)
            if own and dep and rank[dep] > rank[own]:
                bad.append(f"layering: {rel} ({own}) includes {name} ({dep}, a higher layer)")
            if public and target and target.is_relative_to((root / "src").resolve()):
                bad.append(f"layering: public header {rel} includes private {name}")
    for consumer in CONSUMERS:
        for f in source_files(root / consumer):
            for name in INCLUDE.findall(f.read_text(errors="replace")):
                _, target = included(root, f, name)
                private = name.startswith("src/") or (
                    target is not None and target.is_relative_to((root / "src").resolve())
                )
                if private:
                    rel = f.relative_to(root)
                    bad.append(f"layering: {rel} ({consumer}) includes private header {name}")
    return bad


def check_cmake(root: Path) -> list[str]:
    bad = []
    rank = {layer: i for i, layer in enumerate(ORDER)}
    text = (root / "CMakeLists.txt").read_text()
    for lib, deps in LINK.findall(text):
        if lib not in rank:
            continue
        for dep in re.findall(r"\bbaton_(\w+)", deps):
            if dep in rank and rank[dep] >= rank[lib]:
                bad.append(f"layering: CMake baton_{lib} links baton_{dep} (not a lower layer)")
    return bad


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else Path(__file__).resolve().parents[1]).resolve()
    bad = check_includes(root) + check_cmake(root)
    for line in bad:
        print(line)
    if not bad:
        print(f"layering: ok ({' < '.join(ORDER)}; includes, private headers, CMake links)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
