"""Publishers and subscriptions in a memory domain: ``host``, ``staging``, ``opencl:<n>[:sc]``,
``cuda:<n>`` (see docs/design/domains.md).

::

    pub = node.domain_publisher("image", np.float32, "opencl:0", shape=(480, 640)).create()
    loan = pub.loan()
    np.from_dlpack(loan)[:] = 1.0     # host-visible memory (PoCL): numpy writes in place
    loan.publish()

    sub = node.domain_subscription("image", np.float32, "opencl:0").create()
    s = sub.take(timeout=1.0)
    np.from_dlpack(s)                 # kDLCPU on PoCL: the publisher's bytes, no copy
    s.cl_mem                          # the cl_mem holding the message, for PyOpenCL

DLPack (``__dlpack__`` / ``__dlpack_device__``) reports where the bytes are: host-visible memory
(host, staging, OpenCL on a host-unified device such as PoCL, SVM) as kDLCPU with the host
pointer; CUDA memory as kDLCUDA with the device pointer (torch / CuPy take it); OpenCL memory the
CPU cannot address raises :class:`baton.NotHostVisibleError` (no DLPack consumer takes kDLOpenCL):
use ``cl_mem`` with PyOpenCL, or ``read()`` / ``write()`` for one explicit copy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np

from . import _baton

if TYPE_CHECKING:
    from . import Node

DeviceLoan = _baton.DeviceLoan
DomainSample = _baton.DomainSample
DomainSubscription = _baton.DomainSubscription


def domain_info(domain: str) -> dict:
    """What a domain's device can do: name, platform, host_unified, zero_copy_from_host, SVM,
    copies made so far by this process. Raises DomainUnavailableError if it cannot be opened."""
    return _baton.domain_info(domain)


def _type_of(dtype: Any, type_name: Optional[str]) -> tuple[str, str, Optional[tuple[int, int]]]:
    """(type name, layout facts, (DLPack code, bits) or None for bytes) — the same type identity
    as host array / raw topics, so host and device endpoints of one topic meet."""
    from . import array_layout_facts, array_type_name, dtype_code

    if dtype is None:
        return type_name or "baton/msg/Bytes", "", None
    return (
        type_name or array_type_name(dtype),
        array_layout_facts(dtype),
        dtype_code(dtype),
    )


class DomainPublisher:
    """Publishes messages written in a memory domain (see the module doc)."""

    def __init__(self, native: Any, dtype: Optional[np.dtype], type_name: str):
        self._pub = native
        self.dtype = dtype
        self.type_name = type_name

    def loan(self, shape: Optional[Sequence[int]] = None, *, nbytes: Optional[int] = None) -> Any:
        """A DeviceLoan of `shape` (default: the declared shape), or of `nbytes` for bytes
        publishers. Write it through DLPack / ``array`` (host-visible memory), your own kernel
        (``cl_mem``, ``data_ptr``) or ``write()``; then ``publish(loan)``."""
        if self.dtype is None:
            if nbytes is None:
                from .errors import InvalidShapeError

                if shape is None:
                    raise InvalidShapeError("a bytes publisher's loan needs nbytes=")
                nbytes = int(np.prod(shape))
            return self._pub.loan(None, int(nbytes))
        return self._pub.loan(None if shape is None else [int(s) for s in shape], None)

    def publish(self, loan: Any) -> None:
        """Publishes a DeviceLoan (consumes it; no copy in the publisher's domain)."""
        self._pub.publish(loan)

    @property
    def domain(self) -> str:
        return self._pub.domain

    @property
    def info(self) -> dict:
        return self._pub.info

    @property
    def topic_name(self) -> str:
        return self._pub.topic_name

    @property
    def subscription_count(self) -> int:
        return self._pub.subscription_count


class DomainPublisherBuilder:
    """``node.domain_publisher(topic, dtype, domain, shape).qos(q).create()``"""

    def __init__(
        self,
        node: Node,
        topic: str,
        dtype: Any,
        domain: str,
        shape: Sequence[int],
        type_name: Optional[str],
    ):
        from . import QoS

        self._node, self._topic, self._domain = node, topic, domain
        self._dtype = None if dtype is None else np.dtype(dtype)
        self._shape = [int(s) for s in shape]
        self._type_name = type_name
        self._qos = QoS()

    def qos(self, qos: Any) -> DomainPublisherBuilder:
        self._qos = qos
        return self

    def create(self) -> DomainPublisher:
        type_name, facts, code = _type_of(self._dtype, self._type_name)
        native = _baton.create_domain_publisher(
            self._node._node, self._topic, type_name, facts, self._domain, self._qos, code,
            self._shape,
        )  # fmt: skip
        return self._node._keep(DomainPublisher(native, self._dtype, type_name))


class DomainSubscriptionBuilder:
    """``node.domain_subscription(topic, dtype, domain).qos(q).create()``; ``take(timeout)``
    returns a DomainSample (no executor callbacks for domain subscriptions yet)."""

    def __init__(
        self, node: Node, topic: str, dtype: Any, domain: str, type_name: Optional[str], raw: bool
    ):
        from . import QoS

        self._node, self._topic, self._domain = node, topic, domain
        self._dtype = None if dtype is None else np.dtype(dtype)
        self._type_name = type_name
        self._raw = raw
        self._qos = QoS()

    def qos(self, qos: Any) -> DomainSubscriptionBuilder:
        self._qos = qos
        return self

    def create(self) -> DomainSubscription:
        type_name, facts, _ = _type_of(self._dtype, self._type_name)
        return self._node._keep(
            _baton.create_domain_subscription(
                self._node._node, self._topic, type_name, facts, "", self._domain, self._qos,
                self._raw,
            )
        )  # fmt: skip


__all__ = [
    "DeviceLoan",
    "DomainPublisher",
    "DomainPublisherBuilder",
    "DomainSample",
    "DomainSubscription",
    "DomainSubscriptionBuilder",
    "domain_info",
]
