"""Service and client builders (request / response bytes, or ROS 2 CDR through the CLI)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

from . import _baton

if TYPE_CHECKING:
    from .node import Node

QoS = _baton.QoS
Service = _baton.Service
Client = _baton.Client


class ServiceBuilder:
    """``node.service(name, srv_type).callback(fn).qos(q).create()``; fn(request: bytes) returns
    the response (bytes-like or str)."""

    def __init__(self, node: Node, name: str, srv_type: str):
        self._node, self._name, self._srv_type = node, name, srv_type
        self._qos = QoS(64).reliable_timeout(0.1)
        self._callback: Optional[Callable[[bytes], Any]] = None

    def qos(self, qos: QoS) -> ServiceBuilder:
        self._qos = qos
        return self

    def callback(self, fn: Callable[[bytes], Any]) -> ServiceBuilder:
        self._callback = fn
        return self

    def create(self) -> Service:
        if self._callback is None:
            from .errors import MissingCallbackError

            raise MissingCallbackError(f"service '{self._name}' has no callback")
        return self._node._keep(
            _baton.create_service(
                self._node._node, self._name, self._srv_type, self._qos, self._callback
            )
        )


class ClientBuilder:
    """``node.client(name, srv_type).qos(q).create()``"""

    def __init__(self, node: Node, name: str, srv_type: str):
        self._node, self._name, self._srv_type = node, name, srv_type
        self._qos = QoS(64).reliable_timeout(0.1)

    def qos(self, qos: QoS) -> ClientBuilder:
        self._qos = qos
        return self

    def create(self) -> Client:
        return self._node._keep(
            _baton.create_client(self._node._node, self._name, self._srv_type, self._qos)
        )
