"""Chunk compression levels (issue 21, compressed 4K): `Writer(compression_level=...)` and
`baton bag record --compression-level`. A bag recorded at a level is read back byte-equal by the
`mcap` reader (CRCs checked) and `rosbags`, its chunks are what that level of the library
produces, and other mcap writers in the process keep the library's default."""

from __future__ import annotations

import subprocess
import sys

import lz4.frame
import numpy as np
import pytest
import zstandard
from mcap.reader import make_reader
from mcap.records import Chunk
from mcap.stream_reader import StreamReader
from mcap.writer import Writer as McapWriter
from test_bag import ament, record_in_process, ros2_messages, typestore  # noqa: F401

import baton
from baton.bag import Writer

from conftest import run_cli

LIBRARY = {
    "lz4": lambda data, level: lz4.frame.compress(data, compression_level=level),
    "zstd": lambda data, level: zstandard.ZstdCompressor(level=level).compress(data),
}
DEFAULT = {"lz4": lz4.frame.compress, "zstd": zstandard.compress}


def chunks(path) -> list[Chunk]:
    with open(path, "rb") as f:
        return [r for r in StreamReader(f, emit_chunks=True).records if isinstance(r, Chunk)]


def uncompressed(chunk: Chunk) -> bytes:
    if chunk.compression == "lz4":
        return lz4.frame.decompress(chunk.data)
    return zstandard.ZstdDecompressor().decompress(chunk.data, chunk.uncompressed_size)


@pytest.mark.usefixtures("ament")
@pytest.mark.parametrize("compression,level", [("lz4", -16), ("zstd", -5), ("zstd", 1)])
def test_a_bag_at_a_level_reads_back_byte_equal_and_its_chunks_are_that_level(
    ctx, tmp_path, compression, level
):
    from rosbags.highlevel import AnyReader

    ts = typestore()
    ros = ros2_messages(ts)  # a 4K rgb8 Image among them
    types = {"/chatter": "std_msgs/msg/String", "/image": "sensor_msgs/msg/Image"}
    node = baton.Node(ctx, "talker")
    pubs = {t: node.raw_publisher(t, types[t]).create() for t in types}
    sent: dict[str, list[bytes]] = {t: [] for t in types}

    def publish_all(step) -> None:
        for topic, msgs in ros.items():
            for m in msgs:
                raw = bytes(ts.serialize_cdr(m, types[topic]))
                sent[topic].append(raw)
                pubs[topic].publish(raw)
                step()

    path = tmp_path / "level.mcap"
    record_in_process(
        ctx, path, publish_all, 7, compression=compression, compression_level=level
    )  # fmt: skip
    with open(path, "rb") as f:
        got: dict[str, list[bytes]] = {t: [] for t in types}
        for _s, channel, message in make_reader(f, validate_crcs=True).iter_messages():
            got[channel.topic].append(message.data)
    assert got == sent
    with AnyReader([path]) as reader:
        images = [
            reader.deserialize(raw, c.msgtype)
            for c, _t, raw in reader.messages()
            if c.topic == "/image"
        ]
    for a, b in zip(images, ros["/image"], strict=True):
        assert np.array_equal(a.data, b.data) and (a.height, a.width) == (b.height, b.width)
    found = chunks(path)
    assert found and all(c.compression == compression for c in found)
    for c in found:
        data = uncompressed(c)
        assert c.data == LIBRARY[compression](data, level)
    # The level made a difference: the 4K frame's chunk is not what the default level writes
    big = max(found, key=lambda c: c.uncompressed_size)
    assert big.data != DEFAULT[compression](uncompressed(big))


def test_other_mcap_writers_keep_the_default_level(tmp_path):
    payload = bytes(np.arange(1 << 18, dtype=np.uint32) % 251)
    leveled = Writer(tmp_path / "a.mcap", compression="zstd", compression_level=19)
    leveled.add_topic("/x", "baton/msg/Bytes", kind="native")
    leveled.write("/x", payload, 1)
    leveled.close()
    with open(tmp_path / "b.mcap", "wb") as f:  # the mcap package's own Writer, same process
        plain = McapWriter(f)
        plain.start()
        sid = plain.register_schema("s", "", b"")
        plain.add_message(plain.register_channel("/x", "", sid), 1, payload, 1)
        plain.finish()
    (a,), (b,) = chunks(tmp_path / "a.mcap"), chunks(tmp_path / "b.mcap")
    assert (
        b.data
        == zstandard.compress(uncompressed(b))
        != zstandard.ZstdCompressor(level=19).compress(uncompressed(b))
    )
    assert a.data == zstandard.ZstdCompressor(level=19).compress(uncompressed(a))


@pytest.mark.parametrize(
    "args,why",
    [
        (["--compression", "lz4", "--compression-level", "17"], "lz4 level must be in"),
        (["--compression", "zstd", "--compression-level", "23"], "zstd level must be in"),
        (["--compression", "none", "--compression-level", "1"], "'none' takes no level"),
        (["--no-chunks", "--compression-level", "1"], "'none' takes no level"),
    ],
)
def test_cli_refuses_a_level_the_compression_does_not_take(ns, tmp_path, args, why):
    out = tmp_path / "x.mcap"
    r = run_cli("bag", "record", "/t", "-o", str(out), *args)
    assert r.returncode == 1 and why in r.stderr and "--compression-level" in r.stderr
    assert not out.exists()


def test_writer_refuses_a_level_without_compression(tmp_path):
    with pytest.raises(ValueError, match="takes no level"):
        Writer(tmp_path / "x.mcap", compression="none", compression_level=1)
    assert not (tmp_path / "x.mcap").exists()


def test_keep_freed_memory_sets_glibc_malloc(tmp_path):
    # In a child: the setting is process-wide
    code = "from baton.bag.compression import keep_freed_memory; print(keep_freed_memory())"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "True"
