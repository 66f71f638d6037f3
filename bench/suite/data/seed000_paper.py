"""Seed 000's published figures (Jetson TX2 and Xavier, CUDA), copied from the paper's text.

Source: seed 000 (/work/shared/seeds/000_*.txt), "ROS-compliant CPU-iGPU communication",
Tables 1-5: mean of 30 runs, SD and overhead vs the native CUDA reference (Table 1), in ms.
Key: (architecture, gpu_copy, ros_type, ros_copy) -> (time_ms, sd_ms, overhead_percent).
"""

from __future__ import annotations

# Table 1: native references (no ROS), ms (mean, sd).
REFERENCE = {
    ("TX2", "cache", "CUDA-SC"): (833.0, 3.8),
    ("TX2", "cache", "CUDA-ZC"): (8509.1, 131.7),
    ("TX2", "concurrent", "CUDA-SC"): (1053.0, 8.2),
    ("TX2", "concurrent", "CUDA-ZC"): (1316.1, 33.9),
    ("Xavier", "cache", "CUDA-SC"): (207.7, 9.8),
    ("Xavier", "cache", "CUDA-ZC"): (244.7, 11.0),
    ("Xavier", "concurrent", "CUDA-SC"): (381.2, 8.3),
    ("Xavier", "concurrent", "CUDA-ZC"): (256.9, 6.1),
}

# Tables 2 (TX2 cache), 3 (TX2 concurrent), 4 (Xavier cache), 5 (Xavier concurrent).
_ROWS = [
    ("2 nodes", "CUDA-SC", "Topic", "ROS-SC"),
    ("2 nodes", "CUDA-SC", "Service", "ROS-SC"),
    ("2 nodes", "CUDA-SC", "Topic", "ROS-ZC"),
    ("2 nodes", "CUDA-ZC", "Topic", "ROS-ZC"),
    ("2 nodes", "CUDA-SC", "Topic", "ROS-SHM-ZC"),
    ("2 nodes", "CUDA-ZC", "Topic", "ROS-SHM-ZC"),
    ("3 nodes", "CUDA-SC", "Topic", "ROS-SC"),
    ("3 nodes", "CUDA-SC", "Service", "ROS-SC"),
    ("3 nodes", "CUDA-SC", "Topic", "ROS-ZC"),
    ("3 nodes", "CUDA-SC", "Topic", "ROS-SHM-ZC"),
    ("3 nodes", "CUDA-ZC", "Topic", "ROS-SHM-ZC"),
    ("5 nodes", "CUDA-SC", "Topic", "ROS-SC"),
    ("5 nodes", "CUDA-SC", "Topic", "ROS-SHM-ZC"),
    ("5 nodes", "CUDA-ZC", "Topic", "ROS-SHM-ZC"),
]
_VALUES = {
    ("TX2", "cache"): [
        (22825.2, 5763.5, 2640),
        (22715.0, 3929.8, 2627),
        (1056.0, 32.2, 27),
        (10254.2, 189.0, 21),
        (852.6, 7.7, 2),
        (9474.0, 226.3, 11),
        (6334.2, 3562.1, 660),
        (6755.5, 4589.0, 711),
        (1087.6, 39.4, 31),
        (862.7, 9.7, 4),
        (9408.1, 213.0, 11),
        (12234.2, 3487.9, 1369),
        (1737.1, 9.1, 109),
        (11381.6, 65.6, 34),
    ],
    ("TX2", "concurrent"): [
        (4666.0, 68.9, 343),
        (4930.0, 73.3, 368),
        (1584.6, 46.3, 50),
        (1910.6, 73.1, 45),
        (1046.1, 82.3, -1),
        (1203.2, 47.2, -9),
        (8244.6, 2938.4, 683),
        (8505.7, 767.6, 708),
        (2261.7, 47.1, 115),
        (997.9, 75.6, -5),
        (1172.5, 41.5, -11),
        (41773.4, 12118.6, 3867),
        (1923.0, 89.7, 131),
        (1978.3, 131.9, 50),
    ],
    ("Xavier", "cache"): [
        (8371.3, 3210.8, 3930),
        (10385.2, 3423.4, 4900),
        (338.1, 48.8, 63),
        (653.6, 35.4, 167),
        (230.0, 15.5, 11),
        (251.9, 25.3, 3),
        (5139.1, 3484.6, 2374),
        (6744.4, 4367.4, 3147),
        (333.9, 30.5, 61),
        (236.9, 13.1, 14),
        (400.9, 20.8, 64),
        (7466.4, 5225.2, 3495),
        (492.5, 15.6, 137),
        (847.6, 36.4, 246),
    ],
    ("Xavier", "concurrent"): [
        (3501.0, 3052.9, 818),
        (5307.0, 5841.7, 1292),
        (658.5, 41.7, 73),
        (672.4, 34.9, 162),
        (403.3, 43.0, 6),
        (266.7, 23.4, 4),
        (17054.5, 5763.9, 4374),
        (25033.2, 14269.0, 6467),
        (655.7, 42.1, 72),
        (408.0, 56.9, 7),
        (451.3, 62.6, 76),
        (43808.4, 8735.0, 11392),
        (761.9, 86.5, 100),
        (859.0, 66.5, 234),
    ],
}

PAPER = {(dev, bench): dict(zip(_ROWS, vals)) for (dev, bench), vals in _VALUES.items()}
