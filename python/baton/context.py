"""The process's default context, as rclpy's global context: ``baton.init`` / ``shutdown`` /
``ok``."""

from __future__ import annotations

from typing import Any, Optional

from . import _baton

Context = _baton.Context

_default_context: Optional[Context] = None


def default_context() -> Context:
    """The process's default context, created on first use (as rclpy's global context)."""
    global _default_context
    if _default_context is None or not _default_context.ok():
        _default_context = Context.create()
    return _default_context


def init(**options: Any) -> Context:
    """Creates the default context with options (janitor_period, segment_mode, graph_registry)."""
    global _default_context
    _default_context = Context.create(**options)
    return _default_context


def shutdown() -> None:
    global _default_context
    if _default_context is not None:
        _default_context.shutdown()
        _default_context = None


def ok() -> bool:
    return _default_context is not None and _default_context.ok()
