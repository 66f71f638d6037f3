"""``baton doctor``: checks the machine for what baton needs, says what to fix.

Checks /dev/shm (mount, free space, permissions, baton's segments, foreign owners), limits (open
files, memory maps, the kernel's futex_waitv), OpenCL devices with their unified-memory / SVM
capabilities (through the C++ `baton-doctor` tool when it is built or on PATH, else directly
through the ICD loader), CUDA's driver, and the ROS 1 master at ROS_MASTER_URI (unset,
unreachable, or answering with its pid).
"""

from __future__ import annotations

import ctypes
import glob
import os
import platform
import resource
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any, Optional

from . import net_limits, ros1_master
from ._common import add_format, emit_json, human_bytes


def register(sub: Any) -> None:
    p = sub.add_parser(
        "doctor",
        help="check shared memory, limits, OpenCL, CUDA, permissions, the ROS 1 master",
        description="Check the machine for what baton needs and say what to fix.",
    )
    p.add_argument(
        "--require-opencl", action="store_true", help="fail (exit 9) if no OpenCL device is found"
    )
    add_format(p)
    p.set_defaults(func=cmd_doctor)


def _check(name: str, status: str, detail: str, hint: str = "", **extra: Any) -> dict:
    return {"check": name, "status": status, "detail": detail, "hint": hint, **extra}


def check_shm() -> list[dict]:
    out = []
    shm = Path("/dev/shm")
    if not shm.is_dir():
        return [
            _check(
                "shm",
                "error",
                "/dev/shm does not exist",
                "mount a tmpfs there: mount -t tmpfs tmpfs /dev/shm",
            )
        ]
    st = os.statvfs(shm)
    total, free = st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize
    status = "ok" if free >= 256 << 20 else ("warn" if free >= 64 << 20 else "error")
    out.append(
        _check(
            "shm space",
            status,
            f"/dev/shm: {human_bytes(free)} free of {human_bytes(total)}",
            ""
            if status == "ok"
            else "free space: `baton clean`, or remount bigger "
            "(mount -o remount,size=2G /dev/shm; docker: --shm-size=2g)",
            free_bytes=free,
            total_bytes=total,
        )
    )
    mode = stat.S_IMODE(shm.stat().st_mode)
    writable = os.access(shm, os.W_OK | os.X_OK)
    out.append(
        _check(
            "shm permissions",
            "ok" if writable else "error",
            f"/dev/shm mode {mode:o}, writable: {'yes' if writable else 'no'}",
            "" if writable else "chmod 1777 /dev/shm (as root)",
        )
    )
    uid = os.getuid()
    foreign = []
    for p in shm.glob("baton.*"):
        try:
            if p.stat().st_uid != uid:
                foreign.append(p.name)
        except OSError:
            pass
    if foreign:
        out.append(
            _check(
                "foreign segments",
                "warn",
                f"{len(foreign)} baton segments belong to other users (e.g. {foreign[0]})",
                "they are that user's: segments are private (0600) unless shared with a "
                "group; run as the same user to talk to them",
            )
        )
    try:
        from .. import _baton

        segs = _baton.list_segments(False)
        stale = [s for s in segs if not s["in_use"]]
        corrupt = [s for s in segs if s["problem"]]
        size = sum(s["size"] for s in segs)
        status = "warn" if stale or corrupt else "ok"
        out.append(
            _check(
                "baton segments",
                status,
                f"{len(segs)} segments ({human_bytes(size)}) in namespace "
                f"'{_baton.current_namespace()}', {len(stale)} stale, {len(corrupt)} corrupt",
                "`baton clean` removes the stale ones" if status == "warn" else "",
                segments=len(segs),
                stale=len(stale),
            )
        )
    except Exception as e:  # doctor must report, not crash
        out.append(_check("baton segments", "warn", f"could not list segments: {e}"))
    return out


def check_limits() -> list[dict]:
    out = []
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    out.append(
        _check(
            "open files",
            "ok" if soft >= 1024 else "warn",
            f"RLIMIT_NOFILE {soft} (hard {hard})",
            "" if soft >= 1024 else "ulimit -n 4096: every segment holds a descriptor",
        )
    )
    try:
        maps = int(Path("/proc/sys/vm/max_map_count").read_text())
        out.append(
            _check(
                "memory maps",
                "ok" if maps >= 65530 else "warn",
                f"vm.max_map_count {maps}",
                "" if maps >= 65530 else "sysctl -w vm.max_map_count=262144",
            )
        )
    except OSError:
        pass
    rel = platform.release()
    try:
        major, minor = (int(x) for x in rel.split(".")[:2])
        ok = (major, minor) >= (5, 16)
    except ValueError:
        ok = True
    out.append(
        _check(
            "kernel",
            "ok" if ok else "warn",
            f"Linux {rel}; futex_waitv {'available' if ok else 'missing (< 5.16)'}",
            "" if ok else "wait sets fall back to polling; upgrade to Linux >= 5.16",
        )
    )
    return out


def check_dds_buffers() -> list[dict]:
    """UDP receive buffers: they cap large messages on the DDS wire (net_limits.py says why)."""
    low = net_limits.low_limits()
    current = ", ".join(
        f"{name} {net_limits.read_sysctl(name)}" for name, _, _ in net_limits.WANTED
    )
    if not low:
        return [_check("dds socket buffers", "ok", current)]
    why = "; ".join(f"{name}: {reason}" for name, _, _, reason in low)
    return [
        _check(
            "dds socket buffers",
            "warn",
            f"{current}\nlarge messages (4K images) to or from other RMWs on the DDS wire are lost "
            f"below these ({why})",
            net_limits.sysctl_command(low)
            + " (as root; scripts/tune-net.sh keeps it in /etc/sysctl.d)",
        )
    ]


def find_tool(name: str) -> Optional[str]:
    found = shutil.which(name)
    if found:
        return found
    root = Path(__file__).resolve().parents[3]
    builds = [os.environ.get("BATON_BUILD_DIR", "")] + sorted(glob.glob(str(root / "build*")))
    for b in builds:
        if not b:
            continue
        for cand in (Path(b) / name, Path(b) / "tools" / name, Path(b) / "bin" / name):
            if cand.is_file() and os.access(cand, os.X_OK):
                return str(cand)
    return None


CL_DEVICE_TYPE = 0x1000
CL_DEVICE_NAME = 0x102B
CL_DEVICE_HOST_UNIFIED_MEMORY = 0x1035
CL_DEVICE_SVM_CAPABILITIES = 0x1053
CL_PLATFORM_NAME = 0x0902
SVM_BITS = {1: "coarse-grain buffer", 2: "fine-grain buffer", 4: "fine-grain system", 8: "atomics"}


def opencl_devices() -> tuple[list[dict], str]:
    """(devices, problem): asks the ICD loader directly (no pyopencl needed)."""
    # As the ICD loader does: OCL_ICD_VENDORS replaces the default vendor directory.
    vendors = os.environ.get("OCL_ICD_VENDORS") or "/etc/OpenCL/vendors"
    icds = glob.glob(os.path.join(vendors, "*.icd")) if os.path.isdir(vendors) else [vendors]
    icds = [p for p in icds if os.path.exists(p)]
    try:
        cl = ctypes.CDLL("libOpenCL.so.1")
    except OSError:
        return [], "no OpenCL ICD found (no libOpenCL.so.1 loader)"
    if not icds:
        return [], f"no OpenCL ICD found ({vendors} holds no .icd file)"
    n = ctypes.c_uint(0)
    if cl.clGetPlatformIDs(0, None, ctypes.byref(n)) != 0 or n.value == 0:
        return [], "no OpenCL ICD found (the loader reports no platform)"
    plats = (ctypes.c_void_p * n.value)()
    cl.clGetPlatformIDs(n.value, plats, None)
    devices = []

    def info(fn: Any, obj: Any, param: int, size: int = 256) -> bytes:
        buf = ctypes.create_string_buffer(size)
        got = ctypes.c_size_t(0)
        if fn(obj, param, size, buf, ctypes.byref(got)) != 0:
            return b""
        return buf.raw[: got.value]

    for p in plats:
        pname = info(cl.clGetPlatformInfo, ctypes.c_void_p(p), CL_PLATFORM_NAME).rstrip(b"\0")
        nd = ctypes.c_uint(0)
        if (
            cl.clGetDeviceIDs(
                ctypes.c_void_p(p), ctypes.c_uint64(0xFFFFFFFF), 0, None, ctypes.byref(nd)
            )
            != 0
        ):
            continue
        devs = (ctypes.c_void_p * nd.value)()
        cl.clGetDeviceIDs(ctypes.c_void_p(p), ctypes.c_uint64(0xFFFFFFFF), nd.value, devs, None)
        for d in devs:
            dv = ctypes.c_void_p(d)
            name = (
                info(cl.clGetDeviceInfo, dv, CL_DEVICE_NAME).rstrip(b"\0").decode(errors="replace")
            )
            unified = info(cl.clGetDeviceInfo, dv, CL_DEVICE_HOST_UNIFIED_MEMORY, 4)
            svm = info(cl.clGetDeviceInfo, dv, CL_DEVICE_SVM_CAPABILITIES, 8)
            svm_bits = int.from_bytes(svm, "little") if svm else 0
            devices.append(
                {
                    "platform": pname.decode(errors="replace"),
                    "device": name,
                    "host_unified_memory": bool(int.from_bytes(unified, "little"))
                    if unified
                    else None,
                    "svm": [v for k, v in SVM_BITS.items() if svm_bits & k],
                }
            )
    if not devices:
        return [], "an OpenCL ICD is installed but reports no device"
    return devices, ""


def check_opencl() -> list[dict]:
    tool = find_tool("baton-doctor")
    if tool:
        try:
            r = subprocess.run([tool], capture_output=True, text=True, timeout=30)
            return [
                _check(
                    "opencl",
                    "ok" if r.returncode == 0 else "warn",
                    f"{tool}:\n" + (r.stdout + r.stderr).strip(),
                    "" if r.returncode == 0 else "see the tool's output above",
                    tool=tool,
                    returncode=r.returncode,
                )
            ]
        except (OSError, subprocess.TimeoutExpired) as e:
            return [_check("opencl", "warn", f"{tool} failed: {e}")]
    devices, problem = opencl_devices()
    if problem:
        return [
            _check(
                "opencl",
                "warn",
                problem,
                "host memory works without one; for device domains install an ICD "
                "(apt-get install pocl-opencl-icd) and check `clinfo`",
                devices=[],
            )
        ]
    lines = [
        f"{d['platform']} / {d['device']}: host unified memory "
        f"{'yes' if d['host_unified_memory'] else 'no'}, SVM: {', '.join(d['svm']) or 'none'}"
        for d in devices
    ]
    return [_check("opencl", "ok", "\n".join(lines), devices=devices)]


def check_cuda() -> list[dict]:
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        hint = "only needed for cuda: domains (NVIDIA driver)"
        return [_check("cuda", "info", "no CUDA driver (libcuda.so.1 not found)", hint)]
    if cuda.cuInit(0) != 0:
        return [
            _check(
                "cuda",
                "warn",
                "libcuda.so.1 present but cuInit failed (no GPU?)",
                "check nvidia-smi and the driver",
            )
        ]
    n = ctypes.c_int(0)
    cuda.cuDeviceGetCount(ctypes.byref(n))
    return [_check("cuda", "ok", f"CUDA driver with {n.value} device(s)")]


def cmd_doctor(args: Any) -> int:
    checks = (
        check_shm()
        + check_limits()
        + check_dds_buffers()
        + check_opencl()
        + check_cuda()
        + [ros1_master.check()]
    )
    if args.format == "json":
        emit_json(checks)
    else:
        marks = {"ok": "[ok]  ", "warn": "[warn]", "error": "[FAIL]", "info": "[info]"}
        for c in checks:
            first, *rest = c["detail"].splitlines() or [""]
            print(f"{marks[c['status']]} {c['check']}: {first}")
            for line in rest:
                print(f"         {line}")
            if c["hint"]:
                print(f"         -> {c['hint']}")
    if args.require_opencl:
        cl = next(c for c in checks if c["check"] == "opencl")
        if cl["status"] != "ok":
            from ..errors import NoOpenCLDeviceError

            raise NoOpenCLDeviceError(
                cl["detail"].splitlines()[0] if cl["detail"] else "no OpenCL device found"
            )
    return 1 if any(c["status"] == "error" for c in checks) else 0
