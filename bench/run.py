"""Run the benchmark suite and print one Markdown table of ratios against named baselines.

Usage (from the repository root, with the framework extras installed)::

    python bench/run.py            # the full suite, a few minutes
    python bench/run.py --quick    # a smoke run of every row, a few seconds
    python bench/run.py model import   # only some groups
    python bench/run.py --instructions wire wire-server   # instruction counts (valgrind)

Every ratio is ours / baseline, both measured in the same run (see ``_harness.py``); below
1.0 means we are cheaper.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Measure the checkout this script is in, not whichever agents_testing is installed.
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _harness import CALLGRIND_DIR, CALLGRIND_MARK, Row, counting_instructions, table

GROUPS = {
    "model": "bench_model",
    "sandbox": "bench_sandbox",
    "realtime": "bench_realtime",
    "frameworks": "bench_frameworks",
    "wire": "bench_wire",
    "import": "bench_import",
    "wire-server": "bench_wire_server",
    "mcp": "bench_mcp",
    "tracing": "bench_tracing",
    "voice": "bench_voice",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="*", choices=[*GROUPS, []], help="groups to run")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one repeat")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count instructions under valgrind instead of timing (groups: "
        + ", ".join(group for group, module in GROUPS.items() if module in COUNTED)
        + ")",
    )
    arguments = parser.parse_args()
    groups = arguments.groups or list(GROUPS)
    if arguments.instructions and not counting_instructions():
        raise SystemExit(_under_callgrind(groups))
    rows: list[Row] = []
    started = time.perf_counter()
    for group in groups:
        module = importlib.import_module(GROUPS[group])
        group_started = time.perf_counter()
        rows.extend(module.rows(arguments.quick))
        print(f"# {group}: {time.perf_counter() - group_started:.1f} s", file=sys.stderr)
    print(table(rows))
    print(
        f"\n{platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, {'quick' if arguments.quick else 'full'} run in "
        f"{time.perf_counter() - started:.0f} s"
        + (", instructions counted by callgrind" if counting_instructions() else "")
    )


COUNTED = {"bench_wire", "bench_wire_server"}
"""Groups whose rows all measure in this process, so that callgrind can count them."""


def _under_callgrind(groups: list[str]) -> int | str:
    """Run this script again under callgrind, counting instructions; return its exit status."""
    others = [group for group in groups if GROUPS[group] not in COUNTED]
    if others:
        return f"--instructions counts only the groups {sorted(COUNTED)}, not {others}"
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return "--instructions needs valgrind on PATH (apt-get install valgrind)"
    with tempfile.TemporaryDirectory(prefix="bench-callgrind-") as directory:
        command = [
            valgrind,
            "--quiet",
            "--tool=callgrind",
            f"--dump-before={CALLGRIND_MARK}",
            "--dump-line=no",
            f"--callgrind-out-file={directory}/cg.%p",
            sys.executable,
            *sys.argv,
        ]
        # A fixed hash seed: set and dict orders, and so the counts, repeat from run to run.
        environment = {**os.environ, CALLGRIND_DIR: directory, "PYTHONHASHSEED": "0"}
        return subprocess.run(command, env=environment, check=False).returncode


if __name__ == "__main__":
    main()
