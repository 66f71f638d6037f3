"""Chunk compression levels for the mcap Writer.

mcap 1.6's Writer compresses each finished chunk with the module-level ``lz4.frame.compress``
and ``zstandard.compress`` at their default levels (lz4 0, zstd 3) and takes no level. Those two
names in ``mcap.writer`` are replaced here by stand-ins that call the same functions with the
level of the baton Writer whose call is running on this thread (:func:`level_for`), and with
the library's default otherwise, so another mcap Writer in the process behaves as before.

What a level costs for a 4K rgb8 frame (24.9 MB) on the 2-core guest: BENCHMARKS.md, "Compressed
4K at 30 Hz". Negative levels are the libraries' fast modes (lz4: acceleration; zstd: "fast"
strategies), trading ratio for speed.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Iterator, Optional

import lz4.frame
import mcap.writer
import zstandard

#: Valid levels per compression: lz4.frame's compression_level (negative: fast acceleration,
#: 3..16: high compression) and zstd's (negative: fast levels; 1..22).
LEVELS = {"lz4": (-(1 << 16), lz4.frame.COMPRESSIONLEVEL_MAX), "zstd": (-(1 << 17), 22)}

_active = threading.local()  # .level: the running baton Writer's level (None: default)


def check_level(compression: str, level: Optional[int]) -> Optional[int]:
    """The level as an int, or a ValueError saying which levels `compression` takes."""
    if level is None:
        return None
    if compression not in LEVELS:
        raise ValueError(f"compression '{compression}' takes no level")
    lo, hi = LEVELS[compression]
    if not lo <= int(level) <= hi:
        raise ValueError(f"{compression} level must be in {lo}..{hi}, not {level}")
    return int(level)


@contextmanager
def level_for(level: Optional[int]) -> Iterator[None]:
    """While the body runs on this thread, mcap compresses chunks at `level` (None: default)."""
    outer = getattr(_active, "level", None)
    _active.level = level
    try:
        yield
    finally:
        _active.level = outer


class _Lz4Frame:
    @staticmethod
    def compress(data: Any) -> bytes:
        level = getattr(_active, "level", None)
        if level is None:
            return lz4.frame.compress(data)
        return lz4.frame.compress(data, compression_level=level)


class _Lz4:
    frame = _Lz4Frame


class _Zstandard:
    @staticmethod
    def compress(data: Any) -> bytes:
        level = getattr(_active, "level", None)
        if level is None:
            return zstandard.compress(data)
        return zstandard.ZstdCompressor(level=level).compress(data)


# mcap 1.6 calls exactly these (checked, so another version fails here, not silently at default)
if not (
    getattr(mcap.writer, "lz4", None) in (lz4, _Lz4)
    and getattr(mcap.writer, "zstandard", None) in (zstandard, _Zstandard)
):
    raise RuntimeError("baton.bag needs mcap 1.6 (its Writer's compressors moved)")
mcap.writer.lz4 = _Lz4
mcap.writer.zstandard = _Zstandard


def keep_freed_memory() -> bool:
    """Makes this process's malloc (glibc) keep large freed blocks for reuse instead of returning
    them to the kernel. A compressed chunk of a 4K frame allocates ~25 MB buffers (the chunk
    builder's, the CRC'd chunk, the compressor's output) for each frame; glibc maps each one
    fresh and unmaps it when freed, so every frame paid ~6 000 page faults per buffer: 4K rgb8
    frames took 63-70 ms of CPU each with lz4 instead of 26-32 ms (BENCHMARKS.md, "Compressed
    4K at 30 Hz"). Process-wide, so the recorder's CLI calls it, not the Writer; the cost is
    that memory once used stays resident. False where malloc is not glibc's."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_mmap_threshold, m_arena_max = -1, -3, -8  # glibc <malloc.h>
    # 1 GiB: blocks below it come from the heap, and the heap's top is not trimmed below it.
    # One arena: a thread's own arena is made of 64 MiB heaps, too small for a chunk's buffers,
    # so the writer thread's would still map each one afresh (the recorder has few threads).
    return bool(
        mallopt(m_mmap_threshold, 1 << 30)
        and mallopt(m_trim_threshold, 1 << 30)
        and mallopt(m_arena_max, 1)
    )
