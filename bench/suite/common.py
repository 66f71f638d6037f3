"""Shared machinery: the run context, subprocess runner, statistics and output files."""

from __future__ import annotations

import csv
import functools
import json
import math
import os
import platform
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[2]


class ExperimentFailed(Exception):
    """A task could not produce its result; the message is the reason in the report."""


@dataclass
class Result:
    """One measured configuration: raw samples plus identity."""

    experiment: str
    system: str
    configuration: str
    size: int
    values: list[float]
    unit: str
    extra: dict = field(default_factory=dict)

    def summary(self) -> dict:
        # Nothing arrived (every message lost): null figures, not zeros that read as a latency.
        s = stats(self.values) if self.values else {k: None for k in _FIGURES} | {"samples": 0}
        return {
            "system": self.system,
            "configuration": self.configuration,
            "size": self.size,
            **s,
            "unit": self.unit,
            **self.extra,
        }


@dataclass
class Failure:
    experiment: str
    what: str
    reason: str


@dataclass
class Task:
    """One unit of work for the progress bar: ``fn(ctx)`` returns a list of Results."""

    experiment: str
    label: str
    fn: Callable[[Context], list[Result]]
    weight: float = 1.0  # expected seconds, for the ETA


@dataclass
class Context:
    suite: str
    seed: int
    build: Path
    out: Path
    params: dict
    results: list[Result] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)

    @property
    def quick(self) -> bool:
        return self.suite == "quick"

    def raw_tmp(self) -> Path:
        d = Path(tempfile.mkdtemp(prefix="baton-suite-raw-"))
        return d


_FIGURES = ("mean", "median", "sd", "p99", "max")


def stats(v: list[float]) -> dict:
    if not v:
        return {"mean": 0.0, "median": 0.0, "sd": 0.0, "p99": 0.0, "max": 0.0, "samples": 0}
    s = sorted(v)
    n = len(s)

    def rank(q: float) -> float:
        return s[min(int(q * (n - 1) + 0.5), n - 1)]

    mean = sum(s) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in s) / (n - 1)) if n > 1 else 0.0
    return {
        "mean": round(mean, 4),
        "median": round(rank(0.5), 4),
        "sd": round(sd, 4),
        "p99": round(rank(0.99), 4),
        "max": round(s[-1], 4),
        "samples": n,
    }


def figure_cell(v: list[float], figure: str = "median") -> str:
    """A report table cell: one figure of `v` in whole units, or "none arrived" when `v` is empty
    (stats() gives 0 there, which would read as a latency of 0)."""
    return f"{stats(v)[figure]:.0f}" if v else "none arrived"


def jitter(v: list[float]) -> list[float]:
    """Seed 003's jitter: the change of latency between consecutive messages, |l_i - l_(i-1)|."""
    return [abs(b - a) for a, b in zip(v, v[1:])]


def run(cmd: list[str], timeout: float, env: dict | None = None, cwd: Path = ROOT) -> str:
    """Runs a command; raises ExperimentFailed with its last stderr/stdout line on failure."""
    e = dict(os.environ)
    if env:
        e.update(env)
    if not Path(cmd[0]).exists() and shutil.which(cmd[0]) is None:
        raise ExperimentFailed(f"not built / not installed: {cmd[0]}")
    try:
        r = subprocess.run(cmd, cwd=cwd, env=e, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as ex:
        raise ExperimentFailed(f"timed out after {timeout:.0f} s") from ex
    if r.returncode != 0:
        lines = [ln for ln in (r.stderr + "\n" + r.stdout).splitlines() if ln.strip()]
        msg = lines[-1] if lines else f"exit {r.returncode}"
        raise ExperimentFailed(f"exit {r.returncode}: {msg[:300]}")
    return r.stdout


def read_floats(path: Path) -> list[float]:
    return [float(x) for x in path.read_text().split()]


def _sh(cmd: str) -> str:
    try:
        return subprocess.run(
            cmd, shell=True, capture_output=True, text=True, timeout=20
        ).stdout.strip()
    except Exception:  # noqa: BLE001 - best effort
        return ""


def dpkg_version(pkg: str) -> str:
    v = _sh(f"dpkg-query -W -f='${{Version}}' {pkg} 2>/dev/null")
    return v or "not installed"


@functools.cache  # read once per run: the report is rewritten after every experiment
def machine() -> dict:
    model = ""
    for line in _sh("lscpu").splitlines():
        if line.startswith("Model name:"):
            model = line.split(":", 1)[1].strip()
    return {
        "cpu": model or platform.processor(),
        "nproc": os.cpu_count(),
        "kernel": platform.release(),
        "os": _sh(". /etc/os-release && echo $PRETTY_NAME"),
    }


@functools.cache
def versions() -> dict:
    cm = (ROOT / "CMakeLists.txt").read_text()
    m = re.search(r"project\(\s*baton\s+VERSION\s+([0-9.]+)", cm)
    rev = _sh(f"git -C {ROOT} rev-parse --short HEAD")
    cargo = ROOT / "bench/peers/iceoryx2_pingpong/Cargo.toml"
    i2 = ""
    if cargo.exists():
        mm = re.search(r'iceoryx2\s*=\s*"?=?([0-9.]+)', cargo.read_text())
        i2 = mm.group(1) if mm else "?"
    rclpy = _sh(f"{ROOT}/.venv-ros/bin/python -m pip show ros-rclpy 2>/dev/null | grep ^Version")
    return {
        "baton": f"{m.group(1) if m else '?'} ({rev})",
        "CycloneDDS": dpkg_version("cyclonedds-dev"),
        "iceoryx (classic)": dpkg_version("libiceoryx-posh-dev"),
        "iceoryx2": i2 or "?",
        "rclpy": rclpy.replace("Version: ", "") or "not installed (.venv-ros)",
        "ROS 1 roscpp / rospy": (
            f"{dpkg_version('libroscpp-dev')} / {dpkg_version('python3-rospy')}"
        ),
        "PoCL": dpkg_version("pocl-opencl-icd"),
    }


def write_outputs(ctx: Context, experiment: str) -> list[dict]:
    """out/raw/<experiment>.csv (every sample) and out/bench/<experiment>.json (summaries)."""
    rows = [r for r in ctx.results if r.experiment == experiment]
    (ctx.out / "raw").mkdir(parents=True, exist_ok=True)
    (ctx.out / "bench").mkdir(parents=True, exist_ok=True)
    with open(ctx.out / "raw" / f"{experiment}.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["system", "configuration", "size", "index", "value", "unit"])
        for r in rows:
            for i, v in enumerate(r.values):
                w.writerow([r.system, r.configuration, r.size, i, v, r.unit])
    summaries = [r.summary() for r in rows]
    with open(ctx.out / "bench" / f"{experiment}.json", "w") as fh:
        for s in summaries:
            fh.write(json.dumps(s) + "\n")
    return summaries


def md_table(header: list[str], rows: list[list]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)


def human_size(n: int) -> str:
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n >> 10} KiB"
    return f"{n} B"
