"""``baton bench latency | rate | throughput | python | all [--quick]``: runs bench/ with a progress
bar. Each step is one benchmark program (as bench/run_latency.sh and bench/run_all.sh run them);
its output goes to out/bench/<step>.log, its JSON lines to out/bench/<system>.json, a failed step
is recorded in out/bench/failures.txt with its last message, and the report (bench/report.py)
is printed at the end. ``baton bench --suite quick|all`` runs bench/suite/run.py instead (the seeds'
experiments and the peers in one session; out/report.md).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ._common import add_format, emit_json

SUITES = ("latency", "rate", "throughput", "python", "all")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "bench",
        help="run the benchmarks with a progress bar",
        description="Run bench/ experiments (build them first: cmake -S . -B build "
        "-DBATON_BUILD_BENCH=ON; peers: scripts/install-bench-peers.sh).",
    )
    p.add_argument("suite", nargs="?", choices=SUITES, help="which experiments")
    p.add_argument(
        "--suite",
        dest="seed_suite",
        choices=("quick", "all"),
        default=None,
        help="run bench/suite (the seeds' experiments + peers, out/report.md) instead",
    )
    p.add_argument("--quick", action="store_true", help="a tenth of the samples (a smoke run)")
    p.add_argument(
        "--build-dir",
        default=None,
        help="CMake build dir (default $BATON_BUILD_DIR or <repo>/build)",
    )
    p.add_argument("--no-report", action="store_true", help="skip bench/report.py at the end")
    add_format(p)
    p.set_defaults(func=cmd_bench)


def repo_root() -> Path:
    env = os.environ.get("BATON_ROOT")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "bench" / "run_all.sh").is_file():
            return parent
    return Path.cwd()


def steps(suite: str, root: Path, build: Path) -> list[tuple[str, list[str]]]:
    latency = [
        ("floor-cacheline", [str(build / "bench/floors/baton-floor-cacheline")]),
        ("floor-futex", [str(build / "bench/floors/baton-floor-futex")]),
        ("floor-memcpy", [str(build / "bench/floors/baton-floor-memcpy")]),
        ("baton", [str(build / "bench/latency/baton-bench-latency")]),
        (
            "iceoryx2",
            [str(root / "bench/peers/iceoryx2_pingpong/target/release/baton-peer-iceoryx2")],
        ),
        ("iceoryx", [str(build / "bench/peers/baton-peer-iceoryx")]),
        ("cyclonedds", [str(build / "bench/peers/baton-peer-cyclonedds")]),
    ]
    rate = [("baton-rate", [str(build / "bench/rate/baton-bench-rate")])]
    throughput = [("baton-throughput", [str(build / "bench/throughput/baton-bench-throughput")])]
    python = [("python", [str(root / "bench/python/run.sh")])]
    return {
        "latency": latency,
        "rate": rate,
        "throughput": throughput,
        "python": python,
        "all": latency + rate + throughput,
    }[suite]


def _progress(total: int, fmt: str) -> Any:
    try:
        from tqdm import tqdm
    except ImportError:
        tqdm = None
    if tqdm is None or fmt == "json":

        class _Bar:
            def update(self, n: int = 1) -> None: ...
            def set_description(self, s: str) -> None:
                if fmt != "json":
                    print(f"== {s}", file=sys.stderr, flush=True)

            def set_postfix_str(self, s: str) -> None: ...
            def close(self) -> None: ...

        return _Bar()
    return tqdm(
        total=total,
        unit="step",
        file=sys.stderr,
        dynamic_ncols=True,
        bar_format="{desc:<28}{percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}]{postfix}",
    )


def cmd_suite(args: Any, root: Path) -> int:
    """``baton bench --suite quick|all``: bench/suite/run.py in the project venv."""
    py = root / ".venv" / "bin" / "python"
    cmd = [str(py if py.exists() else sys.executable), str(root / "bench/suite/run.py")]
    cmd += ["--suite", args.seed_suite]
    if args.build_dir:
        cmd += ["--build-dir", args.build_dir]
    return subprocess.run(cmd, cwd=root).returncode


def cmd_bench(args: Any) -> int:
    root = repo_root()
    if getattr(args, "seed_suite", None):
        return cmd_suite(args, root)
    if args.suite is None:
        print(
            "baton bench: give a suite (latency, rate, ...) or --suite quick|all", file=sys.stderr
        )
        return 2
    build = Path(args.build_dir or os.environ.get("BATON_BUILD_DIR") or root / "build")
    out = root / "out" / "bench"
    out.mkdir(parents=True, exist_ok=True)
    plan = steps(args.suite, root, build)
    for name, _ in plan:
        (out / f"{name}.json").unlink(missing_ok=True)
    failures_file = out / "failures.txt"
    failures_file.unlink(missing_ok=True)
    bar = _progress(len(plan), args.format)
    results = []
    for name, cmd in plan:
        bar.set_description(name)
        if args.quick:
            cmd = cmd + ["--quick"]
        log = out / f"{name}.log"
        start = time.monotonic()
        if not Path(cmd[0]).exists():
            reason = f"not built ({cmd[0]} missing)"
            ok = False
        else:
            env = dict(os.environ, BATON_BUILD_DIR=str(build))
            with open(log, "w") as fh:
                r = subprocess.run(cmd, cwd=root, stdout=fh, stderr=subprocess.STDOUT, env=env)
            ok = r.returncode == 0
            tail = [ln for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
            reason = "" if ok else f"failed: {tail[-1] if tail else 'exit ' + str(r.returncode)}"
        if not ok:
            with open(failures_file, "a") as fh:
                fh.write(f"{name}: {reason}\n")
        results.append(
            {
                "step": name,
                "ok": ok,
                "reason": reason,
                "log": str(log),
                "seconds": round(time.monotonic() - start, 1),
            }
        )
        bar.set_postfix_str("ok" if ok else "FAILED")
        bar.update(1)
    bar.close()
    report = ""
    if not args.no_report and args.suite != "python" and (root / "bench/report.py").is_file():
        r = subprocess.run(
            [sys.executable, str(root / "bench/report.py"), str(out)],
            capture_output=True,
            text=True,
        )
        report = r.stdout
        (out / "report.md").write_text(report)
    if args.format == "json":
        emit_json({"suite": args.suite, "steps": results, "report": report})
    else:
        for s in results:
            print(
                f"{'ok    ' if s['ok'] else 'FAILED'} {s['step']:<18} {s['seconds']:>6.1f} s"
                f"{'  ' + s['reason'] if s['reason'] else ''}"
            )
        if args.suite == "python":
            print(
                (out / "python.log").read_text(errors="replace")
                if (out / "python.log").exists()
                else ""
            )
        if report:
            print()
            print(report)
    return 0 if all(s["ok"] for s in results) else 1
