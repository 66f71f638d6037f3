"""baton.bag: record baton topics to MCAP files, read them, and play them back.

    from baton.bag import Writer, Reader, Recorder, Player

    rec = Recorder(Writer("run.mcap", compression="zstd"), topics=["/camera", "/imu"])
    rec.run(duration=10.0); print(rec.close())          # {topic: {recorded, lost}}
    Reader("run.mcap").info()                           # topics, types, counts, duration, ...
    Player(["run.mcap"], rate=2.0, remap={"/camera": "/camera2"}).run()

The CLI is ``baton bag record | info | play`` (python/baton/cli/bag.py).

File format: MCAP, profile ``ros2``, chunked (zstd, lz4 or none), with message indexes and a
summary (schemas, channels, statistics, chunk index), so ``info`` reads only the end of the
file. ROS 2 topics keep their CDR bytes under a ``ros2msg`` schema with the full definition,
as ros2 bag's MCAP storage writes them (rosbags and Foxglove read them); NDArray topics keep
their 128-byte header and payload under a ``baton.ndarray`` schema (JSON description of the
header); native struct topics keep their bytes under a ``baton.raw`` schema naming the type
and type hash (see :mod:`baton.bag.schemas`). Each channel's metadata holds ``baton.type_name``,
``baton.type_hash``, ``baton.kind`` and the publisher's QoS (``baton.qos.depth`` /
``.reliability`` / ``.durability``), which play uses.

Why the `mcap` Python package (+ `mcap-ros2-support` for decoding in tests) and not the
header-only C++ mcap library: measured here (2 cores, to /dev/shm, no compression, CRCs on),
the Python writer takes ~4.4 µs per 64 B message (C++: 0.2 µs) and 50-75 ms per 4K rgb8 frame
(24.9 MB; C++: 26 ms, 14 ms without chunk CRCs): Python keeps up with kHz streams of small
messages at a few % of a core, but not with an uncompressed 4K stream at 30 Hz (the mcap
package copies each chunk twice in BytesIO buffers before the write). A C++ writer bound into
``_baton`` would be worth it for that one case; it is on the ROADMAP with the benchmark.
Everything else (summary, indexes, CRCs, compression, the reader) is the package's.

Copies on the record path: none before the writer (the recorder hands the sample's read-only
view of the publisher's shared memory to ``Writer.write``), then the mcap package's own
buffering, then one write(2) per chunk (no userspace file buffer, so a killed recorder loses
only the chunk in progress, at most ``flush_period`` = 1 s of messages).
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
