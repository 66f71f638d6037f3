"""genpy's view of converted messages, for tests/bridge/ros1_conversion_test.cpp (run with
/usr/bin/python3, where Debian's genpy message classes live).

  genpy_reserialize.py DIR   for each DIR/<pkg>__<Type>__<n>.bin: deserialize it with genpy's
                             class for pkg/Type, serialize that message again, and print
                             "same <file>" or "DIFFERENT <file> <why>"; then "checked <count>"

A converted message that genpy reads and writes back byte for byte is exactly what genpy's
serialize produces for the message it stands for.
"""

import importlib
import io
import sys
from pathlib import Path


def check(path):
    pkg, name, _ = path.stem.split("__")
    cls = getattr(importlib.import_module(pkg + ".msg"), name)
    data = path.read_bytes()
    msg = cls()
    try:
        msg.deserialize(data)
    except Exception as e:  # genpy raises its own and struct errors
        return f"DIFFERENT {path.name} does not deserialize: {e}"
    out = io.BytesIO()
    msg.serialize(out)
    again = out.getvalue()
    if again != data:
        return f"DIFFERENT {path.name} re-serialized to {len(again)} bytes, not {len(data)}"
    return f"same {path.name}"


def main(argv):
    files = sorted(Path(argv[1]).glob("*.bin"))
    for f in files:
        print(check(f), flush=True)
    print(f"checked {len(files)}", flush=True)


if __name__ == "__main__":
    main(sys.argv)
