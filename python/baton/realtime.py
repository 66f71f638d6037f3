"""Real-time scheduling for a thread whose timing matters (``bag play``'s loop, a subscriber that
timestamps arrivals).

Why: on a machine with more runnable threads than cores, a time-shared (SCHED_OTHER) thread that
wakes at its due time waits for a core, often several milliseconds. `bench/bag/run.py
--play-only` measured it: on two cores at load 5-17, 10-30 % of a played 30 Hz stream's
inter-arrival gaps were within 1 ms of the recorded ones whatever the player did before its
wake-up (a last-millisecond spin on the monotonic clock, nice -20: no better), and 100 % with the
player and subscriber threads in SCHED_FIFO (BENCHMARKS.md, "Bag recording").
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterator, Optional

from .errors import PermissionDeniedError


def check_priority(priority: int) -> int:
    """`priority` if it is a SCHED_FIFO priority of this system (1..99 on Linux); ValueError
    otherwise."""
    lo, hi = os.sched_get_priority_min(os.SCHED_FIFO), os.sched_get_priority_max(os.SCHED_FIFO)
    if not lo <= priority <= hi:
        raise ValueError(f"real-time priority {priority} is outside SCHED_FIFO's {lo}..{hi}")
    return priority


@contextmanager
def realtime_thread(priority: Optional[int]) -> Iterator[None]:
    """Runs the block with the calling thread (not the process) in SCHED_FIFO at `priority`, then
    restores its policy; None: leaves it as it is. PermissionDeniedError when the system refuses
    (it needs CAP_SYS_NICE or an RLIMIT_RTPRIO of at least `priority`)."""
    if priority is None:
        yield
        return
    check_priority(priority)
    policy, param = os.sched_getscheduler(0), os.sched_getparam(0)  # 0: the calling thread
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))
    except PermissionError as e:
        raise PermissionDeniedError(
            f"SCHED_FIFO priority {priority} for this thread: {e.strerror}",
            hint=(
                "real-time scheduling needs CAP_SYS_NICE or an rtprio limit of at least the "
                "priority (`ulimit -r`, limits.conf `<user> - rtprio 20`); or leave it out"
            ),
        ) from None
    try:
        yield
    finally:
        os.sched_setscheduler(0, policy, param)
