"""baton.bag.Reader: reads MCAP files (baton's, ros2 bag's, any), complete or truncated."""

from __future__ import annotations

import io
import os
import struct
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Union

from mcap.reader import SeekingReader
from mcap.records import Channel, Chunk, DataEnd, Footer, Header, Message, Schema, Statistics
from mcap.stream_reader import StreamReader, breakup_chunk

from .errors import BagNotFoundError, CorruptBagError, NotMcapError, UnknownSchemaError
from .schemas import (
    NDARRAY_ENCODING,
    RAW_ENCODING,
    ROS1_ENCODING,
    ROS1_SCHEMA,
    ROS2_ENCODING,
    ROS2_SCHEMA,
)
from .writer import TopicInfo

MAGIC = b"\x89MCAP0\r\n"
_FOOTER_AND_MAGIC = 9 + 20 + 8


@dataclass
class BagMessage:
    topic: str
    log_time: int  # ns (baton records the publisher's stamp, else when it took the message)
    publish_time: int  # ns
    sequence: int
    data: bytes
    info: TopicInfo


def topic_info(channel: Channel, schema: Optional[Schema]) -> TopicInfo:
    """A channel's topic, type and QoS: from baton's metadata keys, or (a foreign bag) from its
    encodings: `cdr` + `ros2msg` is a ROS 2 topic, `ros1` + `ros1msg` a ROS 1 topic (its md5sum
    from the channel's metadata, as MCAP's ROS 1 profile has it); anything else is "foreign"."""
    md = channel.metadata
    if "baton.type_name" in md:
        qos = {
            k[len("baton.qos.") :]: (int(v) if k.endswith("depth") else v)
            for k, v in md.items()
            if k.startswith("baton.qos.")
        }
        return TopicInfo(
            channel.topic, md["baton.type_name"], md.get("baton.type_hash", ""),
            md.get("baton.kind", "native"), qos,
        )  # fmt: skip
    name = schema.name if schema is not None else ""
    if channel.message_encoding == ROS1_ENCODING and schema is not None:
        if schema.encoding == ROS1_SCHEMA:
            qos = {"durability": "transient_local"} if md.get("latching") == "1" else {}
            return TopicInfo(channel.topic, name, md.get("md5sum", ""), "ros1", qos)
    ros2 = channel.message_encoding == ROS2_ENCODING and schema is not None
    kind = "ros2" if ros2 and schema.encoding == ROS2_SCHEMA else "foreign"
    return TopicInfo(channel.topic, name, "", kind, {})


def check_playable(info: TopicInfo, channel: Channel) -> None:
    if info.kind == "foreign" or channel.message_encoding not in (
        ROS2_ENCODING,
        ROS1_ENCODING,
        NDARRAY_ENCODING,
        RAW_ENCODING,
    ):
        raise UnknownSchemaError(
            f"topic '{info.topic}' has message encoding '{channel.message_encoding}' "
            f"(schema '{info.type_name or '(none)'}'), which baton cannot publish"
        )


class Reader:
    """Reads a bag: ``Reader("run.mcap").info()``, ``.topics``, ``.messages(topics=...)``.

    A complete file is read through its summary (chunk index), with every chunk's CRC checked;
    an unchunked file (``Writer(chunked=False)``) in the order it was written.
    A file without a valid footer (the recorder was killed, the disk filled) is read from the
    start, record by record, up to its last complete chunk; ``ends`` says where and why it
    stops. Errors: BagNotFoundError, NotMcapError (a foreign file), CorruptBagError (a damaged
    record: CRC, lengths), UnknownSchemaError (a channel baton cannot play).
    """

    def __init__(self, path: Union[str, os.PathLike]):
        self.path = Path(path)
        if not self.path.is_file():
            raise BagNotFoundError(f"no bag file at {self.path}")
        self.size = self.path.stat().st_size
        with open(self.path, "rb") as f:
            head = f.read(8)
        if head != MAGIC[: len(head)] or len(head) < len(MAGIC):
            raise NotMcapError(f"{self.path} is not an MCAP file (it starts with {head!r})")
        self.complete = False
        self.ends = ""
        self.library = ""
        self.profile = ""
        self.channels: dict[int, Channel] = {}
        self.schemas: dict[int, Schema] = {}
        self._counts: Counter = Counter()
        self._compression: Counter = Counter()
        self.chunks = 0
        self.start_time = self.end_time = 0
        self.message_count = 0
        self._guarded(self._open)

    def _guarded(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except (CorruptBagError, NotMcapError, UnknownSchemaError):
            raise
        except Exception as e:  # the mcap package's errors, and what bad bytes make it raise
            raise CorruptBagError(f"{self.path}: {type(e).__name__}: {e}") from None

    # -- opening -------------------------------------------------------------------------------

    def _open(self) -> None:
        with open(self.path, "rb") as f:
            if self.size >= len(MAGIC) * 2 + _FOOTER_AND_MAGIC:
                f.seek(-len(MAGIC), io.SEEK_END)
                if f.read(len(MAGIC)) == MAGIC:
                    f.seek(0)
                    if self._open_summary(f):
                        return
        self._scan()

    def _open_summary(self, f: Any) -> bool:
        reader = SeekingReader(f, validate_crcs=True)
        header = reader.get_header()
        self.library, self.profile = header.library, header.profile
        summary = reader.get_summary()
        if summary is None or summary.statistics is None:
            return False  # no summary: scan
        st = summary.statistics
        self.channels, self.schemas = dict(summary.channels), dict(summary.schemas)
        for cid, n in st.channel_message_counts.items():
            if cid not in self.channels:
                raise CorruptBagError(f"{self.path}: statistics name unknown channel {cid}")
            self._counts[cid] = n
        self.message_count = st.message_count
        self.start_time, self.end_time = st.message_start_time, st.message_end_time
        self.chunks = st.chunk_count
        for ci in summary.chunk_indexes:
            self._compression[ci.compression or "none"] += 1
            if ci.chunk_start_offset + ci.chunk_length > self.size:
                raise CorruptBagError(f"{self.path}: a chunk index points past the end")
        if sum(self._counts.values()) != self.message_count:
            raise CorruptBagError(f"{self.path}: statistics do not add up")
        self.complete = True
        self.ends = "complete (summary and footer)"
        self._summary = summary
        return True

    def _records(self) -> Iterator[tuple[int, Any]]:
        """(offset, record) of each complete record from the start, then sets `ends`. Framing
        is checked here, so a record cut short reads as the end of the file, not as damage."""
        with open(self.path, "rb") as f:
            f.seek(len(MAGIC))
            pos = len(MAGIC)
            while True:
                head = f.read(9)
                if len(head) < 9:
                    self.ends = (
                        f"truncated at byte {pos} of {self.size}, between records "
                        "(no summary: the recorder stopped without closing the file)"
                        if head or pos < self.size
                        else f"truncated at byte {pos}, after a complete record (no summary: "
                        "the recorder stopped without closing the file)"
                    )
                    return
                opcode, length = struct.unpack("<BQ", head)
                if pos + 9 + length > self.size:
                    self.ends = (
                        f"truncated at byte {self.size}: a record (opcode 0x{opcode:02x}) of "
                        f"{length} bytes starting at byte {pos} is cut short (no summary: the "
                        "recorder stopped without closing the file); everything before it is "
                        "readable"
                    )
                    return
                body = f.read(length)
                rec = next(
                    StreamReader(
                        io.BytesIO(head + body), skip_magic=True, emit_chunks=True
                    ).records,
                    None,
                )
                yield pos, rec
                pos += 9 + length
                if isinstance(rec, Footer):
                    self.ends = "complete (footer, summary not usable)"
                    return

    def _scan(self) -> None:
        for _pos, rec in self._records():
            if isinstance(rec, Header):
                self.library, self.profile = rec.library, rec.profile
            elif isinstance(rec, Schema):
                self.schemas[rec.id] = rec
            elif isinstance(rec, Channel):
                self.channels[rec.id] = rec
            elif isinstance(rec, Chunk):
                self._compression[rec.compression or "none"] += 1
                self.chunks += 1
                for r in breakup_chunk(rec, validate_crc=True):
                    self._account(r)
            elif isinstance(rec, Message):
                self._account(rec)
            elif isinstance(rec, (DataEnd, Statistics)):
                pass

    def _account(self, r: Any) -> None:
        if isinstance(r, Schema):
            self.schemas[r.id] = r
        elif isinstance(r, Channel):
            self.channels[r.id] = r
        elif isinstance(r, Message):
            if r.channel_id not in self.channels:
                raise CorruptBagError(f"{self.path}: a message of unknown channel {r.channel_id}")
            self._counts[r.channel_id] += 1
            if self.message_count == 0 or r.log_time < self.start_time:
                self.start_time = r.log_time
            self.end_time = max(self.end_time, r.log_time)
            self.message_count += 1

    # -- API -----------------------------------------------------------------------------------

    def _info_of(self, cid: int) -> TopicInfo:
        ch = self.channels[cid]
        return self._guarded(topic_info, ch, self.schemas.get(ch.schema_id))

    @property
    def topics(self) -> dict[str, TopicInfo]:
        return {self.channels[c].topic: self._info_of(c) for c in sorted(self.channels)}

    def info(self) -> dict:
        """What `baton bag info` prints: files, size, duration, messages, topics, compression."""
        topics = []
        for cid in sorted(self.channels):
            ch = self.channels[cid]
            t = self._info_of(cid)
            topics.append(
                {
                    "topic": ch.topic,
                    "type": t.type_name,
                    "kind": t.kind,
                    "encoding": ch.message_encoding,
                    "count": self._counts[cid],
                    "qos": t.qos,
                }
            )
        return {
            "file": str(self.path),
            "size": self.size,
            "library": self.library,
            "profile": self.profile,
            "start_ns": self.start_time,
            "end_ns": self.end_time,
            "duration_s": (self.end_time - self.start_time) / 1e9 if self.message_count else 0.0,
            "messages": self.message_count,
            "chunks": self.chunks,
            "compression": dict(self._compression),
            "ends": self.ends,
            "complete": self.complete,
            "topics": topics,
        }

    def messages(
        self, topics: Optional[Iterable[str]] = None, start_time: Optional[int] = None
    ) -> Iterator[BagMessage]:
        """Messages in log-time order (a truncated file: in file order, up to its last complete
        chunk), optionally of some topics only and from `start_time` (ns) on."""
        wanted = None if topics is None else set(topics)
        it = self._iter_indexed(wanted, start_time) if self.complete else self._iter_scan()
        while True:
            try:
                m = self._guarded(next, it, None)
            except CorruptBagError:
                raise
            if m is None:
                return
            if wanted is not None and m.topic not in wanted:
                continue
            if start_time is not None and m.log_time < start_time:
                continue
            yield m

    def _iter_indexed(
        self, wanted: Optional[set], start_time: Optional[int]
    ) -> Iterator[BagMessage]:
        with open(self.path, "rb") as f:
            reader = SeekingReader(f, validate_crcs=True)
            reader._summary = self._summary  # parsed and checked once, in _open_summary
            # No chunk index (an unchunked bag): the mcap reader would load the whole file to
            # sort it; its messages are in the order they were written, log-time order.
            in_order = bool(self._summary.chunk_indexes)
            for _s, ch, m in reader.iter_messages(
                topics=wanted, starting_at=start_time, log_time_order=in_order
            ):
                yield self._message(ch.id, m)

    def _iter_scan(self) -> Iterator[BagMessage]:
        for _pos, rec in self._records():
            if isinstance(rec, Chunk):
                for r in breakup_chunk(rec, validate_crc=True):
                    if isinstance(r, Message):
                        yield self._message(r.channel_id, r)
            elif isinstance(rec, Message):
                yield self._message(rec.channel_id, rec)

    def _message(self, cid: int, m: Message) -> BagMessage:
        if cid not in self.channels:
            raise CorruptBagError(f"{self.path}: a message of unknown channel {cid}")
        ch = self.channels[cid]
        return BagMessage(
            ch.topic, m.log_time, m.publish_time, m.sequence, m.data, self._info_of(cid)
        )

    def channel_of(self, topic: str) -> Channel:
        for ch in self.channels.values():
            if ch.topic == topic:
                return ch
        raise KeyError(topic)
