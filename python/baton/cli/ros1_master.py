"""The ROS 1 master as the CLI sees it: `baton topic list` adds its topics when one answers at
ROS_MASTER_URI, and `baton doctor` says whether one does. Every query has a short deadline, so a
missing or silent master never holds a command up."""

from __future__ import annotations

import os
from typing import Any, Optional

#: Seconds a master gets to answer the CLI (it answers a local getPid in about a millisecond).
TIMEOUT = 1.0


def topics(timeout: float = TIMEOUT) -> tuple[Optional[str], list[dict], str]:
    """(master URI or None if ROS_MASTER_URI is unset, its topics, why none were listed)."""
    from .. import ros1
    from ..errors import BatonError

    uri = os.environ.get("ROS_MASTER_URI", "")
    if not uri:
        return None, [], ""
    if not ros1.NODE_AVAILABLE:
        return uri, [], "this baton was built without ROS 1 support (xmlrpcpp)"
    try:
        return uri, ros1.Master(uri, timeout).topics(), ""
    except BatonError as e:
        return uri, [], f"no ROS master answers at {uri} ({e.detail})"


def check() -> dict[str, Any]:
    """`baton doctor`'s ROS 1 check: ROS_MASTER_URI unset / unreachable / reachable."""
    from .. import ros1
    from ..errors import BatonError
    from .doctor import _check as _check_shape

    uri = os.environ.get("ROS_MASTER_URI", "")
    if not uri:
        return _check_shape(
            "ros1 master",
            "info",
            "ROS_MASTER_URI is not set: ROS 1 is not used",
            "to reach ROS 1 nodes: run roscore and export ROS_MASTER_URI=http://127.0.0.1:11311/",
        )
    if not ros1.NODE_AVAILABLE:
        return _check_shape(
            "ros1 master",
            "warn",
            f"ROS_MASTER_URI={uri}, but this baton was built without ROS 1 support",
            "install ROS 1 (scripts/install-ros1.sh: xmlrpcpp) and rebuild baton",
        )
    address = os.environ.get("ROS_IP") or os.environ.get("ROS_HOSTNAME") or "(the host name)"
    try:
        master = ros1.Master(uri, TIMEOUT)
        pid = master.pid()
        n = len(master.topics())
    except BatonError as e:
        return _check_shape(
            "ros1 master",
            "warn",
            f"ROS_MASTER_URI={uri}: no ROS master answers ({e.detail})",
            "start roscore there (roscore -p <port>), or set ROS_MASTER_URI to the running "
            "master's http://host:port/",
            master_uri=uri,
        )
    return _check_shape(
        "ros1 master",
        "ok",
        f"ROS master at {uri} answers (pid {pid}, {n} topics); "
        f"this host is reached at {address} (ROS_IP / ROS_HOSTNAME)",
        master_uri=uri,
        master_pid=pid,
    )
