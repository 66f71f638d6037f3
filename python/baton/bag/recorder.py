"""baton.bag.Recorder: subscribes to topics and writes every message to a bag, in place."""

from __future__ import annotations

import os
import struct
import threading
import time
from typing import Any, Callable, Iterable, Optional

from .record_queue import Queued, RecordQueue
from .ros1_topics import Ros1Recording
from .selection import TopicSelection
from .writer import Writer

#: Messages up to this size are written on the taking thread when the writer thread is idle
#: (Recorder._write_inline); larger ones always go to the writer thread, held in place.
INLINE_MAX_BYTES = 64 << 10
#: A batch (RecordTaker.take_batch) goes to Python this long after its first message was taken,
#: or at BATCH_MAX messages, or as soon as a topic holds all the loans it may (16), whichever
#: comes first. Until then each message is taken in C++ as it arrives (its log time is then),
#: so the linger delays writing, never taking: a publisher's ring is not lapped for it.
BATCH_LINGER = 0.015  # at 1 kHz, just under the 16 loans a topic may hold
BATCH_MAX = 256


class Recorder:
    """Records topics into a :class:`Writer`.

    Topics: ``topics`` (names), ``regex`` (matched against the full name) or
    ``all_topics=True``; topics that appear later are picked up by ``discover()`` (``run`` calls
    it every ``discovery_period`` seconds). Each topic gets a best-effort subscription of depth
    ``queue_depth`` taking the topic's own type (raw: the message's bytes as published), so a
    reliable publisher is never slowed down; what the recorder could not keep up with is counted
    in ``stats()`` as ``lost``.

    Taking: the subscriptions belong to a C++ ``RecordTaker`` (python/src/py_record.cpp), not an
    executor: it takes each message as it arrives, in C++ with the GIL released, stamping its log
    time and keeping its loan, and ``spin_once`` gets them in batches (``BATCH_LINGER``,
    ``BATCH_MAX``), so one Python wake-up handles many messages, with no Python callback per
    message. Small messages (up to ``INLINE_MAX_BYTES``) are written by that thread itself while
    the writer thread has nothing queued or in hand: the hand-over cost more than the write.
    Zero-copy path: otherwise each sample is queued, in place, for the writer thread
    (:mod:`baton.bag.record_queue`), holding its loan; the writer thread hands the sample's
    read-only view of the publisher's shared memory (``sample.array``, no copy) to
    ``Writer.write`` and then releases the sample. Inline, the view is ``memoryview(sample)``,
    the same bytes in place. With ``Writer(chunked=False)`` the view's
    bytes go from there to the file in one writev(2); chunked, the mcap library copies them
    into its chunk. The file writes, CRCs and compression release the GIL, so taking the next
    sample goes on while a 4K frame is written. Only when the writer falls behind by more than
    the loans a subscription may hold are messages copied, into at most ``cache_bytes``
    (``stats()`` counts them as ``copied``), rather than lost. ``on_write`` (tests) sees each
    view, on the writer thread.

    ROS 1 topics (``ros1_topics`` / ``ros1_regex`` / ``ros1_all``, from the master at
    ``ros1_master_uri`` or ROS_MASTER_URI) are subscribed through a ``baton.ros1`` node
    (:mod:`baton.bag.ros1_topics`); their serialized bytes are copied into the queue as they
    arrive and stored under the `ros1` encoding with the type's `ros1msg` schema.
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
        cache_bytes: int = 512 << 20,
        context: Any = None,
        flush_period: float = 1.0,
        discovery_period: float = 0.5,
        on_write: Optional[Callable[[str, Any], None]] = None,
        ros1_topics: Iterable[str] = (),
        ros1_regex: Optional[str] = None,
        ros1_all: bool = False,
        ros1_master_uri: Optional[str] = None,
    ):
        import baton

        self.writer = writer
        self.context = context or baton.Context.create(janitor_period=0.0)
        self.node = baton.Node(self.context, f"_baton_bag_record_{os.getpid()}")
        self._taker = baton._baton.RecordTaker()
        self.selection = TopicSelection(
            [self.node.resolve(t) for t in topics], regex, all_topics, include_hidden
        )
        self._depth = int(queue_depth)
        self._subs: dict[str, Any] = {}
        self._topic_names: list[str] = []  # by the subscriptions' topic_id
        self._recorded: dict[str, int] = {}
        self._flush_period = flush_period
        self._discovery_period = discovery_period
        self._on_write = on_write
        self._queue = RecordQueue(cache_bytes)
        self._write_lock = threading.Lock()  # the Writer: writer thread vs inline writes
        self._types: dict[str, tuple[str, str, dict]] = {}
        self._taken = 0  # samples handed to the writer thread
        self._max_messages = 0
        self.ros1: Optional[Ros1Recording] = None
        if ros1_topics or ros1_regex or ros1_all:
            names = [t if t.startswith("/") else "/" + t for t in ros1_topics]
            self.ros1 = Ros1Recording(
                TopicSelection(names, ros1_regex, ros1_all, include_hidden),
                ros1_master_uri,
                f"baton_bag_record_{os.getpid()}",  # ROS 1 names start with a letter
            )
        self._writer_thread = threading.Thread(
            target=self._write_loop, name="baton-bag-writer", daemon=True
        )
        self._writer_thread.start()

    def discover(self) -> list[str]:
        """Subscribes to wanted topics that have a publisher now; returns those added."""
        import baton
        from baton import _baton

        added = []
        for name, t in self.selection.published(baton.graph_snapshot(self.context)).items():
            if name in self._subs:
                continue
            sub_qos = baton.QoS(self._depth).best_effort()
            # What its ring holds: the lesser of our depth and the publisher's (its ring)
            capacity = min(self._depth, int(t.qos.get("depth") or self._depth))
            sub = _baton.create_record_subscription(
                self.node._node, name, t.type_name, t.type_hash, sub_qos,
                len(self._topic_names), capacity,
            )  # fmt: skip
            self.node._keep(sub)
            self._types[name] = (t.type_name, t.type_hash, t.qos)
            self._topic_names.append(name)
            self._taker.add(sub)
            self._subs[name] = sub
            self._recorded[name] = 0
            added.append(name)
        if self.ros1 is not None:
            for name in self.ros1.discover(self._put_ros1):
                self._recorded.setdefault(name, 0)  # its callback may have run already
                added.append(name)
        return added

    def _put_ros1(self, topic: str, log_time: int, sequence: int, data: bytes) -> bool:
        """A ROS 1 message (already a copy: its sample is valid during its callback only)."""
        if self._max_messages and self._taken >= self._max_messages:
            return False
        if self._queue.put_copy(topic, log_time, sequence, data):
            self._taken += 1
            return True
        return False

    def _record(self, batch: list) -> None:
        """A batch from the taker: [(topic_id, log_time, sample), ...] in the order taken.
        Written here while the writer thread is idle, else queued for it (order kept)."""
        if self._max_messages:
            room = max(0, self._max_messages - self._taken)
            for _tid, _t, sample in batch[room:]:
                sample.release()  # run() is stopping at max_messages
            batch = batch[:room]
        names = self._topic_names
        done = self._write_inline(batch)
        self._taken += done
        for topic_id, log_time, sample in batch[done:]:
            if self._queue.put(names[topic_id], log_time, sample):
                self._taken += 1

    def _write_inline(self, batch: list) -> int:
        """Writes the batch's leading small messages here, on the taking thread, while the
        writer thread has nothing queued or in hand (so the order stays): handing them over
        cost more than writing them (two thread wake-ups and the queue's lock per message).
        Stops at a large message, or one whose write would finish a chunk or a file (the writer
        thread's: taking goes on meanwhile). Returns how many it consumed from the front."""
        queue = self._queue
        if not batch or queue.failed is not None or not queue.idle:
            return 0
        if not self._write_lock.acquire(blocking=False):
            return 0
        names, writer, done = self._topic_names, self.writer, 0
        try:
            for topic_id, log_time, sample in batch:
                view = memoryview(sample)  # the message in place: no copy
                # Not if something came in meanwhile (a ROS 1 message)
                if (
                    view.nbytes > INLINE_MAX_BYTES
                    or not queue.idle
                    or not writer.write_is_quick(view.nbytes, log_time)
                ):
                    view.release()
                    break
                done += 1
                try:
                    self._store(names[topic_id], view, log_time, sample.sequence)
                finally:
                    view.release()
                    sample.release()
        except BaseException as e:  # a BagWriteError (disk full): run() raises it
            queue.fail(e)
        finally:
            self._write_lock.release()
        return done

    def _write_loop(self) -> None:
        """The writer thread: writes queued messages in order, flushes every flush_period."""
        next_flush = time.monotonic() + self._flush_period
        while not self._queue.closed_and_empty:
            item = self._queue.get(max(0.0, next_flush - time.monotonic()))
            try:
                if item is not None:
                    self._write(item)
                if time.monotonic() >= next_flush:
                    with self._write_lock:
                        self.writer.flush()
                    next_flush = time.monotonic() + self._flush_period
            except BaseException as e:  # a BagWriteError (disk full): run() raises it
                if item is not None:
                    item.done()
                self._queue.fail(e)
                return

    def _write(self, item: Queued) -> None:
        view = item.view()  # held: the publisher's bytes, in place, read-only
        try:
            with self._write_lock:
                self._store(item.topic, view, item.log_time, item.sequence)
        finally:
            del view
        self._queue.written(item)

    def _store(self, topic: str, view: memoryview, log_time: int, sequence: int) -> None:
        """One message into the bag (under _write_lock: the writer thread and the executor's
        inline writes share the Writer)."""
        writer = self.writer
        if topic not in writer.topics:
            if self.ros1 is not None and topic in self.ros1.types:
                writer.add_topic(topic, *self.ros1.types[topic], kind="ros1")
            else:
                writer.add_topic(topic, *self._types[topic], first_message=view)
        stamp = log_time
        if writer.topics[topic].kind == "ndarray":
            stamp = struct.unpack_from("<Q", view, 24)[0] or stamp
        if self._on_write is not None:
            self._on_write(topic, view)
        writer.write(topic, view, log_time, stamp, sequence)
        self._recorded[topic] = self._recorded.get(topic, 0) + 1

    def spin_once(self, timeout: float) -> bool:
        """Takes what arrives within `timeout` s (one batch) and writes or queues it; False if
        nothing came."""
        batch = self._taker.take_batch(timeout, BATCH_LINGER, BATCH_MAX)
        if batch:
            self._record(batch)
        return bool(batch)

    def run(
        self,
        duration: Optional[float] = None,
        stop: Optional[threading.Event] = None,
        max_messages: int = 0,
    ) -> dict:
        """Records until `duration` seconds pass, `stop` is set or `max_messages` are written;
        returns stats(). A BagWriteError (disk full) stops it and is raised; the file is closed."""
        self._max_messages = max_messages
        start = time.monotonic()
        next_discovery = start
        while True:
            now = time.monotonic()
            if now >= next_discovery:
                self.discover()
                next_discovery = now + self._discovery_period
            if duration is not None and now - start >= duration:
                break
            if stop is not None and stop.is_set():
                break
            if max_messages and self._taken >= max_messages:
                break  # close() writes those taken
            if self._queue.failed is not None:
                raise self._queue.failed
            self.spin_once(0.05)
        return self.stats()

    def stats(self) -> dict:
        """Per topic: messages recorded, lost (the publisher lapped the best-effort
        subscription) and copied (went through the cache, the writer being behind)."""
        ros1 = self.ros1.topics if self.ros1 is not None else []
        return {
            t: {
                "recorded": self._recorded.get(t, 0),
                "lost": int(self._subs[t].lost) if t in self._subs else self.ros1.lost(t),
                "copied": self._queue.copied[t],
            }
            for t in sorted(set(self._subs) | set(ros1))
        }

    def close(self) -> dict:
        """Stops taking messages, writes those taken, closes the bag; returns the final
        stats()."""
        for sub in self._subs.values():
            self._taker.remove(sub)
        self.node.destroy_node()
        if self.ros1 is not None:
            self.ros1.close()  # no ROS 1 callback after this
            self.writer.warnings.extend(self.ros1.warnings)
        self._queue.close()
        self._writer_thread.join()
        stats = self.stats()
        self._subs.clear()
        self.writer.close()
        return stats
