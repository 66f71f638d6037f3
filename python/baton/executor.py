"""Executors: run subscription, service and client callbacks (C++ ``api/executor.hpp``)."""

from __future__ import annotations

import concurrent.futures
import time
from typing import Any, Optional

from . import _baton
from .context import Context, default_context
from .node import Node


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
