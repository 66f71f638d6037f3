"""rospy peer for tests/ros1 (run with /usr/bin/python3, Debian's ROS 1): a stock rospy node on
the test's roscore, or a dump of what genmsg / genpy say about the message types.

  types OUTDIR PKG...          for every message of each package: OUTDIR/pkg__Type.md5 (_md5sum),
                               .def (_full_text) and .bin (a default instance, serialized)
  string-talker TOPIC COUNT [SUBS]
                               publishes "msg 0" .. "msg COUNT-1" then "end" on std_msgs/String
                               once SUBS subscribers (default 1) are connected, then exits;
                               COUNT 0: forever at 200 Hz until killed
  string-dropper TOPIC         once a subscriber is connected, publishes "msg 0" .. "msg 9", then
                               closes its subscribers' connections while it stays registered
                               ("dropped"), then publishes "after <i>" at 200 Hz until killed
  string-listener TOPIC        prints "got <data>" per message, exits after "end"
  srv-types OUTDIR PKG...      for every service of each package: OUTDIR/pkg__Type.md5 (the
                               service's _md5sum), .req.md5 / .res.md5, .req.def / .res.def
                               (_full_text) and .req.bin / .res.bin (default instances)
  setbool-server SERVICE [stuck]
                               a std_srvs/SetBool service: data true answers success True,
                               message "on <n>" (n counts the calls); data false raises (the
                               caller gets "false is refused"); with "stuck" every call prints
                               "stuck" and never returns (for killing the peer mid-call)
  setbool-client SERVICE COUNT calls SERVICE COUNT times with data true over one persistent
                               connection ("reply <i> <success> <message>" each), then once
                               with data false ("error <text>"), then prints "done"
  trigger-client SERVICE       calls SERVICE as std_srvs/Trigger (a wrong md5sum for a SetBool
                               service): "reply <success> <message>" or "error <text>"
  param-get KEY                prints "param <repr(rospy.get_param(KEY))>" or "param missing"
  param-set KEY PYTHON-LITERAL rospy.set_param(KEY, the literal), then prints "set"
  image-talker TOPIC FILE      publishes one 3840x2160 rgb8 sensor_msgs/Image whose data is
                               FILE's bytes (frame_id "camera"; rospy numbers header.seq) once
                               a subscriber is connected, then exits
  image-listener TOPIC FILE    writes the first Image's data to FILE, prints its metadata, exits
  rosout-listener TOPIC        prints "log <level> <name> <msg> | <topics>" per rosgraph_msgs/Log
                               on TOPIC (/rosout_agg: what roscore's rosout republishes)

Every node prints "ready" once it is registered; a listener once its callback is attached too
(rospy connects to the publishers before it attaches the callback and drops what arrives in
between, so a publisher that counts its subscribers must wait for "ready" as well). The peer lives
only as long as its parent.
"""

import ctypes
import importlib
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def tie_to_parent():
    parent = os.getppid()
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def say(text):
    print(text, flush=True)


def dump_message(stem, cls):
    """STEM.md5 (_md5sum), STEM.def (_full_text), STEM.bin (a default instance, serialized)."""
    from io import BytesIO

    with open(stem + ".md5", "w") as f:
        f.write(cls._md5sum)
    with open(stem + ".def", "w") as f:
        f.write(cls._full_text)
    buf = BytesIO()
    cls().serialize(buf)
    with open(stem + ".bin", "wb") as f:
        f.write(buf.getvalue())


def type_names(module, pkg, kind):
    """The package's types: its .msg / .srv files, else (a package Debian ships without them,
    such as rosgraph_msgs) the classes of its genpy module."""
    share = f"/usr/share/{pkg}/{kind}"
    if os.path.isdir(share):
        return [f[: -len(kind) - 1] for f in sorted(os.listdir(share))]
    return sorted(n for n in dir(module) if hasattr(getattr(module, n), "_md5sum"))


def dump(outdir, packages, kind):
    """Every message (kind "msg") or service (kind "srv") of each package, by genpy's classes."""
    for pkg in packages:
        module = importlib.import_module(f"{pkg}.{kind}")
        for name in type_names(module, pkg, kind):
            cls = getattr(module, name)
            stem = os.path.join(outdir, f"{pkg}__{name}")
            if kind == "msg":
                dump_message(stem, cls)
                continue
            with open(stem + ".md5", "w") as f:
                f.write(cls._md5sum)
            dump_message(stem + ".req", cls._request_class)
            dump_message(stem + ".res", cls._response_class)
    say("done")


def wait_for_subscriber(rospy, pub, subscribers=1):
    while pub.get_num_connections() < subscribers and not rospy.is_shutdown():
        rospy.sleep(0.01)


def publish_forever(rospy, pub, prefix):
    """'PREFIX 0', 'PREFIX 1', ... at 200 Hz until the node shuts down."""
    from std_msgs.msg import String

    i = 0
    rate = rospy.Rate(200)
    while not rospy.is_shutdown():
        pub.publish(String(data=f"{prefix} {i}"))
        i += 1
        rate.sleep()


def string_talker(rospy, topic, count, subscribers=1):
    from std_msgs.msg import String

    pub = rospy.Publisher(topic, String, queue_size=None)  # synchronous: written when it returns
    say("ready")
    wait_for_subscriber(rospy, pub, subscribers)
    if count == 0:
        publish_forever(rospy, pub, "msg")
        return
    for i in range(count):
        pub.publish(String(data=f"msg {i}"))
    pub.publish(String(data="end"))
    say("published")


def string_dropper(rospy, topic):
    from std_msgs.msg import String

    pub = rospy.Publisher(topic, String, queue_size=None)
    say("ready")
    wait_for_subscriber(rospy, pub)
    for i in range(10):
        pub.publish(String(data=f"msg {i}"))
    # A connection lost while the publisher is still registered (no publisherUpdate follows):
    # rospy's transports closed as a failed write would close them.
    for c in list(pub.impl.connections):
        pub.impl.remove_connection(c)
        c.close()
    say("dropped")
    publish_forever(rospy, pub, "after")


def string_listener(rospy, topic):
    from std_msgs.msg import String

    def on_message(msg):
        say("got " + msg.data)
        if msg.data == "end":
            rospy.signal_shutdown("end")

    rospy.Subscriber(topic, String, on_message)
    say("ready")
    rospy.spin()


def image_talker(rospy, topic, path):
    from sensor_msgs.msg import Image

    with open(path, "rb") as f:
        data = f.read()
    img = Image(height=2160, width=3840, encoding="rgb8", is_bigendian=0, step=3840 * 3, data=data)
    img.header.frame_id = "camera"
    pub = rospy.Publisher(topic, Image, queue_size=None)
    say("ready")
    wait_for_subscriber(rospy, pub)
    pub.publish(img)
    say("published")


def image_listener(rospy, topic, path):
    from sensor_msgs.msg import Image

    def on_image(msg):
        with open(path, "wb") as f:
            f.write(msg.data)
        say(
            f"image {msg.width}x{msg.height} {msg.encoding} step {msg.step} "
            f"seq {msg.header.seq} frame {msg.header.frame_id} bytes {len(msg.data)}"
        )
        rospy.signal_shutdown("got it")

    rospy.Subscriber(topic, Image, on_image)
    say("ready")
    rospy.spin()


def rosout_listener(rospy, topic):
    from rosgraph_msgs.msg import Log

    def on_log(msg):
        say(f"log {msg.level} {msg.name} {msg.msg} | {' '.join(msg.topics)}")

    rospy.Subscriber(topic, Log, on_log)
    say("ready")
    rospy.spin()


def setbool_server(rospy, service, stuck):
    import threading

    from std_srvs.srv import SetBool, SetBoolResponse

    calls = [0]

    def handle(req):
        if stuck:
            say("stuck")
            threading.Event().wait()
        if not req.data:
            raise rospy.ServiceException("false is refused")
        calls[0] += 1
        return SetBoolResponse(success=True, message=f"on {calls[0]}")

    rospy.Service(service, SetBool, handle)
    say("ready")
    rospy.spin()


def setbool_client(rospy, service, count):
    from std_srvs.srv import SetBool

    rospy.wait_for_service(service)
    proxy = rospy.ServiceProxy(service, SetBool, persistent=True)
    say("ready")
    for i in range(count):
        r = proxy(True)
        say(f"reply {i} {r.success} {r.message}")
    try:
        r = proxy(False)
        say(f"reply {count} {r.success} {r.message}")
    except rospy.ServiceException as e:
        say(f"error {e}")
    proxy.close()
    say("done")


def trigger_client(rospy, service):
    from std_srvs.srv import Trigger

    rospy.wait_for_service(service)
    say("ready")
    try:
        r = rospy.ServiceProxy(service, Trigger)()
        say(f"reply {r.success} {r.message}")
    except (rospy.ServiceException, rospy.exceptions.TransportInitError) as e:
        say(f"error {e}")


def main(argv):
    tie_to_parent()
    mode = argv[1]
    if mode in ("types", "srv-types"):
        dump(argv[2], argv[3:], "msg" if mode == "types" else "srv")
        return
    import rospy

    rospy.init_node(f"rospy_{mode.replace('-', '_')}_{os.getpid()}", disable_signals=True)
    if mode == "string-talker":
        string_talker(rospy, argv[2], int(argv[3]), int(argv[4]) if len(argv) > 4 else 1)
    elif mode == "string-dropper":
        string_dropper(rospy, argv[2])
    elif mode == "string-listener":
        string_listener(rospy, argv[2])
    elif mode == "setbool-server":
        setbool_server(rospy, argv[2], len(argv) > 3 and argv[3] == "stuck")
    elif mode == "setbool-client":
        setbool_client(rospy, argv[2], int(argv[3]))
    elif mode == "trigger-client":
        trigger_client(rospy, argv[2])
    elif mode == "param-get":
        say(
            "param " + repr(rospy.get_param(argv[2]))
            if rospy.has_param(argv[2])
            else "param missing"
        )
    elif mode == "param-set":
        import ast

        rospy.set_param(argv[2], ast.literal_eval(argv[3]))
        say("set")
    elif mode == "image-talker":
        image_talker(rospy, argv[2], argv[3])
    elif mode == "image-listener":
        image_listener(rospy, argv[2], argv[3])
    elif mode == "rosout-listener":
        rosout_listener(rospy, argv[2])
    else:
        sys.exit(f"unknown mode {mode}")
    rospy.signal_shutdown("done")


if __name__ == "__main__":
    main(sys.argv)
