"""Record a pydantic-ai run through a real ``Model`` (import it from ``pydantic_ai``)."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

from pydantic_ai.messages import ModelMessage, TextPart, ToolCallPart
from pydantic_ai.messages import ModelResponse as PydanticModelResponse
from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import RunContext

from ..items import ModelRequest, ModelResponse, Usage, assistant_message, function_call
from ..model import ScriptedModel, model_response
from ..recording import ModelRecorder
from .pydantic_ai import ScriptedPydanticAIModel

__all__ = ["recording_pydantic_ai_model"]

_FRAMEWORK = "pydantic-ai"


def recording_pydantic_ai_model(model: Model, recorder: ModelRecorder) -> Model:
    """Return a pydantic-ai ``Model`` that calls ``model`` and records each call in ``recorder``.

    Pass it where the real model went (``Agent(...)``, ``agent.run(..., model=...)``); the
    run is unchanged. Each call is recorded as the request ``pydantic_ai_model`` would record
    and the plain step its ``ModelResponse`` amounts to (a streamed call once its stream is
    read): ``TextPart`` -> ``assistant_message``, ``ToolCallPart`` -> ``function_call`` with
    the exact argument text. A part the script cannot replay through ``pydantic_ai_model``
    (``ThinkingPart``, native tool parts) is left out, and the file's header says so. An HTTP
    error (``ModelHTTPError``) becomes a ``model_error`` step. Replay the script through
    ``pydantic_ai_model(Replay.load(path).model)``.
    """
    if not isinstance(model, Model):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(
            f"recording_pydantic_ai_model expects a pydantic-ai Model, got {type(model).__name__}."
        )
    if not isinstance(recorder, ModelRecorder):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(
            f"recording_pydantic_ai_model expects a ModelRecorder, got {type(recorder).__name__}."
        )
    return _RecordingPydanticAIModel(model, recorder)


class _RecordingPydanticAIModel(WrapperModel):
    """A pydantic-ai model that forwards to a real one and records what it answered."""

    def __init__(self, model: Model, recorder: ModelRecorder) -> None:
        super().__init__(model)
        self._recorder = recorder
        # The request is viewed as the scripted adapter sees it on replay: through its own
        # request preparation, not the real model's provider-specific one.
        self._scripted = ScriptedPydanticAIModel(ScriptedModel([]))

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> PydanticModelResponse:
        """Call the real model, record its answer and return it unchanged."""
        request = self._core(messages, model_settings, model_request_parameters)
        try:
            response = await self.wrapped.request(
                messages, model_settings, model_request_parameters
            )
        except Exception as error:
            self._recorder.add_error(_FRAMEWORK, request, error)
            raise
        self._record(request, response, streamed=False)
        return response

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse, None]:
        """Stream the real model's response unchanged; record it once the stream is read."""
        request = self._core(messages, model_settings, model_request_parameters)
        try:
            async with self.wrapped.request_stream(
                messages, model_settings, model_request_parameters, run_context
            ) as streamed:
                yield streamed
        except Exception as error:
            self._recorder.add_error(_FRAMEWORK, request, error, streamed=True)
            raise
        self._record(request, streamed.get(), streamed=True)

    def _core(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelRequest:
        scripted = self._scripted
        settings, parameters = scripted.prepare_request(model_settings, model_request_parameters)
        return scripted._request(messages, settings, parameters)[0]  # pyright: ignore[reportPrivateUsage]

    def _record(
        self, request: ModelRequest, response: PydanticModelResponse, *, streamed: bool
    ) -> None:
        output: list[Any] = []
        for part in response.parts:
            if isinstance(part, TextPart):
                output.append(assistant_message(part.content))
            elif isinstance(part, ToolCallPart):
                arguments = part.args if isinstance(part.args, str) else part.args_as_json_str()
                output.append(function_call(part.tool_name, arguments, call_id=part.tool_call_id))
            else:
                self._recorder.warn(
                    f"a {type(part).__name__} the pydantic-ai model answered with: left out "
                    "(pydantic_ai_model replays text and tool calls)"
                )
        usage = response.usage
        cached = usage.cache_read_tokens
        details = {key: value for key, value in usage.details.items() if isinstance(value, int)}
        recorded = ModelResponse(
            output,
            Usage(
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                input_tokens_details={"cached_tokens": cached} if cached else None,
                output_tokens_details=details or None,
            ),
            response_id=response.provider_response_id,
        )
        self._recorder.add(_FRAMEWORK, request, model_response(recorded), streamed=streamed)
