"""bench/suite orchestrator: runs the seeds' experiments and the peers in one session and writes
out/report.md, out/plots/*.png, out/raw/<experiment>.csv and out/bench/<experiment>.json.

    .venv/bin/python bench/suite/run.py --suite quick     # < 5 min on a 2-vCPU VM
    .venv/bin/python bench/suite/run.py --suite all       # 30 runs, 10 000 round trips, ...
    baton bench --suite quick                             # the same through the CLI

Options: --seed N (default 1; seeds every random choice), --only a,b (experiments by name),
--build-dir DIR (default $BATON_BUILD_DIR or build/), --out DIR (default out/),
--resume (keep the experiments a stopped run finished in --out; run the rest).
A peer or experiment that fails is recorded with its reason and the suite goes on.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.suite import (  # noqa: E402
    exp_bag,
    exp_chain,
    exp_fanout,
    exp_memory,
    exp_pingpong_c,
    exp_pingpong_d,
    exp_queue_a,
    exp_rate_b,
    exp_rcl_pingpong,
    exp_rclpy_stop,
    exp_seed000,
    exp_seed002,
    exp_seed004,
    exp_size_sweep,
    exp_wire_stream,
)
from bench.suite.common import (  # noqa: E402
    Context,
    ExperimentFailed,
    Failure,
    machine,
    md_table,
    versions,
    write_outputs,
)
from bench.suite.params import PARAMS  # noqa: E402
from bench.suite.sections import (  # noqa: E402
    Provenance,
    Section,
    clear,
    load,
    load_average,
    save,
    utc_now,
)

# Priority order (issue 6): seed 000 first, then seed 003 scenario C, then the sweeps.
EXPERIMENTS = [exp_seed000, exp_pingpong_c, exp_size_sweep]
# Seed 003 A, B, D, seed 004's chain and the subscriber sweep (bench/suite/stream.py).
EXPERIMENTS += [exp_queue_a, exp_rate_b, exp_pingpong_d, exp_chain, exp_fanout]
EXPERIMENTS += [exp_seed002]  # seed 002's bilateral pair and random graphs (bench/seed002)
EXPERIMENTS += [exp_wire_stream]  # issue 17: Image streams between RMWs over DDS (bench/ros2)
EXPERIMENTS += [exp_rcl_pingpong]  # issue 22: C++ ping-pong through rcl on each RMW (bench/ros2)
EXPERIMENTS += [exp_rclpy_stop]  # issue 22: rclpy nodes stopped by a signal, each RMW
EXPERIMENTS += [exp_seed004]  # issue 19: seed 004's chain with roscpp / rospy / baton ROS 1 nodes
EXPERIMENTS += [exp_memory]  # issue 20: resident and shared memory per endpoint
EXPERIMENTS += [exp_bag]  # issue 21: bag recording beside rosbag and an rclpy + mcap recorder

# Parts of issue 6 that have no module yet: listed in the report as "not run" with the reason.
NOT_RUN: list[tuple[str, str]] = []


def progress(total: float):
    try:
        from tqdm import tqdm

        return tqdm(
            total=round(total, 1),
            unit="s",
            bar_format="{l_bar}{bar}| {n:.0f}/{total:.0f} est. s [{elapsed}<{remaining}]",
            file=sys.stderr,
        )
    except ImportError:  # pragma: no cover
        return None


def run_task(ctx: Context, t, bar) -> None:
    """Runs one task; a failure is recorded with its reason and the suite goes on."""
    if bar:
        bar.set_description(t.label[:40])
    try:
        ctx.results += t.fn(ctx)
    except ExperimentFailed as e:
        ctx.failures.append(Failure(t.experiment, t.label, str(e)))
    except Exception as e:  # noqa: BLE001 - recorded, never fatal
        tb = traceback.format_exc().strip().splitlines()[-1]
        ctx.failures.append(Failure(t.experiment, t.label, f"{type(e).__name__}: {e} ({tb})"))
    if bar:
        bar.update(t.weight)
    else:
        print(f"{t.label}: done", file=sys.stderr)


def finish_experiment(ctx: Context, e, started_utc: str, t0: float, load_avg) -> Section:
    """Writes one finished experiment's CSV, JSON, plots and its saved section (for --resume)."""
    md, short = e.report(ctx, write_outputs(ctx, e.NAME), ctx.out / "plots")
    prov = Provenance(started_utc, time.monotonic() - t0, versions()["baton"], load_avg)
    fails = [f for f in ctx.failures if f.experiment == e.NAME]
    s = Section(e.NAME, ctx.suite, ctx.seed, md, short, prov, fails)
    save(ctx.out, s)
    return s


def write_report(ctx: Context, args, argv, done: list[Section], pending: list, started: float):
    """out/report.md from the finished experiments' sections; returns this sitting's wall time."""
    out = ctx.out
    wall = time.monotonic() - started
    m, v = machine(), versions()
    cmd = " ".join([Path(sys.executable).name, "bench/suite/run.py", *(argv or sys.argv[1:])])
    fail_rows = [[f.experiment, f.what, f.reason] for s in done for f in s.failures]
    not_run = [list(x) for x in NOT_RUN]
    not_run += [
        [e.NAME, "not run yet: still going, stopped, or left for a later --resume"] for e in pending
    ]
    total = len(done) + len(pending)
    state = "complete" if not pending else f"partial: {len(done)} of {total} experiments"
    measured = sum(s.provenance.wall_s for s in done)
    report = [
        f"# baton benchmark suite ({args.suite})",
        "",
        f"Command: `{cmd}` (seed {args.seed}); this sitting {wall:.0f} s, experiments "
        f"{measured:.0f} s in all ({state}). Each section says when and on which build it was "
        "measured; an experiment's systems are always measured in one sitting.",
        "",
        f"Machine: {m['cpu']}, {m['nproc']} CPUs, Linux {m['kernel']}, {m['os']}.",
        "",
        "Versions: " + "; ".join(f"{k} {val}" for k, val in v.items()) + ".",
        "",
        "Raw samples: `out/raw/<experiment>.csv`; summaries (JSON lines: system, configuration, "
        "size, mean, median, sd, p99, max, samples, unit): `out/bench/<experiment>.json`.",
        "",
        *(_with_provenance(s) for s in done),
        "## Failed",
        "",
        md_table(["experiment", "what", "reason"], fail_rows) if fail_rows else "nothing failed",
        "",
        "## Not run",
        "",
        md_table(["experiment", "reason"], not_run) if not_run else "nothing",
        "",
    ]
    (out / "report.md").write_text("\n".join(report))
    return wall


def _with_provenance(s: Section) -> str:
    """The section with its provenance line after its heading."""
    head, _, rest = s.markdown.partition("\n")
    return "\n".join([head, "", s.provenance.line(), rest])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--suite", choices=sorted(PARAMS), default="quick")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="", help="comma-separated experiment names")
    ap.add_argument("--build-dir", default=os.environ.get("BATON_BUILD_DIR", str(ROOT / "build")))
    ap.add_argument("--out", default=str(ROOT / "out"))
    ap.add_argument(
        "--resume",
        action="store_true",
        help="keep experiments already finished in --out (same suite and seed), run the rest",
    )
    args = ap.parse_args(argv)
    # Cached from here on: the commit when the run started (HEAD may move during a long run;
    # read after the first experiment it named a later commit than the one measured).
    versions()
    random.seed(args.seed)
    out = Path(args.out)
    if not args.resume:
        clear(out)
    (out / "plots").mkdir(parents=True, exist_ok=True)
    ctx = Context(args.suite, args.seed, Path(args.build_dir), out, PARAMS[args.suite])
    wanted = set(filter(None, args.only.split(",")))
    unknown = wanted - {e.NAME for e in EXPERIMENTS}
    if unknown:
        # A typo used to measure nothing and still print a report: refuse it by name instead.
        names = ", ".join(e.NAME for e in EXPERIMENTS)
        ap.error(f"--only: no experiment named {', '.join(sorted(unknown))} (experiments: {names})")
    exps = [e for e in EXPERIMENTS if not wanted or e.NAME in wanted]
    # With --resume the report covers the whole suite: experiments finished in earlier sittings
    # are kept whatever --only says (it only chooses what this sitting measures).
    scope = EXPERIMENTS if args.resume else exps
    saved = {e.NAME: load(out, e.NAME, ctx.suite, ctx.seed) if args.resume else None for e in scope}
    kept = {name: s for name, s in saved.items() if s is not None}
    plan = [(e, [t for t in e.tasks(ctx)]) for e in exps if e.NAME not in kept]
    if kept:
        print(f"resuming: kept {', '.join(kept)} from {out / 'sections'}", file=sys.stderr)
    started = time.monotonic()
    bar = progress(sum(t.weight for _, ts in plan for t in ts))
    done = dict(kept)
    wall = 0.0

    def report_now() -> float:
        # Written after every experiment, so a run that is stopped (or a session that ends) keeps
        # every experiment finished so far; the report lists the rest as "not run yet".
        finished = [done[e.NAME] for e in scope if e.NAME in done]
        pending = [e for e in scope if e.NAME not in done]
        return write_report(ctx, args, argv, finished, pending, started)

    for e, tasks in plan:
        t0, began, load_avg = time.monotonic(), utc_now(), load_average()
        for t in tasks:
            run_task(ctx, t, bar)
        done[e.NAME] = finish_experiment(ctx, e, began, t0, load_avg)
        wall = report_now()
    if not plan:
        wall = report_now()
    if bar:
        bar.close()
    finished = [done[e.NAME] for e in scope if e.NAME in done]
    fails = [f for s in finished for f in s.failures]
    print(
        f"baton bench suite '{args.suite}': {wall:.0f} s, {len(ctx.results)} results, "
        f"{len(fails)} failed; report: {out / 'report.md'}"
    )
    for s in finished:
        if s.short:
            print(f"{s.name}:\n{s.short}")
    for f in fails:
        print(f"FAILED {f.what}: {f.reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
