"""The graph of this BATON_NAMESPACE: snapshots and a topic's type from discovery."""

from __future__ import annotations

import time
from typing import Optional

from . import _baton
from .context import Context, default_context
from .errors import TopicNotFoundError, TypeMismatchError


def graph_snapshot(context: Optional[Context] = None) -> dict:
    """Nodes, endpoints, topics and services of every process in this BATON_NAMESPACE."""
    return _baton.graph_snapshot(context or default_context())


def topic_type(
    topic: str, context: Optional[Context] = None, timeout: float = 0.0
) -> tuple[str, str]:
    """(type name, type hash hex) of a topic, from discovery. Raises TopicNotFoundError, or
    TypeMismatchError if endpoints disagree."""
    deadline = time.monotonic() + timeout
    while True:
        eps = [
            e
            for e in graph_snapshot(context)["endpoints"]
            if e["name"] == topic and e["kind"] in ("publisher", "subscription")
        ]
        if eps:
            break
        if time.monotonic() >= deadline:
            raise TopicNotFoundError(
                f"topic '{topic}' does not exist in namespace '{_baton.current_namespace()}' "
                "(no publisher or subscription has it)"
            )
        time.sleep(0.05)
    types = {(e["type"], e["type_hash"]) for e in eps}
    pubs = {(e["type"], e["type_hash"]) for e in eps if e["kind"] == "publisher"}
    if len(types) > 1 and len(pubs) != 1:
        listed = ", ".join(sorted(t for t, _ in types))
        raise TypeMismatchError(f"topic '{topic}' has endpoints of several types: {listed}")
    return sorted(pubs or types)[0]
