"""baton.bag.Recorder: subscribes to topics and writes every message to a bag, in place."""

from __future__ import annotations

import os
import struct
import threading
import time
from typing import Any, Callable, Iterable, Optional

from .selection import TopicSelection
from .writer import Writer


class Recorder:
    """Records topics into a :class:`Writer`.

    Topics: ``topics`` (names), ``regex`` (matched against the full name) or
    ``all_topics=True``; topics that appear later are picked up by ``discover()`` (``run`` calls
    it every ``discovery_period`` seconds). Each topic gets a best-effort subscription of depth
    ``queue_depth`` taking the topic's own type (raw: the message's bytes as published), so a
    reliable publisher is never slowed down; what the recorder could not keep up with is counted
    in ``stats()`` as ``lost``.

    Zero-copy path: each sample's read-only view of the publisher's shared memory
    (``sample.array``, no copy) is handed to ``Writer.write`` as it is; the mcap library copies
    it into its chunk, which is the one write of those bytes. ``on_write`` (tests) sees each view.
    """

    def __init__(
        self,
        writer: Writer,
        *,
        topics: Iterable[str] = (),
        regex: Optional[str] = None,
        all_topics: bool = False,
        include_hidden: bool = False,
        queue_depth: int = 100,
        context: Any = None,
        flush_period: float = 1.0,
        discovery_period: float = 0.5,
        on_write: Optional[Callable[[str, Any], None]] = None,
    ):
        import baton

        self.writer = writer
        self.context = context or baton.Context.create(janitor_period=0.0)
        self.node = baton.Node(self.context, f"_baton_bag_record_{os.getpid()}")
        self.executor = baton.SingleThreadedExecutor(self.context)
        self.selection = TopicSelection(
            [self.node.resolve(t) for t in topics], regex, all_topics, include_hidden
        )
        self._depth = int(queue_depth)
        self._subs: dict[str, Any] = {}
        self._recorded: dict[str, int] = {}
        self._flush_period = flush_period
        self._discovery_period = discovery_period
        self._on_write = on_write
        self._error: Optional[BaseException] = None

    def discover(self) -> list[str]:
        """Subscribes to wanted topics that have a publisher now; returns those added."""
        import baton
        from baton import _baton

        added = []
        for name, t in self.selection.published(baton.graph_snapshot(self.context)).items():
            if name in self._subs:
                continue
            sub_qos = baton.QoS(self._depth).best_effort()
            sub = _baton.create_subscription(
                self.node._node, name, t.type_name, "", t.type_hash, sub_qos, True,
                "blocking", self._callback(name, t.type_name, t.type_hash, t.qos),
            )  # fmt: skip
            self.node._keep(sub)
            self.executor.add_subscription(sub)
            self._subs[name] = sub
            self._recorded[name] = 0
            added.append(name)
        return added

    def _callback(self, topic: str, type_name: str, type_hash: str, qos: dict) -> Callable:
        writer = self.writer

        def on_sample(sample: Any) -> None:
            view = memoryview(sample.array)  # the publisher's bytes, in place, read-only
            if topic not in writer.topics:
                writer.add_topic(topic, type_name, type_hash, qos, first_message=view)
            now = time.time_ns()
            stamp = now
            if writer.topics[topic].kind == "ndarray":
                stamp = struct.unpack_from("<Q", view, 24)[0] or now
            if self._on_write is not None:
                self._on_write(topic, view)
            writer.write(topic, view, now, stamp, sample.sequence)
            self._recorded[topic] += 1

        return on_sample

    def spin_once(self, timeout: float) -> bool:
        return self.executor.spin_once(timeout)

    def run(
        self,
        duration: Optional[float] = None,
        stop: Optional[threading.Event] = None,
        max_messages: int = 0,
    ) -> dict:
        """Records until `duration` seconds pass, `stop` is set or `max_messages` are written;
        returns stats(). A BagWriteError (disk full) stops it and is raised; the file is closed."""
        start = time.monotonic()
        next_flush = start + self._flush_period
        next_discovery = start
        while True:
            now = time.monotonic()
            if now >= next_discovery:
                self.discover()
                next_discovery = now + self._discovery_period
            if now >= next_flush:
                self.writer.flush()
                next_flush = now + self._flush_period
            if duration is not None and now - start >= duration:
                break
            if stop is not None and stop.is_set():
                break
            if max_messages and self.writer.message_count >= max_messages:
                break
            self.executor.spin_once(0.05)
        return self.stats()

    def stats(self) -> dict:
        """Per topic: messages recorded and lost (dropped by the best-effort queue)."""
        return {
            t: {"recorded": self._recorded[t], "lost": int(self._subs[t].lost)}
            for t in sorted(self._subs)
        }

    def close(self) -> dict:
        """Stops taking messages, closes the bag; returns the final stats()."""
        stats = self.stats()
        for sub in self._subs.values():
            self.executor.remove_subscription(sub)
        self.node.destroy_node()
        self._subs.clear()
        self.writer.close()
        return stats
