"""Each adapter without its framework: a ModuleNotFoundError that says what to install.

These run in the core-only CI jobs too, where the frameworks really are absent; with them
installed, the framework is hidden by a ``None`` entry in ``sys.modules``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

ADAPTERS = [
    # adapter module, the framework module it imports, requirement, extra
    ("agents_testing.adapters.openai_agents", "agents", "openai-agents>=0.24", "openai-agents"),
    ("agents_testing.adapters.pydantic_ai", "pydantic_ai", "pydantic-ai-slim>=1.1", "pydantic-ai"),
    ("agents_testing.adapters.langchain", "langchain_core", "langchain-core>=0.3", "langchain"),
    ("agents_testing.adapters.httpx", "httpx", "httpx>=0.27", "httpx"),
    (
        "agents_testing.adapters.opentelemetry",
        "opentelemetry",
        "opentelemetry-sdk>=1.20",
        "tracing",
    ),
    ("agents_testing.adapters.livekit", "livekit", "livekit-agents>=1.8", "livekit"),
    ("agents_testing.adapters.pipecat", "pipecat", "pipecat-ai>=1.14", "pipecat"),
]

# Hide the framework, then report both what importorskip does and the error itself.
PROBE = """
import json, sys
import pytest
adapter, framework = sys.argv[1:3]
sys.modules[framework] = None
report = {}
try:
    pytest.importorskip(adapter)
except pytest.skip.Exception as skipped:
    report["skipped"] = str(skipped)
try:
    __import__(adapter)
except ImportError as error:
    report.update(type=type(error).__name__, name=error.name, message=str(error))
print(json.dumps(report))
"""


def probe(adapter: str, framework: str) -> dict[str, str]:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, adapter, framework],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    report: dict[str, str] = json.loads(completed.stdout)
    return report


@pytest.mark.parametrize(("adapter", "framework", "requirement", "extra"), ADAPTERS)
def test_importorskip_skips_an_adapter_whose_framework_is_missing(
    adapter: str, framework: str, requirement: str, extra: str
) -> None:
    report = probe(adapter, framework)

    assert "skipped" in report, report
    assert requirement in report["skipped"]


@pytest.mark.parametrize(("adapter", "framework", "requirement", "extra"), ADAPTERS)
def test_missing_framework_error_names_the_framework_version_and_install_command(
    adapter: str, framework: str, requirement: str, extra: str
) -> None:
    report = probe(adapter, framework)

    assert report["type"] == "ModuleNotFoundError"
    assert report["name"].partition(".")[0] == framework  # the module found missing
    assert f"{adapter} needs {requirement}" in report["message"]
    assert f'pip install "agents-testing[{extra}]"' in report["message"]


def test_the_opentelemetry_sdk_missing_beside_the_api_is_a_missing_framework() -> None:
    # pydantic-ai installs opentelemetry-api: the SDK's absence must still skip, not fail.
    # Only where the API is installed (not next to the bare wheel) is this that situation.
    pytest.importorskip("opentelemetry.trace")
    report = probe("agents_testing.adapters.opentelemetry", "opentelemetry.sdk")

    assert report["type"] == "ModuleNotFoundError"
    assert report["name"].startswith("opentelemetry.sdk")
    assert "skipped" in report
    assert 'pip install "agents-testing[tracing]"' in report["message"]


def test_an_installed_framework_too_old_for_the_adapter_fails_loudly() -> None:
    from agents_testing.adapters._requirements import framework_import_error

    # What `from agents.sandbox import ...` raises on an SDK without the sandbox package.
    missing_part = ModuleNotFoundError("No module named 'json.sandbox'", name="json.sandbox")

    error = framework_import_error(
        missing_part, adapter="an_adapter", requirement="json>=9", extra="json"
    )

    # A plain ImportError, so pytest.importorskip does not silently skip an outdated framework.
    assert type(error) is ImportError
    assert error.name == "json.sandbox"
    assert "an_adapter needs json>=9" in str(error)
    assert 'upgrade it with pip install "agents-testing[json]"' in str(error)


# What each model adapter may load of our own package: the model double and what it uses.
MODEL_ADAPTER_CORE = [
    "agents_testing",
    "agents_testing._closing",
    "agents_testing._completion",
    "agents_testing._deltas",
    "agents_testing._describe",
    "agents_testing._lazy",
    "agents_testing._records",
    "agents_testing._sharing",
    "agents_testing._signals",
    "agents_testing._snapshot",
    "agents_testing.adapters",
    "agents_testing.errors",
    "agents_testing.items",
    "agents_testing.model",
]

OWN_MODULES = """
import sys
__import__(sys.argv[1])
print("\\n".join(sorted(name for name in sys.modules if name.startswith("agents_testing"))))
"""


@pytest.mark.parametrize(
    ("adapter", "framework", "own"),
    [
        ("agents_testing.adapters.openai_agents", "agents", ["_openai_agents_model"]),
        ("agents_testing.adapters.pydantic_ai", "pydantic_ai", []),
        ("agents_testing.adapters.langchain", "langchain_core", []),
    ],
)
def test_a_model_adapter_loads_no_other_double_of_the_core(
    adapter: str, framework: str, own: list[str]
) -> None:
    # The import rows of bench/ compare an adapter with the framework's own testing module:
    # the realtime, sandbox and wire parts of the core stay out until a test uses them.
    pytest.importorskip(framework)
    completed = subprocess.run(
        [sys.executable, "-c", OWN_MODULES, adapter],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )

    expected = [*MODEL_ADAPTER_CORE, adapter, *(f"agents_testing.adapters.{name}" for name in own)]
    assert completed.stdout.split() == sorted(expected)


def test_the_voice_adapter_without_numpy_skips_and_names_the_voice_extra() -> None:
    report = probe("agents_testing.adapters._openai_agents_voice", "numpy")

    assert "skipped" in report, report
    assert report["type"] == "ModuleNotFoundError"
    assert report["name"] == "numpy"
    assert "needs openai-agents[voice]>=0.24 (numpy)" in report["message"]
    assert 'pip install "agents-testing[openai-agents-voice]"' in report["message"]


def test_the_openai_agents_adapter_imports_without_numpy_until_a_voice_name_is_used() -> None:
    pytest.importorskip("agents")  # the core-only CI jobs have no openai-agents at all
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "from agents_testing.adapters import openai_agents\n"
        "try:\n"
        "    openai_agents.openai_agents_tts_model\n"
        "except ModuleNotFoundError as error:\n"
        "    print(error.name)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "numpy"
