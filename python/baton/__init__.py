"""baton: zero-copy shared-memory messaging for ROS-style robotics, from Python.

The API mirrors the C++ one (``include/baton/api``) and rclpy's vocabulary::

    import baton, numpy as np

    ctx = baton.Context.create()
    node = baton.Node(ctx, "camera")
    pub = node.publisher("image", np.uint8, shape=(480, 640, 3)).qos(baton.QoS(5)).create()
    with pub.loan() as frame:          # a writable numpy view of shared memory
        frame[:] = 255                 # published when the block ends
    sub = node.subscription("image", np.uint8).create()
    sample = sub.take(timeout=1.0)     # a read-only numpy view, no copy: sample.array

Messages published from Python carry a 128-byte array header (dtype + shape, see
``python/src/ndarray_header.hpp``), so a subscriber sees the publisher's dtype and shape.
``raw_publisher`` / ``raw_subscription`` exchange plain bytes with C++ ``RawPublisher`` peers.
Errors are subclasses of :class:`baton.BatonError` (see :mod:`baton.errors`).
"""

from __future__ import annotations

# One module per concept; everything is re-exported here, so `baton.X` is the API.
from . import _baton, domains  # noqa: F401
from .arrays import (  # noqa: F401
    ARRAY_TYPE_PREFIX,
    array_layout_facts,
    array_type_name,
    dtype_code,
    dtype_of,
)
from .context import default_context, init, ok, shutdown
from .domains import DeviceLoan, DomainPublisher, DomainSample, DomainSubscription, domain_info
from .errors import *  # noqa: F401,F403
from .errors import BatonError
from .executor import Executor, MultiThreadedExecutor, SingleThreadedExecutor, spin, spin_once
from .graph import graph_snapshot, topic_type
from .node import Node
from .pubsub import Loan, Publisher, PublisherBuilder, SubscriptionBuilder  # noqa: F401
from .services import ClientBuilder, ServiceBuilder  # noqa: F401

__version__ = "0.1.0"

QoS = _baton.QoS
Context = _baton.Context
Sample = _baton.Sample
Loan_ = _baton.Loan
Subscription = _baton.Subscription
Service = _baton.Service
Client = _baton.Client

__all__ = [
    "BatonError",
    "Client",
    "Context",
    "DeviceLoan",
    "DomainPublisher",
    "DomainSample",
    "DomainSubscription",
    "Executor",
    "Loan",
    "MultiThreadedExecutor",
    "Node",
    "Publisher",
    "QoS",
    "Sample",
    "Service",
    "SingleThreadedExecutor",
    "Subscription",
    "default_context",
    "domain_info",
    "dtype_code",
    "dtype_of",
    "graph_snapshot",
    "init",
    "ok",
    "shutdown",
    "spin",
    "spin_once",
    "topic_type",
]
