"""Record an OpenAI Agents SDK run through a real ``agents.Model`` (import from ``openai_agents``).

``recording_openai_agents_model(model, recorder)`` wraps the user's own model (an
``OpenAIResponsesModel``, an ``OpenAIChatCompletionsModel``, a LiteLLM model, ...): every call
goes to it unchanged and its answer comes back unchanged, and the ``ModelRecorder`` keeps the
call as the request ``openai_agents_model`` would record and the step the answer amounts to.

Importing this module without ``openai-agents`` installed raises ``ImportError``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

try:
    from agents.agent_output import AgentOutputSchemaBase
    from agents.handoffs import Handoff
    from agents.items import ModelResponse, TResponseInputItem
    from agents.model_settings import ModelSettings
    from agents.models.interface import Model, ModelTracing
    from agents.retry import ModelRetryAdvice, ModelRetryAdviceRequest
    from agents.tool import Tool
    from openai.types.responses import ResponseCompletedEvent, ResponseStreamEvent
    from openai.types.responses.response_prompt_param import ResponsePromptParam
except ImportError as _missing:  # the import tests hide the framework to reach this
    from ._requirements import framework_import_error

    raise framework_import_error(
        _missing,
        adapter="agents_testing.adapters.openai_agents",
        requirement="openai-agents>=0.24",
        extra="openai-agents",
    ) from _missing

from .. import items as _core
from ..model import model_response
from ..recording import ModelRecorder
from ..wire._readback import read_response_body
from ._openai_agents_model import _core_request  # pyright: ignore[reportPrivateUsage]

__all__ = ["recording_openai_agents_model"]

_ADAPTER = "openai-agents"


def recording_openai_agents_model(model: Model, recorder: ModelRecorder) -> Model:
    """Return an ``agents.Model`` that calls ``model`` and records each call in ``recorder``.

    Pass it where the real model went (``Agent(model=...)``, ``RunConfig(model=...)``); the
    run is unchanged. A plain call is recorded from its ``ModelResponse``, a streamed one from
    its ``response.completed`` event, both as the plain step they amount to; an HTTP error
    the model raises (after its client's own retries) as a ``model_error`` step. Write the
    script with ``recorder.recording.write(path)``, and replay it through
    ``openai_agents_model(Replay.load(path).model)``.
    """
    if not isinstance(model, Model):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(
            f"recording_openai_agents_model expects an agents.Model, got {type(model).__name__}."
        )
    if not isinstance(recorder, ModelRecorder):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(
            f"recording_openai_agents_model expects a ModelRecorder, got {type(recorder).__name__}."
        )
    return _RecordingAgentsModel(model, recorder)


class _RecordingAgentsModel(Model):
    """An ``agents.Model`` that forwards to a real one and records what it answered."""

    def __init__(self, model: Model, recorder: ModelRecorder) -> None:
        self._model = model
        self._recorder = recorder

    def __repr__(self) -> str:
        return f"recording_openai_agents_model({self._model!r}, {self._recorder!r})"

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
        """Call the real model, record its answer and return it unchanged."""
        request = _core_request(
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
        try:
            response = await self._model.get_response(
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
        except Exception as error:
            self._recorder.add_error(_ADAPTER, request, error)
            raise
        body = {
            "id": response.response_id,
            "output": [item.model_dump(mode="json", exclude_none=True) for item in response.output],
            "usage": {
                "input_tokens": response.usage.input_tokens,
                "output_tokens": response.usage.output_tokens,
                "total_tokens": response.usage.total_tokens,
                "input_tokens_details": response.usage.input_tokens_details.model_dump(),
                "output_tokens_details": response.usage.output_tokens_details.model_dump(),
            },
        }
        self._record(request, body, streamed=False)
        return response

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
    ) -> AsyncIterator[ResponseStreamEvent]:
        """Stream the real model's events unchanged; record the call when it completes."""
        request = _core_request(
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
        events = self._model.stream_response(
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
        return self._relay(request, events)

    def get_retry_advice(self, request: ModelRetryAdviceRequest) -> ModelRetryAdvice | None:
        """Return the real model's retry advice."""
        return self._model.get_retry_advice(request)

    async def _relay(
        self, request: _core.ModelRequest, events: AsyncIterator[ResponseStreamEvent]
    ) -> AsyncIterator[ResponseStreamEvent]:
        # Recorded when response.completed passes: the answer is final there, even if the
        # consumer stops reading right after it.
        recorded = failed = False
        try:
            async for event in events:
                if isinstance(event, ResponseCompletedEvent) and not recorded:
                    recorded = True
                    body = event.response.model_dump(mode="json", exclude_none=True)
                    self._record(request, body, streamed=True)
                yield event
        except Exception as error:
            failed = True
            self._recorder.add_error(_ADAPTER, request, error, streamed=True)
            raise
        finally:
            if not recorded and not failed:
                self._recorder.warn(
                    "a streamed call through the openai-agents adapter ended (or was left) "
                    "before response.completed: not recorded, so the replay makes one call "
                    "fewer"
                )

    def _record(self, request: _core.ModelRequest, body: dict[str, Any], *, streamed: bool) -> None:
        read = read_response_body("openai.responses", body)
        response = _core.ModelResponse(
            read.output, read.usage or _core.Usage(), response_id=read.response_id
        )
        self._recorder.add(_ADAPTER, request, model_response(response), streamed=streamed)
