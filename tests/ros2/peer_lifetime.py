"""Ties an rclpy test peer's life to the test process that spawned it.

A test binary that crashes (or is killed by ctest's timeout) cannot stop its peers; left alive,
they keep talking on the suite's DDS domain and disturb every later run. PR_SET_PDEATHSIG makes
the kernel SIGKILL the peer when its parent dies.
"""

import ctypes
import os
import signal

PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
