"""Array messages: numpy dtypes as DLPack (code, bits) pairs and the type names and layout facts
of array topics (the 128-byte header is ``python/src/ndarray_header.hpp``)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import _baton
from .errors import TypeMismatchError

#: Type name given to array topics when the publisher names none: "baton/msg/NDArray[<dtype>]".
ARRAY_TYPE_PREFIX = "baton/msg/NDArray"

_DLPACK_CODE = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
_KIND_OF_CODE = {0: "i", 1: "u", 2: "f", 5: "c", 6: "b"}


def dtype_code(dtype: Any) -> tuple[int, int]:
    """(DLPack type code, bits) of a numpy dtype; raises TypeMismatchError if unsupported."""
    dt = np.dtype(dtype)
    if dt.kind not in _DLPACK_CODE or dt.fields is not None or dt.subdtype is not None:
        raise TypeMismatchError(
            f"dtype {dt} is not supported (use bool, int, uint, float, complex)"
        )
    if dt.byteorder == ">" or (dt.byteorder == "=" and not np.little_endian):
        raise TypeMismatchError(f"dtype {dt} is big-endian; use {dt.newbyteorder('<')}")
    return _DLPACK_CODE[dt.kind], dt.itemsize * 8


def dtype_of(code: int, bits: int) -> np.dtype:
    """The numpy dtype of a DLPack (code, bits) pair."""
    if code == 6:
        return np.dtype(np.bool_)
    return np.dtype(f"<{_KIND_OF_CODE[code]}{bits // 8}")


def array_type_name(dtype: Any) -> str:
    return f"{ARRAY_TYPE_PREFIX}[{np.dtype(dtype).name}]"


def array_layout_facts(dtype: Any) -> str:
    code, bits = dtype_code(dtype)
    return f"ndarray;v={_baton.NDARRAY_HEADER_VERSION};dtype={code}:{bits}"


#: Every dtype an array topic can carry (dtype_code accepts exactly these).
ARRAY_DTYPES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
)  # fmt: skip


def array_dtype_of_type(type_name: str, type_hash: str) -> Optional[np.dtype]:
    """The dtype of an array topic from discovery alone (its type name and type hash), or None
    when the hash is not an array publisher's: no message needs to be read."""
    for name in ARRAY_DTYPES:
        if _baton.topic_type_hash(type_name, array_layout_facts(name)) == type_hash:
            return np.dtype(name)
    return None
