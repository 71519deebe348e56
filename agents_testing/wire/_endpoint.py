"""``ScriptedEndpoint``: answer provider HTTP requests from scripted models."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import json
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from .._closing import close_source
from ..errors import (
    InvalidScriptedModelOutputError,
    InvalidScriptedModelStepError,
    ScriptedHTTPError,
    UnexpectedModelCallError,
    WireRequestError,
    WireRequestReason,
)
from ..items import ModelRequest, ModelResponse
from ..model import ScriptedModel, ScriptedModelStream
from . import anthropic_messages, openai_chat, openai_responses
from ._common import (
    InvalidBody,
    UnsupportedOutput,
    WireUsage,
    as_list,
    as_mapping,
    call_number,
)

__all__ = ["SECRET_HEADERS", "ScriptedEndpoint", "WireExchange", "WireResponse"]

# Credentials never reach a record, an error message or a repr.
SECRET_HEADERS = frozenset(
    {"authorization", "x-api-key", "api-key", "proxy-authorization", "cookie", "x-goog-api-key"}
)

_FORMATS: tuple[tuple[str, ModuleType], ...] = (
    ("openai.chat_completions", openai_chat),
    ("openai.responses", openai_responses),
    ("anthropic.messages", anthropic_messages),
)

_CORE_EVENT_TYPES = frozenset({"response_started", "output_text_delta", "response_done", "model"})

_REQUEST_STATUS: dict[WireRequestReason, int] = {
    "method_not_allowed": 405,
    "unknown_path": 404,
    "malformed_json": 400,
    "invalid_body": 400,
    "unknown_model": 404,
    "unsupported_output": 500,
    "too_deep": 400,
    "script_error": 400,
}

# The deepest body the endpoint serves. Real requests nest a few dozen levels at most (a
# JSON schema in a tool); recording, echoing and parsing deeper data would run into Python's
# recursion limit at a depth that depends on the caller's stack, so refuse it at a fixed one.
MAX_BODY_DEPTH = 256

# Violations the model itself records: assert_complete() on the model raises them again.
_MODEL_VIOLATIONS = (
    UnexpectedModelCallError,
    InvalidScriptedModelStepError,
    InvalidScriptedModelOutputError,
)
# What a script raises that is no failure of its own: the process or the task is stopping.
_STOPPING = (KeyboardInterrupt, SystemExit, GeneratorExit, asyncio.CancelledError)


@dataclass(frozen=True)
class WireResponse:
    """The HTTP answer to one request: status, headers and the body in chunks."""

    status: int
    headers: tuple[tuple[str, str], ...]
    chunks: tuple[bytes, ...]
    streamed: bool = False

    @property
    def body(self) -> bytes:
        """Return the whole body."""
        return b"".join(self.chunks)


@dataclass(frozen=True)
class WireExchange:
    """One HTTP request the endpoint answered (never its credentials)."""

    index: int
    method: str
    path: str
    status: int
    wire_format: str | None
    model: str | None
    stream: bool


def _models(models: Any) -> tuple[ScriptedModel | None, dict[str, ScriptedModel]]:
    if isinstance(models, ScriptedModel):
        return models, {}
    if isinstance(models, Mapping):
        routes: dict[str, ScriptedModel] = {}
        mapping: Mapping[Any, Any] = models  # pyright: ignore[reportUnknownVariableType]
        for key, value in mapping.items():
            if not isinstance(key, str) or not key:
                raise TypeError(f"models keys must be model names or paths, got {key!r}")
            if not isinstance(value, ScriptedModel):
                raise TypeError(
                    f"models[{key!r}] must be a ScriptedModel, got {type(value).__name__}"
                )
            routes[key.rstrip("/") if key.startswith("/") else key] = value
        if not routes:
            raise ValueError("models must route at least one model")
        return None, routes
    raise TypeError(
        "models must be a ScriptedModel or a mapping of model names or path prefixes "
        f"to ScriptedModels, got {type(models).__name__}"
    )


class ScriptedEndpoint:
    """Serve OpenAI Responses, Chat Completions and Anthropic Messages from scripted models.

    Args:
        models: one ``ScriptedModel`` that answers every request, or a mapping that routes
            requests: a key starting with ``/`` is a path prefix (``{"/triage": model}``
            serves ``/triage/v1/responses``), any other key a model name matched against the
            body's ``model`` field.

    The endpoint is transport-agnostic: ``ScriptedServer`` serves it on a loopback socket
    and ``agents_testing.adapters.httpx`` in-process.
    """

    def __init__(self, models: ScriptedModel | Mapping[str, ScriptedModel]) -> None:
        self._default, routes = _models(models)
        self._paths = sorted(
            ((key, model) for key, model in routes.items() if key.startswith("/")),
            key=lambda route: -len(route[0]),
        )
        self._names = {key: model for key, model in routes.items() if not key.startswith("/")}
        self._lock = threading.Lock()
        # One slot per request in arrival order, None until the request is answered.
        self._slots: list[WireExchange | None] = []
        self._count = 0  # requests answered
        self._violations: list[WireRequestError] = []

    def __repr__(self) -> str:
        return f"<ScriptedEndpoint requests={self._count} violations={len(self._violations)}>"

    @property
    def models(self) -> tuple[ScriptedModel, ...]:
        """Return every model this endpoint serves, each once."""
        found: list[ScriptedModel] = [] if self._default is None else [self._default]
        for model in [model for _, model in self._paths] + list(self._names.values()):
            if all(model is not seen for seen in found):
                found.append(model)
        return tuple(found)

    @property
    def requests(self) -> tuple[WireExchange, ...]:
        """Return every HTTP request answered so far, in arrival order."""
        with self._lock:
            slots = list(self._slots)
        return tuple(record for record in slots if record is not None)

    def assert_complete(self) -> None:
        """Fail on the first request the endpoint could not serve, then check every model."""
        if self._violations:
            first = self._violations[0]
            # A script's own exception is the cause to show; a refused request has none.
            fresh = first._fresh()  # pyright: ignore[reportPrivateUsage]
            raise fresh from first.__cause__ or first
        for model in self.models:
            model.assert_complete()

    def handle(
        self, method: str, path: str, headers: Iterable[tuple[str, str]], body: bytes
    ) -> WireResponse:
        """Answer one HTTP request from synchronous code."""
        coroutine = self.handle_async(method, path, headers, body)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(coroutine)
        # A sync client called from inside an event loop: run the scripted step on a loop of
        # its own rather than fail with "asyncio.run() cannot be called from a running loop".
        result: list[WireResponse] = []
        failure: list[BaseException] = []

        def run() -> None:
            try:
                result.append(asyncio.run(coroutine))
            except BaseException as error:  # handed back to the calling thread
                failure.append(error)

        worker = threading.Thread(target=run, name="agents-testing-wire")
        worker.start()
        worker.join()
        if failure:
            raise failure[0]
        return result[0]

    async def handle_async(
        self, method: str, path: str, headers: Iterable[tuple[str, str]], body: bytes
    ) -> WireResponse:
        """Answer one request, its whole body at once."""
        response, rest = await self.open_async(method, path, headers, body)
        if rest is None:
            return response
        chunks = list(response.chunks)
        try:
            chunks += [chunk async for chunk in rest]
        finally:
            await rest.aclose()
        return dataclasses.replace(response, chunks=tuple(chunks))

    async def open_async(
        self, method: str, path: str, headers: Iterable[tuple[str, str]], body: bytes
    ) -> tuple[WireResponse, AsyncGenerator[bytes, None] | None]:
        """Answer one request as soon as its status is decided, streaming the rest.

        Returns the response with the body chunks ready so far, and, for a ``model_stream``
        step still running, a generator of the remaining chunks, produced as the scripted
        stream yields its events (``None`` otherwise). Send those chunks as they come; close
        the generator to stop early, which closes the scripted stream's source. A step's
        status is decided at its stream's first event: an exception before it is the HTTP
        error, one after it the format's in-stream failure.
        """
        exchange = self._arrived(method, path)
        recorded = {
            lowered: value
            for key, value in headers
            if (lowered := key.lower()) not in SECRET_HEADERS
        }
        served = self._serve(exchange, recorded, body)
        response = served if isinstance(served, WireResponse) else await served
        return self._answered(exchange, response), exchange.rest

    def _open_sync(
        self,
        method: str,
        path: str,
        headers: Iterable[tuple[bytes, bytes]],
        encoding: str,
        body: bytes,
        run: Callable[[Coroutine[Any, Any, WireResponse]], WireResponse],
    ) -> tuple[WireResponse, AsyncGenerator[bytes, None] | None]:
        """Answer as ``open_async`` does, from synchronous code (the sync httpx transport).

        ``headers`` are the request's names and values as bytes, in ``encoding``: decoding
        them while recording saves a pass over them. What needs no event loop runs here, in
        the caller's thread: parsing, a scripted response or error, rendering. ``run`` runs
        the rest to its end on an event loop: a stream, or the awaitable a responder returned.
        """
        exchange = self._arrived(method, path)
        recorded = {
            lowered: value.decode(encoding)
            for key, value in headers
            if (lowered := key.decode(encoding).lower()) not in SECRET_HEADERS
        }
        served = self._serve(exchange, recorded, body)
        response = served if isinstance(served, WireResponse) else run(served)
        return self._answered(exchange, response), exchange.rest

    def _arrived(self, method: str, path: str) -> _Exchange:
        with self._lock:
            index = len(self._slots)
            # A slot per request, filled when it is answered: arrival order at O(1) a request.
            self._slots.append(None)
        return _Exchange(index, method.upper(), path.partition("?")[0])

    def _answered(self, exchange: _Exchange, response: WireResponse) -> WireResponse:
        index = exchange.index
        # The frozen dataclass's fields set at once, as its __init__ would one by one: this
        # runs for every request.
        record = object.__new__(WireExchange)
        record.__dict__.update(
            index=index,
            method=exchange.method,
            path=exchange.path,
            status=response.status,
            wire_format=exchange.wire_format,
            model=exchange.model,
            stream=exchange.stream,
        )
        with self._lock:
            self._slots[index] = record
            self._count += 1
        return response

    # -- internals -----------------------------------------------------------------------

    def _record(
        self,
        exchange: _Exchange,
        reason: WireRequestReason,
        detail: str | None = None,
        cause: BaseException | None = None,
    ) -> WireRequestError:
        error = WireRequestError(reason, exchange.index, exchange.method, exchange.path, detail)
        error.__cause__ = cause
        with self._lock:
            self._violations.append(error)
        return error

    def _violation(
        self,
        exchange: _Exchange,
        reason: WireRequestReason,
        detail: str | None = None,
        cause: BaseException | None = None,
    ) -> WireResponse:
        return _refusal(exchange, self._record(exchange, reason, detail, cause))

    def _failure(
        self, exchange: _Exchange, error: BaseException, *, scripted: bool = False
    ) -> WireResponse:
        """Answer a step that raised: a broken script, or the HTTP error it meant to send.

        ``ScriptedHTTPError`` is always meant; ``scripted`` says another exception was too (an
        error step's, or a scripted stream source's). A stopping process or task goes on up.
        """
        if isinstance(error, _STOPPING):
            raise error
        if isinstance(error, _MODEL_VIOLATIONS):
            # The model recorded this violation; assert_complete() raises it again.
            module = exchange.module
            body = module.error_body(400, f"agents-testing: {error}")
            return _json_response(400, body, exchange.index, no_retry=True)
        if scripted or isinstance(error, ScriptedHTTPError):
            return _error_response(exchange.module, error, exchange.index)
        return self._violation(exchange, "script_error", _error_summary(error), error)

    def _route(self, exchange: _Exchange, body: Mapping[str, Any]) -> ScriptedModel | None:
        for prefix, model in self._paths:
            if exchange.path == prefix or exchange.path.startswith(prefix + "/"):
                return model
        if self._names:
            name = body.get("model")
            if isinstance(name, str) and name in self._names:
                return self._names[name]
        return self._default

    def _serve(
        self, exchange: _Exchange, headers: dict[str, str], raw: bytes
    ) -> WireResponse | Coroutine[Any, Any, WireResponse]:
        """Answer now what needs no event loop; return a coroutine that answers the rest.

        ``headers`` are the ones to record: names lowercased, credentials left out.
        """
        for name, module in _FORMATS:
            if exchange.path.endswith(module.PATH_SUFFIX):
                exchange.wire_format, exchange.module = name, module
                break
        if exchange.module is None:
            return self._violation(exchange, "unknown_path")
        if exchange.method != "POST":
            return self._violation(exchange, "method_not_allowed")
        try:
            text = raw.decode()
            parsed: Any = json.loads(text)
        except RecursionError:
            return self._violation(
                exchange, "too_deep", f"the body nests more than {MAX_BODY_DEPTH} levels deep"
            )
        except ValueError as error:
            return self._violation(exchange, "malformed_json", str(error))
        if not isinstance(parsed, dict):
            return self._violation(exchange, "malformed_json", "the body is not a JSON object")
        body: dict[str, Any] = parsed  # pyright: ignore[reportUnknownVariableType]
        depth = _depth_beyond(text, body, MAX_BODY_DEPTH)
        if depth is not None:
            return self._violation(
                exchange,
                "too_deep",
                f"the body nests {depth} levels deep, more than the {MAX_BODY_DEPTH} served",
            )
        model_name = body.get("model")
        exchange.model = model_name if isinstance(model_name, str) else None
        exchange.stream = body.get("stream") is True
        model = self._route(exchange, body)
        if model is None:
            return self._violation(exchange, "unknown_model", f"model={exchange.model!r}")
        module = exchange.module
        extra = {
            "wire_format": exchange.wire_format,
            "path": exchange.path,
            "body": body,
            "raw_body": text,
            "headers": headers,
        }
        try:
            request: ModelRequest = module.parse_request(body, extra=extra)
        except InvalidBody as error:
            return self._violation(exchange, "invalid_body", str(error))
        if exchange.stream:
            return self._stream(exchange, model, request, body)
        try:
            # The request and everything in it were built just now from the parsed body, and
            # the endpoint changes none of it: the model records it without copying.
            index, recorded, result, responded = model._begin_response(request, owned=True)  # pyright: ignore[reportPrivateUsage]
            if responded and inspect.isawaitable(result):
                begun = (index, recorded, result)
                return self._respond_later(exchange, model, request, body, begun)
            response = model._end_response(request, index, recorded, result, responded=responded)  # pyright: ignore[reportPrivateUsage]
        except BaseException as error:
            meant = model._raised_by_error_step(error, request)  # pyright: ignore[reportPrivateUsage]
            return self._failure(exchange, error, scripted=meant)
        return self._render(exchange, index, response, body)

    async def _respond_later(
        self,
        exchange: _Exchange,
        model: ScriptedModel,
        request: ModelRequest,
        body: Mapping[str, Any],
        begun: tuple[int, ModelRequest, Awaitable[Any]],
    ) -> WireResponse:
        """Finish a call whose responder returned an awaitable."""
        index, recorded, result = begun
        try:
            response = model._end_response(  # pyright: ignore[reportPrivateUsage]
                request, index, recorded, await result, responded=True
            )
        except BaseException as error:
            # A responder's own exception: only a ScriptedHTTPError is meant.
            return self._failure(exchange, error)
        return self._render(exchange, index, response, body)

    def _render(
        self, exchange: _Exchange, index: int, response: ModelResponse, body: Mapping[str, Any]
    ) -> WireResponse:
        """Render the response to the model's call ``index`` (its wire ids count from 1)."""
        module = exchange.module
        number = call_number(response, index + 1)
        try:
            rendered = module.render_response(
                response.output, WireUsage.of(response.usage), number=number, body=body
            )
        except UnsupportedOutput as error:
            return self._violation(exchange, "unsupported_output", str(error))
        return _json_response(200, rendered, exchange.index)

    async def _stream(
        self,
        exchange: _Exchange,
        model: ScriptedModel,
        request: ModelRequest,
        body: Mapping[str, Any],
    ) -> WireResponse:
        try:
            events = model._stream_response(request, owned=True)  # pyright: ignore[reportPrivateUsage]
        except BaseException as error:
            return self._failure(exchange, error)
        progress = _Progress()
        chunks = self._encode_stream(exchange, events, body, progress, model.text_delta_size)
        ready: list[bytes] = []
        # A plain step's stream is known in full: answer it whole, so an item the format
        # cannot express still gets its own HTTP error. An exact stream is sent as its events
        # come, its status decided at the first: one scripted as a list is encoded whole
        # right away (nothing of the test's runs when its events are read, so nobody can
        # tell), any other source only as the client reads.
        whole = events.automatic
        listed = events._listed  # pyright: ignore[reportPrivateUsage]
        try:
            async for chunk in chunks:
                ready.append(chunk)
                if not whole:
                    if not listed:
                        break
                    progress.committed = True
        except _Answer as answer:
            return answer.response
        progress.committed = True
        if not whole and not listed:
            exchange.rest = chunks
        headers = (
            ("content-type", "text/event-stream; charset=utf-8"),
            ("cache-control", "no-cache"),
            ("x-request-id", f"req_scripted_{exchange.index + 1}"),
        )
        return WireResponse(200, headers, tuple(ready), streamed=True)

    async def _encode_stream(
        self,
        exchange: _Exchange,
        events: ScriptedModelStream,
        body: Mapping[str, Any],
        progress: _Progress,
        text_delta_size: int | None,
    ) -> AsyncGenerator[bytes, None]:
        """Yield the stream's chunks as its events come; raise ``_Answer`` to answer instead."""
        module = exchange.module
        encoder: Any = module.StreamEncoder(
            number=str(events.call_index + 1), body=body, text_delta_size=text_delta_size
        )
        try:
            try:
                async for streamed in events:
                    # A scripted stream may hold anything: check each event's shape.
                    event: Mapping[str, Any] = as_mapping(streamed) or {}
                    kind = event.get("type")
                    delta = event.get("delta")
                    done = as_mapping(event.get("response"))
                    provider_event = as_mapping(event.get("event"))
                    out: list[bytes] = []
                    if kind == "response_started":
                        out = encoder.start()
                    elif kind == "output_text_delta" and events.automatic:
                        # An automatic stream repeats its text in response_done, where the
                        # encoder streams it in the same deltas (and renders a text that is
                        # not a string as the unstreamed response does): stream it from there.
                        pass
                    elif kind == "output_text_delta" and isinstance(delta, str):
                        item_id = event.get("item_id")
                        item_id = item_id if isinstance(item_id, str) else None
                        out = encoder.text(delta, item_id)
                    elif kind == "response_done" and done is not None:
                        output = as_list(done.get("output"))
                        usage = WireUsage.of(as_mapping(done.get("usage")))
                        out = encoder.finish(output, usage)
                        progress.ended = True
                    elif kind == "model" and provider_event is not None:
                        out = encoder.raw(provider_event)
                        progress.ended = True
                    elif isinstance(kind, str) and kind not in _CORE_EVENT_TYPES:
                        # An exact provider event scripted in model_stream goes out verbatim.
                        out = encoder.raw(event)
                        progress.ended = True
                    else:
                        raise UnsupportedOutput(f"stream event {streamed!r} has no wire form")
                    for chunk in out:
                        progress.produced = True
                        yield chunk
                if not progress.ended:
                    for chunk in encoder.finish([], WireUsage()):
                        yield chunk
            except UnsupportedOutput as error:
                if not progress.committed:
                    raise _Answer(
                        self._violation(exchange, "unsupported_output", str(error))
                    ) from None
                # The status went out already: end the stream as failed, and keep the
                # violation for assert_complete().
                violation = self._record(exchange, "unsupported_output", str(error))
                for chunk in _fail(encoder, violation):
                    yield chunk
            except BaseException as error:
                if isinstance(error, _STOPPING):
                    raise
                if _is_scripted(error, events.step_type) or isinstance(error, _MODEL_VIOLATIONS):
                    if not progress.produced:
                        raise _Answer(self._failure(exchange, error, scripted=True)) from None
                    status, message, error_type, code, _ = _error_fields(error)
                    for chunk in encoder.fail(status, message, error_type, code):
                        yield chunk
                else:
                    # A responder's bug or a failed assertion in the script: a test failure,
                    # never an error a client may retry into a pass.
                    failed = self._record(exchange, "script_error", _error_summary(error), error)
                    if not progress.produced:
                        raise _Answer(_refusal(exchange, failed)) from None
                    for chunk in _fail(encoder, failed):
                        yield chunk
        except BaseException as error:
            # Answered with an HTTP error instead, cancelled, or closed by a client that
            # stopped reading: close the source, a close error only noted on what propagates.
            await close_source(events.aclose, error)
            raise
        # A stream read to its end has closed its source (a close error became its failure
        # event); one refused midway has not. The refusal is recorded and already sent, so a
        # close error must not replace it.
        with contextlib.suppress(Exception):
            await events.aclose()


class _Progress:
    """How far one stream got. Each flag starts false and is set once."""

    # The status and the first chunks went out: from then on a failure stays in the stream.
    committed = False
    # The encoder produced a chunk.
    produced = False
    # The script ended the response itself (response_done, or a provider event).
    ended = False


class _Answer(Exception):
    """Raised by a stream that fails before it is sent: answer with this response instead."""

    def __init__(self, response: WireResponse) -> None:
        super().__init__()  # internal: never shown, so its message is left empty
        self.response = response


class _Exchange:
    __slots__ = ("index", "method", "model", "module", "path", "rest", "stream", "wire_format")

    def __init__(self, index: int, method: str, path: str) -> None:
        self.index = index
        self.method = method
        self.path = path
        self.wire_format: str | None = None
        self.module: Any = None
        self.model: str | None = None
        self.stream = False
        self.rest: AsyncGenerator[bytes, None] | None = None  # an exact stream still running


def _json_response(
    status: int,
    body: Any,
    index: int,
    *,
    extra: Iterable[tuple[str, str]] = (),
    no_retry: bool = False,
) -> WireResponse:
    headers = [
        ("content-type", "application/json"),
        ("x-request-id", f"req_scripted_{index + 1}"),
        *extra,
    ]
    if no_retry:
        # A broken script is not a transient failure: tell the clients not to retry.
        headers.append(("x-should-retry", "false"))
    return WireResponse(status, tuple(headers), (json.dumps(body).encode(),))


def _fail(encoder: Any, violation: WireRequestError) -> list[bytes]:
    """End a stream whose status went out with the violation its refusal would have sent."""
    chunks: list[bytes] = encoder.fail(
        _REQUEST_STATUS[violation.reason], f"agents-testing: {violation}"
    )
    return chunks


def _refusal(exchange: _Exchange, error: WireRequestError) -> WireResponse:
    """Answer a recorded violation with the format's error body; no client retries it."""
    status = _REQUEST_STATUS[error.reason]
    module = exchange.module or openai_responses
    body = module.error_body(status, f"agents-testing: {error}")
    return _json_response(status, body, exchange.index, no_retry=True)


def _is_scripted(error: BaseException, step_type: str) -> bool:
    """Return whether a step's exception is a failure the script meant to send.

    ``ScriptedHTTPError`` anywhere, an error step's error, and what a scripted stream's
    source raises (the documented way to fail a stream midway) are; a failed assertion
    is a test failure, and so is anything else a responder raises (a bug in the test).
    """
    if isinstance(error, ScriptedHTTPError) or step_type == "error":
        return True
    return (
        step_type in ("stream", "stream_responder")
        and isinstance(error, Exception)
        and not (isinstance(error, AssertionError))
    )


def _error_summary(error: BaseException, limit: int = 500) -> str:
    text = f"{type(error).__name__}: {error}".strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _depth_beyond(text: str, body: dict[str, Any], limit: int) -> int | None:
    """Return how deep ``body`` nests if that is deeper than ``limit``, else ``None``."""
    # Nesting needs an opening bracket per level: most bodies have too few to go deep.
    if text.count("[") + text.count("{") <= limit:
        return None
    depth = 0
    level: list[Any] = [body]
    while level:  # one pass per level of nesting
        depth += 1
        below: list[Any] = []
        for node in level:
            children: Any = node.values() if type(node) is dict else node  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            below.extend(child for child in children if type(child) in (dict, list))
        level = below
    return depth if depth > limit else None


def _error_fields(
    error: BaseException,
) -> tuple[int, str, str | None, str | None, list[tuple[str, str]]]:
    if isinstance(error, ScriptedHTTPError):
        headers: list[tuple[str, str]] = []
        if error.retry_after is not None:
            seconds = error.retry_after
            headers.append(("retry-after", _decimal(seconds)))
            headers.append(("retry-after-ms", _decimal(seconds * 1000)))
        return error.status, str(error), error.error_type, error.code, headers
    return 500, f"{type(error).__name__}: {error}", None, None, []


def _decimal(value: float) -> str:
    """Write seconds or milliseconds as a header value: ``2``, ``1.5``, never ``1e+06``."""
    return f"{value:f}".rstrip("0").rstrip(".")


def _error_response(module: Any, error: BaseException, index: int) -> WireResponse:
    status, message, error_type, code, headers = _error_fields(error)
    body = module.error_body(status, message, error_type, code)
    return _json_response(status, body, index, extra=headers)
