"""Nodes: names, namespaces and the builders of every endpoint kind."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np

from . import _baton, domains
from .context import Context, default_context
from .pubsub import PublisherBuilder, SubscriptionBuilder
from .services import ClientBuilder, ServiceBuilder

Sample = _baton.Sample


class Node:
    """A named unit of a program owning endpoints, as in ROS.

    ``Node(ctx, "name", "/ns")`` as in C++, or ``Node("name", namespace="/ns")`` with the
    default context. As in rclpy, the node keeps the endpoints it created alive until
    ``destroy_entity(e)`` or ``destroy_node()`` (executors only hold weak references).
    """

    def __init__(
        self, *args: Any, namespace: Optional[str] = None, context: Optional[Context] = None
    ):
        if args and isinstance(args[0], Context):
            context, args = args[0], args[1:]
        if not args:
            raise TypeError("Node needs a name")
        name = args[0]
        if len(args) > 1:
            namespace = args[1]
        self.context = context or default_context()
        self._node = _baton.Node(self.context, name, namespace or "/")
        self._entities: list[Any] = []

    def _keep(self, entity: Any) -> Any:
        self._entities.append(entity)
        return entity

    def destroy_entity(self, entity: Any) -> bool:
        """Drops the node's reference to a publisher / subscription / service / client."""
        for i, e in enumerate(self._entities):
            if e is entity:
                del self._entities[i]
                return True
        return False

    destroy_publisher = destroy_subscription = destroy_service = destroy_client = destroy_entity

    def destroy_node(self) -> None:
        self._entities.clear()

    @property
    def name(self) -> str:
        return self._node.name

    def get_name(self) -> str:
        return self._node.name

    def get_namespace(self) -> str:
        return self._node.namespace

    def get_fully_qualified_name(self) -> str:
        return self._node.fully_qualified_name()

    def resolve(self, topic: str) -> str:
        r = self._node.resolve(topic)
        if not r:
            from .errors import InvalidNameError

            raise InvalidNameError(f"'{topic}' is not a valid ROS name")
        return r

    def publisher(
        self,
        topic: str,
        dtype: Any = np.uint8,
        shape: Sequence[int] = (),
        type_name: Optional[str] = None,
    ) -> PublisherBuilder:
        """An array publisher: messages are numpy arrays of `dtype` (default shape `shape`)."""
        return PublisherBuilder(self, topic, dtype, shape, type_name)

    def raw_publisher(self, topic: str, type_name: str = "baton/msg/Bytes") -> PublisherBuilder:
        """A bytes publisher, compatible with C++ RawPublisher (TypeInfo::from_name(type_name))."""
        return PublisherBuilder(self, topic, None, (), type_name)

    def subscription(
        self,
        topic: str,
        dtype: Any = None,
        type_name: Optional[str] = None,
        callback: Optional[Callable[[Sample], Any]] = None,
    ) -> SubscriptionBuilder:
        b = SubscriptionBuilder(self, topic, dtype, type_name, raw=False)
        return b.callback(callback) if callback is not None else b

    def raw_subscription(
        self, topic: str, type_name: str = "baton/msg/Bytes"
    ) -> SubscriptionBuilder:
        """A bytes subscription, compatible with C++ RawPublisher (no array header parsing)."""
        return SubscriptionBuilder(self, topic, None, type_name, raw=True)

    def domain_publisher(
        self,
        topic: str,
        dtype: Any = np.uint8,
        domain: str = "host",
        shape: Sequence[int] = (),
        type_name: Optional[str] = None,
    ) -> domains.DomainPublisherBuilder:
        """A publisher whose loans live in a memory domain ("host", "staging", "opencl:0",
        "opencl:0:sc", "cuda:0"); dtype=None publishes bytes. See :mod:`baton.domains`."""
        return domains.DomainPublisherBuilder(self, topic, dtype, domain, shape, type_name)

    def domain_subscription(
        self,
        topic: str,
        dtype: Any = np.uint8,
        domain: str = "host",
        type_name: Optional[str] = None,
        raw: bool = False,
    ) -> domains.DomainSubscriptionBuilder:
        """A subscription receiving in a memory domain; each message is copied into it at most
        once (zero times where the domain addresses host memory). See :mod:`baton.domains`."""
        return domains.DomainSubscriptionBuilder(self, topic, dtype, domain, type_name, raw)

    def service(self, name: str, srv_type: str = "baton/srv/Bytes") -> ServiceBuilder:
        return ServiceBuilder(self, name, srv_type)

    def client(self, name: str, srv_type: str = "baton/srv/Bytes") -> ClientBuilder:
        return ClientBuilder(self, name, srv_type)

    def __repr__(self) -> str:
        return f"<baton.Node {self.get_fully_qualified_name()}>"
