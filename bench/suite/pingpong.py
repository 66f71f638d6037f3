"""Runs one two-process ping-pong (baton or a peer) and returns its one-way samples (µs, in
order). Every C++ program shares bench/floors/pingpong_harness.hpp; it, the iceoryx2 peer and
bench/python/pingpong.py write their raw samples to $BATON_BENCH_RAW_DIR."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from .common import ROOT, Context, ExperimentFailed, Result, read_floats, run
from .stream import _roudi_running

I2 = ROOT / "bench/peers/iceoryx2_pingpong/target/release/baton-peer-iceoryx2"


def command(
    ctx: Context, system: str, mode: str, size: int, samples: int
) -> tuple[list, dict, str]:
    """(argv, extra env, raw-file prefix) for one system/mode/size."""
    common = ["--modes", mode, "--sizes", str(size), "--samples", str(samples), "--json", ""]
    if system == "baton":
        return [str(ctx.build / "bench/latency/baton-bench-latency"), *common], {}, "baton"
    if system == "iceoryx":
        return [str(ctx.build / "bench/peers/baton-peer-iceoryx"), *common], {}, "iceoryx"
    if system == "iceoryx2":
        return [str(I2), *common], {}, "iceoryx2"
    if system == "cyclonedds":
        return [str(ctx.build / "bench/peers/baton-peer-cyclonedds"), *common], {}, "cyclonedds"
    if system == "roscpp":  # starts its own rosmaster on a free port
        return [str(ctx.build / "bench/peers/baton-peer-roscpp"), *common], {}, "roscpp"
    if system == "rclpy-fastrtps":
        py = ROOT / ".venv-ros/bin/python"
        if not py.exists():
            raise ExperimentFailed(".venv-ros missing: run scripts/install-ros-wheels.sh")
        argv = [
            str(py),
            str(ROOT / "bench/python/pingpong.py"),
            "--system",
            "rclpy",
            "--mode",
            mode,
            "--sizes",
            str(size),
            "--samples",
            str(samples),
        ]
        env = {
            "ROS_DOMAIN_ID": str(40 + (os.getpid() + ctx.seed) % 50),
            "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST",
            "PYTHONPATH": "",
        }
        return argv, env, "python-rclpy"
    if system == "ros1-rospy":
        argv = [
            "/usr/bin/python3",
            str(Path(__file__).with_name("ros1_pingpong.py")),
            "--size",
            str(size),
            "--samples",
            str(samples),
        ]
        return argv, {"PYTHONPATH": ""}, "ros1-rospy"
    raise ExperimentFailed(f"unknown system {system}")


def pingpong(
    ctx: Context,
    experiment: str,
    system: str,
    mode: str,
    size: int,
    samples: int,
    timeout: float,
    configuration: str = "",
) -> Result:
    argv, env, prefix = command(ctx, system, mode, size, samples)
    raw_dir = ctx.raw_tmp()
    env = dict(env, BATON_BENCH_RAW_DIR=str(raw_dir))
    roudi_before = system == "iceoryx" and _roudi_running()
    try:
        run(argv, timeout=timeout, env=env)
    finally:
        if system == "iceoryx" and not roudi_before:
            _stop_orphaned_roudi()
    files = sorted(raw_dir.glob(f"{prefix}_{mode}*_{size}.csv"))
    if not files:
        raise ExperimentFailed(f"no raw samples in {raw_dir} (program too old?)")
    return Result(
        experiment,
        system,
        configuration or mode,
        size,
        read_floats(files[0]),
        "us",
        {"mode": mode},
    )


def _stop_orphaned_roudi() -> None:
    """baton-peer-iceoryx starts iox-roudi (its own process group) when none runs and stops it on
    exit; a peer that aborts (e.g. a loan larger than every pool) leaves it behind, and the next
    experiment would use a RouDi with the wrong pools. Stops RouDis running the peer's config."""
    cfg = str(ROOT / "bench/peers/iceoryx_classic/roudi_config.toml")
    subprocess.run(["pkill", "-TERM", "-f", f"iox-roudi -c {cfg}"], check=False)
    deadline = time.monotonic() + 10
    while _roudi_running() and time.monotonic() < deadline:
        time.sleep(0.1)
    if _roudi_running():
        subprocess.run(["pkill", "-KILL", "-f", f"iox-roudi -c {cfg}"], check=False)
