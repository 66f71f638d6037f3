"""Issue 6 (6): message-size sweep, two-process ping-pong, baton vs the peers (one-way µs)."""

from __future__ import annotations

from pathlib import Path

from .common import Context, Task, human_size, md_table
from .pingpong import pingpong

NAME = "size_sweep"


def tasks(ctx: Context) -> list[Task]:
    p = ctx.params[NAME]
    out = []
    for system, mode in p["systems"]:
        for size in p["sizes"]:
            n = p["samples"] if size <= (4 << 20) else max(30, p["samples"] // 10)
            out.append(
                Task(
                    NAME,
                    f"size sweep {system} {mode} {human_size(size)}",
                    lambda c, s=system, m=mode, z=size, n=n: [
                        pingpong(c, NAME, s, m, z, n, p["timeout_s"])
                    ],
                    weight=2 + n * (0.004 if system == "cyclonedds" and size > 1 << 20 else 0.0001),
                )
            )
    return out


def _cell(s: dict | None) -> str:
    if s is None:
        return "failed"
    return f"{s['median']:.2f} / {s['p99']:.2f}" if s["samples"] else "none arrived"


def report(ctx: Context, summaries: list[dict], plots: Path) -> tuple[str, str]:
    p = ctx.params[NAME]
    cell = {(s["system"], s["configuration"], s["size"]): s for s in summaries}
    rows = []
    for system, mode in p["systems"]:
        rows.append([system, mode] + [_cell(cell.get((system, mode, z))) for z in p["sizes"]])
    md = [
        "## Message-size sweep (one-way µs, median / p99)",
        "",
        md_table(["system", "mode"] + [human_size(z) for z in p["sizes"]], rows),
        "",
    ]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(9, 4.5))
        for system, mode in p["systems"]:
            pts = [
                (z, cell[(system, mode, z)]["median"])
                for z in p["sizes"]
                if (system, mode, z) in cell and cell[(system, mode, z)]["samples"]
            ]
            if pts:
                ax.plot(*zip(*pts), marker="o", label=f"{system} {mode}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel("one-way latency median (µs)")
        ax.set_title("Size sweep, all systems")
        ax.legend(fontsize=7)
        ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(plots / "size_sweep.png", dpi=110)
        plt.close(fig)
        md += ["![size sweep](plots/size_sweep.png)", ""]
    except Exception as e:  # noqa: BLE001
        md += [f"(plot failed: {e})", ""]
    return "\n".join(md), ""
