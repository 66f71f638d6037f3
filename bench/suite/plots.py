"""matplotlib helpers for the experiment reports: one figure per call, written as PNG, a
Markdown image line back (or the reason the plot failed, so a report never breaks on a plot)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

# One colour per system, the same in every figure of the report.
COLOURS = {
    "baton": "tab:red",
    "iceoryx2": "tab:blue",
    "iceoryx": "tab:cyan",
    "cyclonedds": "tab:green",
    "roscpp": "tab:purple",
    "rclpy-fastrtps": "tab:orange",
    "ros1-rospy": "tab:brown",
}


def colour(system: str) -> str:
    return COLOURS.get(system, "tab:gray")


def cdf(ax, values: list[float], **style) -> None:
    """The empirical CDF of `values` on `ax` (nothing when there are none)."""
    v = sorted(values)
    if v:
        ax.plot(v, [(i + 1) / len(v) for i in range(len(v))], **style)


def figure(
    plots: Path, name: str, title: str, draw: Callable, panels: int = 1, height: float = 4.5
) -> list[str]:
    """Calls draw(axes) with `panels` axes (up to 3 per row), saves plots/<name>.png, returns
    the report lines."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        cols = min(panels, 3)
        rows = -(-panels // cols)
        fig, grid = plt.subplots(
            rows, cols, figsize=(5.5 * cols + 1.5, height * rows), squeeze=False
        )
        axes = [ax for row in grid for ax in row]
        for ax in axes[panels:]:
            ax.set_visible(False)
        draw(axes[:panels])
        for ax in axes[:panels]:
            ax.grid(True, which="both", alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(plots / f"{name}.png", dpi=110)
        plt.close(fig)
        return [f"![{title}](plots/{name}.png)", ""]
    except Exception as e:  # noqa: BLE001 - the report goes on without the plot
        return [f"(plot {name} failed: {e})", ""]
