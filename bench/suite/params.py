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
        ("roscpp", "blocking"),
    ],
}

# Systems of the open-loop scenarios (bench/suite/stream.py), all in blocking waits: seed 003
# compares frameworks as configured for delivery, not busy-polling.
_STREAM_SYSTEMS = [
    "baton",
    "iceoryx2",
    "iceoryx",
    "cyclonedds",
    "roscpp",
    "rclpy-fastrtps",
    "ros1-rospy",
]
_KIB = 1024
# Seed 003 B and D(1): 128 B, then 256 KiB steps up to 2 MiB; D(2): 512 KiB steps.
_SIZES_256K = [128] + [k * 256 * _KIB for k in range(1, 9)]
_SIZES_512K = [128] + [k * 512 * _KIB for k in range(1, 5)]

# Seed 003 scenario A: 5000 messages of 50 B and of 60 000 B, sent without pause, sender on
# CPU 0 and receiver on CPU 1 (the paper also ran them at priority 99: not done here, see README).
_QUEUE_A = {"sizes": [50, 60000], "count": 5000, "depth": 64, "systems": _STREAM_SYSTEMS}

# Seed 000 Tables 2-5: cells are every (benchmark, nodes, model, transport) of each group, plus
# the native reference of each (benchmark, model). Untimed warm-up steps per cell: 5 (quick: 3,
# enough for the three ring chunks of a two-deep reliable topic).
_SEED000 = {"warmup": 5, "dds_domain": 64}
# ROS-SC = rcl C++ nodes on rmw_fastrtps_cpp, beside the same program on rmw_baton_cpp and native
# baton; ros-zc is a stand-in and the cyclonedds rows are not ROS (exp_seed000.TRANSPORT_ROW).
_SEED000_RCL = [f"rcl-{rmw}-{k}" for rmw in ("fastrtps", "baton") for k in ("topic", "service")]
_SEED000_TRANSPORTS = [*_SEED000_RCL, "ros-zc", "ros-shm-zc", "baton"]
# rcl on rmw_baton_cpp with loans of a fixed-size type, beside native baton in the zero-copy cells
# (issue 22's target: within native baton's 95 % CI there). First in the groups, so that each
# loan cell and its native baton cell run back to back (cells() keeps a cell's first place).
_SEED000_RCL_LOAN = {
    "benchmarks": ["cache", "concurrent"],
    "nodes": [2, 3, 5],
    "models": ["ZC"],
    "transports": ["rcl-baton-loan-topic", "baton"],
}
_SEED000_ALL = [
    _SEED000_RCL_LOAN,
    {
        "benchmarks": ["cache", "concurrent"],
        "nodes": [2, 3, 5],
        "models": ["SC", "UM", "ZC"],
        "transports": [*_SEED000_TRANSPORTS, "cyclonedds-topic", "cyclonedds-service"],
    },
]
# Quick: every two-node cell; the paper's 3- and 5-node rows (SC and ZC) without services.
_SEED000_QUICK = [
    _SEED000_RCL_LOAN,
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
        "transports": ["rcl-fastrtps-topic", "rcl-baton-topic", "ros-zc", "ros-shm-zc", "baton"],
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
        "transports": ["rcl-fastrtps-topic", "rcl-baton-topic", "ros-shm-zc", "baton"],
    },
]

# Seed 002: the bilateral pair and `count` seeded random graphs, each on every system; the first
# `warmup` steps of each run are dropped (the paper dropped three).
# rcl_systems: rcl C++ nodes on each RMW, for the bilateral pair only (exp_seed002.LABEL).
_SEED002 = {
    "systems": ["baton", "iceoryx", "cyclonedds"],
    "rcl_systems": ["rcl-fastrtps", "rcl-baton"],
    "dds_domain": 65,
}

# The quick suite's limit for one peer run of the message-passing experiments. Each such run
# takes seconds here (scenario D's 12 runs: ~22 s in all); the limit only matters when a peer
# stalls (an iceoryx2 relay did once in scenario D), and a 120 s limit then pushed `make demo`
# to 4 min 51 s. The batch programs (seed 000, seed 002) keep their own limits.
_QUICK_RUN_S = 30
# Issue 20's memory cell: one stream per size, paced (2 s each); the same in every suite (the
# figures are peaks of a steady state, more messages would not change them).
_MEMORY = {
    "sizes": [64, 64 * 1024, 4 * 1024 * 1024],
    "count": 400,
    "rate": 200,
    "depth": 16,
    "systems": ["baton", "iceoryx2"],
    "timeout_s": 60,
}

# Issue 17: sensor_msgs/Image streams between RMWs over DDS (bench/suite/exp_wire_stream.py):
# images 4k (3840x2160 rgb8), 1m (1024x1024 mono8), 64k (256x256 mono8); keep last 10, volatile;
# the reference (Fast DDS -> Fast DDS) first in every cell. After the last publish the listener
# gets drain_s more; ROS_DOMAIN_ID dds_domain, LOCALHOST discovery.
_WIRE_STREAM = {
    "directions": ["fastdds-fastdds", "baton-fastdds", "fastdds-baton", "native-fastdds"],
    "dds_domain": 61,
    "drain_s": 5,
    "match_timeout_s": 30,
}

# Issue 22: C++ ping-pong through rcl, sensor_msgs::msg::Image and fixed-size types with and
# without loans (bench/suite/exp_rcl_pingpong.py: SYSTEMS); ROS_DOMAIN_ID dds_domain, LOCALHOST
# discovery; timeout_s per reply and per match.
_RCL_PINGPONG = {
    "sizes": ["64", "64k", "4m", "4k"],
    "systems": [
        "fastdds",
        "fastdds-udp",
        "fastdds-ds",
        "fastdds-loan",
        "baton",
        "baton-fixed",
        "baton-loan",
    ],
    "dds_domain": 63,
    "timeout_s": 30,
}

# Issue 22 item 4: rclpy nodes stopped by one signal (bench/suite/exp_rclpy_stop.py), `tries` per
# cell started `batch` at a time; a node still running hang_s after its signal counts as hung.
_RCLPY_STOP = {"systems": ["baton", "fastdds"], "batch": 10, "dds_domain": 60, "hang_s": 5}

# Seed 004 on ROS 1 (issue 19): the chain as roscpp / rospy / baton ROS 1 nodes, paced so no
# queue forms, and a 4K Image one-way (bench/suite/exp_seed004.py). `count` messages per
# configuration in `rounds` rounds, the configurations taking turns.
_SEED004 = {"chain": {"rate": 500}, "image": {"rate": 10}}

# Issue 21's recorders (bench/suite/exp_bag.py), to /dev/shm, uncompressed; the long version with
# the disk, compression and play is bench/bag/run.py.
_BAG_CASES = [("baton", "off (no chunks)"), ("rosbag", "off"), ("rclpy", "off")]
_BAG = {"streams": ["4k", "64b"], "cases": _BAG_CASES, "depth": 10}

PARAMS: dict[str, dict[str, dict]] = {
    "quick": {
        "seed000": dict(_SEED000, runs=5, warmup=3, groups=_SEED000_QUICK, timeout_s=120),
        "seed002": dict(
            _SEED002,
            bilateral={"samples": 8, "warmup": 2},
            graphs={"count": 3, "samples": 6, "warmup": 3},
            timeout_s=120,
        ),
        "pingpong_c": dict(_PINGPONG_C, round_trips=2000, timeout_s=_QUICK_RUN_S),
        "size_sweep": {
            "sizes": [64, 65536, 4 << 20],
            "samples": 200,
            "systems": [
                ("baton", "busy-poll"),
                ("baton", "blocking"),
                ("iceoryx2", "busy-poll"),
                ("iceoryx", "busy-poll"),
                ("cyclonedds", "blocking"),
                ("roscpp", "blocking"),
            ],
            "timeout_s": _QUICK_RUN_S,
        },
        "queue_a": dict(_QUEUE_A, timeout_s=_QUICK_RUN_S),
        # Seed 003 scenario B: a few sizes and rates, 20 messages per size.
        "rate_b": {
            "sizes": [128, 512 * _KIB, 2048 * _KIB],
            "per_size": 20,
            "rates": [100, 1000],
            "depth": 64,
            "systems": _STREAM_SYSTEMS,
            "timeout_s": _QUICK_RUN_S,
        },
        # Seed 003 scenario D: (1) one pair at a rate, (2) 1-3 pairs at 400 Hz; watermark 50.
        "pingpong_d": {
            "watermark": 50,
            "depth": 64,
            "one_pair": {"rates": [1000], "sizes": [128, 512 * _KIB, 2048 * _KIB], "per_size": 20},
            "pairs": {
                "rate": 400,
                "counts": [3],
                "sizes": [128, 1024 * _KIB, 2048 * _KIB],
                "per_size": 20,
            },
            "systems": _STREAM_SYSTEMS,
            "timeout_s": _QUICK_RUN_S,
        },
        # Seed 004: para_in -> add_para -> add, two int32 (8 bytes), paced.
        "chain": {
            "count": 300,
            "rate": 200,
            "systems": ["baton", "roscpp", "cyclonedds"],
            "timeout_s": _QUICK_RUN_S,
        },
        # One publisher, N subscriber processes: latency at a rate, throughput without pause.
        "fanout": {
            "subscribers": [1, 16],
            "size": 64,
            "latency": {"count": 100, "rate": 200},
            "throughput": {"count": 2000},
            "depth": 64,
            "systems": ["baton", "iceoryx2", "iceoryx", "cyclonedds", "roscpp"],
            "timeout_s": _QUICK_RUN_S,
        },
        # 8 cells of ~9 s: 4K and 64 KiB at 10 Hz, reliable, 5 s each.
        "wire_stream": dict(
            _WIRE_STREAM, sizes=["4k", "64k"], rates=[10], qos=["reliable"], seconds=5
        ),
        "rcl_pingpong": dict(_RCL_PINGPONG, runs=100, runs_4k=20, warmup=10),
        "rclpy_stop": dict(_RCLPY_STOP, tries=4, batch=4),
        "seed004": {
            # One round each: `make demo` stays under 5 min (~20 s here).
            "chain": dict(_SEED004["chain"], count=1000, rounds=1, timeout_s=60),
            "image": dict(_SEED004["image"], count=10, rounds=1, timeout_s=60),
        },
        "memory": _MEMORY,
        "bag": dict(_BAG, seconds=3.0),
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
                ("roscpp", "blocking"),
            ],
            "timeout_s": 900,
        },
        "queue_a": dict(_QUEUE_A, timeout_s=600),
        # Seed 003 scenario B as the paper ran it (100 messages per size) at 20 ... 1000 Hz.
        "rate_b": {
            "sizes": _SIZES_256K,
            "per_size": 100,
            "rates": [20, 40, 100, 200, 400, 1000],
            "depth": 64,
            "systems": _STREAM_SYSTEMS,
            "timeout_s": 900,
        },
        # Seed 003 scenario D as the paper ran it: 300 messages per size.
        "pingpong_d": {
            "watermark": 50,
            "depth": 64,
            "one_pair": {
                "rates": [20, 40, 100, 200, 400, 1000],
                "sizes": _SIZES_256K,
                "per_size": 300,
            },
            "pairs": {"rate": 400, "counts": [1, 2, 3], "sizes": _SIZES_512K, "per_size": 300},
            "systems": _STREAM_SYSTEMS,
            "timeout_s": 900,
        },
        "chain": {
            "count": 2000,
            "rate": 200,
            "systems": _STREAM_SYSTEMS,
            "timeout_s": 300,
        },
        # 63 is baton's cap per topic (MAX_SUBSCRIBERS); 64 runs too, so the cap shows as
        # baton's failure with its reason while the peers go on.
        "fanout": {
            "subscribers": [1, 2, 4, 8, 16, 32, 63, 64],
            # One Python process per subscriber: 63 rclpy processes on 2 vCPUs ran past the
            # 600 s limit of a single run (2026-11-24); the Python systems stop at 32.
            "max_subscribers": {"rclpy-fastrtps": 32, "ros1-rospy": 32},
            "size": 64,
            "latency": {"count": 500, "rate": 200},
            "throughput": {"count": 10000},
            "depth": 64,
            "systems": _STREAM_SYSTEMS,
            "timeout_s": 600,
        },
        # 72 cells of ~23 s (~28 min): every image at 1, 10, 30 Hz, both QoS, 20 s each.
        "wire_stream": dict(
            _WIRE_STREAM,
            sizes=["4k", "1m", "64k"],
            rates=[1, 10, 30],
            qos=["reliable", "best-effort"],
            seconds=20,
        ),
        "rcl_pingpong": dict(_RCL_PINGPONG, runs=1000, runs_4k=200, warmup=50),
        "rclpy_stop": dict(_RCLPY_STOP, tries=50),
        # >= 10 000 messages per configuration (issue 19), 20 s each at 500 Hz.
        "seed004": {
            "chain": dict(_SEED004["chain"], count=10000, rounds=5, timeout_s=300),
            "image": dict(_SEED004["image"], count=200, rounds=5, timeout_s=300),
        },
        "memory": _MEMORY,
        "bag": dict(_BAG, seconds=20.0),
    },
}
# Issue 20's seed 000 zero-copy cells (`run.py --suite seed000-zc --only seed000`): native baton,
# the ROS-ZC stand-in and ROS-SHM-ZC in every architecture and device model, 30 steps each,
# measured in turns (exp_seed000.IN_TURNS) for the 95 % CI of baton's difference to each.
PARAMS["seed000-zc"] = {
    **PARAMS["quick"],
    "seed000": dict(
        _SEED000,
        runs=30,
        warmup=3,
        groups=[
            {
                "benchmarks": ["cache", "concurrent"],
                "nodes": [2, 3, 5],
                "models": ["SC", "UM", "ZC"],
                "transports": ["ros-zc", "ros-shm-zc", "baton"],
            }
        ],
        timeout_s=600,
    ),
}
# Issue 20's fan-out cells (`run.py --suite fanout --only fanout`): N = 16, 63 (the old limit)
# and 256 (the new one), the shared-memory peers and roscpp. The other experiments as in quick.
PARAMS["fanout"] = {
    **PARAMS["quick"],
    "fanout": {
        "subscribers": [16, 63, 256],
        "size": 64,
        "latency": {"count": 200, "rate": 200},
        "throughput": {"count": 2000},
        "depth": 64,
        "systems": ["baton", "iceoryx2", "iceoryx", "cyclonedds", "roscpp"],
        "timeout_s": 600,
    },
}
