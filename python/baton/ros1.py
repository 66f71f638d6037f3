"""baton.ros1: baton nodes on a ROS 1 graph, from Python, in rospy's vocabulary.

    from baton import ros1

    node = ros1.Node("talker")                      # ROS_MASTER_URI, ROS_IP / ROS_HOSTNAME
    pub = node.publisher("chatter", "std_msgs/String")
    pub.publish({"data": "hello"})                  # or any object with the fields as attributes

    def on_msg(msg):                                # on a receiving thread, as rospy's callbacks
        print(msg.data)                             # a Message: a dict with attribute access
    sub = node.subscription("chatter", "std_msgs/String", on_msg)

It is baton's C++ ROS 1 node (``include/baton/ros1``): it registers with the master over
XML-RPC, stock rospy / roscpp nodes reach it over TCPROS, and baton nodes on this host negotiate
BATONSHM and read each other's messages in place in shared memory. Types come from the ``.msg``
files Debian's ROS 1 packages install (``/usr/share/<pkg>/msg``, ``ROS_PACKAGE_PATH``).

Messages: ``publish`` takes a dict (missing fields are zero / empty) or a rospy-style object;
``uint8[]`` fields may be any buffer (bytes, numpy), which is viewed, not copied, until the
message is serialized (once, however many subscribers). Callbacks get a :class:`Message` whose
``uint8[]`` fields are ``bytes`` (as rospy's), ``time`` / ``duration`` fields ``{secs, nsecs}``
(``publish`` also takes seconds as a float); with ``in_place=True`` they are read-only
memoryviews of the bytes where they arrived, valid during the callback only: over BATONSHM that
is the publisher's shared memory, so a 4K image is not copied at all. ``raw=True`` hands the
callback the :class:`baton._baton.Ros1Sample` itself (``data``: the serialized bytes in place,
``transport``: "TCPROS" or "BATONSHM", ``source``: the publisher's callerid, ``message()``).

Names: ``__name:=``, ``__ns:=``, ``__master:=``, ``__ip:=``, ``__hostname:=`` in ``argv``
(default ``sys.argv``) and ``ROS_NAMESPACE`` apply as they do to the C++ node. Errors:
:class:`~baton.errors.Ros1NoMasterUriError`, :class:`~baton.errors.Ros1MasterUnreachableError`,
:class:`~baton.errors.Ros1UnknownTypeError`, :class:`~baton.errors.Ros1Md5MismatchError`
(raised by ``wait_for_publishers`` / ``wait_for_subscribers`` when a peer was refused for it).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import time
import weakref
from typing import Any, Callable, Optional, Sequence

from . import _baton
from .errors import Ros1Error, Ros1Md5MismatchError, Ros1NoMasterUriError

#: Whether this build has the ROS 1 node (it needs xmlrpcpp: scripts/install-ros1.sh); without
#: it only the codec functions (message_type, serialize, deserialize) work.
NODE_AVAILABLE = bool(_baton.ROS1_NODE_AVAILABLE)


class Message(dict):
    """A ROS 1 message as a dict of its fields, also readable and writable as attributes
    (``msg.header.stamp.secs``), so rospy-style code reads it unchanged."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value


def _wrap(value: Any) -> Any:
    if isinstance(value, dict):
        return Message({k: _wrap(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


def message_type(type_name: str) -> dict:
    """``{name, md5sum, definition, text}`` of a ROS 1 type: genmsg's md5sum and full
    definition (what TCPROS headers and MCAP's ``ros1msg`` schemas carry)."""
    return _baton.ros1_message_type(type_name)


def serialize(type_name: str, message: Any) -> bytes:
    """The ROS 1 serialization of ``message`` (a dict or rospy-style object)."""
    return _baton.ros1_encode(type_name, message)


def deserialize(type_name: str, data: bytes) -> Message:
    """Decodes ROS 1 serialized bytes (untrusted: every length is checked)."""
    return _wrap(_baton.ros1_decode(type_name, bytes(data)))


def _require_node() -> None:
    if not NODE_AVAILABLE:
        raise Ros1Error(
            "this baton was built without the ROS 1 node (xmlrpcpp was not found)",
            code="Ros1Unavailable",
            hint="install ROS 1 (scripts/install-ros1.sh) and rebuild baton",
        )


def master_uri(uri: Optional[str] = None) -> str:
    """``uri``, else ``$ROS_MASTER_URI``; Ros1NoMasterUriError when neither is set."""
    uri = uri or os.environ.get("ROS_MASTER_URI", "")
    if not uri:
        raise Ros1NoMasterUriError("ROS_MASTER_URI is not set")
    return uri


class Master:
    """The ROS master's graph queries (no node needed), each with a deadline of ``timeout`` s:
    an unreachable master is :class:`~baton.errors.Ros1MasterUnreachableError`, never a hang."""

    def __init__(self, uri: Optional[str] = None, timeout: float = 1.0):
        _require_node()
        self.uri = master_uri(uri)
        self.timeout = timeout

    def pid(self) -> int:
        return _baton.ros1_master_pid(self.uri, self.timeout)

    def system_state(self) -> dict:
        """``{publishers, subscribers, services}``: each a list of (name, [node, ...])."""
        return _baton.ros1_system_state(self.uri, self.timeout)

    def topic_types(self) -> dict[str, str]:
        return dict(_baton.ros1_topic_types(self.uri, self.timeout))

    def topics(self) -> list[dict]:
        """Every topic the master knows: name, type, publishers and subscribers (node names)."""
        state, types = self.system_state(), self.topic_types()
        pubs, subs = dict(state["publishers"]), dict(state["subscribers"])
        names = sorted(set(pubs) | set(subs) | set(types))
        return [
            {
                "name": n,
                "type": types.get(n, ""),
                "publishers": sorted(pubs.get(n, [])),
                "subscribers": sorted(subs.get(n, [])),
            }
            for n in names
        ]


_live: weakref.WeakSet[Node] = weakref.WeakSet()
_in_callback = threading.local()  # set while this thread runs a subscription's callback


def _refuse_close_in_callback(what: str) -> None:
    # Closing joins the receiving threads, one of which is this one: it would wait for itself.
    if getattr(_in_callback, "active", False):
        raise Ros1Error(
            f"{what}.close() called from a subscription callback",
            code="Ros1CloseInCallback",
            hint="close from another thread (e.g. set an Event in the callback and close after "
            "it fires)",
        )


@atexit.register
def _close_all() -> None:
    # Before the interpreter finalizes: a receiving thread must not wait for the GIL then.
    for node in list(_live):
        node.close()


def _remap_arguments(argv: Optional[Sequence[str]]) -> list[str]:
    args = sys.argv[1:] if argv is None else list(argv)
    return [a for a in args if a.startswith("__") and ":=" in a]


class _Md5Watch:
    """Finds md5sum refusals of one topic in its node's log (the C++ node logs each refused
    connection with the reason; a wrong md5sum is refused by either end: baton says "md5sum
    mismatch", rospy "topic types do not match" or "... datatype/md5sum ...")."""

    REASONS = ("md5sum", "types do not match")

    def __init__(self, node: Node, topic: str, type_name: str, md5sum: str, since: int):
        self.node, self.topic, self.type = node, topic, f"{type_name} (md5sum {md5sum})"
        self.since = since  # the node's log position before the endpoint was made
        # "TCPROS /t from <uri>: ..." (subscriber side), "TCPROS /t: refused ..." (publisher)
        self.prefixes = (f"TCPROS {topic} ", f"TCPROS {topic}:")

    def check(self) -> None:
        self.since, lines = self.node._native.log(self.since)
        for _level, text in lines:
            if text.startswith(self.prefixes) and any(r in text for r in self.REASONS):
                raise Ros1Md5MismatchError(
                    f"md5sum mismatch on {self.topic}: this end has {self.type}; {text}"
                )


def _wait(done: Callable[[float], bool], watch: _Md5Watch, timeout: Optional[float]) -> bool:
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        left = 0.1 if deadline is None else min(0.1, deadline - time.monotonic())
        if left <= 0:
            watch.check()
            return False
        if done(left):
            return True
        watch.check()


class _Endpoint:
    """What publishers and subscriptions share: the topic, its type, stats, closing."""

    def __init__(self, node: Node, native: Any, log_since: int):
        self._node, self._native = node, native
        t = native.type
        self.topic: str = native.topic
        self.type_name: str = t["name"]
        self.md5sum: str = t["md5sum"]
        self.definition: str = t["definition"]
        self._watch = _Md5Watch(node, self.topic, self.type_name, self.md5sum, log_since)

    @property
    def stats(self) -> dict:
        """``{"tcpros": WireStats, "shm": WireStats}`` as dicts (serialized, sent, dropped,
        received, refused, bytes)."""
        return {"tcpros": self._native.wire_stats, "shm": self._native.shm_stats}

    def close(self) -> None:
        """Unregisters from the master and closes the connections (a subscription's callback
        never runs after this returns). Not from a callback: Ros1Error."""
        _refuse_close_in_callback(type(self).__name__)
        self._native.close()

    def __enter__(self) -> _Endpoint:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Publisher(_Endpoint):
    """A ROS 1 topic published by a :class:`Node` (made by :meth:`Node.publisher`)."""

    def publish(self, message: Any) -> int:
        """Serializes ``message`` once and sends it to every subscriber; returns how many."""
        return self._native.publish(message)

    def publish_serialized(self, data: Any) -> int:
        """Sends bytes already serialized as ROS 1 (any buffer; not checked against the type)."""
        return self._native.publish_serialized(data)

    @property
    def subscriber_count(self) -> int:
        """TCPROS connections plus baton subscribers reading over BATONSHM."""
        return self._native.subscriber_count

    def wait_for_subscribers(self, n: int = 1, timeout: Optional[float] = None) -> bool:
        """Waits until ``n`` subscribers are connected over TCPROS (a BATONSHM subscriber does
        not tell its publisher: wait on its subscription). Raises Ros1Md5MismatchError if a
        subscriber was refused for its md5sum meanwhile."""
        return _wait(lambda s: self._native.wait_for_tcpros_subscribers(n, s), self._watch, timeout)

    def wait_until_sent(self, timeout: Optional[float] = None) -> bool:
        """Waits until every TCPROS subscriber's queue is written to its socket (True) or
        ``timeout`` s pass (False). Closing drops what is still queued: wait first when the
        last messages must arrive."""
        return self._native.wait_until_sent(-1.0 if timeout is None else timeout)


class Subscription(_Endpoint):
    """A ROS 1 topic subscribed by a :class:`Node` (made by :meth:`Node.subscription`)."""

    @property
    def publisher_count(self) -> int:
        """Publishers connected now, over TCPROS or granted BATONSHM."""
        return self._native.publisher_count

    def wait_for_publishers(self, n: int = 1, timeout: Optional[float] = None) -> bool:
        """Waits until ``n`` publishers are connected (True) or ``timeout`` s pass (False); once
        a publisher is connected, every message it publishes after reaches the callback. Raises
        Ros1Md5MismatchError if a publisher was refused for its md5sum meanwhile."""
        return _wait(lambda s: self._native.wait_for_publishers(n, s), self._watch, timeout)


class Node:
    """A ROS 1 node (baton's C++ ``ros1::Node``): ``Node("listener")``.

    ``master_uri`` (default ``$ROS_MASTER_URI``), ``host`` (the address other nodes reach this
    one at; default ``$ROS_IP``, else ``$ROS_HOSTNAME``, else the host name), ``namespace``
    (default ``$ROS_NAMESPACE``), ``argv`` (ROS remappings ``__name:=`` ...; default
    ``sys.argv``), ``anonymous`` (a unique suffix, as rospy's), ``shared_memory`` (BATONSHM with
    other baton nodes; off: TCPROS only), ``rpc_timeout`` (s, each XML-RPC call), ``context``
    (the baton Context the BATONSHM endpoints live in), ``echo_log`` (warnings and refusals to
    stderr; :meth:`log` has them either way), ``rosout`` (publish what the node logs at info or
    above on /rosout as rosgraph_msgs/Log, as rospy does; off: as rospy's ``disable_rosout``).
    Raises Ros1NoMasterUriError /
    Ros1MasterUnreachableError when there is no master to register with.
    """

    def __init__(
        self,
        name: str,
        *,
        master_uri: Optional[str] = None,
        host: Optional[str] = None,
        namespace: Optional[str] = None,
        argv: Optional[Sequence[str]] = None,
        anonymous: bool = False,
        shared_memory: bool = True,
        rpc_timeout: float = 5.0,
        context: Any = None,
        echo_log: bool = True,
        rosout: bool = True,
    ):
        _require_node()
        if anonymous:
            name = f"{name}_{os.getpid()}_{time.time_ns() % 10**9}"
        self._lock = threading.Lock()
        self._endpoints: list[Any] = []
        self._native = _baton.ros1_create_node(
            name, master_uri or "", host or "", namespace or "", _remap_arguments(argv),
            shared_memory, rpc_timeout, context, echo_log, rosout,
        )  # fmt: skip
        _live.add(self)

    @property
    def name(self) -> str:
        """Fully qualified: ``/ns/talker``."""
        return self._native.name

    @property
    def uri(self) -> str:
        """The node's slave API: ``http://host:port/``."""
        return self._native.uri

    @property
    def master_uri(self) -> str:
        return self._native.master_uri

    def resolve(self, name: str) -> str:
        """``name`` resolved as this node resolves topic names (``rel``, ``/abs``, ``~priv``)."""
        return self._native.resolve(name)

    def shutdown_requested(self) -> bool:
        """Someone called the slave API's shutdown (rospy would exit); the node keeps working."""
        return self._native.shutdown_requested()

    def log(self) -> list[tuple[str, str]]:
        """The node's recent log lines (level, text): refusals, dropped connections."""
        return self._native.log(0)[1]

    def logdebug(self, text: str) -> None:
        """Logs ``text`` at debug: to :meth:`log` only (below /rosout's level)."""
        self._native.write_log("debug", text)

    def loginfo(self, text: str) -> None:
        """Logs ``text`` at info, as ``rospy.loginfo``: to :meth:`log` and /rosout."""
        self._native.write_log("info", text)

    def logwarn(self, text: str) -> None:
        """Logs ``text`` at warn, as ``rospy.logwarn``: to :meth:`log`, /rosout and stderr."""
        self._native.write_log("warn", text)

    def logerr(self, text: str) -> None:
        """Logs ``text`` at error, as ``rospy.logerr``: to :meth:`log`, /rosout and stderr."""
        self._native.write_log("error", text)

    def publisher(
        self, topic: str, msg_type: str, *, latch: bool = False, queue_size: int = 100
    ) -> Publisher:
        """Advertises ``topic`` of ROS 1 type ``msg_type`` ("std_msgs/String")."""
        since = self._native.log(0)[0]  # refusals from here on concern the new endpoint
        pub = Publisher(self, self._native.advertise(topic, msg_type, latch, queue_size), since)
        with self._lock:
            self._endpoints.append(pub)
        return pub

    def subscription(
        self,
        topic: str,
        msg_type: str,
        callback: Callable[[Any], None],
        *,
        raw: bool = False,
        in_place: bool = False,
        queue_size: int = 100,
        tcp_nodelay: bool = True,
    ) -> Subscription:
        """Subscribes; ``callback`` gets each message once, in its publisher's order, on the
        node's receiving threads (one call at a time): a :class:`Message`, or with ``raw`` the
        :class:`baton._baton.Ros1Sample`. An exception it raises is reported and the
        subscription goes on."""

        def on_sample(sample: Any) -> None:
            _in_callback.active = True
            try:
                callback(sample if raw else _wrap(sample.message(in_place)))
            finally:
                _in_callback.active = False

        since = self._native.log(0)[0]  # refusals from here on concern the new endpoint
        native = self._native.subscribe(topic, msg_type, on_sample, queue_size, tcp_nodelay)
        sub = Subscription(self, native, since)
        with self._lock:
            self._endpoints.append(sub)
        return sub

    def close(self) -> None:
        """Closes every endpoint made here, then the node (unregistered from the master). Not
        from a subscription callback (Ros1Error: it would wait for its own thread)."""
        _refuse_close_in_callback("Node")
        with self._lock:
            endpoints, self._endpoints = self._endpoints, []
        for e in endpoints:
            e.close()
        self._native.close()
        _live.discard(self)

    def __enter__(self) -> Node:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


__all__ = [
    "Master",
    "Message",
    "NODE_AVAILABLE",
    "Node",
    "Publisher",
    "Subscription",
    "deserialize",
    "master_uri",
    "message_type",
    "serialize",
]
