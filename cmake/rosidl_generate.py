"""Generates a ROS 2 message package's C++ code with the rosidl generators of the ROS 2 wheels.

The wheels ship the generators (rosidl_generator_c / _cpp, rosidl_typesupport_introspection_cpp,
rosidl_typesupport_fastrtps_cpp, rosidl_typesupport_cpp) but their `rosidl generate` command
refuses to start (two copies of each entry point), and its .msg -> .idl step needs catkin_pkg,
which they lack. So this script takes .idl files and calls each generator's extension class
itself, as `rosidl generate` would, offline. Run with the wheels' Python and
AMENT_PREFIX_PATH=<wheels prefix> (cmake/rosidl_wheels_package.cmake does both):

    rosidl_generate.py OUT PACKAGE IDL_DIR msg/A.idl [msg/B.idl ...]

OUT/<generator>/PACKAGE/... receives the code of each generator (c, cpp, introspection_cpp,
fastrtps_cpp, typesupport_cpp); OUT/hash the type descriptions. Dependencies are looked up in the
wheels' share folder (builtin_interfaces only, for now).
"""

from __future__ import annotations

import os
import pathlib
import sys

from rosidl_cli.command.hash.api import generate_type_hashes
from rosidl_generator_c.cli import GenerateC
from rosidl_generator_cpp.cli import GenerateCpp
from rosidl_typesupport_cpp.cli import GenerateCppTypesupport
from rosidl_typesupport_fastrtps_cpp.cli import GenerateFastRTPSCppTypesupport
from rosidl_typesupport_introspection_cpp.cli import GenerateIntrospectionCppTypesupport

DEPENDENCIES = ["builtin_interfaces"]
# What the rosidl_typesupport_cpp dispatcher offers, in the order rmw implementations ask.
DISPATCHED = ["rosidl_typesupport_introspection_cpp", "rosidl_typesupport_fastrtps_cpp"]


def main(argv: list[str]) -> int:
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    out, package, idl_dir, files = pathlib.Path(argv[0]).resolve(), argv[1], argv[2], argv[3:]
    share = pathlib.Path(os.environ["AMENT_PREFIX_PATH"].split(":")[0]) / "share"
    includes = [str(share / dep) for dep in DEPENDENCIES]
    idl = [f"{os.path.abspath(idl_dir)}:{f}" for f in files]
    descriptions = generate_type_hashes(
        package_name=package, interface_files=idl, include_paths=includes, output_path=out / "hash"
    )
    for name, ext in (("c", GenerateC("c")), ("cpp", GenerateCpp("cpp"))):
        ext.generate(
            package,
            idl,
            includes,
            output_path=out / name / package,
            type_description_files=descriptions,
        )
    for name, ext in (
        ("introspection_cpp", GenerateIntrospectionCppTypesupport("introspection_cpp")),
        ("fastrtps_cpp", GenerateFastRTPSCppTypesupport("fastrtps_cpp")),
        ("typesupport_cpp", GenerateCppTypesupport("cpp", typesupport_implementations=DISPATCHED)),
    ):
        ext.generate(package, idl, includes, output_path=out / name / package)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
