"""Run the benchmark suite and print one Markdown table of ratios against named baselines.

Usage (from the repository root, with the framework extras installed)::

    python bench/run.py            # the full suite, a few minutes
    python bench/run.py --quick    # a smoke run of every row, a few seconds
    python bench/run.py model import   # only some groups

Every ratio is ours / baseline, both measured in the same run (see ``_harness.py``); below
1.0 means we are cheaper.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _harness import Row, table

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
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="*", choices=[*GROUPS, []], help="groups to run")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one repeat")
    arguments = parser.parse_args()
    rows: list[Row] = []
    started = time.perf_counter()
    for group in arguments.groups or list(GROUPS):
        module = importlib.import_module(GROUPS[group])
        group_started = time.perf_counter()
        rows.extend(module.rows(arguments.quick))
        print(f"# {group}: {time.perf_counter() - group_started:.1f} s", file=sys.stderr)
    print(table(rows))
    print(
        f"\n{platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, {'quick' if arguments.quick else 'full'} run in "
        f"{time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
