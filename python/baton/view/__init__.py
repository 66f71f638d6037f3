"""baton.view: a live Foxglove view of this BATON_NAMESPACE's topics.

    from baton.view import ViewServer

    with ViewServer(port=8765, image_scale=2) as view:   # ws://127.0.0.1:8765
        view.run()                                       # until Ctrl-C; stats() per topic

The CLI is ``baton view`` (python/baton/cli/view.py). Open the URL in Foxglove ("Open
connection" -> Foxglove WebSocket). The server is the ``foxglove-sdk`` package's (subprotocol
``foxglove.sdk.v1``, the Foxglove WebSocket protocol under its current name); topics carry the
schemas a bag records (:mod:`baton.bag.schemas`), so Foxglove decodes ROS 2 topics as it does
from ``ros2 bag``. See :class:`ViewServer` for what is subscribed when, what it copies, and
what compressing images costs.
"""

from __future__ import annotations

from .images import Frame, array_image, encode_jpeg, ros2_image
from .server import (
    COMPRESSED_SUFFIX,
    PROTOCOL,
    RemoteBindError,
    ViewServer,
    ViewStartError,
    is_loopback,
)

__all__ = [
    "COMPRESSED_SUFFIX",
    "Frame",
    "PROTOCOL",
    "RemoteBindError",
    "ViewServer",
    "ViewStartError",
    "array_image",
    "encode_jpeg",
    "is_loopback",
    "ros2_image",
]
