"""bench/suite orchestrator: runs the seeds' experiments and the peers in one session and writes
out/report.md, out/plots/*.png, out/raw/<experiment>.csv and out/bench/<experiment>.json.

    .venv/bin/python bench/suite/run.py --suite quick     # < 5 min on a 2-vCPU VM
    .venv/bin/python bench/suite/run.py --suite all       # 30 runs, 10 000 round trips, ...
    baton bench --suite quick                             # the same through the CLI

Options: --seed N (default 1; seeds every random choice), --only a,b (experiments by name),
--build-dir DIR (default $BATON_BUILD_DIR or build/), --out DIR (default out/).
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
    exp_chain,
    exp_fanout,
    exp_pingpong_c,
    exp_pingpong_d,
    exp_queue_a,
    exp_rate_b,
    exp_seed000,
    exp_seed002,
    exp_size_sweep,
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

# Priority order (issue 6): seed 000 first, then seed 003 scenario C, then the sweeps.
EXPERIMENTS = [exp_seed000, exp_pingpong_c, exp_size_sweep]
# Seed 003 A, B, D, seed 004's chain and the subscriber sweep (bench/suite/stream.py).
EXPERIMENTS += [exp_queue_a, exp_rate_b, exp_pingpong_d, exp_chain, exp_fanout]
EXPERIMENTS += [exp_seed002]  # seed 002's bilateral pair and random graphs (bench/seed002)

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


def finish_experiment(ctx: Context, e) -> tuple[str, str]:
    """Writes one finished experiment's CSV, JSON and plots; returns its report section and its
    console summary."""
    md, short = e.report(ctx, write_outputs(ctx, e.NAME), ctx.out / "plots")
    return md, (f"{e.NAME}:\n{short}" if short else "")


def write_report(ctx: Context, args, argv, sections: list[str], pending: list, started: float):
    """out/report.md from the finished experiments' sections; returns the wall time so far."""
    out = ctx.out
    wall = time.monotonic() - started
    m, v = machine(), versions()
    cmd = " ".join([Path(sys.executable).name, "bench/suite/run.py", *(argv or sys.argv[1:])])
    fail_rows = [[f.experiment, f.what, f.reason] for f in ctx.failures]
    not_run = [list(x) for x in NOT_RUN]
    not_run += [[e.NAME, "not run yet: the run was still going (or was stopped)"] for e in pending]
    total = len(sections) + len(pending)
    state = "complete" if not pending else f"partial: {len(sections)} of {total} experiments"
    report = [
        f"# baton benchmark suite ({args.suite})",
        "",
        f"Command: `{cmd}` (seed {args.seed}); wall time {wall:.0f} s ({state}).",
        "",
        f"Machine: {m['cpu']}, {m['nproc']} CPUs, Linux {m['kernel']}, {m['os']}.",
        "",
        "Versions: " + "; ".join(f"{k} {val}" for k, val in v.items()) + ".",
        "",
        "Raw samples: `out/raw/<experiment>.csv`; summaries (JSON lines: system, configuration, "
        "size, mean, median, sd, p99, max, samples, unit): `out/bench/<experiment>.json`.",
        "",
        *sections,
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--suite", choices=sorted(PARAMS), default="quick")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="", help="comma-separated experiment names")
    ap.add_argument("--build-dir", default=os.environ.get("BATON_BUILD_DIR", str(ROOT / "build")))
    ap.add_argument("--out", default=str(ROOT / "out"))
    args = ap.parse_args(argv)
    random.seed(args.seed)
    out = Path(args.out)
    (out / "plots").mkdir(parents=True, exist_ok=True)
    ctx = Context(args.suite, args.seed, Path(args.build_dir), out, PARAMS[args.suite])
    wanted = set(filter(None, args.only.split(",")))
    exps = [e for e in EXPERIMENTS if not wanted or e.NAME in wanted]
    plan = [(e, [t for t in e.tasks(ctx)]) for e in exps]
    started = time.monotonic()
    bar = progress(sum(t.weight for _, ts in plan for t in ts))
    sections: list[str] = []
    shorts: list[str] = []
    wall = 0.0
    for n, (e, tasks) in enumerate(plan):
        for t in tasks:
            run_task(ctx, t, bar)
        md, short = finish_experiment(ctx, e)
        sections.append(md)
        shorts += [short] if short else []
        # Written after every experiment, so a run that is stopped (or a session that ends) keeps
        # every experiment finished so far; the report lists the rest as "not run yet".
        wall = write_report(ctx, args, argv, sections, [x for x, _ in plan[n + 1 :]], started)
    if bar:
        bar.close()
    print(
        f"baton bench suite '{args.suite}': {wall:.0f} s, {len(ctx.results)} results, "
        f"{len(ctx.failures)} failed; report: {out / 'report.md'}"
    )
    for s in shorts:
        print(s)
    for f in ctx.failures:
        print(f"FAILED {f.what}: {f.reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
