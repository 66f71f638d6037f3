"""Every Python example (examples/python/<pattern>/main.py) runs as its README says, in two
processes, so the examples cannot rot."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

import baton

from conftest import ROOT

EXAMPLES = ROOT / "examples" / "python"


def start(example: str, *args: str) -> subprocess.Popen:
    """The waiting side, started first; returns once it printed "ready"."""
    p = subprocess.Popen(
        [sys.executable, str(EXAMPLES / example / "main.py"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = p.stdout.readline()
    assert line.strip() == "ready", (line, p.stderr.read() if p.poll() is not None else "")
    return p


def run(example: str, *args: str) -> str:
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / example / "main.py"), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, (r.stdout, r.stderr)
    return r.stdout


def finish(p: subprocess.Popen) -> str:
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, (out, err)
    return out


def test_example_without_a_role_prints_its_usage(ns):
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / "publish_subscribe" / "main.py")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == 1 and "listener" in r.stderr


def test_publish_subscribe_example(ns):
    listener = start("publish_subscribe", "listener", "5")
    out = run("publish_subscribe", "talker", "5")
    assert out.count("published frame") == 5
    got = finish(listener)
    assert "frame 4: shape (480, 640) dtype uint8 mean 4.0" in got


def test_zero_copy_loan_example(ns):
    viewer = start("zero_copy_loan", "viewer", "2")
    run("zero_copy_loan", "camera", "2")
    got = finish(viewer)
    assert got.count("no copy: True, bytes right: True") == 2
    assert "24 MiB (2048, 4096, 3)" in got


def test_request_response_example(ns):
    server = start("request_response", "server")
    out = run("request_response", "client")
    assert "2 + 3 = 5" in out and "40 + 2 = 42" in out
    server.send_signal(signal.SIGINT)  # the server runs until Ctrl-C
    assert "-> 42" in finish(server)


@pytest.mark.parametrize("domain", ["opencl:0", "opencl:0:sc", "staging"])
def test_device_loan_example(ns, domain):
    try:
        baton.domain_info(domain)
    except baton.DomainUnavailableError as e:
        pytest.skip(f"{domain} unavailable here: {e.detail}")
    sub = start("device_loan", "subscriber", "--domain", domain, "2")
    out = run("device_loan", "publisher", "--domain", domain, "2")
    got = finish(sub)
    assert got.count("values right: True") == 2
    if domain == "opencl:0":  # PoCL: host-unified, the publisher's bytes themselves
        assert "DLPack kDLCPU, host-visible True, cl_mem" in out
        assert "(zero-copy; opencl:0: DLPack kDLCPU" in got
    if domain == "opencl:0:sc":
        assert "DLPack kDLOpenCL, host-visible False, cl_mem" in out + got


def test_device_loan_example_with_missing_domain_says_so(ns):
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / "device_loan" / "main.py"), "publisher", "--domain",
         "cuda:7"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert r.returncode == 1 and "error:" in r.stderr and "hint:" in r.stderr
