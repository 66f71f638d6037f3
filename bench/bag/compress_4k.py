"""What compressing a 4K rgb8 frame (24 883 200 B) costs, per setting (issue 21).

    .venv/bin/python bench/bag/compress_4k.py [--frames 20] [--picture bench|scene|both]

Two pictures: "bench", bench/bag/roles.py's 4K frame (gradients + uniform noise of 0..23 per
pixel: what bench/bag/run.py publishes), and "scene", smooth shading with flat objects and
sensor noise of sigma 1.5 (a lit indoor camera; made here, seed 7). Per setting:

- library: the compressor alone on the frame (best of 3, process CPU and wall ms; ratio);
- writer: baton.bag.Writer writing `--frames` frames to /dev/shm from a thread, as the
  recorder's writer thread does (chunk copy, CRC, compression, writev; every frame finishes a
  chunk): CPU ms per frame, in a child process each, with and without
  baton.bag.compression.keep_freed_memory() (what `baton bag record` calls).

At 30 Hz a frame has 33.3 ms. The machine is shared: compare rows of one run only.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "build/python"))
H, W = 2160, 3840


def _lz4(level):
    import lz4.frame

    return lambda d: lz4.frame.compress(d, compression_level=level)


def _zstd(level, threads=0):
    import zstandard

    return zstandard.ZstdCompressor(level=level, threads=threads).compress


LIBRARY = [  # (label, compressor factory)
    ("lz4 (default 0)", lambda: _lz4(0)),
    *[(f"lz4 {lv}", lambda lv=lv: _lz4(lv)) for lv in (-4, -16, -64)],
    ("zstd (default 3)", lambda: _zstd(3)),
    *[(f"zstd {lv}", lambda lv=lv: _zstd(lv)) for lv in (1, -1, -3, -5)],
    *[(f"zstd {lv} threads=2", lambda lv=lv: _zstd(lv, 2)) for lv in (1, -5)],
]
WRITER = [  # (compression, level, chunk_size)
    ("none", None, 1 << 20),
    ("lz4", None, 1 << 20),
    ("lz4", -16, 1 << 20),
    ("zstd", None, 1 << 20),
    ("zstd", 1, 1 << 20),
    ("zstd", -5, 1 << 20),
    ("lz4", None, 64 << 20),
    ("zstd", 1, 64 << 20),
]


def scene() -> bytes:
    import numpy as np

    rng = np.random.default_rng(7)
    y = np.arange(H, dtype=np.float32)[:, None]
    x = np.arange(W, dtype=np.float32)[None, :]
    base = 60 + 80 * (x / W) + 40 * np.sin(y / 300.0)
    img = np.empty((H, W, 3), np.float32)
    img[..., 0], img[..., 1], img[..., 2] = base, base * 0.9 + 10, base * 0.7 + 30
    for _ in range(12):
        r, c = rng.integers(0, H - 400), rng.integers(0, W - 600)
        h, w = rng.integers(100, 400), rng.integers(100, 600)
        img[r : r + h, c : c + w] = rng.integers(0, 255, 3)
    img += rng.normal(0, 1.5, (H, W, 1))
    return np.clip(img, 0, 255).astype(np.uint8).tobytes()


def picture(name: str) -> bytes:
    if name == "scene":
        return scene()
    path = ROOT / "out/bench/bag-4k.rgb"
    if not path.exists():
        sys.path.insert(0, str(Path(__file__).parent))
        import roles

        roles.make_picture(path)
    return path.read_bytes()


def library_row(label: str, make, data: bytes) -> dict:
    fn, best, cpu, out = make(), float("inf"), 0.0, b""
    for _ in range(3):
        c0, w0 = time.process_time(), time.perf_counter()
        out = fn(data)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        best = min(best, wall)
    ratio = len(data) / len(out)
    return {"setting": label, "cpu_ms": cpu * 1e3, "wall_ms": best * 1e3, "ratio": ratio}


def writer_child(pic: str, comp: str, level, chunk: int, frames: int, keep: bool) -> dict:
    """In this (child) process: `frames` frames through baton.bag.Writer from a thread."""
    from baton.bag import Writer
    from baton.bag.compression import keep_freed_memory

    if keep:
        keep_freed_memory()
    data, path, res = picture(pic), f"/dev/shm/baton-compress-4k-{os.getpid()}.mcap", {}

    def write() -> None:
        w = Writer(path, compression=comp, compression_level=level, chunk_size=chunk)
        w.add_topic("/cam", "baton/raw", kind="native")
        r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        for i in range(frames):
            w.write("/cam", data, log_time=i + 1)
        w.close()
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        cpu = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
        res.update(cpu_ms=cpu / frames * 1e3, wall_ms=(time.perf_counter() - t0) / frames * 1e3)
        res.update(ratio=frames * len(data) / os.path.getsize(path))

    try:
        t = threading.Thread(target=write)
        t.start()
        t.join()
    finally:
        if os.path.exists(path):
            os.unlink(path)
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--frames", type=int, default=20)
    ap.add_argument("--picture", choices=("bench", "scene", "both"), default="both")
    ap.add_argument("--json", default=str(ROOT / "out/bench/bag-compress-4k.json"))
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(writer_child(*json.loads(a.child))))
        return 0
    pics = ["bench", "scene"] if a.picture == "both" else [a.picture]
    rows = []
    for pic in pics:
        data = picture(pic)
        for label, make in LIBRARY:
            rows.append({"picture": pic, "stage": "library", **library_row(label, make, data)})
            print(json.dumps(rows[-1]), flush=True)
        for comp, level, chunk in WRITER:
            for keep in (False, True):
                arg = json.dumps([pic, comp, level, chunk, a.frames, keep])
                out = subprocess.run(
                    [sys.executable, __file__, "--child", arg], capture_output=True, text=True
                )
                if out.returncode:
                    raise SystemExit(out.stderr)
                label = f"{comp}{'' if level is None else f' {level}'}, chunk {chunk >> 20} MiB"
                rows.append(
                    {"picture": pic, "stage": "writer", "setting": label, "keep_freed_memory": keep}
                    | json.loads(out.stdout)
                )
                print(json.dumps(rows[-1]), flush=True)
    Path(a.json).parent.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()
    Path(a.json).write_text(json.dumps({"loadavg_end": load, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
