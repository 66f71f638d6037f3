"""Printing a decoded ROS 2 message as ``ros2 topic echo`` does: YAML block style, primitive
arrays inline, long arrays cut at 128 elements unless --full-length."""

from __future__ import annotations

import re
from typing import Any

ARRAY_LIMIT = 128
_PLAIN = re.compile(r"^[A-Za-z_/][A-Za-z0-9_ ./-]*$")
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "~"}


def scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        plain = _PLAIN.match(v) and v == v.strip() and v.lower() not in _YAML_WORDS
        return v if plain else "'" + v.replace("'", "''") + "'"
    return repr(v)


def _inline(items: list, full_length: bool) -> str:
    shown = items if full_length or len(items) <= ARRAY_LIMIT else items[:ARRAY_LIMIT]
    text = ", ".join(scalar(x) for x in shown)
    return f"[{text}{', ...' if len(shown) < len(items) else ''}]"


def lines(msg: dict, full_length: bool = False, indent: int = 0) -> list[str]:
    """The YAML lines of `msg` (a dict of fields, as _baton.ros2_decode returns)."""
    pad = " " * indent
    out: list[str] = []
    for key, value in msg.items():
        if isinstance(value, dict):
            out.append(f"{pad}{key}:")
            out += lines(value, full_length, indent + 2)
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            out.append(f"{pad}{key}:")
            for item in value:
                sub = lines(item, full_length, indent + 2)
                out.append(f"{pad}- {sub[0].lstrip()}" if sub else f"{pad}- {{}}")
                out += sub[1:]
        elif isinstance(value, list):
            out.append(f"{pad}{key}: {_inline(value, full_length)}")
        else:
            out.append(f"{pad}{key}: {scalar(value)}")
    return out
