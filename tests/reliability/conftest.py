"""Hypothesis settings for the reliability suite.

The default ``ci`` profile keeps each property at a few dozen derandomized examples, so the
suite is fast and the same on every run. Set ``AGENTS_TESTING_FUZZ_EXAMPLES`` to run more
(random) examples, e.g. ``AGENTS_TESTING_FUZZ_EXAMPLES=5000 pytest tests/reliability``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_EXAMPLES = os.environ.get("AGENTS_TESTING_FUZZ_EXAMPLES")

settings.register_profile(
    "ci",
    max_examples=30,
    stateful_step_count=25,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "long",
    max_examples=int(_EXAMPLES or 1000),
    stateful_step_count=60,
    deadline=None,
    derandomize=False,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("long" if _EXAMPLES else "ci")
