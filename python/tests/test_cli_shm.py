"""`baton shm list | inspect` on real segments of a second process, and on corrupt ones: a
corrupt or foreign segment is reported with what is wrong (exit 6), never crashed on."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import baton

from conftest import run_cli

SEGMENT_MAGIC = 0x314D48534E544142  # "BATNSHM1" (shm/segment_layout.hpp)
SEGMENT_READY = 0x52454459
KIND_PUBLISHER, KIND_DATA = 2, 3
LAYOUT_VERSION = 11  # shm::SEGMENT_LAYOUT_VERSION (11: head slots share the header page)


def segment_header(
    kind: int, total: int, *, magic: int = SEGMENT_MAGIC, version: int = LAYOUT_VERSION
) -> bytes:
    """A 64-byte SegmentHeader as shm/segment_layout.hpp lays it out (creator: this process)."""
    return struct.pack(
        "<QHHIQIIQ24x", magic, version, 64, kind, total, os.getpid(), SEGMENT_READY, 0
    )


def plant(tag: str, name: str, data: bytes) -> str:
    """Writes a segment file in this test's namespace; returns its shm name."""
    full = baton._baton.segment_name(tag, name)
    path = Path("/dev/shm") / full.lstrip("/")
    path.write_bytes(data)
    path.chmod(0o600)
    return full


def inspect(name: str) -> tuple[int, dict]:
    r = run_cli("shm", "inspect", name, "--format", "json")
    assert "Traceback" not in r.stderr, r.stderr
    return r.returncode, json.loads(r.stdout)


def test_inspect_of_a_name_outside_baton_exits_2(ns):
    r = run_cli("shm", "inspect", "not-ours")
    assert r.returncode == 2 and "error:" in r.stderr and "hint:" in r.stderr


def test_inspect_of_a_missing_segment_exits_3(ns):
    r = run_cli("shm", "inspect", baton._baton.segment_name("t", "/nothing"))
    assert r.returncode == 3 and "baton shm list" in r.stderr


def test_list_and_inspect_show_a_live_publishers_segments(ns, peer):
    p = peer("talker.py", "/chatter", "text", "50")
    p.expect("ready")
    r = run_cli("shm", "list", "--format", "json", check=True)
    segs = {s["kind"]: s for s in json.loads(r.stdout)}
    assert {"topic", "publisher", "data", "graph"} <= segs.keys()
    assert segs["publisher"]["creator_pid"] == p.proc.pid and segs["publisher"]["creator_alive"]
    table = run_cli("shm", "list", check=True).stdout
    assert "publisher" in table and str(p.proc.pid) in table and "alive" in table

    code, t = inspect(segs["topic"]["name"].lstrip("/"))  # with or without the leading '/'
    assert code == 0 and t["verdict"] == "ok" and t["header"]["kind_name"] == "topic"
    assert t["body"]["type_name"] == "std_msgs/msg/String"
    [pub] = t["body"]["publishers"]
    assert pub["pid"] == p.proc.pid and pub["alive"] and pub["state"] == "active"
    code, pub_seg = inspect(segs["publisher"]["name"])
    assert code == 0 and pub_seg["body"]["ring_capacity"] >= 1
    assert pub_seg["header"]["creator_alive"] and pub_seg["header"]["magic_ok"]
    code, data = inspect(segs["data"]["name"])
    body = data["body"]
    assert code == 0 and body["chunks"] >= body["chunks_committed"] >= body["chunks_in_use"] >= 1
    r = run_cli("shm", "inspect", "--topic", "/chatter", check=True)
    assert "std_msgs/msg/String" in r.stdout and "verdict   ok" in r.stdout


def test_truncated_segment_is_reported_corrupt(ns):
    name = plant("p", "/short", b"\x01" * 10)
    code, r = inspect(name)
    assert code == 6 and r["verdict"] == "corrupt" and "64-byte" in r["problem"]
    listed = {s["name"]: s for s in baton._baton.list_segments(False)}
    assert listed[name]["problem"]  # `shm list` shows it too


def test_foreign_magic_is_reported_incompatible(ns):
    name = plant("p", "/foreign", segment_header(KIND_PUBLISHER, 4096, magic=0x1234) + bytes(4032))
    code, r = inspect(name)
    assert code == 6 and r["verdict"] == "incompatible" and "magic" in r["problem"]
    assert r["header"]["magic_ok"] is False
    text = run_cli("shm", "inspect", name)
    assert text.returncode == 6 and "not baton" in text.stdout


def test_wrong_total_size_and_newer_layout_are_refused(ns):
    name = plant("p", "/size", segment_header(KIND_PUBLISHER, 1 << 40) + bytes(4032))
    code, r = inspect(name)
    assert code == 6 and r["verdict"] == "corrupt" and "4096" in r["problem"]
    newer = LAYOUT_VERSION + 1
    name = plant("p", "/newer", segment_header(KIND_PUBLISHER, 4096, version=newer) + bytes(4032))
    code, r = inspect(name)
    assert code == 6 and r["verdict"] == "incompatible" and r["header"]["layout_version"] == newer


def test_publisher_body_with_impossible_ring_is_reported(ns):
    body = struct.pack("<IIQQ", 0xFFFFFFFF, 256, 1 << 60, 1 << 61) + bytes(4096 - 64 - 24)
    name = plant("p", "/ring", segment_header(KIND_PUBLISHER, 4096) + body)
    code, r = inspect(name)
    assert code == 6 and r["verdict"] == "corrupt" and "ring capacity" in r["problem"]


def test_data_body_with_chunks_past_the_end_is_reported(ns):
    # chunk_capacity, chunk_stride, control_offset, data_offset, chunk_count, segment_index
    body = struct.pack("<QQQQII", 64, 1 << 62, 128, 4096, 1000, 0) + bytes(4096 - 64 - 40)
    name = plant("d", "/chunks", segment_header(KIND_DATA, 4096) + body)
    code, r = inspect(name)
    assert code == 6 and r["verdict"] == "corrupt" and "do not fit" in r["problem"]
