"""256 rclpy clients on rmw_baton_cpp call one service at once, and each gets its own answer;
the 257th client cannot be created, and the error says why (issue 20: a service takes
ClientBase::MAX_CLIENTS clients, one request publisher slot each)."""

from __future__ import annotations

import os
import subprocess

import pytest

from conftest import HELPERS, ROOT

ROS_PREFIX = ROOT / ".venv-ros"
RMW_LIBRARY = ROOT / "build" / "src" / "ros2" / "rmw" / "librmw_baton_cpp.so"
DOMAIN_ID = 113 + int(os.environ.get("BATON_TEST_DOMAIN_SHIFT", "0"))  # this file's own
MAX_CLIENTS = 256


def test_max_clients_of_one_service_each_get_their_own_answer_and_one_more_is_refused(ns):
    if not (ROS_PREFIX / "share" / "rcl_interfaces" / "srv" / "GetParameters.srv").is_file():
        pytest.fail("no .venv-ros with ROS 2 wheels: run scripts/install-ros-wheels.sh")
    if not RMW_LIBRARY.is_file():
        pytest.fail(f"{RMW_LIBRARY} was not built (configure with .venv-ros present)")
    env = dict(
        os.environ,
        AMENT_PREFIX_PATH=str(ROS_PREFIX),
        ROS_DOMAIN_ID=str(DOMAIN_ID),
        ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST",
        BATON_NAMESPACE=ns,
        LD_PRELOAD=str(RMW_LIBRARY),
        RMW_IMPLEMENTATION="rmw_baton_cpp",
    )
    env.pop("ROS_LOCALHOST_ONLY", None)
    env.pop("PYTHONPATH", None)  # baton's build is not for this interpreter
    done = subprocess.run(
        [str(ROS_PREFIX / "bin" / "python"), str(HELPERS / "rclpy_many_clients.py"),
         str(MAX_CLIENTS), "120"],
        capture_output=True, text=True, env=env, timeout=240,
    )  # fmt: skip
    out = done.stdout
    assert f"answered {MAX_CLIENTS} of {MAX_CLIENTS}" in out, out + done.stderr
    assert done.returncode == 0, out + done.stderr
    refused = [line for line in out.splitlines() if line.startswith("extra refused:")]
    assert refused, out
    assert "'/many/get/_request' already has 256 publishers" in refused[0], refused[0]
