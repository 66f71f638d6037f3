"""The Python API in one process: numpy views, DLPack, QoS, executors, services, errors."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import baton


def shm_mapping_of(address: int) -> str:
    """The file backing the mapping that contains `address` ('' if anonymous)."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            lo, hi = (int(x, 16) for x in fields[0].split("-"))
            if lo <= address < hi:
                return fields[5] if len(fields) > 5 else ""
    return ""


def test_create_with_invalid_name_raises_invalid_name_error(ctx):
    node = baton.Node(ctx, "bad")
    with pytest.raises(baton.InvalidNameError) as e:
        node.publisher("no spaces allowed", np.uint8).create()
    assert isinstance(e.value, baton.BatonError) and e.value.hint


def test_array_round_trip_keeps_dtype_shape_and_is_read_only(ctx):
    node = baton.Node(ctx, "n")
    pub = node.publisher("/a", np.float32, (3, 4)).create()
    sub = node.subscription("/a", np.float32).create()
    with pub.loan() as a:
        a[:] = np.arange(12, dtype=np.float32).reshape(3, 4)
    s = sub.take(timeout=1.0)
    assert s is not None and s.dtype == np.float32 and tuple(s.shape) == (3, 4)
    np.testing.assert_array_equal(s.array, np.arange(12, dtype=np.float32).reshape(3, 4))
    assert not s.array.flags.writeable
    with pytest.raises(ValueError):
        s.array[0, 0] = 1
    assert s.stamp_ns > 0


def test_sample_views_share_the_loan_inside_shared_memory(ctx):
    node = baton.Node(ctx, "n")
    pub = node.publisher("/v", np.uint16, (100,)).create()
    sub = node.subscription("/v", np.uint16).create()
    pub.publish(np.arange(100, dtype=np.uint16))
    s = sub.take(timeout=1.0)
    first, second = s.array, np.asarray(s)
    assert first.ctypes.data == second.ctypes.data == s.data_ptr
    assert "/dev/shm/baton." in shm_mapping_of(s.data_ptr)


def test_dlpack_exports_without_copy(ctx):
    node = baton.Node(ctx, "n")
    pub = node.publisher("/d", np.int32, (8,)).create()
    sub = node.subscription("/d", np.int32).create()
    loan = pub.loan()
    assert loan.__dlpack_device__() == (1, 0)
    w = np.from_dlpack(loan)
    assert w.ctypes.data == loan.data_ptr and w.flags.writeable
    w[:] = 7
    loan.publish()
    s = sub.take(timeout=1.0)
    assert s.__dlpack_device__() == (1, 0)
    v = np.from_dlpack(s)
    assert v.ctypes.data == s.data_ptr and not v.flags.writeable
    assert v.tolist() == [7] * 8


def test_subscription_with_other_dtype_raises_type_mismatch(ctx):
    node = baton.Node(ctx, "n")
    node.publisher("/t", np.uint8).create()
    with pytest.raises(baton.TypeMismatchError) as e:
        node.subscription("/t", np.float64).create()
    assert "NDArray[uint8]" in str(e.value) and "baton topic info" in e.value.hint


def test_typeless_subscription_of_unknown_topic_raises_topic_not_found(ctx):
    with pytest.raises(baton.TopicNotFoundError):
        baton.Node(ctx, "n").subscription("/nobody").create()


def test_typeless_subscription_takes_the_topics_type(ctx):
    node = baton.Node(ctx, "n")
    pub = node.publisher("/any", np.complex64, (2,)).create()
    sub = node.subscription("/any").create()
    pub.publish(np.array([1 + 2j, 3 - 4j], np.complex64))
    s = sub.take(timeout=1.0)
    assert s.dtype == np.complex64 and s.array.tolist() == [1 + 2j, 3 - 4j]


def test_raw_bytes_round_trip(ctx):
    node = baton.Node(ctx, "n")
    pub = node.raw_publisher("/bytes", "std_msgs/msg/String").create()
    sub = node.raw_subscription("/bytes", "std_msgs/msg/String").create()
    pub.publish(b"hello")
    s = sub.take(timeout=1.0)
    assert s.tobytes() == b"hello" and s.array.dtype == np.uint8 and not s.is_array


def test_builder_reserve_pays_for_the_ring_so_loans_do_not_grow_the_pool(ctx):
    node = baton.Node(ctx, "n")
    q = baton.QoS(4)
    pub = node.publisher("/cam", np.uint8, (480, 640, 3)).qos(q).reserve(q.depth + 2).create()
    before = pub.pool
    frame_bytes = 480 * 640 * 3
    # Room for all six; of chunks this large (1 MiB class) one is committed now, the rest in
    # /dev/shm as loans first need them.
    assert before["segments"] == 1 and before["address_bytes"] >= 6 * frame_bytes
    assert before["chunks"] == 1 and before["committed_bytes"] >= frame_bytes
    for _ in range(12):
        with pub.loan() as frame:
            frame[:] = 7
    assert pub.pool["segments"] == 1
    assert before["chunks"] <= pub.pool["chunks"] <= 6


def test_publisher_reserve_of_a_raw_publisher_needs_nbytes_and_counts_what_it_added(ctx):
    pub = baton.Node(ctx, "n").publisher("/raw", None).create()
    with pytest.raises(baton.InvalidShapeError):
        pub.reserve(4)
    assert pub.reserve(4, nbytes=100_000) == 4
    assert pub.reserve(3, nbytes=100_000) == 0  # four are free already
    assert pub.pool["free"] == 4


def test_reserve_beyond_the_limits_raises_with_the_limit_named(ctx):
    node = baton.Node(ctx, "n")
    pub = node.publisher("/lim", np.uint8, (1024,)).max_message_size(4096).create()
    with pytest.raises(baton.LoanTooLargeError):
        pub.reserve(2, shape=(1 << 20,))
    with pytest.raises(baton.ReservationError) as e:
        node.publisher("/lim2", None).reserve(20_000, nbytes=1 << 20).create()  # 20 GiB
    assert "max_pool_bytes" in str(e.value) and e.value.hint


def test_loan_larger_than_max_message_size_raises_loan_too_large(ctx):
    pub = baton.Node(ctx, "n").publisher("/big", np.uint8).max_message_size(1024).create()
    with pytest.raises(baton.LoanTooLargeError):
        pub.loan((1 << 20,))


def test_holding_too_many_samples_raises_too_many_loans(ctx):
    node = baton.Node(ctx, "n")
    pub = node.publisher("/many", np.uint8, (1,)).qos(baton.QoS(64)).create()
    sub = node.subscription("/many", np.uint8).qos(baton.QoS(64)).create()
    for i in range(20):
        pub.publish(np.array([i], np.uint8))
    held = [sub.take(timeout=1.0) for _ in range(16)]
    assert all(h is not None for h in held)
    with pytest.raises(baton.TooManyLoansError):
        sub.take(timeout=0.1)
    held.pop().release()
    assert sub.take(timeout=1.0) is not None


def test_qos_chaining_and_transient_local_late_joiner(ctx):
    q = baton.QoS(5).reliable().transient_local()
    assert (q.depth, q.reliability, q.durability) == (5, "reliable", "transient_local")
    assert baton.QoS.sensor_data().reliability == "best_effort"
    node = baton.Node(ctx, "n")
    pub = node.publisher("/latched", np.int64, (1,)).qos(q).create()
    pub.publish(np.array([42], np.int64))
    late = node.subscription("/latched", np.int64).qos(baton.QoS(5).transient_local()).create()
    s = late.take(timeout=1.0)
    assert s is not None and s.array.tolist() == [42]


def test_executor_runs_callbacks_and_propagates_their_exceptions(ctx):
    node = baton.Node(ctx, "n")
    got = []
    node.subscription("/cb", np.uint8).callback(lambda s: got.append(s.array.tolist())).create()
    pub = node.publisher("/cb", np.uint8, (2,)).create()
    ex = baton.SingleThreadedExecutor(ctx)
    ex.add_node(node)
    pub.publish(np.array([1, 2], np.uint8))
    assert ex.spin_once(1.0) and got == [[1, 2]]

    def boom(_s):
        raise RuntimeError("callback failed")

    node.subscription("/cb2", np.uint8).callback(boom).create()
    pub2 = node.publisher("/cb2", np.uint8, (1,)).create()
    pub2.publish(np.zeros(1, np.uint8))
    with pytest.raises(RuntimeError, match="callback failed"):
        for _ in range(10):
            ex.spin_once(0.2)


def test_service_call_sync_and_async(ctx):
    node = baton.Node(ctx, "n")
    node.service("/echo_upper").callback(lambda req: req.upper()).create()
    cli = node.client("/echo_upper").create()
    ex = baton.SingleThreadedExecutor(ctx)
    ex.add_node(node)
    t = threading.Thread(target=ex.spin)
    t.start()
    try:
        assert cli.wait_for_service(2.0)
        assert cli.call(b"abc", timeout=2.0) == b"ABC"
        fut = cli.call_async("xyz")
        assert fut.result(timeout=2.0) == b"XYZ"
    finally:
        ex.cancel()
        t.join()


def test_call_without_service_raises_service_unavailable(ctx):
    cli = baton.Node(ctx, "n").client("/nobody_serves").create()
    with pytest.raises(baton.ServiceUnavailableError):
        cli.call(b"x", timeout=0.2)


def test_graph_snapshot_lists_nodes_topics_and_services(ctx):
    node = baton.Node(ctx, "grapher", "/ns")
    node.publisher("chatter", np.uint8).create()
    node.service("srv").callback(lambda r: r).create()
    snap = baton.graph_snapshot(ctx)
    assert "/ns/grapher" in [n["fqn"] for n in snap["nodes"]]
    assert "/ns/chatter" in [t["name"] for t in snap["topics"]]
    assert "/ns/srv" in [s["name"] for s in snap["services"]]
