"""Route every openai-agents run to scripted models (import it from ``openai_agents``).

``route_openai_agents_models(models)`` is for code under test that builds its agents itself
(often at import time) and calls ``Runner.run`` on its own, including nested runs: agents used
as tools, guardrail agents, a ``main()``. Inside the block every run started through
``Runner.run``, ``Runner.run_sync`` or ``Runner.run_streamed`` gets a ``RunConfig.model`` that
answers from the scripts, and tracing is off, so no run reaches the network.

How it hooks in, and why there:

- The SDK resolves a turn's model from ``RunConfig.model`` first when it is a ``Model``, so a
  routed run sets it and every agent of the run is covered, whatever its own ``model`` is (a
  string, a ``Model`` built at import time, or ``None``).
- ``RunConfig.call_model_input_filter`` is called with the agent right before each model call;
  a per-run filter remembers that agent, so the routed model knows whose script to use. The
  application's own filter still runs.
- The only way to reach runs the application starts itself is the runner ``Runner``
  delegates to (``agents.run.set_default_agent_runner``, which the SDK marks experimental).
  The block installs a thin runner that rewrites ``run_config`` and delegates to the one it
  replaced; the last block to exit puts the original back.
- Tracing: each routed run gets ``tracing_disabled=True``, and a trace provider wrapper turns
  the application's own ``trace()``/span calls into no-ops, only in contexts inside a block.
  ``emit_traces=True`` leaves both alone and has the scripted models emit generation spans.

The active block is a ``ContextVar``: tasks started inside the block see it, other tasks (for
example another test running concurrently) do not.
"""

from __future__ import annotations

import contextvars
import dataclasses
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from types import TracebackType
from typing import Any, cast

try:
    import agents.run as _agents_run
    import agents.tracing as _agents_tracing
    from agents.agent_output import AgentOutputSchemaBase
    from agents.handoffs import Handoff
    from agents.items import ModelResponse, TResponseInputItem, TResponseStreamEvent
    from agents.model_settings import ModelSettings
    from agents.models.interface import Model, ModelTracing
    from agents.retry import ModelRetryAdvice, ModelRetryAdviceRequest
    from agents.run import AgentRunner, CallModelData, ModelInputData, RunConfig
    from agents.tool import Tool
    from agents.tracing import Span, Trace, TraceProvider, TracingConfig, TracingProcessor
    from agents.tracing.spans import TSpanData
    from openai.types.responses.response_prompt_param import ResponsePromptParam
except ImportError as _missing:  # the import tests hide the framework to reach this
    # Loaded only here: a successful import of the adapter does not need it.
    from ._requirements import framework_import_error

    raise framework_import_error(
        _missing,
        adapter="agents_testing.adapters.openai_agents",
        requirement="openai-agents>=0.24",
        extra="openai-agents",
    ) from _missing

from ..errors import UnscriptedAgentError, UnscriptedAgentReason
from ..model import ScriptedModel
from ._openai_agents_model import openai_agents_model

__all__ = ["OpenAIAgentsModelRoute", "route_openai_agents_models"]

ModelFilter = Callable[[CallModelData[Any]], "ModelInputData | Awaitable[ModelInputData]"]

# The three RunConfig fields a routed run overrides.
_ROUTED_FIELDS = ("model", "call_model_input_filter", "tracing_disabled")
_MISSING: Any = object()


@dataclasses.dataclass
class _Frame:
    """One entry into a block: the route, the frame it shadows, and whether it is still open."""

    route: OpenAIAgentsModelRoute
    outer: _Frame | None
    open: bool = True


_ACTIVE_FRAME: contextvars.ContextVar[_Frame | None] = contextvars.ContextVar(
    "agents_testing_openai_agents_route", default=None
)


def route_openai_agents_models(
    models: ScriptedModel | Model | Mapping[str, ScriptedModel | Model],
    *,
    emit_traces: bool = False,
) -> OpenAIAgentsModelRoute:
    """Return a context manager that routes every agent's model to scripted models.

    Args:
        models: One ``ScriptedModel`` that answers every agent's calls in call order, or a
            mapping from agent name to the ``ScriptedModel`` of that agent (one script per
            agent keeps concurrent sub-agents deterministic). An ``agents.Model`` is accepted
            wherever a ``ScriptedModel`` is.
        emit_traces: Leave tracing as the application configured it and wrap each scripted
            call in a generation span (``openai_agents_model(model, emit_traces=True)``).
            Off by default: a routed run then traces nothing, so nothing can be exported.
            Capture the trace with ``capture_openai_agents_trace()``.

    Use it as ``with`` or ``async with``. Inside the block, every run started with
    ``Runner.run``, ``Runner.run_sync`` or ``Runner.run_streamed`` (agents used as tools and
    guardrail agents included) calls the scripts instead of the agents' own models, and tracing
    is off. A call from an agent the mapping does not name raises ``UnscriptedAgentError``,
    and the block raises it again on exit even if something caught it (the SDK turns a failing
    agent tool into a tool message), so put ``pytest.raises`` around the block, not inside it.
    """
    return OpenAIAgentsModelRoute(models, emit_traces=emit_traces)


class OpenAIAgentsModelRoute:
    """Route the model calls of every run started inside the block to scripted models.

    Build it with ``route_openai_agents_models``. ``agent_names`` lists, in call order, the
    agent of each model call the block routed.
    """

    def __init__(
        self,
        models: ScriptedModel | Model | Mapping[str, ScriptedModel | Model],
        *,
        emit_traces: bool = False,
    ) -> None:
        if not isinstance(emit_traces, bool):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(
                f"route_openai_agents_models emit_traces must be a bool, got {emit_traces!r}."
            )
        self.emit_traces = emit_traces
        adapted: dict[int, Model] = {}

        def adapt(model: object, where: str) -> Model:
            if isinstance(model, Model):
                return model
            if isinstance(model, ScriptedModel):
                # One adapter per ScriptedModel, so an agent that shares it shares its retry state.
                return adapted.setdefault(
                    id(model), openai_agents_model(model, emit_traces=emit_traces)
                )
            raise TypeError(
                f"route_openai_agents_models {where} must be a ScriptedModel or an agents.Model, "
                f"got {type(model).__name__}."
            )

        self._single: Model | None = None
        self._by_name: dict[str, Model] = {}
        if isinstance(models, Mapping):
            entries = cast("Mapping[object, object]", models)
            if not entries:
                raise ValueError(
                    "route_openai_agents_models models is an empty mapping; name at least one "
                    "agent, or pass one ScriptedModel for every agent."
                )
            for name, model in entries.items():
                if not isinstance(name, str):
                    raise TypeError(
                        "route_openai_agents_models models must map agent names (str) to "
                        f"models, got a key of type {type(name).__name__}."
                    )
                self._by_name[name] = adapt(model, f"models[{name!r}]")
        else:
            self._single = adapt(models, "models")
        self._agent_names: list[str] = []
        self._errors: list[UnscriptedAgentError] = []
        self._failed_calls = 0
        self._lock = threading.Lock()
        self._entries: list[tuple[_Frame, contextvars.Token[_Frame | None]]] = []

    def __repr__(self) -> str:
        target = repr(self._single) if self._single is not None else repr(self._by_name)
        return f"route_openai_agents_models({target})"

    @property
    def agent_names(self) -> tuple[str, ...]:
        """Return the agent name of each model call routed so far, in call order."""
        with self._lock:
            return tuple(self._agent_names)

    @property
    def active(self) -> bool:
        """Return whether the block is open (entered and not yet exited)."""
        return bool(self._entries)

    def __enter__(self) -> OpenAIAgentsModelRoute:
        _install()
        frame = _Frame(self, _ACTIVE_FRAME.get())
        self._entries.append((frame, _ACTIVE_FRAME.set(frame)))
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # Pop this context's entry: tasks may enter the same route concurrently.
        current = _ACTIVE_FRAME.get()
        position = next(
            (index for index, (frame, _) in enumerate(self._entries) if frame is current),
            len(self._entries) - 1,
        )
        frame, token = self._entries.pop(position)
        frame.open = False
        try:
            _ACTIVE_FRAME.reset(token)
        except ValueError:
            # Exited in another context than it was entered in (an async fixture's teardown,
            # say). That context keeps the frame, but runs skip closed frames.
            pass
        finally:
            _uninstall()
        if exc is None and not self._entries and self._errors:
            # The SDK turns a failing agent tool into a tool message, so an unscripted
            # sub-agent could otherwise go unnoticed: fail the block that hid it.
            error, self._errors = self._errors[0], []
            raise error

    async def __aenter__(self) -> OpenAIAgentsModelRoute:
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.__exit__(exc_type, exc, traceback)

    def _model_for(self, agent_name: str | None) -> Model:
        """Return the model that answers ``agent_name``'s call, recording the call."""
        with self._lock:
            model: Model | None = None
            reason: UnscriptedAgentReason = "no_script"
            if not self.active:
                reason = "route_closed"
            elif agent_name is None:
                reason = "unknown_agent"
            else:
                model = self._single if self._single is not None else self._by_name.get(agent_name)
            if agent_name is None or model is None:
                self._failed_calls += 1
                call_index = len(self._agent_names) + self._failed_calls - 1
                error = UnscriptedAgentError(agent_name, reason, call_index, tuple(self._by_name))
                if self.active:
                    self._errors.append(error)  # for the block's exit to report
                raise error
            self._agent_names.append(agent_name)
            return model


def _active_route() -> OpenAIAgentsModelRoute | None:
    """Return the route of the innermost open block of the current context."""
    frame = _ACTIVE_FRAME.get()
    while frame is not None and not frame.open:
        frame = frame.outer
    return None if frame is None else frame.route


# Run configuration -------------------------------------------------------------------------


class _AgentRecorder:
    """A ``call_model_input_filter`` that remembers the agent about to call the model."""

    def __init__(self, inner: ModelFilter | None) -> None:
        self.inner = inner
        self.agent_name: str | None = None

    def __call__(self, data: CallModelData[Any]) -> ModelInputData | Awaitable[ModelInputData]:
        self.agent_name = data.agent.name
        if self.inner is None:
            return data.model_data
        return self.inner(data)


def _routed_run_config(
    value: RunConfig | dict[str, Any] | None, route: OpenAIAgentsModelRoute
) -> RunConfig | dict[str, Any]:
    """Return ``value`` with its model routed through ``route`` and tracing off."""
    value = _unrouted_run_config(value)
    if isinstance(value, RunConfig):
        originals = {name: getattr(value, name) for name in _ROUTED_FIELDS}
    else:
        originals = {name: (value or {}).get(name, _MISSING) for name in _ROUTED_FIELDS}
    recorder = _AgentRecorder(
        cast("ModelFilter | None", _or_none(originals["call_model_input_filter"]))
    )
    routed: dict[str, Any] = {
        "model": _RoutedModel(route, recorder, originals),
        "call_model_input_filter": recorder,
    }
    if not route.emit_traces:
        routed["tracing_disabled"] = True
    if isinstance(value, RunConfig):
        return dataclasses.replace(value, **routed)
    # Keep a dict a dict (and None a dict without model_provider): the runner then still
    # creates and closes its own model provider, as it would have.
    return {**(value or {}), **routed}


def _unrouted_run_config(
    value: RunConfig | dict[str, Any] | None,
) -> RunConfig | dict[str, Any] | None:
    """Undo a routed config passed on to another run (an agent tool reuses its parent's)."""
    if isinstance(value, RunConfig):
        if isinstance(value.model, _RoutedModel):
            return dataclasses.replace(value, **value.model.originals)
        return value
    if isinstance(value, dict) and isinstance(value.get("model"), _RoutedModel):
        routed = cast("_RoutedModel", value["model"])
        restored = {key: item for key, item in value.items() if key not in _ROUTED_FIELDS}
        restored.update(
            {key: item for key, item in routed.originals.items() if item is not _MISSING}
        )
        return restored
    return value


def _or_none(value: Any) -> Any:
    return None if value is _MISSING else value


class _RoutingRunner:
    """The runner ``Runner`` delegates to while a block is open: routes, then delegates."""

    def __init__(self, inner: AgentRunner) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def run(self, starting_agent: Any, input: Any, **options: Any) -> Any:  # noqa: A002
        return await self.inner.run(starting_agent, input, **_routed_options(options))

    def run_sync(self, starting_agent: Any, input: Any, **options: Any) -> Any:  # noqa: A002
        return self.inner.run_sync(starting_agent, input, **_routed_options(options))

    def run_streamed(self, starting_agent: Any, input: Any, **options: Any) -> Any:  # noqa: A002
        return self.inner.run_streamed(starting_agent, input, **_routed_options(options))


def _routed_options(options: dict[str, Any]) -> dict[str, Any]:
    route = _active_route()
    value = options.get("run_config")
    if route is None:
        if isinstance(value, (RunConfig, dict)):
            return {**options, "run_config": _unrouted_run_config(cast("Any", value))}
        return options
    return {**options, "run_config": _routed_run_config(value, route)}


# The routed model ----------------------------------------------------------------------------


class _RoutedModel(Model):
    """One run's ``RunConfig.model``: answers each call with the calling agent's script."""

    def __init__(
        self, route: OpenAIAgentsModelRoute, recorder: _AgentRecorder, originals: dict[str, Any]
    ) -> None:
        self._route = route
        self._recorder = recorder
        self.originals = originals
        # The SDK asks for retry advice right after a call failed, before the next call.
        self._last: Model | None = None

    def __repr__(self) -> str:
        return f"<routed model of {self._route!r}>"

    def _target(self) -> Model:
        self._last = None
        self._last = self._route._model_for(self._recorder.agent_name)  # pyright: ignore[reportPrivateUsage]
        return self._last

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],  # noqa: A002 - the SDK's parameter name
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff[Any, Any]],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> ModelResponse:
        """Answer from the calling agent's script."""
        return await self._target().get_response(
            system_instructions,
            input,
            model_settings,
            tools,
            output_schema,
            handoffs,
            tracing,
            previous_response_id=previous_response_id,
            conversation_id=conversation_id,
            prompt=prompt,
        )

    def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],  # noqa: A002 - the SDK's parameter name
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff[Any, Any]],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        """Stream from the calling agent's script."""
        return self._target().stream_response(
            system_instructions,
            input,
            model_settings,
            tools,
            output_schema,
            handoffs,
            tracing,
            previous_response_id=previous_response_id,
            conversation_id=conversation_id,
            prompt=prompt,
        )

    def get_retry_advice(self, request: ModelRetryAdviceRequest) -> ModelRetryAdvice | None:
        """Ask the model that served the failed call."""
        return None if self._last is None else self._last.get_retry_advice(request)


# Tracing -------------------------------------------------------------------------------------


class _RoutingTraceProvider(TraceProvider):
    """Delegate to the installed provider, but trace nothing inside an open block."""

    def __init__(self, inner: TraceProvider) -> None:
        self.inner = inner

    def register_processor(self, processor: TracingProcessor) -> None:
        self.inner.register_processor(processor)

    def set_processors(self, processors: list[TracingProcessor]) -> None:
        self.inner.set_processors(processors)

    def get_current_trace(self) -> Trace | None:
        return self.inner.get_current_trace()

    def get_current_span(self) -> Span[Any] | None:
        return self.inner.get_current_span()

    def set_disabled(self, disabled: bool) -> None:
        self.inner.set_disabled(disabled)

    def time_iso(self) -> str:
        return self.inner.time_iso()

    def gen_trace_id(self) -> str:
        return self.inner.gen_trace_id()

    def gen_span_id(self) -> str:
        return self.inner.gen_span_id()

    def gen_group_id(self) -> str:
        return self.inner.gen_group_id()

    def create_trace(
        self,
        name: str,
        trace_id: str | None = None,
        group_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        disabled: bool = False,
        tracing: TracingConfig | None = None,
    ) -> Trace:
        return self.inner.create_trace(
            name,
            trace_id=trace_id,
            group_id=group_id,
            metadata=metadata,
            disabled=disabled or _untraced(),
            tracing=tracing,
        )

    def create_span(
        self,
        span_data: TSpanData,
        span_id: str | None = None,
        parent: Trace | Span[Any] | None = None,
        disabled: bool = False,
    ) -> Span[TSpanData]:
        return self.inner.create_span(
            span_data,
            span_id=span_id,
            parent=parent,
            disabled=disabled or _untraced(),
        )

    def force_flush(self) -> None:
        self.inner.force_flush()

    def shutdown(self, *args: Any, **kwargs: Any) -> None:
        self.inner.shutdown(*args, **kwargs)


def _untraced() -> bool:
    """Return whether the current context is inside a block that traces nothing."""
    route = _active_route()
    return route is not None and not route.emit_traces


# Installation --------------------------------------------------------------------------------

_INSTALL_LOCK = threading.Lock()
_installed: list[tuple[_RoutingRunner, _RoutingTraceProvider]] = []
_open_blocks = 0


def _install() -> None:
    """Install the routing runner and trace provider when the first block opens."""
    global _open_blocks
    with _INSTALL_LOCK:
        if _open_blocks == 0:
            runner = _RoutingRunner(_agents_run.get_default_agent_runner())
            provider = _RoutingTraceProvider(_agents_tracing.get_trace_provider())
            _agents_run.set_default_agent_runner(cast("AgentRunner", runner))
            _agents_tracing.set_trace_provider(provider)
            _installed.append((runner, provider))
        _open_blocks += 1


def _uninstall() -> None:
    """Put back the runner and trace provider when the last block closes."""
    global _open_blocks
    with _INSTALL_LOCK:
        _open_blocks -= 1
        if _open_blocks:
            return
        runner, provider = _installed.pop()
        # Put back only what is still ours: something installed since then stays.
        if _agents_run.get_default_agent_runner() is cast("Any", runner):
            _agents_run.set_default_agent_runner(runner.inner)
        if _agents_tracing.get_trace_provider() is provider:
            _agents_tracing.set_trace_provider(provider.inner)
