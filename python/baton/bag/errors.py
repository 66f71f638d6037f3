"""Errors of :mod:`baton.bag`: each a :class:`baton.BatonError` with ``detail`` and ``hint``."""

from __future__ import annotations

from ..errors import BatonError


class BagError(BatonError):
    """Base of the bag errors."""

    code = "BagError"
    hint = "check the file with `baton bag info FILE`"
    exit_code = 10


class BagNotFoundError(BagError, FileNotFoundError):
    code = "BagNotFound"
    hint = "check the path (a bag is one .mcap file, or the first file of a split recording)"
    exit_code = 3


class NotMcapError(BagError):
    """The file is not MCAP at all (wrong magic): a foreign file."""

    code = "NotMcap"
    hint = "baton bags are MCAP files (they start with the bytes 89 4D 43 41 50 30 0D 0A)"


class CorruptBagError(BagError):
    """The file is MCAP but a record is damaged (CRC mismatch, impossible length, bad chunk)."""

    code = "CorruptBag"
    hint = (
        "the file is damaged; `baton bag info FILE` says how far it reads; messages before the "
        "damaged record can still be read with Reader(path, recover=True)"
    )


class UnknownSchemaError(BagError, TypeError):
    """A channel's schema / message encoding is one baton cannot publish (e.g. protobuf)."""

    code = "UnknownSchema"
    hint = (
        "baton plays channels of encoding cdr (ros2msg schema), baton.ndarray and baton.raw; "
        "leave the others out with --topics"
    )
    exit_code = 4


class BagWriteError(BagError, OSError):
    """Writing the bag failed (disk full, file size limit, I/O error); the file is closed."""

    code = "BagWrite"
    hint = (
        "free space on the disk (or record to another one with -o); the file written so far is "
        "readable up to its last complete chunk"
    )
