"""What a bag stores about each topic's type: the MCAP schema and message encoding per kind.

| kind      | message encoding | schema encoding | schema data                                   |
| --------- | ---------------- | --------------- | --------------------------------------------- |
| `ros2`    | `cdr`            | `ros2msg`       | the full .msg text with every dependency, as  |
|           |                  |                 | ros2 bag's MCAP storage writes it             |
| `ndarray` | `baton.ndarray`  | `baton.ndarray` | JSON: the 128-byte header's fields (below)    |
| `native`  | `baton.raw`      | `baton.raw`     | JSON: type name and type hash (a C++ struct's |
|           |                  |                 | bytes as laid out by its publisher)           |
| `ros1`    | `ros1`           | `ros1msg`       | genmsg's full definition (the .msg text, then |
|           |                  |                 | each dependency after 80 '=' and `MSG: pkg/T`)|
|           |                  |                 | as MCAP's ROS 1 profile and Foxglove expect   |

A topic is `ros2` when its type hash is a ROS 2 hash of its type name (messages are CDR): the
name-only hash of baton's raw endpoints typed by a ROS 2 name, or the RIHS01 hash (REP-2011) that
rmw_baton_cpp and native `ros2::Publisher`s give their topics (computed from the type's .msg files
on AMENT_PREFIX_PATH; without them such a topic is `native`), and
`ndarray` when its type hash is an array publisher's (any dtype) or its first message starts
with baton's array header; anything else is `native`. Discovery alone (type name and hash) tells
all three apart for topics of baton's publishers, so the live view (``baton.view``) advertises
a topic's schema before it takes a message. A `ros1` topic is one recorded from a ROS 1 master
(``baton.ros1``): its messages are ROS 1 serialized, its type hash is the type's md5sum, which
the channel's metadata also holds as ``md5sum`` (MCAP's ROS 1 profile).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Optional

from .errors import UnknownSchemaError

ROS2_ENCODING = "cdr"
ROS2_SCHEMA = "ros2msg"
ROS1_ENCODING = "ros1"
ROS1_SCHEMA = "ros1msg"
NDARRAY_ENCODING = "baton.ndarray"
RAW_ENCODING = "baton.raw"

#: The array header (python/src/ndarray_header.hpp, version 1), little-endian, as stored in the
#: schema of every `baton.ndarray` channel: a message is this header, then the elements (C order).
NDARRAY_HEADER = {
    "header_size": 128,
    "version": 1,
    "byte_order": "little",
    "payload_offset": 128,
    "fields": [
        {"name": "magic", "offset": 0, "type": "char[8]", "value": "baton.nd"},
        {"name": "version", "offset": 8, "type": "uint16"},
        {"name": "header_size", "offset": 10, "type": "uint16"},
        {"name": "ndim", "offset": 12, "type": "uint8", "max": 8},
        {"name": "dtype_code", "offset": 13, "type": "uint8",
         "values": {"0": "int", "1": "uint", "2": "float", "5": "complex", "6": "bool"}},
        {"name": "dtype_bits", "offset": 14, "type": "uint8"},
        {"name": "device_type", "offset": 15, "type": "uint8", "values": {"1": "cpu"}},
        {"name": "payload_bytes", "offset": 16, "type": "uint64"},
        {"name": "stamp_ns", "offset": 24, "type": "uint64", "unit": "CLOCK_REALTIME ns"},
        {"name": "shape", "offset": 32, "type": "int64[8]", "note": "entries >= ndim are 0"},
        {"name": "reserved_1", "offset": 96, "type": "uint8[32]"},
    ],
    "payload": "prod(shape) * dtype_bits / 8 bytes at payload_offset, C order",
}  # fmt: skip
NDARRAY_MAGIC = b"baton.nd"

_PRIMITIVES = {
    "bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16", "uint16",
    "int32", "uint32", "int64", "uint64", "string", "wstring", "time", "duration",
}  # fmt: skip
_SEPARATOR = "=" * 80


def is_ndarray_message(data: bytes | memoryview) -> bool:
    return len(data) >= 128 and bytes(data[:8]) == NDARRAY_MAGIC


def kind_of(type_name: str, type_hash: str, first_message: bytes | memoryview = b"") -> str:
    """ "ros2", "ndarray" or "native" (see the module's table)."""
    from .. import _baton
    from ..arrays import array_dtype_of_type

    if type_name.count("/") == 2 and type_hash in (
        _baton.ros2_topic_hash(type_name),
        _baton.ros2_rihs01_topic_hash(type_name),  # None without the .msg files
    ):
        return "ros2"
    if array_dtype_of_type(type_name, type_hash) is not None or is_ndarray_message(first_message):
        return "ndarray"
    return "native"


def _msg_file(type_name: str) -> Optional[Path]:
    pkg, _, name = type_name.split("/")
    for prefix in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep):
        f = Path(prefix) / "share" / pkg / "msg" / f"{name}.msg"
        if prefix and f.is_file():
            return f
    return None


def _field_types(text: str, package: str) -> list[str]:
    """The message types a .msg text uses, as pkg/msg/Type, in order of first use."""
    out: list[str] = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        base = re.split(r"[\[<]", line.split()[0], maxsplit=1)[0]
        if base in _PRIMITIVES:
            continue
        parts = base.split("/")
        full = f"{package}/msg/{base}" if len(parts) == 1 else f"{parts[0]}/msg/{parts[-1]}"
        if full not in out:
            out.append(full)
    return out


def ros2_definition(type_name: str) -> str:
    """The complete `ros2msg` definition of a ROS 2 type: its .msg text, then each dependency
    once, after 80 '=' and `MSG: pkg/msg/Type` (rosbag2's message_definition_encoding.md).
    The .msg files are looked up on AMENT_PREFIX_PATH; UnknownSchemaError if one is missing."""
    parts: list[str] = []
    seen: set[str] = set()
    todo = [type_name]
    while todo:
        t = todo.pop(0)
        if t in seen:
            continue
        seen.add(t)
        f = _msg_file(t)
        if f is None:
            raise UnknownSchemaError(
                f"no .msg file for ROS 2 type '{t}' on AMENT_PREFIX_PATH",
                hint="put the type's package on AMENT_PREFIX_PATH (e.g. source its setup file)",
            )
        text = f.read_text().rstrip("\n")
        parts.append(text if t == type_name else f"{_SEPARATOR}\nMSG: {t}\n{text}")
        todo.extend(d for d in _field_types(text, t.split("/")[0]) if d not in seen)
    return "\n".join(parts) + "\n"


def ros1_definition(type_name: str) -> str:
    """genmsg's full definition of a ROS 1 type (what TCPROS headers and `ros1msg` schemas
    carry), from the .msg files Debian's ROS 1 packages install; UnknownSchemaError if none."""
    from .. import _baton
    from ..errors import Ros1UnknownTypeError

    try:
        return _baton.ros1_message_type(type_name)["definition"]
    except Ros1UnknownTypeError as e:
        raise UnknownSchemaError(
            e.detail, hint="install the type's ROS 1 package or put it on ROS_PACKAGE_PATH"
        ) from None


def schema_for(kind: str, type_name: str, type_hash: str) -> tuple[str, str, bytes]:
    """(message encoding, schema encoding, schema data) of a channel of this kind."""
    if kind == "ros2":
        return ROS2_ENCODING, ROS2_SCHEMA, ros2_definition(type_name).encode()
    if kind == "ros1":
        return ROS1_ENCODING, ROS1_SCHEMA, ros1_definition(type_name).encode()
    if kind == "ndarray":
        doc = dict(NDARRAY_HEADER, type_name=type_name, type_hash=type_hash)
        return NDARRAY_ENCODING, NDARRAY_ENCODING, json.dumps(doc, indent=1).encode()
    doc = {"type_name": type_name, "type_hash": type_hash, "layout": "the publisher's bytes"}
    return RAW_ENCODING, RAW_ENCODING, json.dumps(doc).encode()


def usable_kind(kind: str, type_name: str, type_hash: str) -> tuple[str, Optional[str]]:
    """(kind, None), or ("native", why) when a ROS 2 type's .msg files are not on
    AMENT_PREFIX_PATH (a ROS 1 type's not installed): such a topic is still recorded / shown,
    as bytes under `baton.raw`."""
    try:
        schema_for(kind, type_name, type_hash)
    except UnknownSchemaError as e:
        return "native", f"{e.detail}; recorded as {RAW_ENCODING} (no schema)"
    return kind, None
