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

import concurrent.futures
import time
from typing import Any, Callable, Optional, Sequence

import numpy as np

from . import _baton, domains
from .domains import DeviceLoan, DomainPublisher, DomainSample, DomainSubscription, domain_info
from .errors import *  # noqa: F401,F403
from .errors import BatonError, InvalidShapeError, TopicNotFoundError, TypeMismatchError

__version__ = "0.1.0"

QoS = _baton.QoS
Context = _baton.Context
Sample = _baton.Sample
Loan_ = _baton.Loan
Subscription = _baton.Subscription
Service = _baton.Service
Client = _baton.Client

#: Type name given to array topics when the publisher names none: "baton/msg/NDArray[<dtype>]".
ARRAY_TYPE_PREFIX = "baton/msg/NDArray"

_DLPACK_CODE = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
_KIND_OF_CODE = {0: "i", 1: "u", 2: "f", 5: "c", 6: "b"}


def dtype_code(dtype: Any) -> tuple[int, int]:
    """(DLPack type code, bits) of a numpy dtype; raises TypeMismatchError if unsupported."""
    dt = np.dtype(dtype)
    if dt.kind not in _DLPACK_CODE or dt.fields is not None or dt.subdtype is not None:
        raise TypeMismatchError(
            f"dtype {dt} is not supported (use bool, int, uint, float, complex)"
        )
    if dt.byteorder == ">" or (dt.byteorder == "=" and not np.little_endian):
        raise TypeMismatchError(f"dtype {dt} is big-endian; use {dt.newbyteorder('<')}")
    return _DLPACK_CODE[dt.kind], dt.itemsize * 8


def dtype_of(code: int, bits: int) -> np.dtype:
    """The numpy dtype of a DLPack (code, bits) pair."""
    if code == 6:
        return np.dtype(np.bool_)
    return np.dtype(f"<{_KIND_OF_CODE[code]}{bits // 8}")


def array_type_name(dtype: Any) -> str:
    return f"{ARRAY_TYPE_PREFIX}[{np.dtype(dtype).name}]"


def array_layout_facts(dtype: Any) -> str:
    code, bits = dtype_code(dtype)
    return f"ndarray;v={_baton.NDARRAY_HEADER_VERSION};dtype={code}:{bits}"


# --- Context ------------------------------------------------------------------------------------

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


# --- Publishers ---------------------------------------------------------------------------------


class Loan:
    """A writable loan of shared memory. ``array`` views it in place (no copy).

    Ownership: the loan *borrows* a chunk of the publisher's pool until published (``publish()``
    or the end of a ``with`` block without an exception) or dropped. Views of ``array`` are
    valid until then: do not write through them after publishing.
    """

    __slots__ = ("_loan", "_pub")

    def __init__(self, loan: Any, pub: Any):
        self._loan = loan
        self._pub = pub

    @property
    def array(self) -> np.ndarray:
        return self._loan.array

    @property
    def data_ptr(self) -> int:
        return self._loan.data_ptr

    @property
    def nbytes(self) -> int:
        return self._loan.nbytes

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._loan.shape)

    @property
    def valid(self) -> bool:
        return self._loan.valid

    def publish(self) -> None:
        self._pub.publish(self._loan)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._loan.array

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self._loan.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._loan.__dlpack_device__()

    def __enter__(self) -> np.ndarray:
        return self._loan.array

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        if exc_type is None and self._loan.valid:
            self._pub.publish(self._loan)
        self._loan = None  # an unpublished loan goes back to the pool


class Publisher:
    """Publishes numpy arrays (array publishers) or bytes (raw publishers) through loans."""

    def __init__(self, native: Any, dtype: Optional[np.dtype], type_name: str):
        self._pub = native
        self.dtype = dtype
        self.type_name = type_name

    def loan(self, shape: Optional[Sequence[int]] = None, *, nbytes: Optional[int] = None) -> Loan:
        """Borrows a chunk for one message: of `shape` (default: the declared shape) for array
        publishers, of `nbytes` bytes for raw ones."""
        if self.dtype is None:
            if nbytes is None:
                if shape is None:
                    raise InvalidShapeError("a raw publisher's loan needs nbytes=")
                nbytes = int(np.prod(shape))
            return Loan(self._pub.loan(None, int(nbytes)), self._pub)
        return Loan(
            self._pub.loan(None if shape is None else [int(s) for s in shape], None), self._pub
        )

    def reserve(
        self, count: int, shape: Optional[Sequence[int]] = None, *, nbytes: Optional[int] = None
    ) -> int:
        """Pays for `count` messages now: the next `count` loans (of `shape`, default the declared
        shape, for array publishers; of up to `nbytes` for raw ones) neither grow the pool nor
        commit memory. A ring of depth d needs d + 2 (ring, loan, a sample a reader holds).
        Returns the chunks added."""
        if self.dtype is None and nbytes is None:
            raise InvalidShapeError("a raw publisher's reserve needs nbytes=")
        return self._pub.reserve(
            int(count), None if shape is None else [int(s) for s in shape], nbytes
        )

    def publish(self, msg: Any) -> None:
        """Publishes a Loan (zero-copy), or copies an array / bytes-like / str once."""
        if isinstance(msg, Loan):
            msg.publish()
            return
        if isinstance(msg, str):
            msg = msg.encode()
        if self.dtype is not None:
            msg = np.ascontiguousarray(msg, dtype=self.dtype)
        self._pub.publish_copy(msg)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._pub.shape)

    @property
    def pool(self) -> dict[str, int]:
        """The publisher's chunk pool now: data segments, chunks (committed), free chunks,
        committed_bytes (/dev/shm in use) and address_bytes (what max_pool_bytes limits)."""
        return dict(self._pub.pool)

    @property
    def topic_name(self) -> str:
        return self._pub.topic_name

    @property
    def qos(self) -> QoS:
        return self._pub.qos

    def get_subscription_count(self) -> int:
        return self._pub.subscription_count

    @property
    def subscription_count(self) -> int:
        return self._pub.subscription_count


class PublisherBuilder:
    """``node.publisher(topic, dtype, shape).qos(q).max_message_size(n).create()``"""

    def __init__(
        self, node: Node, topic: str, dtype: Any, shape: Sequence[int], type_name: Optional[str]
    ):
        self._node = node
        self._topic = topic
        self._dtype = None if dtype is None else np.dtype(dtype)
        self._shape = [int(s) for s in shape]
        self._type_name = type_name
        self._qos = QoS()
        self._max = 0
        self._reserve_count = 0
        self._reserve_nbytes: Optional[int] = None

    def qos(self, qos: QoS) -> PublisherBuilder:
        self._qos = qos
        return self

    def max_message_size(self, nbytes: int) -> PublisherBuilder:
        """Largest single message in bytes (default 256 MiB)."""
        self._max = int(nbytes)
        return self

    def reserve(self, count: int, *, nbytes: Optional[int] = None) -> PublisherBuilder:
        """Pays at create() for `count` messages (of the declared shape, or of up to `nbytes`
        for raw publishers), e.g. ``.reserve(qos.depth + 2)`` for a camera's fixed frames, so
        the first messages do not wait for the pool to grow. create() raises ReservationError
        if the memory cannot be had."""
        if self._dtype is None and nbytes is None:
            raise InvalidShapeError("a raw publisher's reserve needs nbytes=")
        self._reserve_count = int(count)
        self._reserve_nbytes = None if nbytes is None else int(nbytes)
        return self

    def create(self) -> Publisher:
        if self._dtype is None:
            type_name = self._type_name or "baton/msg/Bytes"
            native = _baton.create_publisher(
                self._node._node,
                self._topic,
                type_name,
                "",
                "",
                self._qos,
                False,
                0,
                0,
                [],
                self._max,
                self._reserve_count,
                self._reserve_nbytes,
            )
            return self._node._keep(Publisher(native, None, type_name))
        code, bits = dtype_code(self._dtype)
        type_name = self._type_name or array_type_name(self._dtype)
        native = _baton.create_publisher(
            self._node._node,
            self._topic,
            type_name,
            array_layout_facts(self._dtype),
            "",
            self._qos,
            True,
            code,
            bits,
            self._shape,
            self._max,
            self._reserve_count,
            self._reserve_nbytes,
        )
        return self._node._keep(Publisher(native, self._dtype, type_name))


# --- Subscriptions ------------------------------------------------------------------------------


class SubscriptionBuilder:
    """``node.subscription(topic, dtype).qos(q).callback(fn).wait_mode("blocking").create()``

    With ``dtype=None`` and no type name, the subscription takes the type the topic already has
    (from discovery): it receives whatever is published there, arrays or bytes.
    """

    def __init__(self, node: Node, topic: str, dtype: Any, type_name: Optional[str], raw: bool):
        self._node = node
        self._topic = topic
        self._dtype = None if dtype is None else np.dtype(dtype)
        self._type_name = type_name
        self._raw = raw
        self._qos = QoS()
        self._callback: Optional[Callable[[Sample], Any]] = None
        self._wait_mode = "blocking"
        self._discovery_timeout = 0.0

    def qos(self, qos: QoS) -> SubscriptionBuilder:
        self._qos = qos
        return self

    def callback(self, fn: Callable[[Sample], Any]) -> SubscriptionBuilder:
        self._callback = fn
        return self

    def wait_mode(self, mode: str) -> SubscriptionBuilder:
        """ "blocking" (default), "busy-poll" or "adaptive"."""
        self._wait_mode = mode
        return self

    def discovery_timeout(self, seconds: float) -> SubscriptionBuilder:
        """For type-less subscriptions: how long to wait for the topic to appear (default 0)."""
        self._discovery_timeout = float(seconds)
        return self

    def create(self) -> Subscription:
        type_name, facts, hash_hex = self._type_name or "", "", ""
        if self._dtype is not None:
            type_name = type_name or array_type_name(self._dtype)
            facts = array_layout_facts(self._dtype)
        elif not type_name:
            resolved = self._node.resolve(self._topic)
            type_name, hash_hex = topic_type(resolved, self._node.context, self._discovery_timeout)
        return self._node._keep(
            _baton.create_subscription(
                self._node._node,
                self._topic,
                type_name,
                facts,
                hash_hex,
                self._qos,
                self._raw,
                self._wait_mode,
                self._callback,
            )
        )


# --- Services -----------------------------------------------------------------------------------


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


# --- Node ---------------------------------------------------------------------------------------


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


# --- Executors ----------------------------------------------------------------------------------


class Executor:
    """Runs callbacks of subscriptions, services and clients (see C++ api/executor.hpp)."""

    def __init__(
        self,
        context: Optional[Context] = None,
        *,
        num_threads: int = 0,
        multi: bool = False,
        wait_mode: str = "blocking",
    ):
        self.context = context or default_context()
        self._exec = _baton.Executor(self.context, num_threads, multi, wait_mode)

    def add_node(self, node: Node) -> None:
        self._exec.add_node(node._node)

    def add_subscription(self, entity: Any) -> None:
        """Adds a Subscription, Service or Client."""
        self._exec.add_subscription(entity)

    add_service = add_subscription
    add_client = add_subscription

    def remove_subscription(self, entity: Any) -> bool:
        return self._exec.remove_subscription(entity)

    def spin(self) -> None:
        self._exec.spin()

    def spin_once(self, timeout_sec: Optional[float] = None) -> bool:
        return self._exec.spin_once(-1.0 if timeout_sec is None else float(timeout_sec))

    def spin_some(self, max_duration: float = 0.0) -> None:
        self._exec.spin_some(max_duration)

    def spin_until_future_complete(
        self, future: concurrent.futures.Future, timeout_sec: Optional[float] = None
    ) -> bool:
        """Spins until `future` is done or the timeout passes; True if done."""
        deadline = None if timeout_sec is None else time.monotonic() + timeout_sec
        while not future.done():
            left = 0.1 if deadline is None else min(0.1, deadline - time.monotonic())
            if left <= 0:
                break
            self._exec.spin_once(left)
        return future.done()

    def cancel(self) -> None:
        self._exec.cancel()


class SingleThreadedExecutor(Executor):
    def __init__(self, context: Optional[Context] = None, *, wait_mode: str = "blocking"):
        super().__init__(context, wait_mode=wait_mode)


class MultiThreadedExecutor(Executor):
    def __init__(
        self,
        context: Optional[Context] = None,
        num_threads: int = 0,
        *,
        wait_mode: str = "blocking",
    ):
        super().__init__(context, num_threads=num_threads, multi=True, wait_mode=wait_mode)


def spin(node: Node, executor: Optional[Executor] = None) -> None:
    ex = executor or SingleThreadedExecutor(node.context)
    ex.add_node(node)
    ex.spin()


def spin_once(node: Node, timeout_sec: Optional[float] = None) -> bool:
    ex = SingleThreadedExecutor(node.context)
    ex.add_node(node)
    return ex.spin_once(timeout_sec)


# --- Graph --------------------------------------------------------------------------------------


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
