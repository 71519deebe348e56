"""Record a real run into a reviewable script, and replay it strictly.

A ``RecordingProxy`` (``agents_testing.wire.recording_proxy``) sits between the code under
test and a real provider and keeps every model exchange as a ``RecordedExchange``: the
request body, secrets redacted, and the plain step the answer amounts to. A ``Recording``
writes them as a Python module a person can review and edit: ``STEPS``, built with the
library's own step helpers, and ``REQUESTS``, what each step's request looked like. A
``Replay`` serves those steps as an ordinary script and fails with a
``ReplayRequestDriftError`` when the code under test sends something other than what was
recorded. Standard library only.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import math
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, TypeGuard, cast

from . import _redaction
from ._completion import CompletionContext
from ._redaction import Redactor, plural, type_name
from .errors import ReplayDriftReason, ReplayRequestDriftError, ScriptedHTTPError
from .items import ModelRequest, ModelResponse, Usage
from .model import (
    RecordedModelCall,
    ScriptedModel,
    ScriptedModelInput,
    model_responder,
    model_stream_responder,
)

__all__ = [
    "COMPARED_HEADERS",
    "REDACTED",
    "ModelRecorder",
    "RecordedExchange",
    "Recording",
    "RedactPattern",
    "Replay",
    "ReplayIgnore",
    "adapter_request_body",
    "load_recording",
]

REDACTED: str = _redaction.REDACTED
"""What replaces each secret in a recording: ``"[REDACTED]"``."""

RedactPattern = str | re.Pattern[str]
"""A pattern to redact: a regular expression, as text or compiled."""

COMPARED_HEADERS: tuple[str, ...] = ("anthropic-beta", "anthropic-version", "openai-beta")
"""The request headers a recording keeps and a replay compares: the API version and beta
features a call asked for, which change what the provider answers. Credentials never are."""

# A field replay does not compare: a path such as "metadata.timestamp" or "input[*].id"
# (``*`` stands for any one key or index), or a function of (path, recorded, sent).
ReplayIgnore = str | Callable[[str, Any, Any], bool]
"""A field replay does not compare: a path such as ``"input[*].id"``, or a function."""


def _iterable(value: Any, name: str) -> list[Any]:
    kind = type_name(value)
    if isinstance(value, (str, bytes, re.Pattern)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be an iterable (a tuple or list) of entries, got {kind}")
    return _items(value)  # pyright: ignore[reportUnknownArgumentType]


def _items(value: Any) -> list[Any]:
    found: list[Any] = list(value)
    return found


def _is_list(value: object) -> TypeGuard[list[Any]]:
    return isinstance(value, list)


def _is_dict(value: object) -> TypeGuard[dict[str, Any]]:
    return isinstance(value, dict)


def _is_mapping(value: object) -> TypeGuard[Mapping[Any, Any]]:
    return isinstance(value, Mapping)


@dataclass(frozen=True)
class RecordedExchange:
    """One recorded model call: what was sent, and the step it got.

    ``body`` is the request's JSON body with secrets redacted; ``step`` is the scripted
    step the answer amounts to (``model_response``, ``model_error`` or ``model_stream``).
    ``adapter`` names the framework of a call recorded through a native adapter
    (``ModelRecorder``), whose ``body`` is the normalized request's JSON view; it is
    ``None`` for a call recorded over the wire. ``headers`` holds the call's
    ``COMPARED_HEADERS`` that were sent, by lowercase name.
    """

    index: int
    method: str
    path: str
    wire_format: str
    body: Any
    status: int
    streamed: bool
    step: Any
    adapter: str | None = None
    headers: Mapping[str, str] | None = None

    @property
    def request(self) -> dict[str, Any]:
        """Return the request as ``REQUESTS`` holds it: method, path, wire format, body.

        A call recorded through an adapter holds ``adapter`` and ``body`` instead.
        """
        if self.adapter is not None:
            return {"adapter": self.adapter, "body": _plain(self.body)}
        request: dict[str, Any] = {
            "method": self.method,
            "path": self.path,
            "wire_format": self.wire_format,
        }
        if self.headers:
            request["headers"] = {key: self.headers[key] for key in sorted(self.headers)}
        request["body"] = _plain(self.body)
        return request


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


class Recording:
    """The exchanges of a recorded run, and the script they make.

    Args:
        exchanges: the recorded model calls, in order.
        redacted: lines that say what was redacted (the file's header lists them).
        warnings: lines that say what the script could not hold (the header lists them).
    """

    def __init__(
        self,
        exchanges: Iterable[RecordedExchange],
        redacted: Iterable[str] = (),
        warnings: Iterable[str] = (),
    ) -> None:
        given: tuple[RecordedExchange, ...] = tuple(exchanges)
        for position, exchange in enumerate(given):
            if not isinstance(exchange, RecordedExchange):
                raise TypeError(
                    f"exchanges[{position}] must be a RecordedExchange, got {type_name(exchange)}"
                )
            _check_step(position, exchange.step)
        # Copies: changing a record read from here changes neither the proxy nor the script.
        self.exchanges: tuple[RecordedExchange, ...] = tuple(
            dataclasses.replace(
                exchange,
                body=_json_copy(position, exchange.body),
                step=_fresh_step(exchange.step),
                headers=_headers(position, exchange.headers),
            )
            for position, exchange in enumerate(given)
        )
        self.redacted: tuple[str, ...] = tuple(str(line) for line in redacted)
        self.warnings: tuple[str, ...] = tuple(str(line) for line in warnings)

    def __repr__(self) -> str:
        return f"<Recording exchanges={len(self.exchanges)}>"

    @property
    def steps(self) -> list[Any]:
        """Return the recorded steps, ready for ``ScriptedModel(recording.steps)``."""
        return [_fresh_step(exchange.step) for exchange in self.exchanges]

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Return what each step's request looked like, as the script's ``REQUESTS``."""
        return [exchange.request for exchange in self.exchanges]

    def source(self) -> str:
        """Return the script as Python source: the same recording always gives the same text."""
        return _script_source(self)

    def write(self, path: str | Path) -> Path:
        """Write the script to ``path`` (its folders are made) and return the path."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(self.source(), encoding="utf-8")
        return target


class ModelRecorder:
    """Record the calls a real framework model makes, through a native adapter.

    For code that takes a framework model object rather than a base URL: an adapter's
    recording wrapper (``recording_openai_agents_model``, ...) hands each call of the real
    model to ``add``, as the normalized ``ModelRequest`` the adapter's scripted model would
    record and the step the real answer amounts to. ``recording`` then writes the same
    kind of script as ``RecordingProxy``: ``STEPS``, and in ``REQUESTS`` the request's JSON
    view with ``adapter`` in place of the HTTP path. Replay it through the same adapter
    (``openai_agents_model(Replay.load(path).model)``): each call's view is compared with
    the recorded one.

    Args:
        redact: regular expressions whose matches never reach the recording.
    """

    def __init__(self, *, redact: Iterable[RedactPattern] = ()) -> None:
        self._redactor = Redactor(redact)
        self._lock = threading.Lock()
        self._exchanges: list[RecordedExchange] = []
        self._warnings: list[str] = []

    def __repr__(self) -> str:
        return f"<ModelRecorder exchanges={len(self._exchanges)}>"

    @property
    def recording(self) -> Recording:
        """Return the model calls recorded so far, ready to write as a script."""
        with self._lock:
            exchanges, warnings = list(self._exchanges), list(self._warnings)
        return Recording(exchanges, self._redactor.describe(), warnings)

    def add(
        self, adapter: str, request: ModelRequest, step: Any, *, streamed: bool = False
    ) -> None:
        """Record one call: the adapter's name, its normalized request and the step it got.

        ``step`` is ``model_response(...)``, ``model_error(ScriptedHTTPError(...))`` or
        ``model_stream([...])``; an error step's status is the one the call is shown with.
        """
        if not isinstance(adapter, str) or not adapter:
            raise TypeError(f"adapter must be the framework's name, got {adapter!r}")
        if not isinstance(request, ModelRequest):
            raise TypeError(f"request must be a ModelRequest, got {type_name(request)}")
        with self._lock:
            index = len(self._exchanges)
        _check_step(index, step)
        status = step["error"].status if step["type"] == "error" else 200
        exchange = RecordedExchange(
            index,
            "",
            "",
            "",
            self._redactor.value(adapter_request_body(request, streamed=streamed)),
            status,
            streamed,
            self._redacted_step(step),
            adapter,
        )
        with self._lock:
            self._exchanges.append(dataclasses.replace(exchange, index=len(self._exchanges)))

    def add_error(
        self, adapter: str, request: ModelRequest, error: BaseException, *, streamed: bool = False
    ) -> None:
        """Record a call the real model failed: an HTTP error becomes a ``model_error`` step.

        An error with an HTTP ``status_code`` from 400 to 599 (the provider clients' status
        errors, pydantic-ai's ``ModelHTTPError``) is recorded as
        ``model_error(ScriptedHTTPError(status, message, retry_after=...))``. Any other error
        (a timeout, a connection error) has no step a script can hold: the file's header
        warns about it instead, and the replay has one call fewer.
        """
        status: Any = getattr(error, "status_code", None)
        if isinstance(status, bool) or not isinstance(status, int) or not 400 <= status <= 599:
            with self._lock:
                position = len(self._exchanges) + 1
            self.warn(
                f"call #{position} through the {adapter} adapter raised "
                f"{type_name(error)}, which is not an HTTP error: not recorded, so the "
                "replay makes one call fewer"
            )
            return
        body: Any = getattr(error, "body", None)
        message: Any = body.get("message") if _is_dict(body) else None
        if _is_dict(body) and _is_dict(body.get("error")):
            message = body["error"].get("message")
        if not isinstance(message, str):
            message = getattr(error, "message", None)
        step = {
            "type": "error",
            "error": ScriptedHTTPError(
                status,
                message if isinstance(message, str) else None,
                retry_after=_retry_after(error),
            ),
            "retry_advice": None,
        }
        self.add(adapter, request, step, streamed=streamed)

    def warn(self, line: str) -> None:
        """Note something the script cannot hold (the file's header lists it)."""
        with self._lock:
            self._warnings.append(self._redactor.text(str(line)))

    def _redacted_step(self, step: Any) -> Any:
        redactor = self._redactor
        if step["type"] == "error":
            error: ScriptedHTTPError = step["error"]
            message = None if error.message is None else redactor.text(error.message)
            return {
                "type": "error",
                "error": ScriptedHTTPError(
                    error.status,
                    message,
                    retry_after=error.retry_after,
                    error_type=error.error_type,
                    code=error.code,
                ),
                "retry_advice": None,
            }
        if step["type"] == "stream":
            return {"type": "stream", "events": redactor.events(_plain(step["events"]))}
        response: Any = step["response"]
        if not isinstance(response, ModelResponse):
            return {"type": "response", "response": redactor.value(response)}
        response_id = response.response_id
        return {
            "type": "response",
            "response": dataclasses.replace(
                response,
                output=redactor.value(response.output),
                response_id=None if response_id is None else redactor.text(response_id),
            ),
        }


def _retry_after(error: BaseException) -> float | None:
    headers: object = getattr(getattr(error, "response", None), "headers", None)
    if not _is_mapping(headers):
        return None
    found = {str(key).lower(): value for key, value in headers.items()}
    for key, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            seconds = float(found[key]) / scale
        except (KeyError, TypeError, ValueError):
            continue
        if 0 <= seconds < float("inf"):
            return int(seconds) if seconds.is_integer() else seconds
    return None


# Where each framework keeps a tool's description and parameter schema: an attribute of its
# tool object (openai-agents, pydantic-ai), or a key of an OpenAI-format dict (LangChain).
_TOOL_SCHEMA_NAMES = ("params_json_schema", "parameters_json_schema", "parameters")


def adapter_request_body(request: ModelRequest, *, streamed: bool = False) -> dict[str, Any]:
    """Return the JSON view of a normalized request that recording and replay compare.

    It holds what the model is told: ``instructions``, ``input`` (the normalized items),
    ``tools`` (each one's name, description and parameter schema), ``handoffs`` (their tool
    names), the ``model_settings`` that are set, ``previous_response_id`` and
    ``conversation_id`` when set, and ``"stream": True`` for a streamed call. Framework
    objects inside become their data (a pydantic model's dump, a dataclass's fields); what
    is not data (a function, a client) is left out.
    """
    if not isinstance(request, ModelRequest):
        raise TypeError(f"request must be a ModelRequest, got {type_name(request)}")
    body: dict[str, Any] = {}
    if request.system_instructions is not None:
        body["instructions"] = _data(request.system_instructions)
    body["input"] = _data(request.input)
    views = [_tool_view(tool) for tool in _entries(request.tools)]
    tools = [view for view in views if view is not _NOT_DATA]  # a tool that holds no data
    if tools:
        body["tools"] = tools
    if request.handoff_names:
        body["handoffs"] = list(request.handoff_names)
    settings = _data(request.model_settings)
    if settings:
        body["model_settings"] = settings
    for name in ("previous_response_id", "conversation_id"):
        value = getattr(request, name)
        if value is not None:
            body[name] = _data(value)
    if streamed:
        body["stream"] = True
    return body


def _entries(value: Any) -> list[Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        return []
    return _items(value)  # pyright: ignore[reportUnknownArgumentType]


def _tool_view(tool: Any) -> Any:
    fields: Any = tool if _is_mapping(tool) else None
    if fields is not None and _is_mapping(fields.get("function")):
        fields = fields["function"]  # an OpenAI-format tool dict
    source: object = tool

    def read(name: str) -> Any:
        return fields.get(name) if fields is not None else getattr(source, name, None)

    name = read("name")
    if not isinstance(name, str):
        return _data(tool)
    view: dict[str, Any] = {"name": name}
    description = read("description")
    if isinstance(description, str):
        view["description"] = description
    for key in _TOOL_SCHEMA_NAMES:
        schema = read(key)
        if _is_mapping(schema):
            view["parameters"] = _data(schema)
            break
    return view


_NOT_DATA: Any = object()


def _data(value: object, depth: int = 0) -> Any:
    """Return ``value`` as JSON data; ``_NOT_DATA`` for a value that holds none."""
    if depth > 200:
        return _NOT_DATA
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if _is_mapping(value):
        found: dict[str, Any] = {}
        for key, item in value.items():
            converted = _data(item, depth + 1)
            if item is not None and converted is not _NOT_DATA:
                found[str(key)] = converted
        return found
    if isinstance(value, (list, tuple)):
        converted_items = [_data(item, depth + 1) for item in _items(value)]
        return [None if item is _NOT_DATA else item for item in converted_items]
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        try:
            dumped = dump(mode="json", exclude_none=True)
        except Exception:  # a model that cannot dump itself holds no data here
            return _NOT_DATA
        return _data(dumped, depth + 1)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _data(
            {field.name: getattr(value, field.name, None) for field in dataclasses.fields(value)},
            depth + 1,
        )
    return _NOT_DATA


def _headers(position: int, headers: object) -> dict[str, str] | None:
    if headers is None:
        return None
    if not _is_mapping(headers) or not all(
        isinstance(key, str) and isinstance(value, str) for key, value in headers.items()
    ):
        raise TypeError(
            f"exchanges[{position}].headers must map header names to values (str to str), "
            f"got {type_name(headers)}"
        )
    return {str(key).lower(): str(value) for key, value in headers.items()}


def _json_copy(position: int, body: Any) -> Any:
    try:
        return _plain(body)
    except (TypeError, ValueError, RecursionError) as error:
        raise TypeError(f"exchanges[{position}].body must be JSON data: {error}") from None


def _check_step(position: int, step: Any) -> None:
    """Refuse a step the writer cannot write as source: only recorded kinds are."""
    kind = step.get("type") if _is_dict(step) else None
    valid = (
        (kind == "response" and isinstance(step.get("response"), (list, ModelResponse)))
        or (kind == "error" and isinstance(step.get("error"), ScriptedHTTPError))
        or (kind == "stream" and isinstance(step.get("events"), list))
    )
    if not valid:
        raise TypeError(
            f"exchanges[{position}].step must be a recorded step: model_response() of a list "
            "or a ModelResponse, model_error() of a ScriptedHTTPError, or model_stream() of "
            f"a list of events; got {_describe_step(step)}"
        )


def _describe_step(step: Any) -> str:
    if _is_dict(step):
        return f"a {step.get('type')!r} step"
    return type_name(step)


def _fresh_step(step: Any) -> Any:
    kind = step.get("type")
    if kind == "response":
        response: Any = step["response"]
        if not isinstance(response, ModelResponse):
            return {"type": "response", "response": _plain(response)}
        return {
            "type": "response",
            "response": dataclasses.replace(
                response, output=_plain(response.output), usage=_copy_usage(response.usage)
            ),
        }
    if kind == "error":
        error: ScriptedHTTPError = step["error"]
        return {"type": "error", "error": error._fresh(), "retry_advice": None}  # pyright: ignore[reportPrivateUsage]
    return {"type": "stream", "events": _plain(step["events"])}


def _copy_usage(usage: Usage) -> Usage:
    return Usage(
        requests=usage.requests,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.total_tokens,
        input_tokens_details=usage.input_tokens_details,
        output_tokens_details=usage.output_tokens_details,
    )


# -- the script writer ---------------------------------------------------------------------

_INDENT = "    "
# The width Black and Ruff lay code out in by default: the script is written as they would
# write it, so formatting it changes nothing and re-recording gives a clean diff.
_WIDTH = 88


def _string(text: str) -> str:
    shown = repr(text)
    if shown.startswith("'") and '"' not in text:
        # repr() only picks single quotes for text without one, so nothing inside is escaped.
        shown = '"' + shown[1:-1] + '"'  # Black prefers double quotes
    return shown


def _one_line(value: Any) -> str:
    if isinstance(value, str):
        return _string(value)
    if _is_dict(value):
        inner = ", ".join(f"{_one_line(key)}: {_one_line(item)}" for key, item in value.items())
        return "{" + inner + "}"
    if _is_list(value):
        return "[" + ", ".join(_one_line(item) for item in value) + "]"
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({_string(str(value))})"  # nan and inf have no literal
    return repr(value)


def _literal(value: Any, indent: int, prefix: int = 0) -> str:
    """Return ``value`` as a Python literal laid out as Black does, at ``indent`` levels.

    ``prefix`` counts the characters before the value on its first line (a key, a
    keyword); a trailing comma is assumed after it.
    """
    one = _one_line(value)
    if len(_INDENT) * indent + prefix + len(one) + 1 <= _WIDTH:
        return one
    inner = _INDENT * (indent + 1)
    if _is_dict(value) and value:
        lines: list[str] = []
        for key, item in value.items():
            head = f"{_one_line(key)}: "
            lines.append(f"{inner}{head}{_literal(item, indent + 1, len(head))},\n")
        return "{\n" + "".join(lines) + _INDENT * indent + "}"
    if _is_list(value) and value:
        return _listed([_literal(item, indent + 1) for item in value], indent)
    return one  # a long string or number: Black leaves it as it is


def _call(name: str, args: list[str], indent: int) -> str:
    one_line = f"{name}({', '.join(args)})"
    if "\n" not in one_line and len(one_line) + len(_INDENT) * indent + 1 <= _WIDTH:
        return one_line
    inner = _INDENT * (indent + 1)
    return f"{name}(\n" + "".join(f"{inner}{arg},\n" for arg in args) + _INDENT * indent + ")"


def _listed(entries: list[str], indent: int) -> str:
    """Return laid-out ``entries`` as a list exploded one per line; ``[]`` when empty."""
    if not entries:
        return "[]"
    inner = _INDENT * (indent + 1)
    return "[\n" + "".join(f"{inner}{entry},\n" for entry in entries) + _INDENT * indent + "]"


class _Writer:
    def __init__(self) -> None:
        self.names: set[str] = set()

    def use(self, name: str) -> str:
        self.names.add(name)
        return name

    def item(self, item: Any, indent: int) -> str:
        # A string is laid out the same at any indent: the checked strings use _string.
        mapping: Mapping[str, Any] | None = None
        if isinstance(item, Mapping):
            mapping = cast("Mapping[str, Any]", item)  # pragma: no mutate
        if mapping is not None and _is_plain_message(mapping):
            args = [_string(mapping["content"][0]["text"])]
            if "id" in mapping:
                args.append(f"id={_literal(mapping['id'], indent + 1, 3)}")
            return _call(self.use("assistant_message"), args, indent)
        if mapping is not None and _is_plain_call(mapping):
            arguments: Any = mapping["arguments"]
            try:
                decoded = json.loads(arguments)
                # The same JSON text: show it as data, easier to edit. Not a JSON string:
                # function_call() keeps a str as it is, so "s" would come back as s.
                compact = json.dumps(decoded, separators=(",", ":"), ensure_ascii=False)
                if compact == arguments and not isinstance(decoded, str):
                    arguments = decoded
            except (ValueError, RecursionError):
                pass
            args = [
                _string(mapping["name"]),
                _literal(arguments, indent + 1),
                f"call_id={_string(mapping['call_id'])}",
            ]
            if mapping["id"] != mapping["call_id"]:
                args.append(f"id={_string(mapping['id'])}")
            if mapping.get("namespace") is not None:
                args.append(f"namespace={_literal(mapping['namespace'], indent + 1, 10)}")
            return _call(self.use("function_call"), args, indent)
        return _literal(item, indent)

    def usage(self, usage: Usage, indent: int) -> str:
        args = [f"input_tokens={usage.input_tokens}", f"output_tokens={usage.output_tokens}"]
        if usage.total_tokens != usage.input_tokens + usage.output_tokens:
            args.append(f"total_tokens={usage.total_tokens}")
        for name in ("input_tokens_details", "output_tokens_details"):
            details: list[dict[str, Any]] = getattr(usage, name)
            if details:
                shown = details[0] if len(details) == 1 else details
                args.append(f"{name}={_literal(shown, indent + 1, len(name) + 1)}")
        return _call(self.use("Usage"), args, indent)

    def step(self, step: Any, indent: int) -> str:
        kind = step["type"]
        if kind == "error":
            error: ScriptedHTTPError = step["error"]
            args = [str(error.status)]
            if error.message is not None:
                args.append(_literal(error.message, indent + 2))
            for name in ("retry_after", "error_type", "code"):
                field_value = getattr(error, name)
                if field_value is not None:
                    args.append(f"{name}={_literal(field_value, indent + 2, len(name) + 1)}")
            http_error = _call(self.use("ScriptedHTTPError"), args, indent + 1)
            return _call(self.use("model_error"), [http_error], indent)
        if kind == "stream":
            events = _listed([_literal(event, indent + 2) for event in step["events"]], indent + 1)
            inner = _INDENT * (indent + 1)
            return f"{self.use('model_stream')}(\n{inner}{events},\n{_INDENT * indent})"
        recorded: Any = step["response"]
        if not isinstance(recorded, ModelResponse):  # a list of output items
            listed = _listed([self.item(item, indent + 2) for item in recorded], indent + 1)
            inner = _INDENT * (indent + 1)
            return f"{self.use('model_response')}(\n{inner}{listed},\n{_INDENT * indent})"
        response: ModelResponse = recorded
        output = _listed([self.item(item, indent + 3) for item in response.output], indent + 2)
        args = [output, self.usage(response.usage, indent + 2)]
        if response.response_id is not None:
            args.append(f"response_id={_literal(response.response_id, indent + 2, 12)}")
        inner = _INDENT * (indent + 2)
        built = (
            f"{self.use('ModelResponse')}(\n"
            + "".join(f"{inner}{arg},\n" for arg in args)
            + _INDENT * (indent + 1)
            + ")"
        )
        return (
            f"{self.use('model_response')}(\n{_INDENT * (indent + 1)}{built},\n{_INDENT * indent})"
        )


def _is_plain_message(item: Mapping[str, Any]) -> bool:
    content = item.get("content")
    if item.get("type") != "message" or item.get("role") != "assistant":
        return False
    if set(item) - {"type", "role", "status", "content", "id"} or item.get("status") != "completed":
        return False
    if not _is_list(content) or len(content) != 1:
        return False
    part = content[0]
    return (
        _is_dict(part)
        and set(part) == {"type", "text"}
        and part["type"] == "output_text"
        and isinstance(part["text"], str)
    )


def _is_plain_call(item: Mapping[str, Any]) -> bool:
    return (
        item.get("type") == "function_call"
        and set(item)
        == {"type", "name", "call_id", "id", "namespace", "status", "arguments", "provider_data"}
        and item.get("provider_data") is None
        and item.get("status") == "completed"
        and all(isinstance(item.get(key), str) for key in ("name", "call_id", "id", "arguments"))
    )


def _script_source(recording: Recording) -> str:
    writer = _Writer()
    steps: list[str] = []
    for exchange in recording.exchanges:
        how = "streamed" if exchange.streamed else "not streamed"
        if exchange.adapter is not None:
            answer = "" if exchange.status < 400 else f", HTTP {exchange.status}"
            what = f"{exchange.adapter} model ({how}{answer})"
        else:
            what = (
                f"{exchange.method} {exchange.path} "
                f"({exchange.wire_format}, {how}, HTTP {exchange.status})"
            )
        steps.append(
            f"{_INDENT}# call #{exchange.index + 1}: {what}\n"
            f"{_INDENT}{writer.step(exchange.step, 1)},\n"
        )
    requests = "".join(
        f"{_INDENT}# call #{exchange.index + 1}\n{_INDENT}{_literal(exchange.request, 1)},\n"
        for exchange in recording.exchanges
    )
    redacted = recording.redacted or ("nothing",)
    warnings = ""
    if recording.warnings:
        warnings = "\nWarnings (what this script does not hold):\n" + "".join(
            f"- {line}\n" for line in recording.warnings
        )
    header = (
        '"""A model run recorded by agents-testing: review it, then edit it like any script.\n'
        "\n"
        f"{plural(len(recording.exchanges), 'model call')}. STEPS holds the step each call got, "
        "REQUESTS what\neach call sent. Replay it with agents_testing.Replay.load(this file); "
        "record it\nagain with pytest --agents-testing-record.\n"
        "\n"
        f"Redacted (each secret replaced with {REDACTED!r}):\n"
        + "".join(f"- {line}\n" for line in redacted)
        + warnings
        + '"""\n'
    )
    names = sorted(writer.names)  # classes (capitalized) before functions, as isort sorts
    imports = f"from agents_testing import {', '.join(names)}\n"
    if len(imports) > 89:
        imports = (
            "from agents_testing import (\n"
            + "".join(f"{_INDENT}{name},\n" for name in names)
            + ")\n"
        )
    if not names:
        imports = ""
    return f"{header}\n{imports}\nSTEPS = [\n{''.join(steps)}]\n\nREQUESTS = [\n{requests}]\n"


# -- replay --------------------------------------------------------------------------------

_SEGMENT = re.compile(r'\[(\d+|\*)\]|\["((?:[^"\\]|\\.)*)"\]|([^.\[\]]+)')
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_MISSING: Any = object()


def _path_text(segments: Sequence[str | int]) -> str:
    text = ""
    for segment in segments:
        if isinstance(segment, int):
            text += f"[{segment}]"
        elif _NAME.fullmatch(segment):
            text += f".{segment}" if text else segment
        else:
            text += f"[{json.dumps(segment)}]"
    return text


def _parse_pattern(pattern: str, position: int) -> tuple[str | int | None, ...]:
    """Parse an ignore path; ``None`` stands for ``*``, any one key or index."""
    segments: list[str | int | None] = []
    rest = pattern.strip()
    while rest:
        rest = rest.removeprefix(".")
        match = _SEGMENT.match(rest)
        if match is None or not rest:
            raise ValueError(
                f"ignore[{position}] {pattern!r} is not a field path; write one like "
                "'metadata.timestamp' or 'input[*].id'"
            )
        index, quoted, name = match.groups()
        if index is not None:
            segments.append(None if index == "*" else int(index))
        elif quoted is not None:
            segments.append(json.loads(f'"{quoted}"'))
        else:
            segments.append(None if name == "*" else name)
        rest = rest[match.end() :]
    if not segments:
        raise ValueError(f"ignore[{position}] is empty; name a field such as 'metadata.timestamp'")
    return tuple(segments)


class _Comparison:
    def __init__(self, ignore: Iterable[ReplayIgnore]) -> None:
        self._patterns: list[tuple[str | int | None, ...]] = []
        self._functions: list[Callable[[str, Any, Any], bool]] = []
        for position, entry in enumerate(_iterable(ignore, "ignore")):
            if isinstance(entry, str):
                self._patterns.append(_parse_pattern(entry, position))
            elif callable(entry):
                function = cast("Callable[[str, Any, Any], bool]", entry)  # pragma: no mutate
                self._functions.append(function)
            else:
                raise TypeError(
                    f"ignore[{position}] must be a field path (str) or a function of "
                    f"(path, recorded, sent), got {type_name(entry)}"
                )

    def _ignored(self, segments: tuple[str | int, ...], recorded: Any, sent: Any) -> bool:
        for pattern in self._patterns:
            if len(pattern) <= len(segments) and all(
                want is None or want == got for want, got in zip(pattern, segments, strict=False)
            ):
                return True
        path = _path_text(segments)
        return any(
            function(
                path, None if recorded is _MISSING else recorded, None if sent is _MISSING else sent
            )
            for function in self._functions
        )

    def first_difference(
        self, recorded: Any, sent: Any, segments: tuple[str | int, ...] = ()
    ) -> tuple[str, Any, Any, ReplayDriftReason] | None:
        if segments and self._ignored(segments, recorded, sent):
            return None
        if recorded is _MISSING or sent is _MISSING:
            reason: ReplayDriftReason = "missing" if sent is _MISSING else "added"
            shown_recorded = None if recorded is _MISSING else recorded
            shown_sent = None if sent is _MISSING else sent
            return _path_text(segments), shown_recorded, shown_sent, reason
        if _is_dict(recorded) and _is_dict(sent):
            before, after = recorded, sent
            for key in [*before, *(key for key in after if key not in before)]:
                found = self.first_difference(
                    before.get(key, _MISSING), after.get(key, _MISSING), (*segments, key)
                )
                if found is not None:
                    return found
            return None
        if _is_list(recorded) and _is_list(sent):
            before_list, after_list = recorded, sent
            for index in range(max(len(before_list), len(after_list))):
                found = self.first_difference(
                    before_list[index] if index < len(before_list) else _MISSING,
                    after_list[index] if index < len(after_list) else _MISSING,
                    (*segments, index),
                )
                if found is not None:
                    return found
            return None
        if type(recorded) is not type(sent) or recorded != sent:
            return _path_text(segments), recorded, sent, "changed"
        return None


class Replay(CompletionContext):
    """Serve recorded steps as a script, and check each request against the recorded one.

    ``model`` is an ordinary ``ScriptedModel``: serve it with ``ScriptedServer``, or through
    the adapter a ``ModelRecorder`` recorded it with. Each call is compared with the recorded
    request of its step: over the wire its path, JSON body and the ``COMPARED_HEADERS`` it
    sent (at paths ``headers.<name>``); through an adapter its ``adapter_request_body``. The
    first difference fails the call (with HTTP 400 over the wire, which clients do not
    retry) and is kept, so ``assert_complete()`` raises it as a ``ReplayRequestDriftError``
    even if the code under test swallowed the error.

    Args:
        steps: the recorded steps (a script's ``STEPS``).
        requests: what each step's request looked like (a script's ``REQUESTS``).
        ignore: fields not compared: paths such as ``"metadata.timestamp"`` or
            ``"input[*].id"`` (``*`` is any one key or index), or functions of
            ``(path, recorded, sent)`` that return True to skip a field.
        redact: the patterns the recording redacted, so the request sent is compared (and
            shown) redacted the same way.
    """

    def __init__(
        self,
        steps: Iterable[ScriptedModelInput],
        requests: Iterable[Mapping[str, Any]],
        *,
        ignore: Iterable[ReplayIgnore] = (),
        redact: Iterable[RedactPattern] = (),
    ) -> None:
        step_list = _iterable(steps, "steps")
        self._requests: list[Mapping[str, Any]] = []
        for position, request in enumerate(_iterable(requests, "requests")):
            if not isinstance(request, Mapping):
                raise TypeError(
                    f"requests[{position}] must be a mapping with 'path' and 'body', "
                    f"got {type_name(request)}"
                )
            self._requests.append(cast("Mapping[str, Any]", request))  # pragma: no mutate
        self._comparison = _Comparison(ignore)
        self._redactor = Redactor(redact)
        self._lock = threading.Lock()
        self._drifts: list[ReplayRequestDriftError] = []
        self.model: ScriptedModel = ScriptedModel(
            [self._checked(position, step) for position, step in enumerate(step_list)]
        )

    @classmethod
    def load(
        cls,
        path: str | Path,
        *,
        ignore: Iterable[ReplayIgnore] = (),
        redact: Iterable[RedactPattern] = (),
    ) -> Replay:
        """Load a recorded script file and replay its ``STEPS`` against its ``REQUESTS``."""
        module = load_recording(path)
        return cls(module.STEPS, module.REQUESTS, ignore=ignore, redact=redact)

    def __repr__(self) -> str:
        return f"<Replay steps={len(self._requests)} drifts={len(self._drifts)}>"

    @property
    def drifts(self) -> tuple[ReplayRequestDriftError, ...]:
        """Return every request difference found so far, in call order."""
        with self._lock:
            return tuple(self._drifts)

    def assert_complete(self) -> None:
        """Fail on the first request that drifted, then on the model's unused steps."""
        with self._lock:
            first = self._drifts[0] if self._drifts else None
        if first is not None:
            raise first._fresh() from first  # pyright: ignore[reportPrivateUsage]
        self.model.assert_complete()

    def _check(self, position: int, call: RecordedModelCall) -> None:
        drift = self._drift(position, call)
        if drift is None:
            return
        with self._lock:
            self._drifts.append(drift)
        # The model keeps it too, so whatever checks the model (leaving ScriptedServer's
        # block, a fixture) fails on the drift rather than on the steps it left unused.
        self.model._violations.append(drift)  # pyright: ignore[reportPrivateUsage]
        # A 400 is not retried by the clients: the run stops at the first drift.
        raise ScriptedHTTPError(400, f"agents-testing: {drift}", error_type="invalid_request_error")

    def _drift(self, position: int, call: RecordedModelCall) -> ReplayRequestDriftError | None:
        if position >= len(self._requests):
            return ReplayRequestDriftError(call.index, "", reason="no_recorded_request")
        recorded = self._requests[position]
        extra = call.request.extra
        over_wire = "body" in extra
        sent_path = f"{extra.get('method', 'POST')} {extra.get('path')}"
        recorded_path = f"{recorded.get('method', 'POST')} {recorded.get('path')}"
        adapter = recorded.get("adapter")
        if adapter is not None:
            if over_wire:
                return ReplayRequestDriftError(
                    call.index, "", f"a call through the {adapter} adapter", sent_path
                )
            sent: Any = adapter_request_body(call.request, streamed=call.streamed)
        elif not over_wire:
            return ReplayRequestDriftError(
                call.index, "", recorded_path, "a call that did not come over the wire"
            )
        elif extra.get("path") != recorded.get("path"):
            return ReplayRequestDriftError(call.index, "", recorded_path, sent_path)
        else:
            sent = extra["body"]
        sent = self._redactor.value(sent)
        found = self._comparison.first_difference(_plain(recorded.get("body")), _plain(sent))
        if found is None and adapter is None and "headers" in recorded:
            # Then the headers that change the answer. A request recorded without them (none
            # of them sent, or written before headers were recorded) compares its body only,
            # so a recording made before this version still replays.
            given: Any = extra.get("headers")
            headers: Mapping[Any, Any] = given if _is_mapping(given) else {}
            sent_headers = {
                str(key).lower(): value
                for key, value in headers.items()
                if str(key).lower() in COMPARED_HEADERS
            }
            found = self._comparison.first_difference(
                _plain(recorded.get("headers") or {}),
                _plain(self._redactor.value(sent_headers)),
                ("headers",),
            )
        if found is None:
            return None
        path, recorded_value, sent_value, reason = found
        return ReplayRequestDriftError(call.index, path, recorded_value, sent_value, reason)

    def _checked(self, position: int, step: Any) -> Any:
        step = _normalized(step)
        kind = step.get("type")
        if kind == "stream":
            events = list(step["events"])

            def stream(call: RecordedModelCall) -> Any:
                self._check(position, call)
                return events

            return model_stream_responder(stream)
        if kind == "error":
            error: BaseException = step["error"]

            def fail(call: RecordedModelCall) -> Any:
                self._check(position, call)
                raise error

            return model_responder(fail)
        if kind == "responder":
            respond = step["respond"]

            def computed(call: RecordedModelCall) -> Any:
                self._check(position, call)
                return respond(call)

            return model_responder(computed)
        if kind == "stream_responder":
            respond_stream = step["respond"]

            def computed_stream(call: RecordedModelCall) -> Any:
                self._check(position, call)
                return respond_stream(call)

            return model_stream_responder(computed_stream)
        response = step["response"]

        def answer(call: RecordedModelCall) -> Any:
            self._check(position, call)
            return response

        return model_responder(answer)


def _normalized(step: Any) -> Mapping[str, Any]:
    """Return a step as a mapping: a built step as it is, a plain response wrapped (no type)."""
    if isinstance(step, Mapping) and "type" in step:
        return cast("Mapping[str, Any]", step)  # pragma: no mutate
    if isinstance(step, (list, ModelResponse, Mapping)):
        return {"response": step}
    raise TypeError(
        "each recorded step must be a list of output items, a ModelResponse or a step built "
        f"by model_response(), model_error(), model_stream(), ...; got {type_name(step)}"
    )


def load_recording(path: str | Path) -> ModuleType:
    """Import a recorded script file and return the module (``STEPS`` and ``REQUESTS``)."""
    source = Path(path)
    if not source.is_file():
        raise FileNotFoundError(
            f"no recorded script at {str(source)!r}: record it first (pytest "
            "--agents-testing-record, or RecordingProxy and Recording.write)"
        )
    spec = importlib.util.spec_from_file_location(
        f"_agents_testing_recording_{source.stem}", source
    )
    if spec is None or spec.loader is None:
        raise ValueError(f"{str(source)!r} cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("STEPS", "REQUESTS"):
        if not isinstance(getattr(module, name, None), list):
            raise ValueError(
                f"{str(source)!r} has no {name} list; a recorded script defines STEPS and "
                "REQUESTS (record it again if it was edited by mistake)"
            )
    return module
