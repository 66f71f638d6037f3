"""The `baton` command as a user drives it: real topics from a second process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

import baton

from conftest import ROOT, run_cli, wait_for

VERBS = [
    ["topic", "list"],
    ["topic", "info"],
    ["topic", "echo"],
    ["topic", "hz"],
    ["topic", "bw"],
    ["topic", "pub"],
    ["topic", "delay"],
    ["node", "list"],
    ["node", "info"],
    ["service", "list"],
    ["service", "call"],
    ["graph"],
    ["doctor"],
    ["clean"],
    ["bench"],
    ["shm", "list"],
    ["shm", "inspect"],
    ["shm", "clean"],
    ["config", "show"],
    ["config", "explain"],
    ["view"],
]


def test_unknown_command_exits_with_usage_error(ns):
    r = run_cli("frobnicate")
    assert r.returncode == 2 and "usage:" in r.stderr


@pytest.mark.parametrize("verb", VERBS, ids=lambda v: " ".join(v))
def test_every_verb_has_help(ns, verb):
    r = run_cli(*verb, "--help")
    assert r.returncode == 0 and "usage: baton" in r.stdout


def user_error(r, code: int) -> None:
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    assert "error:" in r.stderr and "hint:" in r.stderr
    assert "Traceback" not in r.stderr


def test_echo_of_missing_topic_says_what_to_do(ns):
    r = run_cli("topic", "echo", "/missing")
    user_error(r, 3)
    assert "/missing" in r.stderr and "baton topic list" in r.stderr


def test_info_of_missing_topic_exits_3(ns):
    user_error(run_cli("topic", "info", "/missing"), 3)


def test_list_info_echo_hz_on_a_live_topic(ns, peer):
    p = peer("talker.py", "/chatter", "text", "20")
    p.expect("ready")
    assert run_cli("topic", "list", check=True).stdout.split() == ["/chatter"]
    r = run_cli("topic", "list", "-t", check=True)
    assert r.stdout.strip() == "/chatter [std_msgs/msg/String]"
    listed = json.loads(run_cli("topic", "list", "--format", "json", check=True).stdout)
    assert listed[0]["name"] == "/chatter" and listed[0]["publisher_count"] == 1
    info = run_cli("topic", "info", "/chatter", "-v", check=True).stdout
    assert "Type: std_msgs/msg/String" in info and "Publisher count: 1" in info
    assert "Node name: talker" in info and "Reliability: RELIABLE" in info
    echo = run_cli("topic", "echo", "/chatter", "-n", "2", check=True).stdout
    assert echo.count("---") == 2 and 'data: "hello ' in echo
    line = run_cli("topic", "echo", "/chatter", "--once", "--format", "json", check=True).stdout
    assert json.loads(line)["data"].startswith("hello ")
    hz = run_cli(
        "topic", "hz", "/chatter", "--duration", "2.2", "--format", "json", check=True
    ).stdout.splitlines()
    rate = json.loads(hz[-1])["average_rate"]
    assert 5 < rate < 40  # behaviour, not speed: the talker runs at 20 Hz


def test_echo_bw_delay_of_array_topic(ns, peer):
    p = peer("talker.py", "/image", "uint8", "20", "2,3")
    p.expect("ready")
    echo = run_cli("topic", "echo", "/image", "--once", check=True).stdout
    assert "dtype: uint8" in echo and "shape: [2, 3]" in echo
    bw = run_cli("topic", "bw", "/image", "--duration", "1.5", check=True).stdout
    assert "Subscribed to [/image]" in bw and "/s from" in bw
    delay = run_cli(
        "topic", "delay", "/image", "--duration", "1.5", "--format", "json", check=True
    ).stdout.splitlines()
    assert json.loads(delay[-1])["average_delay"] >= 0


def taking(sub):
    """Takes one message on a thread (as a spinning subscriber would) while the CLI runs."""
    box = []
    t = threading.Thread(target=lambda: box.append(sub.take(timeout=10.0)))
    t.start()
    return t, box


def test_pub_reaches_a_subscriber_in_another_process(ctx):
    node = baton.Node(ctx, "listener")
    sub = node.subscription("/pubbed", np.float32).create()
    t, box = taking(sub)
    run_cli(
        "topic", "pub", "/pubbed", "[[1, 2], [3, 4]]", "--dtype", "float32", "--once", check=True
    )
    t.join()
    assert box[0] is not None and box[0].array.tolist() == [[1, 2], [3, 4]]
    text = node.raw_subscription("/text").create()
    t, box = taking(text)
    run_cli("topic", "pub", "/text", "hi there", "--once", check=True)
    t.join()
    assert box[0].tobytes() == b"hi there"


def test_pub_with_wrong_dtype_reports_type_mismatch(ctx):
    pub = baton.Node(ctx, "owner").publisher("/typed", np.uint8).create()  # noqa: F841 (kept)
    r = run_cli("topic", "pub", "/typed", "[1.5]", "--dtype", "float64", "--once")
    user_error(r, 4)
    assert "NDArray[uint8]" in r.stderr


def test_permission_problem_is_explained(ctx):
    if os.geteuid() != 0:
        pytest.skip("needs root to hand a segment to another user")
    pub = baton.Node(ctx, "owner").publisher("/private", np.uint8).create()  # noqa: F841
    topic_segs = [s["name"] for s in baton._baton.list_segments(False) if s["kind"] == "topic"]
    assert topic_segs
    os.chown("/dev/shm" + topic_segs[0], 65534, 65534)
    r = run_cli("topic", "echo", "/private", "--once")
    user_error(r, 5)
    assert "another user" in r.stderr or "not by this user" in r.stderr


def test_node_list_and_info(ns, peer):
    p = peer("talker.py", "/chatter", "text", "20")
    p.expect("ready")
    assert run_cli("node", "list", check=True).stdout.split() == ["/talker"]
    info = run_cli("node", "info", "/talker", check=True).stdout
    assert "Publishers:" in info and "/chatter: std_msgs/msg/String" in info
    nodes = json.loads(run_cli("node", "list", "--format", "json", check=True).stdout)
    assert nodes[0]["fqn"] == "/talker"
    user_error(run_cli("node", "info", "/nobody"), 1)


def test_registry_goes_with_the_last_participant_and_readers_leave_none(ns, peer):
    registry = Path("/dev/shm") / (baton._baton.segment_prefix().lstrip("/") + "g.registry")
    assert run_cli("node", "list", check=True).stdout.split() == []
    assert not registry.exists()  # a reader removes the registry it had to create
    p = peer("talker.py", "/chatter", "text", "20")
    p.expect("ready")
    assert registry.exists()
    assert run_cli("node", "list", check=True).stdout.split() == ["/talker"]
    assert registry.exists()  # the reader left, the talker's participant keeps it
    assert p.stop() == 0
    assert not registry.exists()  # the talker was the last participant


def test_service_list_and_call(ns, peer):
    p = peer("service_server.py")
    p.expect("ready")
    listed = run_cli("service", "list", "-t", check=True).stdout
    assert "/add [example_interfaces/srv/AddTwoInts]" in listed
    r = run_cli("service", "call", "/add", '{"a": 1, "b": 2}', "--format", "json", check=True)
    assert json.loads(r.stdout)["response"] == {"sum": 3}
    r = run_cli("service", "call", "/upper", "abc", check=True)
    assert "response:\nABC" in r.stdout
    user_error(run_cli("service", "call", "/absent", "x", "--timeout", "0.2"), 3)


def test_graph_writes_dot_and_png(ns, peer, tmp_path: Path):
    p = peer("talker.py", "/chatter", "text", "20")
    p.expect("ready")
    r = run_cli("graph", "-o", str(tmp_path / "g"), "--format", "json", check=True)
    out = json.loads(r.stdout)
    dot = (tmp_path / "g.dot").read_text()
    assert '"n:/talker" -> "t:/chatter"' in dot
    if out["png"]:
        assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"


def test_doctor_reports_shm_and_devices(ns):
    r = run_cli("doctor", "--format", "json")
    checks = {c["check"]: c for c in json.loads(r.stdout)}
    assert "shm space" in checks and "opencl" in checks and "cuda" in checks
    assert checks["shm permissions"]["status"] == "ok"


def test_doctor_names_the_udp_buffer_sysctls_and_their_values(ns):
    from baton.cli import net_limits

    r = run_cli("doctor", "--format", "json")
    check = {c["check"]: c for c in json.loads(r.stdout)}["dds socket buffers"]
    for name, wanted, _ in net_limits.WANTED:
        current = net_limits.read_sysctl(name)
        assert f"{name} {current}" in check["detail"]
        if current is not None and current < wanted:
            assert check["status"] == "warn"
            assert f"{name}={wanted}" in check["hint"] and "sysctl -w" in check["hint"]
    if not net_limits.low_limits():
        assert check["status"] == "ok" and check["hint"] == ""


def test_net_limits_sysctl_conf_sets_every_wanted_limit():
    from baton.cli import net_limits

    conf = net_limits.sysctl_conf()
    for name, wanted, _ in net_limits.WANTED:
        assert f"{name} = {wanted}\n" in conf


def test_doctor_without_opencl_icd_says_so(ns, tmp_path: Path):
    env = dict(
        os.environ,
        OCL_ICD_VENDORS=str(tmp_path),
        PATH="/usr/bin:/bin",
        BATON_BUILD_DIR=str(tmp_path),
    )
    r = run_cli("doctor", "--require-opencl", env=env)
    if "no OpenCL ICD found" not in r.stderr + r.stdout:
        pytest.skip("the C++ baton-doctor tool answered instead")
    user_error(r, 9)


def test_clean_removes_dead_participants_segments_and_keeps_live_ones(ctx, peer):
    live = baton.Node(ctx, "alive").publisher("/alive", np.uint8, (8,)).create()
    p = peer("die_with_segments.py")
    p.expect("ready")
    p.proc.send_signal(signal.SIGKILL)
    p.proc.wait()
    dry = json.loads(run_cli("clean", "--dry-run", "--format", "json", check=True).stdout)
    assert dry["removed"], dry
    assert all(s["creator_pid"] != os.getpid() for s in dry["removed"])
    run_cli("clean", check=True)
    after = json.loads(run_cli("clean", "--dry-run", "--format", "json", check=True).stdout)
    assert not after["removed"]
    sub = baton.Node(ctx, "reader").subscription("/alive", np.uint8).create()
    live.publish(np.ones(8, np.uint8))
    assert wait_for(lambda: sub.has_data(), 2.0)


def test_bench_reports_a_missing_binary_as_failed(ns, tmp_path: Path):
    r = run_cli(
        "bench", "rate", "--quick", "--build-dir", str(tmp_path), "--no-report", "--format", "json"
    )
    assert r.returncode == 1
    steps = json.loads(r.stdout)["steps"]
    assert steps[0]["ok"] is False and "not built" in steps[0]["reason"]


def test_call_of_typed_cpp_service_is_refused_with_the_limitation(ns, tmp_path):
    server_bin = ROOT / "build" / "examples" / "cpp" / "request_response"
    server_bin = server_bin / "baton-example-request-response"
    if not server_bin.exists():
        pytest.skip(f"{server_bin} not built (ninja -C build)")
    server = subprocess.Popen([str(server_bin), "server"], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout.readline().startswith("serving")
        r = run_cli("service", "call", "/add_two_ints", "2 3", "--timeout", "2")
        user_error(r, 4)
        assert "typed C++" in r.stderr and "node.client<S>" in r.stderr
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=10)
