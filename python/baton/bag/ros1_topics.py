"""ROS 1 topics in bags: what the recorder subscribes to on a ROS 1 master, and what the player
publishes there, through a ``baton.ros1`` node of its own (created on first use).

Recording: each wanted topic with a publisher on the master (``Master.topics()``) gets a
subscription whose callback copies the serialized message (ROS 1 bytes, as TCPROS carried them
or as a baton publisher wrote them in shared memory) into the recorder's queue; the writer
stores them unchanged under the `ros1` encoding with the type's `ros1msg` schema. Playing: each
`ros1` channel gets a ``baton.ros1`` publisher of its type (latched if the channel's metadata
says ``latching=1``; the recorder cannot tell, the subscription does not expose the publisher's
connection header), and each message is sent as it was recorded (``publish_serialized``: no
decode, no re-encode).
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Optional

from .selection import TopicSelection

LINGER = 30.0  # s a closing player waits for a subscriber to take what it was sent

# Called on a receiving thread: (topic, log time ns, sequence, bytes) -> queued?
Enqueue = Callable[[str, int, int, bytes], bool]


class Ros1Recording:
    """The ROS 1 side of a :class:`~baton.bag.Recorder`."""

    def __init__(self, selection: TopicSelection, master_uri: Optional[str], name: str):
        from .. import ros1

        self.selection = selection
        self.master = ros1.Master(master_uri, timeout=2.0)
        self.node = ros1.Node(name, master_uri=self.master.uri, argv=[])
        self.types: dict[str, tuple[str, str, dict]] = {}  # topic -> (type, md5sum, qos)
        self._subs: dict[str, Any] = {}
        self.warnings: list[str] = []
        self._skipped: set[str] = set()
        self._lost_at_close: dict[str, int] = {}

    def discover(self, enqueue: Enqueue) -> list[str]:
        """Subscribes to wanted topics that have a publisher now; returns those added."""
        from .. import ros1
        from ..errors import Ros1UnknownTypeError

        added = []
        for t in self.master.topics():
            name, type_name = t["name"], t["type"]
            if name in self._subs or name in self._skipped or not t["publishers"]:
                continue
            if not self.selection.wanted(name):
                continue
            try:
                md5 = ros1.message_type(type_name)["md5sum"]
            except Ros1UnknownTypeError as e:  # its .msg is not installed here: cannot subscribe
                self._skipped.add(name)
                self.warnings.append(f"{name}: not recorded: {e.detail}")
                continue
            self.types[name] = (type_name, md5, {})
            self._subs[name] = self.node.subscription(
                name, type_name, self._callback(name, enqueue), raw=True, queue_size=1000
            )
            added.append(name)
        return added

    def _callback(self, topic: str, enqueue: Enqueue) -> Callable[[Any], None]:
        def on_sample(sample: Any) -> None:
            # The sample is valid during this call only (it may be a loan in shared memory).
            enqueue(topic, time.time_ns(), sample.sequence, sample.tobytes())

        return on_sample

    def lost(self, topic: str) -> int:
        """Messages overwritten unread in shared memory (a TCPROS publisher's drops are its own
        and it does not report them)."""
        if topic in self._lost_at_close:
            return self._lost_at_close[topic]
        return int(self._subs[topic].stats["shm"]["dropped"])

    @property
    def topics(self) -> list[str]:
        return list(self._subs)

    def close(self) -> None:
        """No callback runs after this returns; lost() keeps its last counts."""
        self._lost_at_close = {t: self.lost(t) for t in self._subs}
        self.node.close()


class Ros1Playback:
    """The ROS 1 side of a :class:`~baton.bag.Player`."""

    def __init__(self, master_uri: Optional[str] = None):
        from .. import ros1

        self.node = ros1.Node(f"baton_bag_play_{os.getpid()}", master_uri=master_uri, argv=[])
        self._pubs: list[Any] = []

    def publisher(self, name: str, info: Any) -> Any:
        latch = info.qos.get("durability") == "transient_local"
        pub = self.node.publisher(name, info.type_name, latch=latch, queue_size=1000)
        self._pubs.append(pub)
        return pub

    @staticmethod
    def wait_for_subscriber(pub: Any, stop: Any = None) -> bool:
        """Waits until the publisher has a subscriber (TCPROS, or a baton one over BATONSHM);
        False if `stop` is set first."""
        while pub.subscriber_count == 0:
            if stop is not None and stop.is_set():
                return False
            pub.wait_for_subscribers(1, timeout=0.1)
        return True

    def close(self, linger: float = LINGER) -> None:
        """Closes the publishers once what they queued is written (at most `linger` s each):
        closing drops a TCPROS subscriber's queue, and a bag's last messages must arrive."""
        for pub in self._pubs:
            pub.wait_until_sent(linger)
        self.node.close()
