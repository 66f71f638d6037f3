"""Fuzz baton.bag.Reader with 10 000 mutated bags: each opens and reads to the end, or raises a
BagError (CorruptBagError / NotMcapError) with a message; nothing else escapes, nothing hangs."""

from __future__ import annotations

import random
from pathlib import Path

from baton.bag import BagError, Reader, Writer


def test_reader_survives_10000_mutated_files(tmp_path, ns):
    seeds = []
    for comp in ("none", "zstd", "lz4"):
        w = Writer(tmp_path / f"seed_{comp}.mcap", compression=comp, chunk_size=200)
        w.add_topic("/b", "baton/msg/Bytes", "ab", {"depth": 5})
        w.add_topic("/c", "demo/msg/Pose", "cd")
        for i in range(6):
            w.write("/b" if i % 3 else "/c", bytes([i]) * 40, log_time=1000 + i)
        w.close()
        seeds.append((tmp_path / f"seed_{comp}.mcap").read_bytes())
    rng = random.Random(21)
    path = Path("/dev/shm") / f"{ns}.fuzz.mcap"  # tmpfs: 10 000 rewrites stay cheap
    outcomes = {"read": 0, "error": 0}
    for n in range(10_000):
        data = bytearray(seeds[n % 3])
        for _ in range(rng.randint(1, 4)):
            how = rng.random()
            i = rng.randrange(len(data))
            if how < 0.6:
                data[i] ^= 1 << rng.randrange(8)
            elif how < 0.8:
                data[i : i + 8] = rng.randbytes(8)
            else:
                del data[i:]
                if not data:
                    data += b"\x89"
        path.write_bytes(bytes(data))
        try:
            r = Reader(path)
            r.info()
            for _m in r.messages():
                pass
            outcomes["read"] += 1
        except BagError as e:
            assert e.detail
            outcomes["error"] += 1
    path.unlink()
    assert outcomes["read"] > 100 and outcomes["error"] > 100, outcomes
