"""Every parameter of every experiment, in one place. ``PARAMS[suite][experiment]``."""

from __future__ import annotations

# Seed 003 scenario C: ping-pong of 10-byte messages, 10 000 round trips (all) / 2 000 (quick).
_PINGPONG_C = {
    "size": 10,
    "systems": [
        # (system label, mode) -- see exp_pingpong_c.SYSTEMS for the commands
        ("baton", "blocking"),
        ("baton", "busy-poll"),
        ("iceoryx2", "blocking"),
        ("iceoryx2", "busy-poll"),
        ("iceoryx", "blocking"),
        ("iceoryx", "busy-poll"),
        ("cyclonedds", "blocking"),
        ("rclpy-fastrtps", "blocking"),
        ("ros1-rospy", "blocking"),
    ],
}

# Seed 000 Tables 2-5: cells are every (benchmark, nodes, model, transport) of each group, plus
# the native reference of each (benchmark, model). 5 untimed warm-up steps per cell.
_SEED000 = {"warmup": 5, "dds_domain": 64}
_SEED000_TRANSPORTS = ["ros-sc-topic", "ros-sc-service", "ros-zc", "ros-shm-zc", "baton"]
_SEED000_ALL = [
    {
        "benchmarks": ["cache", "concurrent"],
        "nodes": [2, 3, 5],
        "models": ["SC", "UM", "ZC"],
        "transports": _SEED000_TRANSPORTS,
    }
]
# Quick: every two-node cell; the paper's 3- and 5-node rows (SC and ZC) without services.
_SEED000_QUICK = [
    {
        "benchmarks": ["cache", "concurrent"],
        "nodes": [2],
        "models": ["SC", "UM", "ZC"],
        "transports": _SEED000_TRANSPORTS,
    },
    {
        "benchmarks": ["cache", "concurrent"],
        "nodes": [3],
        "models": ["SC"],
        "transports": ["ros-sc-topic", "ros-zc", "ros-shm-zc", "baton"],
    },
    {
        "benchmarks": ["cache", "concurrent"],
        "nodes": [3, 5],
        "models": ["ZC"],
        "transports": ["ros-shm-zc", "baton"],
    },
    {
        "benchmarks": ["cache", "concurrent"],
        "nodes": [5],
        "models": ["SC"],
        "transports": ["ros-sc-topic", "ros-shm-zc", "baton"],
    },
]

# Seed 002: the bilateral pair and `count` seeded random graphs, each on every system; the first
# `warmup` steps of each run are dropped (the paper dropped three).
_SEED002 = {"systems": ["baton", "iceoryx", "cyclonedds"], "dds_domain": 65}

PARAMS: dict[str, dict[str, dict]] = {
    "quick": {
        "seed000": dict(_SEED000, runs=5, groups=_SEED000_QUICK, timeout_s=120),
        "seed002": dict(
            _SEED002,
            bilateral={"samples": 10, "warmup": 2},
            graphs={"count": 3, "samples": 8, "warmup": 3},
            timeout_s=120,
        ),
        "pingpong_c": dict(_PINGPONG_C, round_trips=2000, timeout_s=120),
        "size_sweep": {
            "sizes": [64, 65536, 4 << 20],
            "samples": 200,
            "systems": [
                ("baton", "busy-poll"),
                ("baton", "blocking"),
                ("iceoryx2", "busy-poll"),
                ("iceoryx", "busy-poll"),
                ("cyclonedds", "blocking"),
            ],
            "timeout_s": 120,
        },
    },
    "all": {
        "seed000": dict(_SEED000, runs=30, groups=_SEED000_ALL, timeout_s=600),
        "seed002": dict(
            _SEED002,
            bilateral={"samples": 100, "warmup": 3},
            graphs={"count": 98, "samples": 30, "warmup": 3},
            timeout_s=600,
        ),
        "pingpong_c": dict(_PINGPONG_C, round_trips=10000, timeout_s=600),
        "size_sweep": {
            "sizes": [64, 4096, 65536, 1 << 20, 4 << 20, 16 << 20, 64 << 20],
            "samples": 1000,
            "systems": [
                ("baton", "busy-poll"),
                ("baton", "blocking"),
                ("iceoryx2", "busy-poll"),
                ("iceoryx2", "blocking"),
                ("iceoryx", "busy-poll"),
                ("iceoryx", "blocking"),
                ("cyclonedds", "blocking"),
            ],
            "timeout_s": 900,
        },
    },
}
