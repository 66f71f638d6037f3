"""Memory-domain endpoints from Python: device loans and samples with DLPack, on the real PoCL
OpenCL device (the CPU: host-unified, so OpenCL buffers are the shared memory itself), the
staging domain (a real copy) and CUDA where a GPU exists (skipped here, never faked)."""

from __future__ import annotations

import ctypes
import json

import numpy as np
import pytest

import baton

from test_api import shm_mapping_of

SHAPE = (512, 1024, 4)
PATTERN = ((np.arange(int(np.prod(SHAPE)), dtype=np.uint64) * 7 + 3) % 251).astype(np.uint8)

CL_MEM_SIZE = 0x1102
CL_MEM_HOST_PTR = 0x1103


def opencl_or_skip(domain: str = "opencl:0") -> dict:
    try:
        return baton.domain_info(domain)
    except baton.DomainUnavailableError as e:
        pytest.skip(f"no OpenCL device here ({e.detail}); install pocl-opencl-icd")


def cl_mem_info(mem: int, what: int) -> int:
    """clGetMemObjectInfo through the ICD loader: proves `mem` is a live cl_mem handle."""
    cl = ctypes.CDLL("libOpenCL.so.1")
    cl.clGetMemObjectInfo.argtypes = [
        ctypes.c_void_p, ctypes.c_uint32, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p
    ]  # fmt: skip
    out = ctypes.c_size_t(0)
    st = cl.clGetMemObjectInfo(mem, what, ctypes.sizeof(out), ctypes.byref(out), None)
    assert st == 0, f"clGetMemObjectInfo -> {st}"
    return out.value


def test_domain_publisher_with_unknown_domain_raises_domain_unavailable(ctx):
    node = baton.Node(ctx, "bad")
    with pytest.raises(baton.DomainUnavailableError) as e:
        node.domain_publisher("/t", np.uint8, "nosuch:0").create()
    assert "nosuch:0" in e.value.detail and e.value.hint
    with pytest.raises(baton.DomainUnavailableError):
        baton.domain_info("opencl:99")


def test_opencl_frame_from_another_process_arrives_as_the_publishers_bytes(ctx, peer):
    info = opencl_or_skip()
    assert info["host_unified"], "PoCL's CPU device is host-unified"
    node = baton.Node(ctx, "viewer")
    sub = node.domain_subscription("/camera/device", np.uint8, "opencl:0").qos(baton.QoS(2))
    sub = sub.create()
    host_sub = node.subscription("/camera/device", np.uint8).qos(baton.QoS(2)).create()
    p = peer("device_publisher.py", "opencl:0")
    p.expect("ready")
    facts = json.loads(p.expect("published", timeout=30).split(" ", 1)[1])
    # The publisher wrote through DLPack into the OpenCL loan itself (kDLCPU on PoCL).
    assert facts == {"dlpack_device": [1, 0], "host_visible": True, "dlpack_is_loan": True}

    s = sub.take(timeout=10.0)
    assert s is not None and s.path == "zero-copy" and s.domain == "opencl:0"
    assert s.shape == list(SHAPE) and s.dtype == np.uint8 and s.is_array
    assert s.__dlpack_device__() == (1, 0) and s.host_visible
    a = np.from_dlpack(s)
    assert a.ctypes.data == s.data_ptr and not a.flags.writeable  # a view, read-only
    assert "/dev/shm/baton." in shm_mapping_of(s.data_ptr)  # the publisher's shared chunk
    # The cl_mem a kernel would use is that very mapping (CL_MEM_USE_HOST_PTR), header first.
    assert cl_mem_info(s.cl_mem, CL_MEM_HOST_PTR) == s.data_ptr - s.payload_offset
    assert cl_mem_info(s.cl_mem, CL_MEM_SIZE) >= s.size
    assert np.array_equal(a.reshape(-1), PATTERN)
    # A plain host subscription in this process sees the same bytes at the same address.
    h = host_sub.take(timeout=10.0)
    assert h is not None and h.data_ptr == s.data_ptr
    assert sub.domain_copies(h.publisher_slot) == 0


def test_opencl_sc_loan_is_not_host_visible_and_exposes_cl_mem(ctx):
    opencl_or_skip("opencl:0:sc")
    node = baton.Node(ctx, "sc")
    pub = node.domain_publisher("/sc", np.float32, "opencl:0:sc", (64, 32)).create()
    host_sub = node.subscription("/sc", np.float32).create()
    dev_sub = node.domain_subscription("/sc", np.float32, "opencl:0:sc").create()
    loan = pub.loan()
    assert not loan.host_visible and loan.data_ptr is None
    assert loan.__dlpack_device__() == (4, 0)  # kDLOpenCL: honest, but nobody imports it
    with pytest.raises(baton.NotHostVisibleError) as e:
        np.from_dlpack(loan)
    assert isinstance(e.value, BufferError) and "cl_mem" in e.value.hint
    with pytest.raises(baton.NotHostVisibleError):
        _ = loan.array
    assert cl_mem_info(loan.cl_mem, CL_MEM_SIZE) == 128 + 64 * 32 * 4
    assert cl_mem_info(loan.cl_mem, CL_MEM_HOST_PTR) == 0  # device memory, not a host mapping
    with pytest.raises(baton.InvalidShapeError):
        loan.write(np.zeros(3, np.float32))
    data = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    loan.write(data)
    loan.publish()
    with pytest.raises(baton.InvalidLoanError):
        loan.publish()
    h = host_sub.take(timeout=5.0)  # the host bytes were written back for a host reader
    assert h is not None and h.shape == [64, 32] and np.array_equal(h.array, data)
    d = dev_sub.take(timeout=5.0)
    assert d is not None and d.path in ("shared-copy", "made-copy") and not d.host_visible
    assert d.shape == [64, 32] and d.stamp_ns > 0
    assert np.array_equal(d.read(), data)  # one explicit copy out of the device buffer


def test_opencl_sc_frames_from_another_process_reach_a_copying_subscriber(ctx, peer):
    # OpenCL device copies are per process: the publisher must write the host bytes for a
    # domain reader in another process (it could never reach the publisher's device copy).
    opencl_or_skip("opencl:0:sc")
    node = baton.Node(ctx, "sc_viewer")
    sub = node.domain_subscription("/camera/device", np.uint8, "opencl:0:sc").qos(baton.QoS(4))
    sub = sub.create()
    p = peer("device_publisher.py", "opencl:0:sc", "3")
    p.expect("ready")
    for i in range(3):  # in step: the publisher's reliable QoS(2) waits for this reader
        facts = json.loads(p.expect("published", timeout=30).split(" ", 1)[1])
        assert facts == {"dlpack_device": [4, 0], "host_visible": False}
        s = sub.take(timeout=10.0)
        assert s is not None and s.path == "made-copy" and not s.host_visible
        assert s.sequence == i and s.shape == list(SHAPE)
        expected = ((np.arange(PATTERN.size, dtype=np.uint64) * 7 + 3 + i) % 251).astype(np.uint8)
        assert np.array_equal(s.read().reshape(-1), expected)


def test_staging_domain_copies_once_and_is_host_visible(ctx):
    node = baton.Node(ctx, "staging")
    pub = node.domain_publisher("/st", np.int16, "host", (100,)).create()
    a = node.domain_subscription("/st", np.int16, "staging").create()
    b = node.domain_subscription("/st", np.int16, "staging").create()
    with pub.loan() as loan:
        np.from_dlpack(loan)[:] = np.arange(100, dtype=np.int16)
    sa, sb = a.take(timeout=5.0), b.take(timeout=5.0)
    assert sa is not None and sb is not None
    assert {sa.path, sb.path} == {"made-copy", "shared-copy"}  # one copy, shared
    assert sa.data_ptr == sb.data_ptr and "staging" in sa.domain
    assert np.array_equal(np.from_dlpack(sa), np.arange(100, dtype=np.int16))
    assert a.domain_copies(0) == 1


def test_bytes_device_publisher_reaches_a_raw_subscription(ctx):
    opencl_or_skip()
    node = baton.Node(ctx, "raw")
    pub = node.domain_publisher("/raw", None, "opencl:0", type_name="demo/msg/Blob").create()
    sub = node.raw_subscription("/raw", "demo/msg/Blob").create()
    loan = pub.loan(nbytes=5)
    assert loan.shape == [5] and not loan.is_array
    loan.array[:] = np.frombuffer(b"hello", np.uint8)
    pub.publish(loan)
    s = sub.take(timeout=5.0)
    assert s is not None and s.tobytes() == b"hello"


def test_cuda_loan_reports_kdlcuda_with_the_device_pointer(ctx):
    try:
        baton.domain_info("cuda:0")
    except baton.DomainUnavailableError as e:
        pytest.skip(f"no CUDA GPU here, CUDA DLPack not exercised: {e.detail}")
    node = baton.Node(ctx, "cuda")
    pub = node.domain_publisher("/cu", np.float32, "cuda:0", (16,)).create()
    sub = node.domain_subscription("/cu", np.float32, "cuda:0").create()
    loan = pub.loan()
    assert loan.__dlpack_device__() == (2, 0) and loan.data_ptr
    loan.write(np.ones(16, np.float32))
    loan.publish()
    s = sub.take(timeout=5.0)
    assert s is not None and s.__dlpack_device__() == (2, 0)
    assert np.array_equal(s.read(), np.ones(16, np.float32))
