"""baton.view.ViewServer: the topics of this BATON_NAMESPACE on a Foxglove WebSocket server."""

from __future__ import annotations

import ipaddress
import math
import os
import queue
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from ..bag.schemas import kind_of, schema_for, usable_kind
from ..bag.selection import PublishedTopic, TopicSelection
from ..bag.writer import TopicInfo
from ..errors import BatonError
from . import images

DEFAULT_IMAGE_RATE = 15.0
DEFAULT_JPEG_QUALITY = 75
COMPRESSED_SUFFIX = "/compressed"
PROTOCOL = "foxglove.sdk.v1"


class RemoteBindError(BatonError, ValueError):
    """A non-loopback address was asked for without allow_remote."""

    code = "RemoteBind"
    hint = (
        "the view has no authentication: anyone who reaches the port sees every topic; to serve "
        "other machines anyway, pass allow_remote=True (CLI: --allow-remote)"
    )
    exit_code = 2


class ViewStartError(BatonError):
    """The WebSocket server could not start (address in use, not an address of this host)."""

    code = "ViewStart"
    hint = "choose another --port (0 picks a free one) or --host"


def is_loopback(host: str) -> bool:
    """True when every address `host` names is a loopback address (127.0.0.0/8, ::1)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(i[4][0]).is_loopback for i in infos)


class _RateBound:
    """At most `hz` messages per second on average (0: no bound), with a credit of up to two
    messages, so that a frame arriving a little early is not dropped: a 30 Hz stream keeps its
    30 Hz under a 30 Hz bound, jitter and all."""

    def __init__(self, hz: float):
        self.period = 1.0 / hz if hz else 0.0
        self.credit = 1.0
        self.last: Optional[float] = None

    def allow(self, now: float) -> bool:
        if not self.period:
            return True
        if self.last is not None:
            self.credit = min(2.0, self.credit + (now - self.last) / self.period)
        self.last = now
        if self.credit < 1.0:
            return False
        self.credit -= 1.0
        return True


@dataclass
class _Topic:
    """One baton topic on the server: its raw channel, its compressed image channel (image
    topics, when compression is on), who watches each, and the subscription while anyone does."""

    info: TopicInfo
    dtype: Any  # numpy dtype of an array topic, else None
    raw: Any  # foxglove.Channel
    image: Any = None  # foxglove.channels.CompressedImageChannel
    watchers: dict = field(default_factory=dict)  # foxglove channel id -> subscribed clients
    sub: Any = None
    sent: int = 0
    compressed: int = 0
    skipped: int = 0  # over max_rate: released untouched
    lost_before: int = 0  # losses of earlier subscriptions of this topic
    raw_rate: Any = None  # _RateBound of each channel
    image_rate: Any = None
    image_problem: Optional[str] = None

    def watched(self, channel: Any) -> bool:
        return channel is not None and self.watchers.get(channel.id(), 0) > 0


class _Listener:
    """Called on the SDK's threads: only queues the (un)subscriptions for the spinning thread."""

    def __init__(self, requests: queue.SimpleQueue):
        self.requests = requests

    def on_subscribe(self, client: Any, channel: Any) -> None:
        self.requests.put((channel.id, +1))

    def on_unsubscribe(self, client: Any, channel: Any) -> None:
        self.requests.put((channel.id, -1))


class ViewServer:
    """Serves baton topics to Foxglove (the app, or any client of the Foxglove WebSocket
    protocol, subprotocol ``foxglove.sdk.v1``), on the ``foxglove-sdk`` package's server.

    Every selected topic with a publisher is advertised with the schema a bag records for it
    (``ros2msg`` + CDR for ROS 2 types, the ``baton.ndarray`` JSON schema, ``baton.raw``; see
    :mod:`baton.bag.schemas`); topics that appear later are advertised by ``discover()`` (``run``
    calls it every ``discovery_period`` s) and topics whose publishers are all gone are
    unadvertised. A topic is subscribed only while a client subscribes to one of its channels,
    best-effort with ``queue_depth`` (a viewer never slows a publisher; what it could not keep
    up with is ``lost`` in ``stats()``), and unsubscribed when the last client leaves: a topic
    nobody watches costs no subscription and no copy.

    Messages go out as they are: one copy of the bytes from shared memory into the message
    handed to the SDK (which frames it per client, dropping a slow client's oldest messages
    beyond ``backlog`` messages). ``max_rate`` (Hz, 0 = every message) bounds each channel;
    a message over the rate is released untouched.

    Images: with ``image_scale`` > 1 or ``jpeg_quality`` set, each image topic
    (``sensor_msgs/msg/Image`` rgb8 / bgr8 / rgba8 / bgra8 / mono8, and uint8 arrays shaped
    (h, w[, 1 | 3 | 4])) gets a second channel, ``<topic>/compressed``, of
    ``foxglove.CompressedImage``: JPEG (quality ``jpeg_quality``, default 75) of every
    ``image_scale``-th row and column, at most ``max_rate`` frames per second (default 15).
    Cost for a 3840x2160 rgb8 stream, encoded from shared memory with no copy before
    decimation: 32 ms of one core per frame at scale 1, 17 ms at scale 2, 4 ms at scale 4, so
    the default 15 Hz at scale 2 takes about a quarter of a core; the raw channel stays
    available (and costs nothing unless watched).

    Binds to 127.0.0.1 by default; any other address raises :class:`RemoteBindError` unless
    ``allow_remote=True`` (the protocol has no authentication).
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 8765,
        allow_remote: bool = False,
        topics: Iterable[str] = (),
        regex: Optional[str] = None,
        include_hidden: bool = False,
        image_scale: int = 1,
        jpeg_quality: Optional[int] = None,
        max_rate: float = 0.0,
        queue_depth: int = 10,
        backlog: int = 32,
        context: Any = None,
        discovery_period: float = 0.5,
        name: str = "baton",
    ):
        import baton

        if not is_loopback(host) and not allow_remote:
            raise RemoteBindError(f"refusing to serve on {host}: not a loopback address")
        if image_scale < 1:
            raise ValueError("image_scale must be >= 1")
        if jpeg_quality is not None and not 1 <= jpeg_quality <= 100:
            raise ValueError("jpeg_quality must be 1..100")
        if max_rate < 0:
            raise ValueError("max_rate must be >= 0 (0: every message)")
        self.host = host
        self.compress = image_scale > 1 or jpeg_quality is not None
        self.image_scale = int(image_scale)
        self.jpeg_quality = int(jpeg_quality or DEFAULT_JPEG_QUALITY)
        self.max_rate = float(max_rate)
        self.image_rate = float(max_rate or DEFAULT_IMAGE_RATE)
        self._requests: queue.SimpleQueue = queue.SimpleQueue()
        self._start_server(name, host, port, backlog)  # first: a failure leaves nothing behind
        self._own_context = context is None
        self.context = context or baton.Context.create(janitor_period=0.0)
        self.node = baton.Node(self.context, f"_baton_view_{os.getpid()}")
        self.executor = baton.SingleThreadedExecutor(self.context)
        names = [self.node.resolve(t) for t in topics]
        self.selection = TopicSelection(names, regex, not (names or regex), include_hidden)
        self.warnings: list[str] = []
        self._depth = int(queue_depth)
        self._discovery_period = discovery_period
        self._next_discovery = 0.0
        self._topics: dict[str, _Topic] = {}
        self._by_channel: dict[int, _Topic] = {}
        self._closed = False

    # -- server ------------------------------------------------------------------------------

    def _start_server(self, name: str, host: str, port: int, backlog: int) -> None:
        try:
            import foxglove
            import simplejpeg  # noqa: F401 (needed for the first compressed frame)
        except ImportError as e:
            raise ViewStartError(
                f"baton view needs the {e.name} package",
                hint="pip install foxglove-sdk simplejpeg (pinned in python/requirements-dev.txt)",
            ) from None

        self._fox = foxglove.Context()
        try:
            self.server = foxglove.start_server(
                name=name,
                host=host,
                port=port,
                context=self._fox,
                server_listener=_Listener(self._requests),
                message_backlog_size=backlog,
            )
        except Exception as e:  # the SDK raises RuntimeError / OSError for a bind failure
            raise ViewStartError(f"cannot serve on {host}:{port}: {e}") from None

    @property
    def port(self) -> int:
        """The port the server listens on (the one chosen, when asked for port 0)."""
        return self.server.port

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    # -- topics ------------------------------------------------------------------------------

    def discover(self) -> list[str]:
        """Advertises selected topics that have a publisher now and unadvertises those whose
        publishers are gone; returns the topics added."""
        import baton

        published = self.selection.published(baton.graph_snapshot(self.context))
        for name in [n for n in self._topics if n not in published]:
            self._remove(name)
        added = []
        for name, t in published.items():
            if name not in self._topics:
                self._advertise(t)
                added.append(name)
        return added

    def _advertise(self, t: PublishedTopic) -> None:
        import foxglove
        from foxglove.channels import CompressedImageChannel

        from ..arrays import array_dtype_of_type

        kind, why = usable_kind(kind_of(t.type_name, t.type_hash), t.type_name, t.type_hash)
        if why is not None:
            self.warnings.append(f"{t.name}: {why}")
        info = TopicInfo(t.name, t.type_name, t.type_hash, kind, dict(t.qos))
        msg_enc, schema_enc, schema = schema_for(kind, t.type_name, t.type_hash)
        raw = foxglove.Channel(
            t.name,
            schema=foxglove.Schema(name=t.type_name, encoding=schema_enc, data=schema),
            message_encoding=msg_enc,
            context=self._fox,
            metadata=info.metadata(),
        )
        dtype = array_dtype_of_type(t.type_name, t.type_hash) if kind == "ndarray" else None
        topic = _Topic(info, dtype, raw, raw_rate=_RateBound(self.max_rate))
        topic.image_rate = _RateBound(self.image_rate)
        image_topic = (kind == "ros2" and t.type_name == images.ROS2_IMAGE) or (
            dtype is not None and dtype.name == "uint8"
        )
        name = t.name + COMPRESSED_SUFFIX
        if self.compress and image_topic and name not in self._topics:
            topic.image = CompressedImageChannel(name, context=self._fox)
            self._by_channel[topic.image.id()] = topic
        self._by_channel[raw.id()] = topic
        self._topics[t.name] = topic

    def _remove(self, name: str) -> None:
        topic = self._topics.pop(name)
        self._unsubscribe(topic)
        for ch in (topic.raw, topic.image):
            if ch is not None:
                self._by_channel.pop(ch.id(), None)
                ch.close()

    # -- subscriptions -----------------------------------------------------------------------

    def _apply_requests(self) -> None:
        while True:
            try:
                channel_id, delta = self._requests.get_nowait()
            except queue.Empty:
                return
            topic = self._by_channel.get(channel_id)
            if topic is None:  # unadvertised meanwhile
                continue
            n = max(topic.watchers.get(channel_id, 0) + delta, 0)
            topic.watchers[channel_id] = n
            watched = any(v > 0 for v in topic.watchers.values())
            if watched and topic.sub is None:
                self._subscribe(topic)
            elif not watched and topic.sub is not None:
                self._unsubscribe(topic)

    def _subscribe(self, topic: _Topic) -> None:
        import baton
        from baton import _baton

        from ..arrays import array_layout_facts

        info = topic.info
        # array topics are taken typed (the core checks the array header: sample.array is the
        # validated array); everything else as the publisher's bytes
        facts = array_layout_facts(topic.dtype) if topic.dtype is not None else ""
        sub = _baton.create_subscription(
            self.node._node, info.topic, info.type_name, facts, info.type_hash,
            baton.QoS(self._depth).best_effort(), topic.dtype is None, "blocking",
            self._callback(topic),
        )  # fmt: skip
        self.node._keep(sub)
        self.executor.add_subscription(sub)
        topic.sub = sub

    def _unsubscribe(self, topic: _Topic) -> None:
        if topic.sub is None:
            return
        topic.lost_before += int(topic.sub.lost)
        self.executor.remove_subscription(topic.sub)
        self.node.destroy_entity(topic.sub)
        topic.sub = None

    def _callback(self, topic: _Topic) -> Any:
        def on_sample(sample: Any) -> None:
            now = time.monotonic()
            used = False
            if topic.watched(topic.raw) and topic.raw_rate.allow(now):
                topic.raw.log(sample.message_bytes(), log_time=time.time_ns())
                topic.sent += 1
                used = True
            if topic.watched(topic.image) and topic.image_rate.allow(now):
                used = self._send_image(topic, sample) or used
            if not used:
                topic.skipped += 1

        return on_sample

    def _send_image(self, topic: _Topic, sample: Any) -> bool:
        from foxglove.messages import CompressedImage, Timestamp

        if topic.dtype is not None:
            frame = (
                images.array_image(sample.array, sample.stamp_ns)
                if sample.is_array
                else f"not an array message ({sample.header_problem})"
            )
        else:
            frame = images.ros2_image(sample.array)
        if isinstance(frame, str):
            if frame != topic.image_problem:  # say it once per reason, to every client
                topic.image_problem = frame
                self._status(f"{topic.info.topic}: not compressed: {frame}", topic.info.topic)
            return False
        try:
            jpeg = images.encode_jpeg(frame, self.image_scale, self.jpeg_quality)
        except (ValueError, RuntimeError) as e:  # simplejpeg refuses: one frame, not the viewer
            self._status(f"{topic.info.topic}: not compressed: {e}", topic.info.topic)
            return False
        stamp = frame.stamp_ns or time.time_ns()
        topic.image.log(
            CompressedImage(
                timestamp=Timestamp(sec=stamp // 1_000_000_000, nsec=stamp % 1_000_000_000),
                frame_id=frame.frame_id,
                data=jpeg,
                format="jpeg",
            ),
            log_time=time.time_ns(),
        )
        topic.compressed += 1
        return True

    def _status(self, message: str, status_id: str) -> None:
        from foxglove import StatusLevel

        self.warnings.append(message)
        self.server.publish_status(message, StatusLevel.Warning, id=status_id)

    # -- running -----------------------------------------------------------------------------

    def spin_once(self, timeout: float = 0.02) -> None:
        """Discovers topics when due, applies the clients' (un)subscriptions, then forwards what
        one wait brings."""
        if time.monotonic() >= self._next_discovery:
            self.discover()
            self._next_discovery = time.monotonic() + self._discovery_period
        self._apply_requests()
        self.executor.spin_once(timeout)

    def run(self, duration: Optional[float] = None, stop: Optional[threading.Event] = None) -> dict:
        """Serves until `duration` seconds pass or `stop` is set; returns stats()."""
        end = math.inf if duration is None else time.monotonic() + duration
        while time.monotonic() < end and not (stop is not None and stop.is_set()):
            self.spin_once(0.02)
        return self.stats()

    def stats(self) -> dict:
        """Per advertised topic: kind, clients (subscriptions of its channels), subscribed
        (whether baton's subscription exists), messages sent raw,
        compressed frames sent, skipped (over max_rate), lost (fell behind)."""
        out = {}
        for name in sorted(self._topics):
            t = self._topics[name]
            lost = t.lost_before + (int(t.sub.lost) if t.sub is not None else 0)
            out[name] = {
                "kind": t.info.kind,
                "clients": sum(t.watchers.values()),
                "subscribed": t.sub is not None,
                "sent": t.sent,
                "compressed": t.compressed,
                "skipped": t.skipped,
                "lost": lost,
            }
        return out

    def close(self) -> dict:
        """Stops the server and drops every subscription; returns the final stats()."""
        stats = self.stats()
        if self._closed:
            return stats
        self._closed = True
        self.server.stop()
        for name in list(self._topics):
            self._remove(name)
        self.node.destroy_node()
        if self._own_context:
            self.context.shutdown()
        return stats

    def __enter__(self) -> ViewServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
