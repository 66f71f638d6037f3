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


def ros2_hash_on_topic(topic: str, type_name: str, context: Optional[Context] = None) -> str:
    """The RIHS01 type hash (hex) `topic` carries when its endpoints are of ROS 2 type
    `type_name` under that type's RIHS01 hash (rclpy on rmw_baton_cpp, native ros2::Publishers,
    `baton bag play --wire`), else "". A raw endpoint typed by the ROS 2 name alone takes it: the
    bytes are that type's CDR either way, and the name-only hash would be refused (TypeMismatch).
    The hash is computed from the type's .msg files on AMENT_PREFIX_PATH ("" without them)."""
    if type_name.count("/") != 2:
        return ""
    hashes = {
        e["type_hash"]
        for e in graph_snapshot(context)["endpoints"]
        if e["name"] == topic
        and e["type"] == type_name
        and e["kind"] in ("publisher", "subscription")
    }
    if not hashes or _baton.ros2_topic_hash(type_name) in hashes:
        return ""
    rihs01 = _baton.ros2_rihs01_topic_hash(type_name)
    return rihs01 if rihs01 in hashes else ""


def explain_type_mismatch(
    error: TypeMismatchError, topic: str, type_name: str, context: Optional[Context] = None
) -> None:
    """Raises `error` again, with a hint when it is a raw endpoint typed by a ROS 2 name whose
    topic carries another hash of that same name (one ros2_hash_on_topic could not take)."""
    same_name = any(
        e["name"] == topic and e["type"] == type_name for e in graph_snapshot(context)["endpoints"]
    )
    if type_name.count("/") != 2 or not same_name:
        raise error
    if _baton.ros2_rihs01_topic_hash(type_name) is None:
        why = f"the .msg files of '{type_name}' are not on AMENT_PREFIX_PATH"
    else:
        why = f"it is not the RIHS01 hash of '{type_name}' found on AMENT_PREFIX_PATH either"
    raise TypeMismatchError(
        f"{error.detail}: the topic's hash is not the name-only hash of a raw endpoint, and {why}",
        hint=(
            f"ROS 2 publishers (rmw_baton_cpp, ros2::Publisher, `bag play --wire`) give "
            f"'{topic}' the RIHS01 hash of '{type_name}': put its package on AMENT_PREFIX_PATH "
            f"(the raw endpoint then takes that hash), or subscribe with "
            f"node.subscription('{topic}') (no type name: the topic's own type and hash)"
        ),
    ) from None
