"""baton.view and `baton view`: a client speaking the Foxglove WebSocket protocol (websockets,
subprotocol foxglove.sdk.v1) sees every topic advertised with its schema, gets byte-equal
messages of the topics it subscribes to and nothing of the others, a decodable JPEG of a 4K
frame when compression is asked for, topics that appear later; the server refuses a
non-loopback bind unless asked and answers malformed client messages with an error status."""

from __future__ import annotations

import contextlib
import json
import signal
import struct
import subprocess
import sys
import threading
from collections import defaultdict

import numpy as np
import pytest

import baton
from baton import _baton
from baton.bag.schemas import NDARRAY_HEADER, schema_for
from baton.view import PROTOCOL, RemoteBindError, ViewServer, ViewStartError, is_loopback

from conftest import ROOT, wait_for

ROS_PREFIX = ROOT / ".venv-ros"
STRUCT_FACTS = "cpp;size=24;align=8"
H4K, W4K = 2160, 3840
GUARD = 20.0  # seconds: a generous guard on every wait, never a timing assertion


@pytest.fixture
def ament(monkeypatch):
    if not (ROS_PREFIX / "share" / "sensor_msgs" / "msg" / "Image.msg").is_file():
        pytest.fail(
            "no ROS 2 .msg files in .venv-ros: run scripts/install-ros-wheels.sh (make test does)"
        )
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(ROS_PREFIX))


@pytest.fixture
def view(ns):
    """Starts a ViewServer (free port, loopback) spinning in a thread; stops it afterwards."""
    started: list[tuple[ViewServer, threading.Event, threading.Thread]] = []

    def start(**kw) -> ViewServer:
        sut = ViewServer(port=0, discovery_period=0.05, **kw)
        stop = threading.Event()
        thread = threading.Thread(target=sut.run, kwargs={"stop": stop}, daemon=True)
        thread.start()
        started.append((sut, stop, thread))
        return sut

    yield start
    for sut, stop, thread in started:
        stop.set()
        thread.join(GUARD)
        sut.close()


class FoxgloveClient:
    """The client side of the Foxglove WebSocket protocol, as the Foxglove app speaks it."""

    def __init__(self, url: str):
        from websockets.sync.client import connect

        self._exit = contextlib.ExitStack()
        self.ws = self._exit.enter_context(
            connect(url, subprotocols=[PROTOCOL], max_size=None, open_timeout=GUARD)
        )
        assert self.ws.subprotocol == PROTOCOL
        self.server_info: dict = {}
        self.channels: dict[str, dict] = {}  # advertised, by topic
        self.removed: list[int] = []  # unadvertised channel ids
        self.statuses: list[dict] = []
        self.messages: dict[int, list[bytes]] = defaultdict(list)  # by subscription id
        self._next_sub = 1
        self._subscribed: dict[int, int] = {}  # subscription id -> channel id
        self.resubscribed = 0  # see _resubscribe
        self.wait(lambda: self.server_info)

    def pump(self, timeout: float) -> bool:
        """Handles one message from the server; False if none came within `timeout`."""
        try:
            m = self.ws.recv(timeout=timeout)
        except TimeoutError:
            return False
        if isinstance(m, bytes):
            assert m[0] == 1, f"unexpected binary opcode {m[0]}"  # MessageData
            sub_id, _log_time = struct.unpack_from("<IQ", m, 1)
            self.messages[sub_id].append(m[13:])
            return True
        msg = json.loads(m)
        if msg["op"] == "serverInfo":
            self.server_info = msg
        elif msg["op"] == "advertise":
            self.channels.update({c["topic"]: c for c in msg["channels"]})
        elif msg["op"] == "unadvertise":
            self.removed += msg["channelIds"]
        elif msg["op"] == "status":
            if not self._resubscribe(msg):
                self.statuses.append(msg)
        return True

    def _resubscribe(self, status: dict) -> bool:
        """foxglove-sdk (up to its HEAD at least) sends an advertise before it records the
        channel as advertised to this client (ConnectedClient::advertise_channels), so a client
        that subscribes at once can be told "Unknown channel ID" for a channel it was just
        given. Subscribing again is what a client can do; True if this status was that."""
        prefix = "Unknown channel ID: "
        if not status["message"].startswith(prefix):
            return False
        channel_id = int(status["message"][len(prefix) :])
        known = {c["id"] for c in self.channels.values()} - set(self.removed)
        mine = [sid for sid, cid in self._subscribed.items() if cid == channel_id]
        if channel_id not in known or not mine:
            return False
        self.resubscribed += 1
        subscriptions = [{"id": sid, "channelId": channel_id} for sid in mine]
        self.send({"op": "subscribe", "subscriptions": subscriptions})
        return True

    def wait(self, pred, timeout: float = GUARD):
        """Pumps until pred() is true (returns its value); fails after `timeout` seconds."""
        assert wait_for(lambda: pred() or (self.pump(0.05) and pred()), timeout), (
            f"waited in vain; channels {list(self.channels)}, statuses {self.statuses}"
        )
        return pred()

    def send(self, msg) -> None:
        self.ws.send(msg if isinstance(msg, str) else json.dumps(msg))

    def subscribe(self, topic: str) -> int:
        channel = self.wait(lambda: self.channels.get(topic))
        sub_id = self._next_sub
        self._next_sub += 1
        self._subscribed[sub_id] = channel["id"]
        subscription = {"id": sub_id, "channelId": channel["id"]}
        self.send({"op": "subscribe", "subscriptions": [subscription]})
        return sub_id

    def unsubscribe(self, sub_id: int) -> None:
        self._subscribed.pop(sub_id, None)
        self.send({"op": "unsubscribe", "subscriptionIds": [sub_id]})

    def close(self) -> None:
        self._exit.close()


@pytest.fixture
def client():
    opened: list[FoxgloveClient] = []

    def connect(sut: ViewServer) -> FoxgloveClient:
        c = FoxgloveClient(sut.url)
        opened.append(c)
        return c

    yield connect
    for c in opened:
        c.close()


def struct_publisher(node, topic: str):
    native = _baton.create_publisher(
        node._node, topic, "demo/msg/Pose", STRUCT_FACTS, "", baton.QoS(10), False, 0, 0, [], 0
    )
    return baton.Publisher(native, None, "demo/msg/Pose")


def typestore():
    from rosbags.typesys import Stores, get_typestore

    return get_typestore(Stores.ROS2_HUMBLE)


def ros2_image_cdr(ts, pixels: np.ndarray, encoding: str) -> bytes:
    Image = ts.types["sensor_msgs/msg/Image"]
    Header = ts.types["std_msgs/msg/Header"]
    Time = ts.types["builtin_interfaces/msg/Time"]
    h, w = pixels.shape[:2]
    step = pixels[0].nbytes
    msg = Image(Header(Time(12, 34), "camera"), h, w, encoding, 0, step, pixels.reshape(-1))
    return bytes(ts.serialize_cdr(msg, "sensor_msgs/msg/Image"))


def gradient(h: int, w: int) -> np.ndarray:
    """A smooth rgb8 image (JPEG keeps it within a few levels)."""
    y, x = np.mgrid[0:h, 0:w]
    return np.stack([x * 255 // w, y * 255 // h, (x + y) * 255 // (w + h)], -1).astype(np.uint8)


def protobuf_fields(data: bytes) -> dict[int, object]:
    """The top-level fields of a protobuf message (varints and length-delimited only)."""
    out: dict[int, object] = {}
    pos = 0

    def varint() -> int:
        nonlocal pos
        value = shift = 0
        while True:
            b = data[pos]
            pos += 1
            value |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return value

    while pos < len(data):
        key = varint()
        if key & 7 == 0:
            out[key >> 3] = varint()
        elif key & 7 == 2:
            n = varint()
            out[key >> 3] = data[pos : pos + n]
            pos += n
        else:
            raise AssertionError(f"wire type {key & 7} not expected in CompressedImage")
    return out


def handled(sut: ViewServer, topic: str) -> int:
    """Messages of `topic` the server has taken: sent raw, compressed or skipped (rate)."""
    s = sut.stats()[topic]
    return s["sent"] + s["compressed"] + s["skipped"]


def step_until(sut: ViewServer, topic: str, count: int) -> None:
    """Waits until the server has taken `count` messages of `topic`."""
    assert wait_for(lambda: handled(sut, topic) >= count, GUARD), sut.stats()


# --- bad parameters and binding ------------------------------------------------------------------


def test_view_with_bad_parameters_raises_value_error(ns):
    for kw in ({"image_scale": 0}, {"jpeg_quality": 0}, {"jpeg_quality": 101}, {"max_rate": -1}):
        with pytest.raises(ValueError):
            ViewServer(port=0, **kw)


def test_non_loopback_bind_without_allow_remote_is_refused(ns):
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.7")
    with pytest.raises(RemoteBindError):
        ViewServer(host="0.0.0.0", port=0)
    r = subprocess.run(
        [sys.executable, "-m", "baton", "view", "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2, r.stderr
    assert "error: refusing to serve on 0.0.0.0" in r.stderr and "--allow-remote" in r.stderr


def test_non_loopback_bind_with_allow_remote_serves_and_warns(ns, view):
    sut = view(host="0.0.0.0", allow_remote=True)
    c = FoxgloveClient(f"ws://127.0.0.1:{sut.port}")
    assert c.server_info["name"] == "baton"
    c.close()
    r = subprocess.run(
        [sys.executable, "-m", "baton", "view", "--host", "0.0.0.0", "--allow-remote",
         "--port", "0", "--duration", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("serving ws://0.0.0.0:")
    assert "warning: serving on 0.0.0.0" in r.stderr and "no authentication" in r.stderr


def test_a_port_in_use_gives_a_view_start_error(ns, view):
    sut = view()
    with pytest.raises(ViewStartError) as e:
        ViewServer(port=sut.port)
    assert str(sut.port) in e.value.detail


# --- advertising -------------------------------------------------------------------------------


def test_every_topic_is_advertised_with_the_schema_a_bag_records(ctx, ament, view, client):
    node = baton.Node(ctx, "talker")
    node.raw_publisher("/chatter", "std_msgs/msg/String").create()
    node.publisher("/arr", np.float32, (3, 4)).create()
    pose_pub = struct_publisher(node, "/pose")  # noqa: F841 (kept: it holds the topic)
    c = client(view())
    c.wait(lambda: {"/chatter", "/arr", "/pose"} <= set(c.channels))
    chatter, arr, pose = c.channels["/chatter"], c.channels["/arr"], c.channels["/pose"]
    assert (chatter["encoding"], chatter["schemaEncoding"]) == ("cdr", "ros2msg")
    assert chatter["schemaName"] == "std_msgs/msg/String"
    assert chatter["schema"] == schema_for("ros2", "std_msgs/msg/String", "")[2].decode()
    assert "string data" in chatter["schema"]
    assert (arr["encoding"], arr["schemaEncoding"]) == ("baton.ndarray", "baton.ndarray")
    arr_schema = json.loads(arr["schema"])
    assert arr_schema["fields"] == NDARRAY_HEADER["fields"]
    assert arr_schema["type_name"] == "baton/msg/NDArray[float32]"
    assert (pose["encoding"], pose["schemaName"]) == ("baton.raw", "demo/msg/Pose")
    assert pose["metadata"]["baton.kind"] == "native"
    assert chatter["metadata"]["baton.qos.reliability"] == "reliable"
    assert "/chatter/compressed" not in c.channels  # compression was not asked for


def test_topic_that_appears_later_is_advertised_and_unadvertised_when_gone(ctx, view, client):
    c = client(view())
    assert "/late" not in c.channels
    node = baton.Node(ctx, "latecomer")
    pub = node.publisher("/late", np.int16, (2,)).create()
    late = c.wait(lambda: c.channels.get("/late"))
    assert late["encoding"] == "baton.ndarray"
    node.destroy_entity(pub)
    del pub
    c.wait(lambda: late["id"] in c.removed)


# --- subscribing -------------------------------------------------------------------------------


def test_subscribed_topics_arrive_byte_equal_and_others_are_not_taken(ctx, ament, view, client):
    ts = typestore()
    String = ts.types["std_msgs/msg/String"]
    node = baton.Node(ctx, "talker")
    chatter = node.raw_publisher("/chatter", "std_msgs/msg/String").create()
    arr = node.publisher("/arr", np.float32, (3, 4)).create()
    other = node.publisher("/other", np.uint8, (8,)).create()
    sut = view()
    c = client(sut)
    s_chatter, s_arr = c.subscribe("/chatter"), c.subscribe("/arr")
    c.wait(lambda: sut.stats()["/chatter"]["subscribed"])
    c.wait(lambda: sut.stats()["/arr"]["subscribed"])
    sent_cdr, sent_arr = [], []
    for i in range(5):
        cdr = bytes(ts.serialize_cdr(String(f"hello {i}"), "std_msgs/msg/String"))
        chatter.publish(cdr)
        sent_cdr.append(cdr)
        step_until(sut, "/chatter", i + 1)
        a = np.arange(12, dtype=np.float32).reshape(3, 4) * i
        arr.publish(a)
        sent_arr.append(a)
        step_until(sut, "/arr", i + 1)
        other.publish(np.full(8, i, np.uint8))
    c.wait(lambda: len(c.messages[s_chatter]) == 5 and len(c.messages[s_arr]) == 5)
    assert c.messages[s_chatter] == sent_cdr  # the CDR bytes as published
    for got, a in zip(c.messages[s_arr], sent_arr):
        assert got[:8] == b"baton.nd" and len(got) == 128 + a.nbytes  # header + payload
        assert got[128:] == a.tobytes()
        assert struct.unpack_from("<4q", got, 32)[:2] == (3, 4)  # shape in the header
    assert set(c.messages) == {s_chatter, s_arr}
    stats = sut.stats()["/other"]
    assert stats["subscribed"] is False and stats["sent"] == 0 and stats["skipped"] == 0


def test_last_unsubscribe_or_disconnect_drops_the_subscription(ctx, view, client):
    node = baton.Node(ctx, "talker")
    node.publisher("/arr", np.uint8, (4,)).create()
    sut = view()
    c1, c2 = client(sut), client(sut)
    s1 = c1.subscribe("/arr")
    c2.subscribe("/arr")
    both = lambda: (c1.pump(0.02), c2.pump(0.02), sut.stats()["/arr"]["clients"] == 2)[2]  # noqa: E731
    assert wait_for(both, GUARD), sut.stats()
    topics = {t["name"]: t for t in baton.graph_snapshot(ctx)["topics"]}
    assert topics["/arr"]["subscription_count"] == 1  # one for both clients
    c1.unsubscribe(s1)
    assert wait_for(lambda: sut.stats()["/arr"]["clients"] == 1, GUARD)
    assert sut.stats()["/arr"]["subscribed"]  # c2 still watches
    c2.close()  # a disconnect unsubscribes as well
    assert wait_for(lambda: not sut.stats()["/arr"]["subscribed"], GUARD), sut.stats()
    topics = {t["name"]: t for t in baton.graph_snapshot(ctx)["topics"]}
    assert topics["/arr"]["subscription_count"] == 0


def test_malformed_client_messages_get_an_error_status_and_serving_goes_on(ctx, view, client):
    node = baton.Node(ctx, "talker")
    pub = node.publisher("/arr", np.uint8, (4,)).create()
    sut = view()
    c = client(sut)
    c.wait(lambda: "/arr" in c.channels)
    for bad in ("not json", {"op": "nope"}, {"op": "subscribe", "subscriptions": [
        {"id": 9, "channelId": 987654}
    ]}):  # fmt: skip
        before = len(c.statuses)
        c.send(bad)
        c.wait(lambda n=before: len(c.statuses) > n)
        assert c.statuses[-1]["level"] == 2, c.statuses[-1]  # error
    assert "987654" in c.statuses[-1]["message"]
    s = c.subscribe("/arr")
    c.wait(lambda: sut.stats()["/arr"]["subscribed"])
    pub.publish(np.arange(4, dtype=np.uint8))
    c.wait(lambda: c.messages[s])
    assert c.messages[s][0][128:] == bytes(range(4))


# --- images ------------------------------------------------------------------------------------


def decode_compressed_image(payload: bytes) -> tuple[dict, np.ndarray]:
    import simplejpeg

    fields = protobuf_fields(payload)  # foxglove.CompressedImage: 1 timestamp, 2 data, 3 format
    assert fields[3] == b"jpeg"
    return fields, simplejpeg.decode_jpeg(bytes(fields[2]), colorspace="RGB")


def test_4k_array_frames_arrive_as_decimated_jpeg_when_asked(ctx, view, client):
    node = baton.Node(ctx, "camera")
    cam = node.publisher("/frames", np.uint8, (H4K, W4K, 3)).qos(baton.QoS(2)).create()
    sut = view(image_scale=2, jpeg_quality=90)
    c = client(sut)
    c.wait(lambda: "/frames/compressed" in c.channels)
    assert c.channels["/frames/compressed"]["schemaName"] == "foxglove.CompressedImage"
    s = c.subscribe("/frames/compressed")
    c.wait(lambda: sut.stats()["/frames"]["subscribed"])
    image = gradient(H4K, W4K)
    with cam.loan() as frame:
        frame[:] = image
    c.wait(lambda: c.messages[s])
    fields, decoded = decode_compressed_image(c.messages[s][0])
    assert decoded.shape == (H4K // 2, W4K // 2, 3)
    error = np.abs(decoded.astype(int) - image[::2, ::2].astype(int))
    assert error.mean() < 2.0, error.mean()
    assert len(c.messages[s][0]) < image.nbytes // 50  # compressed, not the 24.9 MB frame
    assert sut.stats()["/frames"]["sent"] == 0  # the raw channel was not watched: no copy


def test_4k_ros2_image_arrives_as_jpeg_with_its_stamp_and_frame_id(ctx, ament, view, client):
    ts = typestore()
    node = baton.Node(ctx, "camera")
    pub = node.raw_publisher("/image", "sensor_msgs/msg/Image").qos(baton.QoS(2)).create()
    sut = view(jpeg_quality=90)
    c = client(sut)
    c.wait(lambda: "/image/compressed" in c.channels)
    s = c.subscribe("/image/compressed")
    c.wait(lambda: sut.stats()["/image"]["subscribed"])
    image = gradient(H4K, W4K)
    pub.publish(ros2_image_cdr(ts, image[..., ::-1], "bgr8"))  # BGR pixels: colours must survive
    c.wait(lambda: c.messages[s])
    fields, decoded = decode_compressed_image(c.messages[s][0])
    assert decoded.shape == (H4K, W4K, 3)
    assert np.abs(decoded.astype(int) - image.astype(int)).mean() < 2.0
    assert protobuf_fields(fields[1]) == {1: 12, 2: 34}  # timestamp: the header's stamp
    assert fields[4] == b"camera"  # frame_id


def test_compressed_frames_are_bounded_by_max_rate_and_bad_images_get_a_status(ctx, view, client):
    node = baton.Node(ctx, "camera")
    cam = node.publisher("/mono", np.uint8).qos(baton.QoS(5)).create()
    sut = view(image_scale=4, max_rate=0.001)  # at most one frame per 1000 s
    c = client(sut)
    s = c.subscribe(c.wait(lambda: "/mono/compressed" in c.channels) and "/mono/compressed")
    c.wait(lambda: sut.stats()["/mono"]["subscribed"])
    for i in range(3):
        cam.publish(np.full((64, 96), 10 * i, np.uint8))
        step_until(sut, "/mono", i + 1)
    assert sut.stats()["/mono"]["skipped"] == 2, sut.stats()
    c.wait(lambda: c.messages[s])
    _, decoded = decode_compressed_image(c.messages[s][0])
    assert decoded.shape == (16, 24, 3) and abs(int(decoded.mean()) - 0) <= 2
    assert sut.stats()["/mono"]["compressed"] == 1


def test_an_image_topic_with_frames_that_are_not_images_gets_a_warning_status(ctx, view, client):
    node = baton.Node(ctx, "camera")
    cam = node.publisher("/cube", np.uint8).qos(baton.QoS(5)).create()
    sut = view(image_scale=2)
    c = client(sut)
    s = c.subscribe(c.wait(lambda: "/cube/compressed" in c.channels) and "/cube/compressed")
    c.wait(lambda: sut.stats()["/cube"]["subscribed"])
    cam.publish(np.zeros((4, 4, 4, 4), np.uint8))
    c.wait(lambda: c.statuses)
    assert c.statuses[0]["level"] == 1 and "not an image" in c.statuses[0]["message"]
    assert not c.messages[s]


# --- the command -------------------------------------------------------------------------------


def test_baton_view_serves_the_selected_topics_until_interrupted(ctx, client):
    node = baton.Node(ctx, "talker")
    node.publisher("/x", np.uint8, (4,)).create()
    node.publisher("/y", np.uint8, (4,)).create()
    proc = subprocess.Popen(
        [sys.executable, "-m", "baton", "view", "--port", "0", "--topics", "/x", "--image-scale",
         "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        line = proc.stdout.readline()
        assert line.startswith("serving ws://127.0.0.1:"), (line, proc.stderr.read())
        c = FoxgloveClient(line.split()[1])
        c.wait(lambda: {"/x", "/x/compressed"} <= set(c.channels))
        assert "/y" not in c.channels
        c.close()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=GUARD)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "/x" in out and "/y" not in out
