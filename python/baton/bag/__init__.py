"""baton.bag: record baton topics to MCAP files, read them, and play them back.

    from baton.bag import Writer, Reader, Recorder, Player

    rec = Recorder(Writer("run.mcap", compression="zstd"), topics=["/camera", "/imu"])
    rec.run(duration=10.0); print(rec.close())          # {topic: {recorded, lost}}
    Reader("run.mcap").info()                           # topics, types, counts, duration, ...
    Player(["run.mcap"], rate=2.0, remap={"/camera": "/camera2"}).run()

The CLI is ``baton bag record | info | play`` (python/baton/cli/bag.py).

File format: MCAP, profile ``ros2``, chunked (zstd, lz4 or none), with message indexes and a
summary (schemas, channels, statistics, chunk index), so ``info`` reads only the end of the
file; or unchunked (``chunked=False``: no compression, no chunk CRCs or message index; readers
go through it front to back, in the order it was written; the summary, its statistics and CRC
are still there). ROS 2 topics keep their CDR bytes under a ``ros2msg`` schema with the full
definition, as ros2 bag's MCAP storage writes them (rosbags and Foxglove read them); NDArray
topics keep their 128-byte header and payload under a ``baton.ndarray`` schema (JSON
description of the header); native struct topics keep their bytes under a ``baton.raw`` schema
naming the type and type hash (see :mod:`baton.bag.schemas`). Each channel's metadata holds
``baton.type_name``, ``baton.type_hash``, ``baton.kind`` and the publisher's QoS
(``baton.qos.depth`` / ``.reliability`` / ``.durability``), which play uses.

Why the `mcap` Python package (+ `mcap-ros2-support` for decoding in tests) and not the
header-only C++ mcap library: the C++ library cannot be installed here, and the package is fast
enough once it stops copying. Measured here (2 cores, to /dev/shm): ~4.4 µs per 64 B message
(kHz streams at a few % of a core); a 4K rgb8 frame (24.9 MB) took 50-75 ms as the package
writes it (copied into the chunk's BytesIO, CRC'd, copied again into the record BytesIO, then
written). Now: the writer's record builder borrows large buffers instead of copying them
(:mod:`baton.bag.zero_copy`), so a finished chunk goes to writev(2) as it is (copy into the
chunk + CRC + write, ~25-35 ms), and an unchunked bag (``Writer(chunked=False)``, ``baton bag
record --no-chunks``, ros2 bag's ``fastwrite`` preset) writes each frame from the publisher's
shared memory to the file in one writev(2) with no copy at all (~14-20 ms, the cost of the
kernel copying 25 MB into the page cache). Everything else (record framing, summary, indexes,
CRCs, compression, the reader) is the package's.

Copies on the record path: none before the writer (the recorder's writer thread hands the
sample's read-only view of the publisher's shared memory to ``Writer.write``, then releases the
sample). Unchunked: none after it either, for messages of 64 KiB or more; chunked: one, into
the chunk (its CRC and compression need it contiguous). Each write goes straight to write(2) /
writev(2), with no userspace file buffer, so a killed recorder loses only the chunk in progress
(at most ``flush_period`` = 1 s of messages; unchunked: the message being written). A writer
that falls behind first keeps up to 12 loans, then copies messages into a cache of
``cache_bytes`` (``--max-cache-size``), and only then lets the publisher lap its best-effort
subscription (counted as lost); see :mod:`baton.bag.record_queue`. Benchmark: bench/bag/run.py
(BENCHMARKS.md, "Bag recording").
"""

from __future__ import annotations

from .errors import (
    BagError,
    BagNotFoundError,
    BagWriteError,
    CorruptBagError,
    NotMcapError,
    UnknownSchemaError,
)
from .player import Player
from .reader import BagMessage, Reader
from .recorder import Recorder
from .schemas import NDARRAY_HEADER
from .writer import TopicInfo, Writer

__all__ = [
    "BagError",
    "BagMessage",
    "BagNotFoundError",
    "BagWriteError",
    "CorruptBagError",
    "NDARRAY_HEADER",
    "NotMcapError",
    "Player",
    "Reader",
    "Recorder",
    "TopicInfo",
    "UnknownSchemaError",
    "Writer",
]
