"""Judge `pyright --verifytypes agents_testing --ignoreexternal --outputjson` output.

Usage: pyright ... --outputjson | python .ci/check_verifytypes.py with|without

With the frameworks installed the public API must be 100% known. Without them, an adapter
class built on a framework base class (and a factory returning it) cannot be known, since its
base is an unresolved import; everything else, the core included, must still be 100% known.
The voice adapters' frameworks (LiveKit, Pipecat) are not in the Quick start's environment
either, so theirs are judged as without frameworks in both runs (CI's voice step type-checks
them strictly with the frameworks).
"""

from __future__ import annotations

import json
import sys

# What pyright says about a class whose framework base class is not installed, and about a
# function that returns such a class.
ABSENT_BASE = {
    "Type of base class unknown",
    "Type of metaclass unknown",
    "Return type is partially unknown",
}

# Adapters whose frameworks only CI's voice step installs.
ELSEWHERE = ("agents_testing.adapters.livekit.", "agents_testing.adapters.pipecat.")


def main(mode: str) -> int:
    completeness = json.load(sys.stdin)["typeCompleteness"]
    score = completeness["completenessScore"]
    unknown = [
        symbol
        for symbol in completeness["symbols"]
        if not symbol["isTypeKnown"] or symbol["isTypeAmbiguous"]
    ]
    print(f"verifytypes {mode} frameworks: completeness score {score:.1%}")
    prefixes = ELSEWHERE if mode == "with" else ("agents_testing.adapters.",)
    allowed = [
        symbol
        for symbol in unknown
        if symbol["name"].startswith(prefixes)
        and all(
            diagnostic["message"].partition("\n")[0] in ABSENT_BASE
            for diagnostic in symbol["diagnostics"]
            if diagnostic["severity"] == "error"
        )
    ]
    if mode != "with":
        core = [
            s
            for s in completeness["symbols"]
            if not s["name"].startswith("agents_testing.adapters.")
        ]
        known = sum(1 for s in core if s["isTypeKnown"] and not s["isTypeAmbiguous"])
        print(f"  outside the adapters: {known}/{len(core)} symbols known")
        for symbol in allowed:
            print(f"  needs its framework to be known: {symbol['name']}")
    failures = [symbol for symbol in unknown if symbol not in allowed]
    for symbol in failures:
        print(f"FAIL {symbol['name']}", file=sys.stderr)
        for diagnostic in symbol["diagnostics"]:
            if diagnostic["severity"] == "error":
                print(f"  {diagnostic['message']}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
