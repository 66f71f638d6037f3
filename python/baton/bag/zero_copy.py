"""The one copy of a large message: from the publisher's shared memory into the file, by writev(2).

The `mcap` package serializes every record into an ``io.BytesIO`` (its ``RecordBuilder``) and
hands the builder's bytes to the output stream. For a 4K rgb8 frame (24.9 MB) that is a 25 MB
memcpy per record before the write; in a chunked file the message is copied into the chunk
builder, then the finished chunk again into the writer's record builder. ``BorrowingRecords``
is that RecordBuilder, except that a buffer of ``BORROW_MIN`` bytes or more is kept by
reference instead of copied: ``end()`` returns ``Pieces`` (the small header bytes and the
borrowed buffers, in order), which ``Fd.write`` writes with one writev(2). The record framing
(opcode, length, fields) is still the mcap package's own code.

A borrowed buffer must stay alive and unchanged until the writer flushes it to the file. The
mcap Writer's own record builder flushes within the call that wrote the record (``add_message``
without chunks; a finished chunk, whose data are immutable bytes), so the sample a recorder
hands over is written before the call returns. The chunk builder is not replaced: a chunk's
bytes must be contiguous for its CRC and compression.
"""

from __future__ import annotations

import errno
import io
import os
import struct
from pathlib import Path
from typing import Any

from mcap.data_stream import RecordBuilder

from .errors import BagWriteError

BORROW_MIN = 64 * 1024  # below this a copy costs less than a separate iovec
_IOV_MAX = 1024


class Pieces(list):
    """Consecutive parts of the file (bytes, bytearray, memoryview), written with one writev."""


class BorrowingRecords(RecordBuilder):
    """mcap's RecordBuilder, keeping buffers of ``BORROW_MIN`` bytes or more by reference."""

    def __init__(self) -> None:
        super().__init__()
        self._pieces = Pieces()
        self._done = 0  # bytes in self._pieces
        self._length_at: tuple[int, int] | None = None  # (piece, offset) of an open record

    @property
    def count(self) -> int:
        return self._done + self._buffer.tell()

    def start_record(self, opcode: Any) -> None:
        self._record_start = self.count
        self._length_at = None  # set if a buffer is borrowed before finish_record
        super().start_record(opcode)

    def finish_record(self) -> None:
        if self._length_at is None:
            super().finish_record()  # the whole record is in the BytesIO
            return
        piece, offset = self._length_at
        length = self.count - self._record_start - 9
        self._pieces[piece][offset + 1 : offset + 9] = struct.pack("<Q", length)
        self._length_at = None

    def write(self, data: Any) -> None:
        view = memoryview(data)
        if view.nbytes < BORROW_MIN:
            super().write(view)
            return
        head = bytearray(self._buffer.getbuffer())
        if self._length_at is None:  # the open record's header is in `head`: patched at finish
            self._length_at = (len(self._pieces), self._record_start - self._done)
        self._pieces.append(head)
        self._pieces.append(view.cast("B") if view.ndim != 1 or view.format != "B" else view)
        self._done += len(head) + view.nbytes
        self._buffer = io.BytesIO()

    def end(self) -> Any:
        if not self._pieces:
            return super().end()
        out = self._pieces
        out.append(self._buffer.getvalue())
        self._pieces, self._done, self._buffer = Pieces(), 0, io.BytesIO()
        return out


class Fd:
    """The file under the mcap writer: every write goes straight to write(2) / writev(2),
    unbuffered, so a record is in the kernel as soon as the writer has written it (a SIGKILLed
    recorder loses only what it had not written yet). Not a RawIOBase on purpose: the mcap
    writer would buffer one. ``writes`` counts the system calls, ``borrowed`` the buffers
    written from where they were (tests count the copies with them)."""

    def __init__(self, path: Path):
        self.path = path
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        self.pos = 0
        self.writes = 0
        self.borrowed = 0

    def write(self, data: Any) -> int:
        parts = data if isinstance(data, Pieces) else [data]
        views = [memoryview(p).cast("B") for p in parts if len(p)]
        self.borrowed += sum(1 for p in parts if isinstance(p, memoryview))
        total = sum(v.nbytes for v in views)
        done = 0
        while views:
            try:
                n = os.writev(self.fd, views[:_IOV_MAX])
            except OSError as e:
                self._fail(done, e)
            self.writes += 1
            done += n
            while views and n >= views[0].nbytes:  # drop what was written, keep the rest
                n -= views[0].nbytes
                views.pop(0)
            if n:
                views[0] = views[0][n:]
        self.pos += done
        return total

    def _fail(self, done: int, e: OSError) -> None:
        self.pos += done
        self.close()
        why = {errno.ENOSPC: "the disk is full", errno.EFBIG: "the file size limit"}.get(
            e.errno, e.strerror
        )
        raise BagWriteError(
            f"writing {self.path} failed at byte {self.pos}: {why} ({e.strerror}); "
            "the file is closed"
        ) from None

    def tell(self) -> int:
        return self.pos

    def flush(self) -> None:
        pass

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
