"""pytest plugin: fixtures that hand out doubles and check each one when the test ends.

pytest loads this module through the ``pytest11`` entry point; nothing else imports it, so
``import agents_testing`` stays free of pytest.

Fixtures (each a factory; call it as often as the test needs):

- ``scripted_model(steps=(), **kwargs)`` -> :class:`~agents_testing.ScriptedModel`
- ``scripted_sandbox(steps=(), **kwargs)`` -> :func:`~agents_testing.scripted_sandbox_session`
- ``scripted_realtime(**kwargs)`` -> :class:`~agents_testing.ScriptedRealtimeTransport`
- ``scripted_mcp(steps=(), **options)`` -> :class:`~agents_testing.ScriptedMCPServer`, which
  also stops serving (HTTP and stdio) when the test ends, whatever its outcome.
- ``scripted_voice(stt=(), tts=(), **options)`` -> :class:`~agents_testing.ScriptedVoice`:
  scripted speech-to-text and text-to-speech on one virtual clock, with a virtual speaker.
- ``check_complete(double)`` -> ``double``: check any object with ``assert_complete()`` the
  same way, such as a framework adapter's sandbox session.
- ``recorded_endpoint(path, upstream=...)`` -> :class:`RecordedEndpoint`: record a real run
  into the script at ``path`` (through a ``RecordingProxy``) or replay that script strictly
  (through a ``ScriptedServer``); ``--agents-testing-record`` records again.

When the test function returns, every double it made gets ``assert_complete()``; the first
failure fails the test, with each incomplete double's error. A test that already failed
reports only its own error. Turn the check off for one test (or module, with
``pytestmark``) with ``@pytest.mark.agents_testing(assert_complete=False)``, or for a whole
suite with the ini option ``agents_testing_assert_complete = false``; the marker wins over
the ini option.
"""

from __future__ import annotations

import contextlib
import inspect
import os
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

import pytest

from .mcp import MCPStep, ScriptedMCPServer
from .model import ScriptedModel, ScriptedModelInput
from .realtime import ScriptedRealtimeTransport
from .recording import RedactPattern, Replay, ReplayIgnore
from .sandbox import (
    SandboxMethodMode,
    SandboxStep,
    ScriptedSandboxSession,
    scripted_sandbox_session,
)
from .voice import DEFAULT_SAMPLE_RATE, ScriptedVoice, STTStep, TTSStep

__all__ = [
    "INI_OPTION",
    "MARKER",
    "RECORD_OPTION",
    "CheckComplete",
    "RecordedEndpoint",
    "RecordedEndpointFactory",
    "ScriptedMCPFactory",
    "ScriptedModelFactory",
    "ScriptedRealtimeFactory",
    "ScriptedSandboxFactory",
    "ScriptedVoiceFactory",
    "check_complete",
    "recorded_endpoint",
    "scripted_mcp",
    "scripted_model",
    "scripted_realtime",
    "scripted_sandbox",
    "scripted_voice",
]

MARKER = "agents_testing"
INI_OPTION = "agents_testing_assert_complete"
RECORD_OPTION = "--agents-testing-record"

_OPT_OUT = (
    f"To skip this check, mark the test @pytest.mark.{MARKER}(assert_complete=False), or set "
    f"{INI_OPTION} = false in the pytest configuration for the whole suite."
)


class _Completable(Protocol):
    def assert_complete(self) -> None: ...


_Double = TypeVar("_Double", bound=_Completable)


class ScriptedModelFactory(Protocol):
    """The ``scripted_model`` fixture: annotate the test argument with it."""

    def __call__(self, steps: Iterable[ScriptedModelInput] = ()) -> ScriptedModel: ...


class ScriptedSandboxFactory(Protocol):
    """The ``scripted_sandbox`` fixture: annotate the test argument with it."""

    def __call__(
        self,
        steps: Iterable[SandboxStep | Mapping[str, Any]] = (),
        *,
        interface: type[Any] | Mapping[str, SandboxMethodMode] | None = None,
    ) -> ScriptedSandboxSession: ...


class ScriptedRealtimeFactory(Protocol):
    """The ``scripted_realtime`` fixture: annotate the test argument with it."""

    def __call__(self) -> ScriptedRealtimeTransport: ...


class ScriptedMCPFactory(Protocol):
    """The ``scripted_mcp`` fixture: annotate the test argument with it."""

    def __call__(
        self,
        steps: Iterable[MCPStep] = (),
        *,
        tools: Iterable[Mapping[str, Any]] = (),
        resources: Iterable[Mapping[str, Any]] = (),
        resource_templates: Iterable[Mapping[str, Any]] = (),
        prompts: Iterable[Mapping[str, Any]] = (),
        server_info: Mapping[str, Any] | None = None,
        instructions: str | None = None,
        capabilities: Mapping[str, Any] | None = None,
        ordered: bool = True,
        list_tools_once: bool = False,
        page_size: int | None = None,
        list_delay: float = 0.0,
    ) -> ScriptedMCPServer: ...


class ScriptedVoiceFactory(Protocol):
    """The ``scripted_voice`` fixture: annotate the test argument with it."""

    def __call__(
        self,
        stt: Iterable[STTStep | str] = (),
        tts: Iterable[TTSStep | str] = (),
        *,
        auto_advance: bool = True,
        sample_rate: int = DEFAULT_SAMPLE_RATE,
    ) -> ScriptedVoice: ...


class CheckComplete(Protocol):
    """The ``check_complete`` fixture: annotate the test argument with it."""

    def __call__(self, double: _Double, /) -> _Double: ...


@dataclass(frozen=True)
class _Made:
    """A double the test made, and where, so a failure can point at it."""

    double: _Completable
    where: str


_MADE = pytest.StashKey[list[_Made]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        RECORD_OPTION,
        action="store_true",
        default=False,
        help="agents-testing: record every recorded_endpoint script again from the real "
        "provider (also in CI), instead of replaying the scripts that exist.",
    )
    parser.addini(
        INI_OPTION,
        type="bool",
        default=True,
        help="agents-testing: check every double the fixtures made when a test returns "
        "(default true).",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(assert_complete=True): agents-testing options for this test; "
        "assert_complete=False skips the completion check of the fixtures' doubles.",
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    # Runs around the test body whatever runs it (pytest-asyncio, anyio, a plain call), and
    # only when the body returned: a failing test keeps its own error as its only failure.
    result = yield
    enabled = _check_enabled(item)  # a misspelled marker fails even before a double is made
    made = item.stash.get(_MADE, None)
    if made and enabled:
        _check(made)
    return result


def _check_enabled(item: pytest.Item) -> bool:
    marker = item.get_closest_marker(MARKER)
    if marker is not None:
        if marker.args:
            pytest.fail(
                f"@pytest.mark.{MARKER} takes keyword arguments only, such as "
                f"assert_complete=False; got {marker.args!r}",
                pytrace=False,
            )
        unknown = sorted(set(marker.kwargs) - {"assert_complete"})
        if unknown:
            pytest.fail(
                f"@pytest.mark.{MARKER} got unknown argument(s) {', '.join(unknown)}; the one "
                "it takes is assert_complete=True/False",
                pytrace=False,
            )
        if "assert_complete" in marker.kwargs:
            enabled = marker.kwargs["assert_complete"]
            if not isinstance(enabled, bool):
                pytest.fail(
                    f"@pytest.mark.{MARKER}(assert_complete=...) must be True or False; got "
                    f"{enabled!r}",
                    pytrace=False,
                )
            return enabled
    return bool(item.config.getini(INI_OPTION))


def _check(made: list[_Made]) -> None:
    failures: list[str] = []
    for entry in made:
        try:
            entry.double.assert_complete()
        except Exception as error:  # every failure is reported, not only the first
            name = type(entry.double).__name__
            text = str(error).replace("\n", "\n  ")  # keep a multi-line message indented
            failures.append(f"{name} made at {entry.where}:\n  {type(error).__name__}: {text}")
    if failures:
        count = "a double was" if len(failures) == 1 else f"{len(failures)} doubles were"
        details = "\n".join(failures)
        pytest.fail(
            f"{count} not complete when the test returned.\n{details}\n{_OPT_OUT}", pytrace=False
        )


def _caller(request: pytest.FixtureRequest) -> str:
    # Two frames up: the factory, then the test (or fixture) that called it.
    frame = inspect.currentframe()
    for _ in range(2):
        frame = None if frame is None else frame.f_back
    if frame is None:  # an interpreter without frame objects
        return "an unknown place"
    path = Path(frame.f_code.co_filename)
    with contextlib.suppress(ValueError):  # a file outside the rootdir keeps its full path
        path = path.relative_to(request.config.rootpath)
    return f"{path}:{frame.f_lineno}"


def _register(request: pytest.FixtureRequest, double: _Double, where: str) -> _Double:
    node = request.node
    made = node.stash.setdefault(_MADE, [])
    made.append(_Made(double, where))
    return double


@pytest.fixture
def scripted_model(request: pytest.FixtureRequest) -> ScriptedModelFactory:
    """Return a factory of :class:`ScriptedModel` doubles checked when the test returns."""

    def make(steps: Iterable[ScriptedModelInput] = ()) -> ScriptedModel:
        return _register(request, ScriptedModel(steps), _caller(request))

    return make


@pytest.fixture
def scripted_sandbox(request: pytest.FixtureRequest) -> ScriptedSandboxFactory:
    """Return a factory of scripted sandbox sessions checked when the test returns."""

    def make(
        steps: Iterable[SandboxStep | Mapping[str, Any]] = (),
        *,
        interface: type[Any] | Mapping[str, SandboxMethodMode] | None = None,
    ) -> ScriptedSandboxSession:
        session = scripted_sandbox_session(steps, interface=interface)
        return _register(request, session, _caller(request))

    return make


@pytest.fixture
def scripted_realtime(request: pytest.FixtureRequest) -> ScriptedRealtimeFactory:
    """Return a factory of realtime transport doubles checked when the test returns."""

    def make() -> ScriptedRealtimeTransport:
        return _register(request, ScriptedRealtimeTransport(), _caller(request))

    return make


@pytest.fixture
def scripted_mcp(request: pytest.FixtureRequest) -> Iterator[ScriptedMCPFactory]:
    """Return a factory of MCP server doubles checked when the test returns, closed after it."""
    made: list[ScriptedMCPServer] = []

    def make(
        steps: Iterable[MCPStep] = (),
        *,
        tools: Iterable[Mapping[str, Any]] = (),
        resources: Iterable[Mapping[str, Any]] = (),
        resource_templates: Iterable[Mapping[str, Any]] = (),
        prompts: Iterable[Mapping[str, Any]] = (),
        server_info: Mapping[str, Any] | None = None,
        instructions: str | None = None,
        capabilities: Mapping[str, Any] | None = None,
        ordered: bool = True,
        list_tools_once: bool = False,
        page_size: int | None = None,
        list_delay: float = 0.0,
    ) -> ScriptedMCPServer:
        server = ScriptedMCPServer(
            steps,
            tools=tools,
            resources=resources,
            resource_templates=resource_templates,
            prompts=prompts,
            server_info=server_info,
            instructions=instructions,
            capabilities=capabilities,
            ordered=ordered,
            list_tools_once=list_tools_once,
            page_size=page_size,
            list_delay=list_delay,
        )
        made.append(server)
        return _register(request, server, _caller(request))

    yield make
    for server in made:
        server.close()


@pytest.fixture
def scripted_voice(request: pytest.FixtureRequest) -> ScriptedVoiceFactory:
    """Return a factory of voice doubles (speech-to-text, text-to-speech, clock, speaker)."""

    def make(
        stt: Iterable[STTStep | str] = (),
        tts: Iterable[TTSStep | str] = (),
        *,
        auto_advance: bool = True,
        sample_rate: int = DEFAULT_SAMPLE_RATE,
    ) -> ScriptedVoice:
        voice = ScriptedVoice(stt, tts, auto_advance=auto_advance, sample_rate=sample_rate)
        return _register(request, voice, _caller(request))

    return make


@pytest.fixture
def check_complete(request: pytest.FixtureRequest) -> CheckComplete:
    """Return a function that checks any double with ``assert_complete()`` like the others."""

    def track(double: _Double) -> _Double:
        if not callable(getattr(double, "assert_complete", None)):
            raise TypeError(
                "check_complete() needs an object with an assert_complete() method, such as "
                f"a ScriptedModel or a framework adapter's sandbox session; got "
                f"{type(double).__name__}"
            )
        return _register(request, double, _caller(request))

    return track


# -- record and replay ---------------------------------------------------------------------


class RecordedEndpoint:
    """What the ``recorded_endpoint`` fixture hands out: an endpoint to point the client at.

    Point OpenAI clients at ``base_url`` and Anthropic clients at ``url``, in both modes.
    ``mode`` says whether this run records the script from the real provider or replays it.
    """

    def __init__(
        self,
        mode: Literal["record", "replay"],
        path: Path,
        url: str,
        check: Callable[[], None],
    ) -> None:
        self.mode: Literal["record", "replay"] = mode
        self.path: Path = path
        self.url: str = url
        self.base_url: str = f"{url}/v1"
        self._check = check

    def __repr__(self) -> str:
        return f"<RecordedEndpoint {self.mode} {self.path}>"

    def assert_complete(self) -> None:
        """Write the recorded script, or check the replay: no drift, every step used."""
        self._check()


class RecordedEndpointFactory(Protocol):
    """The ``recorded_endpoint`` fixture: annotate the test argument with it."""

    def __call__(
        self,
        path: str | Path,
        *,
        upstream: str,
        redact: Iterable[RedactPattern] = (),
        ignore: Iterable[ReplayIgnore] = (),
        keep_events: bool = False,
    ) -> RecordedEndpoint: ...


def _record_mode(config: pytest.Config, path: Path) -> Literal["record", "replay"]:
    if config.getoption("agents_testing_record"):
        return "record"
    if path.is_file():
        return "replay"
    if os.environ.get("CI"):
        pytest.fail(
            f"no recorded script at {path}, and recording is off in CI (the CI variable is "
            f"set). Record it where the provider is reachable: pytest {RECORD_OPTION}, then "
            "commit the script; or pass the option in CI to record there on purpose.",
            pytrace=False,
        )
    return "record"


@pytest.fixture
def recorded_endpoint(request: pytest.FixtureRequest) -> RecordedEndpointFactory:
    """Return a factory that records a real run into a script, or replays that script.

    The script at ``path`` (relative to the test file's folder) is replayed when it exists;
    it is recorded from ``upstream`` (the provider's root URL) when it is missing or when
    pytest runs with ``--agents-testing-record``, never in CI (``CI`` set) unless that
    option is given. The script is written when the test returns; a replay is checked
    then (no request drifted, every step used).
    """
    from .wire.recording_proxy import RecordingProxy
    from .wire.server import ScriptedServer

    def make(
        path: str | Path,
        *,
        upstream: str,
        redact: Iterable[RedactPattern] = (),
        ignore: Iterable[ReplayIgnore] = (),
        keep_events: bool = False,
    ) -> RecordedEndpoint:
        if not isinstance(path, (str, Path)):
            raise TypeError(f"path must be a str or a Path, got {type(path).__name__}")
        script = Path(path)
        if not script.is_absolute():
            script = Path(request.path).parent / script
        redact = tuple(redact)
        if _record_mode(request.config, script) == "record":
            proxy = RecordingProxy(upstream, redact=redact, keep_events=keep_events).start()
            request.addfinalizer(proxy.close)

            def write() -> None:
                proxy.recording.write(script)

            endpoint = RecordedEndpoint("record", script, proxy.url, write)
        else:
            replay = Replay.load(script, ignore=ignore, redact=redact)
            server = ScriptedServer(replay.model).start()
            request.addfinalizer(server.close)

            def check() -> None:
                replay.assert_complete()
                server.assert_complete()

            endpoint = RecordedEndpoint("replay", script, server.url, check)
        return _register(request, endpoint, _caller(request))

    return make
