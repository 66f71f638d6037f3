"""baton.bag.Writer: MCAP files of baton topics (split by size or duration, chunk compression,
indexed summary), written through the `mcap` package."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from mcap.writer import CompressionType
from mcap.writer import Writer as _McapWriter

from .compression import check_level, level_for
from .errors import BagWriteError
from .schemas import kind_of, schema_for, usable_kind
from .zero_copy import BorrowingRecords, Fd

COMPRESSIONS = {
    "none": CompressionType.NONE,
    "lz4": CompressionType.LZ4,
    "zstd": CompressionType.ZSTD,
}
LIBRARY = "baton-bag/0.1.0"


@dataclass
class TopicInfo:
    """What a bag records about a topic (also in each channel's metadata, as `baton.*` keys)."""

    topic: str
    type_name: str
    type_hash: str
    kind: str  # "ros2" | "ndarray" | "native" | "ros1" (type_hash: the md5sum)
    qos: dict = field(default_factory=dict)  # depth, reliability, durability

    def metadata(self) -> dict[str, str]:
        m = {
            "baton.type_name": self.type_name,
            "baton.type_hash": self.type_hash,
            "baton.kind": self.kind,
        }
        m.update({f"baton.qos.{k}": str(v) for k, v in self.qos.items()})
        if self.kind == "ros1":  # MCAP's ROS 1 profile: md5sum required, latching optional
            m["md5sum"] = self.type_hash
            if self.qos.get("durability") == "transient_local":
                m["latching"] = "1"
        return m


class Writer:
    """Writes baton topics to MCAP.

    ``Writer("run.mcap", compression="zstd", compression_level=None, chunk_size=1 << 20,
    chunked=True, split_size=0, split_duration=0.0)``; ``add_topic(...)`` once per topic, then
    ``write(topic, data, log_time_ns)`` per message; ``close()`` writes the summary (statistics,
    schemas, channels, chunk index) so that ``baton bag info`` needs no scan.

    ``data`` is any buffer: the recorder passes the subscription's read-only view of the
    publisher's shared memory. Chunked (the default, as ros2 bag): the mcap library copies each
    message into its chunk, which gets a CRC and optionally compression; the chunk goes to the
    file with writev(2) from the library's bytes (no further copy). ``chunked=False`` (ros2
    bag's ``fastwrite`` preset): no chunks, so no compression, no chunk CRCs and no message
    index (readers read such a file front to back, in the order it was written; the summary
    with its statistics and CRC is still there), but a message of 64 KiB or more goes from
    ``data`` to the file in one writev(2) with no copy at all: what a 4K 30 Hz camera needs
    (see :mod:`baton.bag.zero_copy`).

    With ``split_size`` (bytes) or ``split_duration`` (seconds of log time), the files are
    ``<stem>_0.mcap``, ``<stem>_1.mcap``, ...; otherwise the one file is ``path``. A write error
    (disk full) closes the file and raises :class:`BagWriteError`; what was written is readable
    up to the last complete chunk (unchunked: message).

    ``compression_level``: lz4.frame's level (default 0; negative = its fast acceleration modes,
    3..16 high compression) or zstd's (default 3; negative = fast levels, up to 22); None keeps
    the library's default (:mod:`baton.bag.compression`). A 4K rgb8 stream at 30 Hz is not
    compressed in time on two cores at any level that still compresses (BENCHMARKS.md): record
    it with ``chunked=False`` and compress the file afterwards.

    ``profile`` is the MCAP header's: "ros2" (the default), or "ros1" for a bag of ROS 1 topics
    only (readers go by each channel's encodings either way).
    """

    def __init__(
        self,
        path: Union[str, os.PathLike],
        *,
        compression: str = "zstd",
        compression_level: Optional[int] = None,
        chunk_size: int = 1 << 20,
        chunked: bool = True,
        split_size: int = 0,
        split_duration: float = 0.0,
        profile: str = "ros2",
    ):
        if compression not in COMPRESSIONS:
            raise ValueError(f"compression must be one of {sorted(COMPRESSIONS)}")
        if not chunked and compression != "none":
            raise ValueError(
                f"compression '{compression}' needs chunks: an unchunked bag "
                "(chunked=False) is written uncompressed; use compression='none'"
            )
        self.compression_level = check_level(compression, compression_level)
        self.path = Path(path)
        self.compression = compression
        self.chunk_size = int(chunk_size)
        self.chunked = bool(chunked)
        self.split_size = int(split_size)
        self.split_duration_ns = int(split_duration * 1e9)
        self.profile = profile
        self.paths: list[Path] = []
        self.message_count = 0
        self.topics: dict[str, TopicInfo] = {}
        self.warnings: list[str] = []
        self._channels: dict[str, int] = {}
        self._fd: Optional[Fd] = None
        self._mcap: Optional[_McapWriter] = None
        self._file_start_ns: Optional[int] = None
        self._closed = False
        self._open_next()

    # -- files ---------------------------------------------------------------------------------

    def _next_path(self) -> Path:
        if not (self.split_size or self.split_duration_ns):
            return self.path
        stem = self.path.name[: -len(".mcap")] if self.path.suffix == ".mcap" else self.path.name
        return self.path.with_name(f"{stem}_{len(self.paths)}.mcap")

    def _open_next(self) -> None:
        path = self._next_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._fd = Fd(path)
        except OSError as e:
            raise BagWriteError(f"cannot create {path}: {e.strerror}") from None
        self.paths.append(path)
        self._mcap = _McapWriter(
            self._fd,
            chunk_size=self.chunk_size,
            compression=COMPRESSIONS[self.compression],
            use_chunking=self.chunked,
            enable_crcs=True,  # chunk and summary CRCs (the data-section CRC stays off)
        )
        # The writer's own record builder borrows large buffers instead of copying them: the
        # message (unchunked) or the finished chunk goes to the file in place. The private
        # name is mcap 1.6's (pinned in requirements-dev); another version fails here, loudly.
        # (write_is_quick reads its chunk builder's size the same way.)
        if not all(
            hasattr(self._mcap, a) for a in ("_Writer__record_builder", "_Writer__chunk_builder")
        ):
            raise RuntimeError("baton.bag needs mcap 1.6 (the Writer's private builders moved)")
        self._mcap._Writer__record_builder = BorrowingRecords()
        self._channels = {}
        self._file_start_ns = None
        self._guard(self._mcap.start, self.profile, LIBRARY)
        for info in self.topics.values():
            self._register(info)

    def _guard(self, fn: Any, *args: Any) -> Any:
        try:
            with level_for(self.compression_level):  # mcap compresses chunks within `fn`
                return fn(*args)
        except BagWriteError:
            self._closed = True
            raise

    def _register(self, info: TopicInfo) -> None:
        assert self._mcap is not None
        msg_enc, schema_enc, schema = schema_for(info.kind, info.type_name, info.type_hash)
        sid = self._guard(self._mcap.register_schema, info.type_name, schema_enc, schema)
        self._channels[info.topic] = self._guard(
            self._mcap.register_channel, info.topic, msg_enc, sid, info.metadata()
        )

    def _finish_file(self) -> None:
        if self._mcap is not None and self._fd is not None and self._fd.fd >= 0:
            self._guard(self._mcap.finish)
            self._fd.close()

    # -- API -----------------------------------------------------------------------------------

    def add_topic(
        self,
        topic: str,
        type_name: str,
        type_hash: str = "",
        qos: Optional[dict] = None,
        *,
        kind: Optional[str] = None,
        first_message: Any = b"",
    ) -> TopicInfo:
        """Declares a topic (once). ``kind`` ("ros2", "ndarray", "native") is found from the type
        hash and ``first_message`` when not given; "ros1" (type_hash: the md5sum) is declared.
        A ROS 2 type whose .msg is not on AMENT_PREFIX_PATH (a ROS 1 type not installed): such
        a topic is recorded as raw bytes and ``warnings`` says so."""
        if topic in self.topics:
            return self.topics[topic]
        if kind is None:
            kind = kind_of(type_name, type_hash, memoryview(first_message))
        kind, why = usable_kind(kind, type_name, type_hash)
        if why is not None:  # no .msg on AMENT_PREFIX_PATH: keep the bytes anyway
            self.warnings.append(f"{topic}: {why}")
        info = TopicInfo(topic, type_name, type_hash, kind, dict(qos or {}))
        self.topics[topic] = info
        self._register(info)
        return info

    def write(
        self,
        topic: str,
        data: Any,
        log_time: Optional[int] = None,
        publish_time: Optional[int] = None,
        sequence: int = 0,
    ) -> None:
        """Adds one message (``data``: any buffer, not copied before the mcap library's chunk)."""
        if self._closed:
            raise BagWriteError(f"{self.path}: the writer is closed")
        if log_time is None:
            log_time = time.time_ns()
        if self._file_start_ns is None:
            self._file_start_ns = log_time
        elif self._split_due(log_time):
            self._finish_file()
            self._open_next()
            self._file_start_ns = log_time
        assert self._mcap is not None
        self._guard(
            self._mcap.add_message,
            self._channels[topic],
            log_time,
            data,
            log_time if publish_time is None else publish_time,
            sequence & 0xFFFFFFFF,
        )
        self.message_count += 1

    def write_is_quick(self, nbytes: int, log_time: int) -> bool:
        """Whether write() of a message of `nbytes` at `log_time` only appends it: it finishes
        no chunk (compressing and writing it out: milliseconds) and no file (a split). By mcap
        1.6's rule, a chunk is finished once its records pass chunk_size; 64 bytes stand for the
        message record's own fields."""
        if self._mcap is None or self._fd is None:
            return False
        if self._file_start_ns is not None and self._split_due(log_time):
            return False
        builder = self._mcap._Writer__chunk_builder  # mcap 1.6 (checked in _open_next)
        return builder is None or builder.count + nbytes + 64 <= self.chunk_size

    def _split_due(self, log_time: int) -> bool:
        assert self._fd is not None and self._file_start_ns is not None
        if self.split_size and self._fd.pos >= self.split_size:
            return True
        return bool(
            self.split_duration_ns and log_time - self._file_start_ns >= self.split_duration_ns
        )

    def flush(self) -> None:
        """Writes the chunk in progress now (the recorder does this every second, so a crash
        loses at most that much)."""
        if not self._closed and self._mcap is not None:
            self._guard(self._mcap.flush)

    @property
    def bytes_written(self) -> int:
        return sum(p.stat().st_size for p in self.paths if p.exists())

    def close(self) -> list[Path]:
        """Writes the summary and closes the file; returns the files written."""
        if not self._closed:
            self._closed = True
            self._finish_file()
        elif self._fd is not None:
            self._fd.close()
        return list(self.paths)

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
