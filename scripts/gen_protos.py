"""Generate the Python gRPC stubs for protos/callbreak/v1/bot.proto into arena/proto/.

Usage: python scripts/gen_protos.py

Runs grpc_tools.protoc with ``-I protos`` and writes bot_pb2.py, bot_pb2.pyi and
bot_pb2_grpc.py into arena/proto/. The output files are committed and never edited by
hand; tests/protocol/test_stubs_fresh.py fails when they are stale.

One mechanical post-processing step: protoc emits absolute imports that mirror the
proto package (``from callbreak.v1 import bot_pb2 as ...``), which would only work with
protos/ on sys.path. They are rewritten to relative imports (``from . import bot_pb2
as ...``) so the stubs work as the package ``arena.proto``.
"""

from __future__ import annotations

import re
import sys
import tempfile
from importlib import resources
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "protos"
PROTO_FILE = "callbreak/v1/bot.proto"
OUT_DIR = ROOT / "arena" / "proto"
OUTPUTS = ("bot_pb2.py", "bot_pb2.pyi", "bot_pb2_grpc.py")

_ABSOLUTE_IMPORT = re.compile(r"^from callbreak\.v1 import (\w+_pb2) as ", re.MULTILINE)


def make_imports_relative(source: str) -> str:
    """Rewrite ``from callbreak.v1 import X_pb2 as`` to ``from . import X_pb2 as``."""
    return _ABSOLUTE_IMPORT.sub(r"from . import \1 as ", source)


def generate(out_dir: Path = OUT_DIR) -> list[Path]:
    """Run protoc into a scratch dir, post-process, and write the OUTPUTS into out_dir."""
    well_known = resources.files("grpc_tools") / "_proto"
    with tempfile.TemporaryDirectory() as scratch:
        args = [
            "grpc_tools.protoc",
            f"-I{PROTO_ROOT}",
            f"-I{well_known}",
            f"--python_out={scratch}",
            f"--pyi_out={scratch}",
            f"--grpc_python_out={scratch}",
            str(PROTO_ROOT / PROTO_FILE),
        ]
        if protoc.main(args) != 0:
            raise RuntimeError(f"protoc failed on {PROTO_FILE}")
        generated = Path(scratch) / Path(PROTO_FILE).parent
        out_dir.mkdir(parents=True, exist_ok=True)
        written = []
        for name in OUTPUTS:
            text = make_imports_relative((generated / name).read_text(encoding="utf-8"))
            target = out_dir / name
            target.write_text(text, encoding="utf-8")
            written.append(target)
    return written


def main() -> int:
    for path in generate():
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
