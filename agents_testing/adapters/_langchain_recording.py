"""Record a LangChain run through a real chat model (import it from ``langchain``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any, cast

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.language_models.chat_models import (
    agenerate_from_stream,
    generate_from_stream,
)
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool

from ..items import ModelRequest, ModelResponse, Usage
from ..model import ScriptedModel, model_response
from ..recording import ModelRecorder
from .langchain import ScriptedChatModel, _assistant_items  # pyright: ignore[reportPrivateUsage]

__all__ = ["RecordingChatModel", "recording_langchain_chat_model"]

_FRAMEWORK = "langchain"


def recording_langchain_chat_model(
    model: BaseChatModel, recorder: ModelRecorder
) -> RecordingChatModel:
    """Return a chat model that calls ``model`` and records each call in ``recorder``.

    Pass it where the real chat model went (a tool loop, LangGraph's prebuilt agent); the
    run is unchanged. Each call is recorded as the request ``langchain_chat_model`` would
    record and the plain step the ``AIMessage`` amounts to (a streamed call once its chunks
    are read): its text, its tool calls and its standard reasoning blocks. ``bind_tools``
    keeps the tools as OpenAI-format schemas, as the scripted model does, and binds them to
    ``model`` in its own format at each call. An HTTP error the model raises becomes a
    ``model_error`` step. Replay the script through
    ``langchain_chat_model(Replay.load(path).model)``.
    """
    if not isinstance(model, BaseChatModel):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(
            f"recording_langchain_chat_model expects a LangChain BaseChatModel, got "
            f"{type(model).__name__}."
        )
    if not isinstance(recorder, ModelRecorder):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(
            f"recording_langchain_chat_model expects a ModelRecorder, got "
            f"{type(recorder).__name__}."
        )
    return RecordingChatModel(recorded_model=model, recorder=recorder)


class RecordingChatModel(BaseChatModel, defer_build=True):
    """A LangChain chat model that forwards to a real one and records what it answered.

    Build it with ``recording_langchain_chat_model``.
    """

    recorded_model: BaseChatModel
    """The real chat model every call goes to."""
    recorder: ModelRecorder
    """Where each call is recorded."""

    @property
    def _llm_type(self) -> str:
        return "agents-testing-recording"

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools as OpenAI-format schemas, as ``langchain_chat_model`` records them."""
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Call the real model, record its answer and return it unchanged."""
        request = _request(messages, stop, kwargs)
        model, given = self.recorded_model, self._provider_kwargs(kwargs)
        try:
            if _streams(model):  # the model's own invoke would stream: so does this call
                chunks = model._stream(messages, stop, run_manager, **given)  # pyright: ignore[reportPrivateUsage]
                result = generate_from_stream(chunks)
            else:
                result = model._generate(messages, stop, run_manager, **given)  # pyright: ignore[reportPrivateUsage]
        except Exception as error:
            self.recorder.add_error(_FRAMEWORK, request, error)
            raise
        self._record(request, result.generations[0].message, streamed=False)
        return result

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Call the real model asynchronously, record its answer and return it unchanged."""
        request = _request(messages, stop, kwargs)
        model, given = self.recorded_model, self._provider_kwargs(kwargs)
        try:
            if _streams(model):  # the model's own ainvoke would stream: so does this call
                chunks = model._astream(messages, stop, run_manager, **given)  # pyright: ignore[reportPrivateUsage]
                result = await agenerate_from_stream(chunks)
            else:
                result = await model._agenerate(messages, stop, run_manager, **given)  # pyright: ignore[reportPrivateUsage]
        except Exception as error:
            self.recorder.add_error(_FRAMEWORK, request, error)
            raise
        self._record(request, result.generations[0].message, streamed=False)
        return result

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        """Relay the real model's chunks unchanged; record the call once they are read."""
        request = _request(messages, stop, kwargs)
        whole: AIMessageChunk | None = None
        try:
            for chunk in self.recorded_model._stream(  # pyright: ignore[reportPrivateUsage]
                messages, stop, run_manager, **self._provider_kwargs(kwargs)
            ):
                whole = _joined(whole, chunk)
                yield chunk
        except Exception as error:
            self.recorder.add_error(_FRAMEWORK, request, error, streamed=True)
            raise
        self._record(request, whole or AIMessageChunk(content=""), streamed=True)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        """Relay the real model's chunks unchanged; record the call once they are read."""
        request = _request(messages, stop, kwargs)
        whole: AIMessageChunk | None = None
        try:
            async for chunk in self.recorded_model._astream(  # pyright: ignore[reportPrivateUsage]
                messages, stop, run_manager, **self._provider_kwargs(kwargs)
            ):
                whole = _joined(whole, chunk)
                yield chunk
        except Exception as error:
            self.recorder.add_error(_FRAMEWORK, request, error, streamed=True)
            raise
        self._record(request, whole or AIMessageChunk(content=""), streamed=True)

    def _provider_kwargs(self, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """Return the call's keyword arguments with the tools bound in the model's format."""
        given = dict(kwargs)
        tools = given.pop("tools", None)
        if not tools:
            return given
        options = {} if "tool_choice" not in given else {"tool_choice": given.pop("tool_choice")}
        bound = self.recorded_model.bind_tools(tools, **options)
        bound_kwargs: object = getattr(bound, "kwargs", None)
        if not isinstance(bound_kwargs, Mapping):
            raise TypeError(
                f"{type(self.recorded_model).__name__}.bind_tools returned a "
                f"{type(bound).__name__} without bound keyword arguments; record this model "
                "over the wire with RecordingProxy instead"
            )
        return {**given, **bound_kwargs}

    def _record(self, request: ModelRequest, message: BaseMessage, *, streamed: bool) -> None:
        if not isinstance(message, AIMessage):
            self.recorder.warn(
                f"a LangChain call answered with a {type(message).__name__}, not an AIMessage: "
                "not recorded, so the replay makes one call fewer"
            )
            return
        usage: dict[str, Any] = dict(message.usage_metadata or {})
        cached = _detail(usage.get("input_token_details"), "cache_read")
        reasoning = _detail(usage.get("output_token_details"), "reasoning")
        metadata: dict[str, Any] = dict(message.response_metadata)
        response_id = metadata.get("response_id", metadata.get("id"))
        response = ModelResponse(
            _assistant_items(message),
            Usage(
                input_tokens=_int(usage.get("input_tokens")),
                output_tokens=_int(usage.get("output_tokens")),
                input_tokens_details={"cached_tokens": cached} if cached else None,
                output_tokens_details={"reasoning_tokens": reasoning} if reasoning else None,
            ),
            response_id=response_id if isinstance(response_id, str) else None,
        )
        self.recorder.add(_FRAMEWORK, request, model_response(response), streamed=streamed)


def _request(messages: list[BaseMessage], stop: list[str] | None, kwargs: Any) -> ModelRequest:
    """Return the request as ``langchain_chat_model`` records it for the same call."""
    scripted = ScriptedChatModel(scripted_model=ScriptedModel([]))
    return scripted._request(messages, stop, kwargs)[0]  # pyright: ignore[reportPrivateUsage]


def _detail(details: object, name: str) -> int:
    if not isinstance(details, Mapping):
        return 0
    found: Mapping[str, object] = cast("Mapping[str, object]", details)
    return _int(found.get(name))


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _streams(model: BaseChatModel) -> bool:
    # Only a model that says so streams a plain call by itself (ChatOpenAI(streaming=True)).
    return getattr(model, "streaming", None) is True


def _joined(whole: AIMessageChunk | None, chunk: ChatGenerationChunk) -> AIMessageChunk:
    message = chunk.message
    if not isinstance(message, AIMessageChunk):
        return whole or AIMessageChunk(content="")
    return message if whole is None else whole + message
