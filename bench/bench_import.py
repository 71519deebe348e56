"""Import rows: process CPU and peak memory of a fresh interpreter importing one module."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys

from _harness import PEAK_RSS_CODE, Row

GROUP = "import"


# The import runs this many frames deep, one depth per repeat, the same for both sides of a
# row. CPython 3.11 grows the frames' stack in 16 KiB chunks that it maps and unmaps as a call
# crosses a chunk's end, and a framework's import can cross the same end thousands of times:
# about 0.1 s of system time at one depth, nearly nothing at the next. Our adapter's own
# import adds frames, so at one fixed depth a row measures which side lands on a chunk's end.
# Six depths 26 frames apart cover about one chunk of ``nest`` frames, so neither side keeps
# its luck, and the median of the six ratios is what the row shows.
DEPTHS = tuple(range(0, 156, 26))

PROBE = """
def nest(depth):
    return nest(depth - 1) if depth else __import__({module!r})
nest({depth})
{peak}
"""


def probe(module: str, *, depth: int = 0, write_bytecode: bool = False) -> tuple[float, float]:
    """Return the CPU seconds and peak RSS (MiB) of a fresh interpreter importing ``module``."""
    env = dict(os.environ)
    if write_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    code = PROBE.format(module=module, depth=depth, peak=PEAK_RSS_CODE)
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env)
    assert process.stdout is not None
    peak = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise RuntimeError(f"import {module} failed")
    return usage.ru_utime + usage.ru_stime, float(peak)


def measure(modules: list[str], repeats: int) -> dict[str, list[tuple[float, float]]]:
    """Probe every module ``repeats`` times, rotating the order from one repeat to the next."""
    for module in modules:
        # Write the bytecode caches before timing, even where PYTHONDONTWRITEBYTECODE is set
        # (CI sets it): pip compiled the frameworks' caches when it installed them, while an
        # editable checkout of ours would otherwise be compiled from source in every probe.
        probe(module, write_bytecode=True)
    samples: dict[str, list[tuple[float, float]]] = {module: [] for module in modules}
    for repeat in range(repeats):
        shift = repeat % len(modules)
        for module in modules[shift:] + modules[:shift]:
            samples[module].append(probe(module, depth=DEPTHS[repeat % len(DEPTHS)]))
    return samples


def pair_rows(ours: str, base: str, samples: dict[str, list[tuple[float, float]]]) -> list[Row]:
    def row(measure: str, field: int, unit: str) -> Row:
        pairs = list(zip(samples[ours], samples[base], strict=True))
        return Row(
            GROUP,
            f"import {ours}: {measure}",
            f"import {base}",
            statistics.median(o[field] for o, _ in pairs),
            statistics.median(b[field] for _, b in pairs),
            unit,
            statistics.median(o[field] / b[field] for o, b in pairs),
            "<= 1.0" if base != "asyncio" else "",
        )

    return [row("process CPU", 0, "s"), row("peak RSS", 1, "MiB")]


PAIRS = [
    ("agents_testing", "asyncio"),
    ("agents_testing", "agents.testing"),
    ("agents_testing.adapters.openai_agents", "agents.testing"),
    ("agents_testing.adapters.pydantic_ai", "pydantic_ai.models.function"),
    ("agents_testing.adapters.langchain", "langchain_core.language_models.fake_chat_models"),
]


def rows(quick: bool) -> list[Row]:
    pairs = PAIRS[:1] if quick else PAIRS  # the frameworks take seconds each to import
    modules = list(dict.fromkeys(module for pair in pairs for module in pair))
    samples = measure(modules, 1 if quick else len(DEPTHS))
    return [row for ours, base in pairs for row in pair_rows(ours, base, samples)]
