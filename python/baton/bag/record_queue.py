"""The recorder's queue, between the thread that takes samples (Recorder.spin_once, from the C++
RecordTaker) and the writer thread.

A message waits here in one of two forms:

* **held**: the sample itself, its loan on the publisher's shared memory kept (no copy). A
  subscription may hold 16 samples, so at most ``HELD_SAMPLES`` wait like this.
* **cached**: when that many are held already (the writer fell behind: a stalled write, a busy
  machine), the message is copied into the recorder's memory and its loan returned, up to
  ``cache_bytes`` in all (ros2 bag's ``--max-cache-size``). This copy is the price of not losing
  the message; ``copied`` counts it.

When both are full, ``put`` waits (the GIL released): the taking thread stops, the publisher's
ring fills, a best-effort subscription is lapped, and the messages lost are counted by baton.
Messages leave in the order they came. Messages that arrive as bytes already (ROS 1 topics, read
from TCPROS or out of a BATONSHM sample that must be returned when its callback ends) come in
through ``put_copy``, counted against ``cache_bytes`` the same way.
"""

from __future__ import annotations

import collections
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any, Optional

HELD_SAMPLES = 12  # of the 16 loans a subscription may hold


@dataclass
class Queued:
    topic: str
    log_time: int
    sequence: int
    sample: Any = None  # held: the sample (its loan), released once written
    data: Optional[bytes] = None  # cached: a copy

    def view(self) -> memoryview:
        return memoryview(self.sample.array if self.data is None else self.data)

    def done(self) -> None:
        if self.sample is not None:
            self.sample.release()  # the loan goes back now, not when the GC gets to it


class RecordQueue:
    def __init__(self, cache_bytes: int):
        self.cache_bytes = int(cache_bytes)
        self.copied: Counter = Counter()  # per topic: messages that went through the cache
        self.failed: Optional[BaseException] = None  # set by the writer: put() drops
        self._cv = threading.Condition()
        self._items: collections.deque[Queued] = collections.deque()
        self._held = 0
        self._cached = 0  # bytes
        self._closed = False

    def put(self, topic: str, log_time: int, sample: Any) -> bool:
        """Queues a taken sample (held, else copied, else waits); False if the writer failed
        (the sample is released and dropped)."""
        size = memoryview(sample.array).nbytes
        with self._cv:
            while self.failed is None:
                if self._held < HELD_SAMPLES:
                    self._held += 1
                    self._items.append(Queued(topic, log_time, sample.sequence, sample))
                    self._cv.notify_all()
                    return True
                if self._cached + size <= self.cache_bytes:
                    self._cached += size  # reserved: the copy is made outside the lock
                    break
                self._cv.wait(0.1)
            else:
                sample.release()
                return False
        item = Queued(topic, log_time, sample.sequence, data=bytes(memoryview(sample.array)))
        sample.release()
        with self._cv:
            self.copied[topic] += 1
            self._items.append(item)
            self._cv.notify_all()
        return True

    def put_copy(self, topic: str, log_time: int, sequence: int, data: bytes) -> bool:
        """Queues a message that is a copy already; waits while the cache is full; False if the
        writer failed (the message is dropped)."""
        with self._cv:
            while self.failed is None and self._cached + len(data) > self.cache_bytes:
                if not self._items:
                    break  # larger than the whole cache: let it through alone
                self._cv.wait(0.1)
            if self.failed is not None:
                return False
            self._cached += len(data)
            self._items.append(Queued(topic, log_time, sequence, data=data))
            self._cv.notify_all()
        return True

    def get(self, timeout: float) -> Optional[Queued]:
        """The next message, or None after `timeout` s or once closed and empty."""
        with self._cv:
            if not self._items and not self._closed:
                self._cv.wait(timeout)
            return self._items.popleft() if self._items else None

    def written(self, item: Queued) -> None:
        item.done()
        with self._cv:
            if item.data is None:
                self._held -= 1
            else:
                self._cached -= len(item.data)
            self._cv.notify_all()

    @property
    def idle(self) -> bool:
        """Nothing queued and nothing taken by the writer but not yet written (a racy read
        without the lock, exact under Recorder's write lock for what the writer thread does)."""
        return not self._items and self._held == 0 and self._cached == 0

    @property
    def closed_and_empty(self) -> bool:
        with self._cv:
            return self._closed and not self._items

    def close(self) -> None:
        """No more puts: the writer writes what is queued, then stops."""
        with self._cv:
            self._closed = True
            self._cv.notify_all()

    def fail(self, error: BaseException) -> None:
        """The writer cannot go on: drop everything queued, and what comes later."""
        with self._cv:
            self.failed = error
            items, self._items = list(self._items), collections.deque()
            self._cv.notify_all()
        for item in items:
            item.done()
