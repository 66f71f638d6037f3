"""baton.bag.Player: publishes a bag's messages through loans, with their original timing."""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from ..realtime import check_priority, realtime_thread
from .reader import Reader, check_playable
from .ros1_topics import Ros1Playback


class Player:
    """Plays bags (``paths``: one file, or the files of a split recording, in order).

    Each recorded topic gets a publisher of its recorded type, type hash and QoS (depth,
    reliability, durability, from the bag's channel metadata; a foreign ROS 2 bag's topics get
    the ROS 2 hash of their type and default QoS). Messages are published through loans at
    their recorded log-time spacing divided by ``rate``, from ``start_offset`` seconds into the
    bag; ``loop`` repeats. ``remap`` maps recorded topic names to the names to publish on.
    Raises UnknownSchemaError before publishing anything if a chosen topic cannot be played.

    ROS 1 topics (`ros1` channels) are published on the ROS master at ``ros1_master_uri`` (or
    ROS_MASTER_URI) by a ``baton.ros1`` node, each message as recorded (no re-serialization).
    ``wait_for_subscribers``: before the first message, wait until every ROS 1 topic has a
    subscriber (a ROS 1 subscriber connects some time after the publisher appears; what is
    published before is not delivered), as ``rosbag play --wait-for-subscribers``.

    ``wire``: ROS 2 topics are published by a native ROS 2 publisher (``_baton.Ros2WireNode``, a
    DDS participant of ROS_DOMAIN_ID) that writes each recorded message into a loan as well, and
    sends it on the DDS wire to subscribers of other RMWs (rclpy on Fast DDS) as ROS 2 publishers
    do; baton subscribers still get it from shared memory, once. The types' .msg files must be on
    AMENT_PREFIX_PATH (Ros2UnknownTypeError otherwise). With ``wait_for_subscribers``, each such
    topic first waits for a matched DDS reader or a baton subscriber.

    ``realtime_priority`` (1..99): ``run()`` plays in SCHED_FIFO at that priority, so the due
    times are kept on a machine with more runnable threads than cores (a time-shared thread
    waits there for a core, often milliseconds, after each sleep); it needs CAP_SYS_NICE or an
    rtprio limit (PermissionDeniedError otherwise, before anything is published).
    """

    def __init__(
        self,
        paths: Sequence[str | os.PathLike],
        *,
        topics: Optional[Iterable[str]] = None,
        rate: float = 1.0,
        loop: bool = False,
        start_offset: float = 0.0,
        remap: Optional[dict[str, str]] = None,
        context: Any = None,
        ros1_master_uri: Optional[str] = None,
        wait_for_subscribers: bool = False,
        wire: bool = False,
        realtime_priority: Optional[int] = None,
    ):
        import baton

        if rate <= 0:
            raise ValueError("rate must be > 0")
        self.readers = [
            Reader(p) for p in ([paths] if isinstance(paths, (str, os.PathLike)) else paths)
        ]
        self.rate, self.loop, self.remap = rate, loop, dict(remap or {})
        self.realtime_priority = (
            None if realtime_priority is None else check_priority(realtime_priority)
        )
        self.start_offset_ns = int(start_offset * 1e9)
        self.context = context or baton.Context.create(janitor_period=0.0)
        self.node = baton.Node(self.context, f"_baton_bag_play_{os.getpid()}")
        self.published: dict[str, int] = {}
        self._topics = None if topics is None else set(topics)
        self._pubs: dict[str, Any] = {}
        self._ros1_master_uri = ros1_master_uri
        self.ros1: Optional[Ros1Playback] = None
        self._ros1_topics: set[str] = set()
        self.wait_for_subscribers = wait_for_subscribers
        self.wire: Any = None  # the Ros2WireNode, made with the first ROS 2 topic
        self._wire_enabled = wire
        self._wire_topics: set[str] = set()
        for r in self.readers:
            for topic, info in r.topics.items():
                if (self._topics is not None and topic not in self._topics) or topic in self._pubs:
                    continue
                check_playable(info, r.channel_of(topic))
                self._pubs[topic] = self._publisher(topic, info)
                self.published[topic] = 0
                if info.kind != "ros1":
                    self._reserve(r, topic, info)

    def _publisher(self, topic: str, info: Any) -> Any:
        import baton
        from baton import _baton

        if info.kind == "ros1":
            if self.ros1 is None:
                self.ros1 = Ros1Playback(self._ros1_master_uri)
            self._ros1_topics.add(topic)
            return self.ros1.publisher(self.remap.get(topic, topic), info)
        q = info.qos
        qos = baton.QoS(int(q.get("depth", 10)))
        qos = qos.best_effort() if q.get("reliability") == "best_effort" else qos.reliable()
        if q.get("durability") == "transient_local":
            qos.transient_local()
        if info.kind == "ros2" and self._wire_enabled:
            return self._wire_publisher(topic, info, qos)
        type_hash = info.type_hash or (
            _baton.ros2_topic_hash(info.type_name) if info.kind == "ros2" else ""
        )
        name = self.remap.get(topic, topic)
        pub = _baton.create_publisher(
            self.node._node, name, info.type_name, "", type_hash, qos, False, 0, 0, [], 0
        )
        return self.node._keep(pub)

    def _wire_publisher(self, topic: str, info: Any, qos: Any) -> Any:
        from baton import _baton
        from baton.errors import Ros2WireError

        if not _baton.HAVE_ROS2_WIRE:
            raise Ros2WireError("this baton was built without CycloneDDS: no DDS wire for --wire")
        if self.wire is None:
            self.wire = _baton.Ros2WireNode(self.context, f"baton_bag_play_{os.getpid()}")
        self._wire_topics.add(topic)
        return self.wire.publisher(self.remap.get(topic, topic), info.type_name, qos)

    def _wait_for_wire_reader(self, pub: Any, stop: Optional[threading.Event]) -> bool:
        """Until a DDS reader of another RMW or a baton subscriber has matched `pub` (the C++
        publisher gives counts, not an event: polled every 10 ms); False if `stop` is set."""
        while pub.wire_foreign_readers == 0 and pub.shm_subscribers == 0:
            if stop is not None and stop.is_set():
                return False
            time.sleep(0.01)
        return True

    def _reserve(self, reader: Reader, topic: str, info: Any) -> None:
        """Reserves the topic's pool before playing: room for depth + 2 chunks of its first
        message's size (a camera's frames are one size), the first committed and pre-faulted.
        Without it the pool grew during play and each new 4K chunk's first touch made the first
        ~15 frames up to 25 ms late (bench/bag/run.py --play-only). Memory: chunks of 1 MiB and
        more are committed in /dev/shm as frames first need them (one while readers keep up),
        smaller ones all at once: at most (depth + 2) x that size, as a live publisher's.
        A ``--wire`` topic's native ROS 2 publisher reserves the same for its serialized loans."""
        first = next(iter(reader.messages([topic])), None)
        if first is not None and first.data:
            depth = int(info.qos.get("depth", 10))
            if topic in self._wire_topics:
                self._pubs[topic].reserve(depth + 2, len(first.data))
            else:
                self._pubs[topic].reserve(depth + 2, None, len(first.data))

    def close(self) -> None:
        """Unregisters the ROS 1 publishers from the master (baton's go with the context) and
        deletes the DDS writers (Cyclone lingers until readers acknowledged what was sent)."""
        if self.ros1 is not None:
            self.ros1.close()
        for t in self._wire_topics:
            self._pubs.pop(t, None)
        self._wire_topics.clear()
        self.wire = None

    @property
    def publishers(self) -> dict[str, Any]:
        return dict(self._pubs)

    def _prepare(self, topic: str, data: bytes) -> Any:
        """A loan holding the message (None for an empty one), filled before it is due, so that
        at its time only the publish remains (a 4K frame's copy would otherwise delay it)."""
        if topic in self._ros1_topics:
            return data  # sent as recorded
        if topic in self._wire_topics:
            loan = self._pubs[topic].loan(len(data))  # the CDR bytes as recorded, header included
        elif not data:
            return None
        else:
            loan = self._pubs[topic].loan(None, len(data))
        loan.array[:] = np.frombuffer(data, np.uint8)  # the file's bytes into the loan
        return loan

    def _publish(self, topic: str, loan: Any) -> None:
        pub = self._pubs[topic]
        if topic in self._ros1_topics:
            pub.publish_serialized(loan)
        elif loan is None:
            pub.publish_copy(b"")
        else:
            pub.publish(loan)
        self.published[topic] += 1

    def run(self, stop: Optional[threading.Event] = None) -> dict[str, int]:
        """Plays (and loops) until the end or `stop`; returns messages published per topic. With
        ``realtime_priority`` the calling thread plays in SCHED_FIFO (:mod:`baton.realtime`)."""
        with realtime_thread(self.realtime_priority):
            return self._play(stop)

    def _play(self, stop: Optional[threading.Event]) -> dict[str, int]:
        wanted = list(self._pubs)
        if self.wait_for_subscribers:
            for t in sorted(self._ros1_topics):
                if not Ros1Playback.wait_for_subscriber(self._pubs[t], stop):
                    return dict(self.published)
            for t in sorted(self._wire_topics):
                if not self._wait_for_wire_reader(self._pubs[t], stop):
                    return dict(self.published)
        while True:
            first: Optional[int] = None
            t0 = 0.0
            start = min(r.start_time for r in self.readers) + self.start_offset_ns
            for r in self.readers:
                for m in r.messages(wanted, start_time=start):
                    loan = self._prepare(m.topic, m.data)
                    if first is None:
                        # The schedule starts once the first message is ready to go: started
                        # before its copy, the first message was late and the next ones bunched.
                        first, t0 = m.log_time, time.monotonic()
                    due = t0 + (m.log_time - first) / 1e9 / self.rate
                    while (left := due - time.monotonic()) > 0:
                        if stop is not None and stop.wait(min(left, 0.1)):
                            return dict(self.published)
                        if stop is None:
                            time.sleep(left)
                    if stop is not None and stop.is_set():
                        return dict(self.published)
                    self._publish(m.topic, loan)
            if not self.loop or first is None:
                return dict(self.published)
