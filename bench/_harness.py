"""Shared timing for the benchmark suite: interleaved repeats, medians, ratio rows.

Times are CPU seconds of this process (``time.process_time``), not wall time: the machine the
suite runs on is shared, and CPU time is far less sensitive to other processes than wall time.
Every row runs ours and its baseline alternately, ``repeats`` times, in the same process, and
reports the median of each and the median of the per-repeat ratios (ours / baseline).

Instruction mode (``run.py --instructions``): the suite runs under valgrind's callgrind, and
``cpu_seconds``/``cpu_seconds_async`` return the instructions every thread of this process
executed while ``run`` ran, instead of CPU seconds. Counts do not depend on the load of the
machine, so one repeat is enough and the ratios of two runs agree to a fraction of a percent.
callgrind dumps (and zeroes) its counters each time the process enters the C function behind
``sys.getallocatedblocks()`` (``--dump-before``), which nothing else in the suite calls; the
harness calls it right before and right after ``run`` and reads the second dump.
"""

from __future__ import annotations

import asyncio
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Row:
    """One line of the results table: ours against a named baseline of the same run."""

    group: str
    measure: str
    baseline: str
    ours: float
    base: float
    unit: str
    ratio: float
    goal: str = ""

    def cells(self) -> list[str]:
        return [
            self.group,
            self.measure,
            self.baseline,
            _number(self.ours, self.unit),
            _number(self.base, self.unit),
            f"{self.ratio:.3f}",
            self.goal,
        ]


def _number(value: float, unit: str) -> str:
    if unit == "s":
        return f"{value * 1e3:.4g} ms" if value < 1 else f"{value:.3g} s"
    if unit == "us":
        return f"{value * 1e6:.3g} us"
    if unit == "ns":
        return f"{value * 1e9:.0f} ns"
    if unit == "instr":
        return f"{value / 1e3:,.1f} k instr"
    return f"{value:.4g} {unit}"


CALLGRIND_DIR = "AGENTS_TESTING_BENCH_CALLGRIND_DIR"
"""Environment variable ``run.py --instructions`` sets to the directory callgrind dumps into."""

CALLGRIND_MARK = "sys_getallocatedblocks"
"""The C function whose entry makes callgrind dump its counters (``--dump-before``)."""


def counting_instructions() -> bool:
    """True when this process runs under callgrind for ``run.py --instructions``."""
    return bool(os.environ.get(CALLGRIND_DIR))


class _Dumps:
    taken = 0


def _dump() -> int:
    """Make callgrind dump its counters; return the instructions counted since the last dump."""
    sys.getallocatedblocks()  # callgrind dumps on entry, before this call does any work
    _Dumps.taken += 1
    path = os.path.join(os.environ[CALLGRIND_DIR], f"cg.{os.getpid()}.{_Dumps.taken}")
    with open(path, encoding="utf-8") as dump:
        for line in dump:
            if line.startswith(("summary:", "totals:")):
                count = int(line.split()[1])
                break
        else:
            raise RuntimeError(f"no summary line in the callgrind dump {path}")
    os.remove(path)
    return count


def _settle_collector() -> None:
    """Start a counted block from the same collector state, whatever ran before it.

    A full collection, then what survived it frozen: a collection inside the block then scans
    only the objects the block made. Without this, a collection of the whole heap (hundreds of
    thousands of objects once the clients are imported) lands in one side's block or the
    other's depending on the rows run before, moving a row by 10% or more between runs.
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def cpu_seconds(run: Callable[[], Any]) -> float:
    """Return the CPU seconds ``run()`` takes (in instruction mode: the instructions)."""
    if counting_instructions():
        _settle_collector()
        _dump()  # discards what ran before, this very parsing included
        run()
        return float(_dump())
    start = time.process_time()
    run()
    return time.process_time() - start


def cpu_seconds_async(make: Callable[[], Coroutine[Any, Any, Any]]) -> float:
    """Return the CPU seconds a fresh event loop takes to run ``make()``, loop setup excluded.

    In instruction mode, the instructions instead.
    """

    async def timed() -> float:
        if counting_instructions():
            _settle_collector()
            _dump()
            await make()
            return float(_dump())
        start = time.process_time()
        await make()
        return time.process_time() - start

    return asyncio.run(timed())


def compare(
    group: str,
    measure: str,
    baseline: str,
    ours: Callable[[], float],
    base: Callable[[], float],
    *,
    repeats: int,
    unit: str = "s",
    goal: str = "",
    warm_up: bool = True,
) -> Row:
    """Measure ``ours`` and ``base`` alternately; each returns one sample (seconds or a count).

    In instruction mode a sample in seconds is an instruction count, and one repeat is taken:
    counts repeat to a fraction of a percent.
    """
    started = time.perf_counter()
    if counting_instructions():
        repeats = 1
        unit = "instr" if unit == "s" else unit
        warm_up = warm_up and unit == "instr"  # a ratio of two blocks of one run needs none
    ours_samples: list[float] = []
    base_samples: list[float] = []
    ratios: list[float] = []
    if warm_up:
        # One untimed run each first: lazy imports and first-use caches are not what we compare.
        ours()
        base()
    for repeat in range(repeats):
        # Alternate which side goes first, so a slow phase of the machine hits both alike.
        if repeat % 2:
            b = base()
            o = ours()
        else:
            o = ours()
            b = base()
        ours_samples.append(o)
        base_samples.append(b)
        ratios.append(o / b if b else float("inf"))
    ratio = statistics.median(ratios)
    print(
        f"  {measure} / {baseline}: {ratio:.3f} ({time.perf_counter() - started:.1f} s)",
        file=sys.stderr,
    )
    return Row(
        group,
        measure,
        baseline,
        statistics.median(ours_samples),
        statistics.median(base_samples),
        unit,
        ratio,
        goal,
    )


def table(rows: list[Row]) -> str:
    """Render rows as a Markdown table."""
    header = ["group", "measure", "baseline", "ours", "baseline value", "ratio", "goal"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    return "\n".join(lines)


PEAK_RSS_CODE = (
    "print(next(int(line.split()[1]) for line in open('/proc/self/status') "
    "if line.startswith('VmHWM:')) / 1024)"
)
"""Python source that prints this process's peak RSS in MiB (Linux).

A child's ``ru_maxrss`` also counts the parent's memory it was forked from, so children
report their own high-water mark instead.
"""
