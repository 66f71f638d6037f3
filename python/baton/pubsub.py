"""Publishers (loans, builders) and subscription builders of array and raw topics."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

import numpy as np

from . import _baton
from .arrays import array_layout_facts, array_type_name, dtype_code
from .errors import InvalidShapeError, TypeMismatchError
from .graph import explain_type_mismatch, ros2_hash_on_topic, topic_type

if TYPE_CHECKING:
    from .node import Node

QoS = _baton.QoS
Sample = _baton.Sample
Subscription = _baton.Subscription


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
        """Makes room for `count` messages now: the next `count` loans (of `shape`, default the
        declared shape, for array publishers; of up to `nbytes` for raw ones) never grow the
        pool. Messages under 1 MiB are committed at once, larger ones as loans first need them.
        A ring of depth d needs d + 2 (ring, loan, a sample a reader holds).
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
            resolved = self._node.resolve(self._topic)
            try:
                native = _baton.create_publisher(
                    self._node._node,
                    self._topic,
                    type_name,
                    "",
                    ros2_hash_on_topic(resolved, type_name, self._node.context),
                    self._qos,
                    False,
                    0,
                    0,
                    [],
                    self._max,
                    self._reserve_count,
                    self._reserve_nbytes,
                )
            except TypeMismatchError as e:
                explain_type_mismatch(e, resolved, type_name, self._node.context)
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
        elif self._raw:  # bytes typed by name: a ROS 2 topic's RIHS01 hash is taken
            resolved = self._node.resolve(self._topic)
            hash_hex = ros2_hash_on_topic(resolved, type_name, self._node.context)
        try:
            native = _baton.create_subscription(
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
        except TypeMismatchError as e:
            explain_type_mismatch(e, self._node.resolve(self._topic), type_name, self._node.context)
        return self._node._keep(native)
