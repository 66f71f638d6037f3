"""The Python API across processes: a 24 MiB frame with no copy, services."""

from __future__ import annotations

import json

import numpy as np

import baton

from test_api import shm_mapping_of


def test_24mib_frame_arrives_byte_for_byte_without_copy(ctx, peer):
    node = baton.Node(ctx, "viewer")
    sub = node.subscription("/camera/frame", np.uint8).qos(baton.QoS(2)).create()
    p = peer("frame_publisher.py")
    p.expect("ready")
    p.expect("published", timeout=30)
    s = sub.take(timeout=10.0)
    assert s is not None
    assert s.shape == [1024, 4096, 6] and s.dtype == np.uint8 and s.nbytes == 24 << 20
    view1, view2 = s.array, s.array
    assert view1.ctypes.data == view2.ctypes.data == s.data_ptr  # one loan, no copy
    assert "/dev/shm/baton." in shm_mapping_of(s.data_ptr)
    assert not view1.flags.owndata and not view1.flags.writeable
    expected = ((np.arange(24 << 20, dtype=np.uint64) * 7 + 3) % 251).astype(np.uint8)
    assert np.array_equal(view1.reshape(-1), expected)
    assert np.from_dlpack(s).ctypes.data == s.data_ptr


def test_service_in_another_process_answers(ctx, peer):
    p = peer("service_server.py")
    p.expect("ready")
    node = baton.Node(ctx, "caller")
    add = node.client("/add", "example_interfaces/srv/AddTwoInts").create()
    assert add.wait_for_service(5.0)
    assert json.loads(add.call(json.dumps({"a": 2, "b": 40}), timeout=5.0)) == {"sum": 42}
    upper = node.client("/upper").create()
    assert upper.call(b"shm", timeout=5.0) == b"SHM"


def test_client_of_other_service_type_raises_type_mismatch(ctx, peer):
    p = peer("service_server.py")
    p.expect("ready")
    node = baton.Node(ctx, "caller")
    try:
        node.client("/add", "other/srv/Type").create()
    except baton.TypeMismatchError:
        return
    raise AssertionError("expected TypeMismatchError")
