"""Normalized model items, stream events, usage and request/response records.

Items are plain dicts shaped like OpenAI Responses API items with snake_case keys. The two
builders cover the common cases; pass any other normalized item as a dict.
"""

# No ``from __future__ import annotations`` here: as strings, every TypedDict annotation below
# would be compiled into a ForwardRef when the module is imported, a tenth of its import cost.
import json
import operator
import reprlib
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import FrozenInstanceError, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal, TypedDict, TypeVar, cast

__all__ = [
    "AssistantMessageItem",
    "FunctionCallItem",
    "ModelEvent",
    "ModelRequest",
    "ModelResponse",
    "ModelRetryAdvice",
    "OutputTextContent",
    "OutputTextDeltaEvent",
    "ShellCallAction",
    "ShellCallItem",
    "ResponseDoneEvent",
    "ResponseDonePayload",
    "ResponseStartedEvent",
    "RetryAdviceRequest",
    "StreamEvent",
    "Usage",
    "UsagePayload",
    "assistant_message",
    "function_call",
    "shell_call",
]


# Optional keys live in a ``total=False`` subclass rather than behind ``NotRequired``: that is
# what makes them optional at run time too (``__optional_keys__``) on every supported Python,
# since 3.10 has no ``typing.NotRequired`` and postponed annotations hide it from TypedDict.
class _OutputTextContentRequired(TypedDict):
    type: Literal["output_text"]
    text: str


class OutputTextContent(_OutputTextContentRequired, total=False):
    # A streamed response copies it onto the part's output_text_delta event.
    provider_data: Any


class _AssistantMessageItemRequired(TypedDict):
    type: Literal["message"]
    role: Literal["assistant"]
    status: Literal["completed"]
    content: list[OutputTextContent]


class AssistantMessageItem(_AssistantMessageItemRequired, total=False):
    id: str
    phase: str
    provider_data: Any


class FunctionCallItem(TypedDict):
    type: Literal["function_call"]
    name: str
    call_id: str
    id: str
    namespace: str | None
    status: Literal["completed"]
    arguments: str
    provider_data: Any


def assistant_message(
    text: str,
    *,
    id: str | None = None,  # noqa: A002 - the item's own key name
    phase: str | None = None,
    provider_data: Any = None,
) -> AssistantMessageItem:
    """Build a completed assistant text message item."""
    item: dict[str, Any] = {"type": "message", "role": "assistant", "status": "completed"}
    if id is not None:
        item["id"] = id
    if phase is not None:
        item["phase"] = phase
    item["content"] = [{"type": "output_text", "text": text}]
    if provider_data is not None:
        item["provider_data"] = provider_data
    return item  # type: ignore[return-value]


def function_call(
    name: str,
    arguments: Any,
    *,
    call_id: str,
    id: str | None = None,  # noqa: A002 - the item's own key name
    namespace: str | None = None,
    provider_data: Any = None,
) -> FunctionCallItem:
    """Build a completed function call item.

    A ``str`` ``arguments`` is kept verbatim; anything else is written as compact JSON.
    """
    if not isinstance(arguments, str):
        try:
            arguments = json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)
        except (TypeError, ValueError, RecursionError) as error:
            raise TypeError(
                "function_call() arguments must be a str or JSON-serializable data (dicts, "
                f"lists, strings, numbers, booleans, None): {error}"
            ) from None
    return {
        "type": "function_call",
        "name": name,
        "call_id": call_id,
        "id": call_id if id is None else id,
        "namespace": namespace,
        "status": "completed",
        "arguments": arguments,
        "provider_data": provider_data,
    }


class _ShellCallActionRequired(TypedDict):
    commands: list[str]


class ShellCallAction(_ShellCallActionRequired, total=False):
    timeout_ms: int
    max_output_length: int


class _ShellCallItemRequired(TypedDict):
    type: Literal["shell_call"]
    call_id: str
    id: str
    status: Literal["completed"]
    action: ShellCallAction


class ShellCallItem(_ShellCallItemRequired, total=False):
    provider_data: Any


def shell_call(
    commands: str | Sequence[str],
    *,
    call_id: str,
    id: str | None = None,  # noqa: A002 - the item's own key name
    timeout_ms: int | None = None,
    max_output_length: int | None = None,
    provider_data: Any = None,
) -> ShellCallItem:
    """Build a completed call of the hosted shell tool (``ShellTool`` in openai-agents).

    ``commands`` is one command or a sequence of them, run in order by the tool's executor.
    """
    if isinstance(commands, str):
        commands = [commands]
    elif not isinstance(commands, Sequence) or not all(
        isinstance(command, str) for command in commands
    ):
        raise TypeError("shell_call commands must be a string or a sequence of strings")
    action: dict[str, Any] = {"commands": list(commands)}
    if timeout_ms is not None:
        action["timeout_ms"] = timeout_ms
    if max_output_length is not None:
        action["max_output_length"] = max_output_length
    item: dict[str, Any] = {
        "type": "shell_call",
        "call_id": call_id,
        "id": call_id if id is None else id,
        "status": "completed",
        "action": action,
    }
    if provider_data is not None:
        item["provider_data"] = provider_data
    return item  # type: ignore[return-value]


# ``_dataclass(init=..., frozen=...)`` makes the dataclasses below: the same classes as
# ``@dataclass`` (``fields``, ``replace``, ``asdict``, ``__match_args__``, frozenness and the
# ``__dataclass_params__`` that describe them), with the ``__init__`` written in each class and
# the other methods made here without compiling source. ``@dataclass`` compiles every method it
# writes from source text when the class is created, which was over half the instructions of
# ``import agents_testing`` (and so of every model adapter's import). With ``init=True`` the
# written ``__init__`` is the one ``@dataclass`` would generate. tests/test_items_dataclasses.py
# checks each class against a twin that plain ``@dataclass`` makes from the same fields, on
# each supported Python.

_Class = TypeVar("_Class", bound=type)


class _DefaultFactory:
    """The default of an ``__init__`` argument whose field has a ``default_factory``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"  # what the signature of a generated ``__init__`` shows


_FACTORY: Any = _DefaultFactory()


def _values(names: tuple[str, ...]) -> Callable[[object], tuple[Any, ...]]:
    if len(names) > 1:
        return operator.attrgetter(*names)  # a tuple of the values, as in the generated code
    return lambda instance: tuple(getattr(instance, name) for name in names)


def _made_dataclass(made: _Class, init: bool, frozen: bool) -> _Class:
    dataclass(init=False, repr=False, eq=False)(made)  # fields, replace() and the rest
    cls: type[Any] = made
    declared = fields(cls)
    names = frozenset(item.name for item in declared)
    shown = tuple(item.name for item in declared if item.repr)
    compared = tuple(item.name for item in declared if item.compare)
    compared_values = _values(compared)
    hashed_values = _values(
        tuple(item.name for item in declared if (item.compare if item.hash is None else item.hash))
    )  # only a frozen class hashes (``eq=True``, no ``unsafe_hash``)

    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        inner = ", ".join([f"{name}={getattr(self, name)!r}" for name in shown])
        return f"{self.__class__.__qualname__}({inner})"

    if sys.version_info >= (3, 13):
        # 3.13 compares field by field and returns the first false result (``a == b and ...``).
        def __eq__(self: Any, other: object) -> Any:
            if self is other:
                return True
            if other.__class__ is not self.__class__:
                return NotImplemented
            result: Any = True
            for name in compared:
                result = getattr(self, name) == getattr(other, name)
                if not result:
                    return result
            return result
    else:
        # 3.10 to 3.12 compare tuples of the fields, where an identical value is equal.
        def __eq__(self: Any, other: object) -> Any:
            if other.__class__ is self.__class__:
                return compared_values(self) == compared_values(other)
            return NotImplemented

    methods: dict[str, Any] = {"__repr__": __repr__, "__eq__": __eq__, "__hash__": None}
    if frozen:

        def __hash__(self: Any) -> int:
            return hash(hashed_values(self))

        def __setattr__(self: Any, name: str, value: Any) -> None:
            if type(self) is cls or name in names:
                raise FrozenInstanceError(f"cannot assign to field {name!r}")
            super(cls, self).__setattr__(name, value)

        def __delattr__(self: Any, name: str) -> None:
            if type(self) is cls or name in names:
                raise FrozenInstanceError(f"cannot delete field {name!r}")
            super(cls, self).__delattr__(name)

        methods.update(__hash__=__hash__, __setattr__=__setattr__, __delattr__=__delattr__)
    for name, method in methods.items():
        if method is not None:
            method.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)
    # The parameters say what the class now has, as ``@dataclass(init=init, frozen=frozen)``
    # would; ``dataclass`` reads ``frozen`` from here when a dataclass subclasses this one.
    params: Any = getattr(cls, "__dataclass_params__")  # noqa: B009 - not typed on a class
    params.init = init
    params.repr = params.eq = True
    params.frozen = frozen
    return made


if TYPE_CHECKING:
    # Type checkers read each class as the plain dataclass it behaves as.
    from dataclasses import dataclass as _dataclass
else:

    def _dataclass(*, init: bool = True, frozen: bool = False) -> Callable[[_Class], _Class]:
        """Make a dataclass as ``@dataclass(init=init, frozen=frozen)`` does, compiling nothing."""
        return lambda cls: _made_dataclass(cls, init, frozen)


def _type_name(value: object) -> str:
    return type(value).__name__


def _check_count(name: str, value: object, *, optional: bool = False) -> None:
    # bool is an int subclass, but True tokens is always a mistake.
    if isinstance(value, int) and not isinstance(value, bool):
        return
    if optional and value is None:
        return
    wanted = "an int or None" if optional else "an int"
    raise TypeError(f"Usage.{name} must be {wanted}, got {_type_name(value)}.")


def _details(name: str, value: Any) -> list[dict[str, Any]]:
    if value is None:
        return []
    if isinstance(value, Mapping):
        return [dict(cast("Mapping[str, Any]", value))]
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(
            f"Usage.{name} must be a mapping, a list of mappings or None, got {_type_name(value)}."
        )
    entries: list[dict[str, Any]] = []
    for position, entry in enumerate(cast("Iterable[object]", value)):
        if not isinstance(entry, Mapping):
            raise TypeError(f"Usage.{name}[{position}] must be a mapping, got {_type_name(entry)}.")
        entries.append(dict(cast("Mapping[str, Any]", entry)))
    return entries


def _request_usage_entry(position: int, entry: object) -> dict[str, Any]:
    where = f"request_usage_entries[{position}]"
    if not isinstance(entry, Mapping):
        raise TypeError(f"Usage.{where} must be a mapping, got {_type_name(entry)}.")
    entry = cast("Mapping[str, Any]", entry)
    for key in ("input_tokens", "output_tokens", "total_tokens"):
        _check_count(f"{where}[{key!r}]", entry.get(key), optional=True)
    for key in ("input_tokens_details", "output_tokens_details"):
        details = entry.get(key)
        if details is not None and not isinstance(details, Mapping):
            raise TypeError(
                f"Usage.{where}[{key!r}] must be a mapping or None, got {_type_name(details)}."
            )
    input_tokens = entry.get("input_tokens") or 0
    output_tokens = entry.get("output_tokens") or 0
    total = entry.get("total_tokens")
    normalized: dict[str, Any] = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens if total is None else total,
        "input_tokens_details": dict(entry.get("input_tokens_details") or {}),
        "output_tokens_details": dict(entry.get("output_tokens_details") or {}),
    }
    if entry.get("endpoint") is not None:
        normalized["endpoint"] = entry["endpoint"]
    return normalized


# The __init__ is written out (init=False) because its parameters take more shapes than the
# fields hold: a details field is always a list, but a single mapping or None is accepted.
@_dataclass(init=False)
class Usage:
    """Token usage of one model response.

    ``total_tokens`` defaults to ``input_tokens + output_tokens``. A single details mapping
    is wrapped in a one-element list; an empty ``request_usage_entries`` becomes ``None``.
    """

    requests: int = 1
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int | None = None
    input_tokens_details: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    output_tokens_details: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    request_usage_entries: list[dict[str, Any]] | None = None

    def __init__(
        self,
        requests: int = 1,
        input_tokens: int = 0,
        output_tokens: int = 0,
        total_tokens: int | None = None,
        input_tokens_details: Mapping[str, Any] | Iterable[Mapping[str, Any]] | None = None,
        output_tokens_details: Mapping[str, Any] | Iterable[Mapping[str, Any]] | None = None,
        request_usage_entries: Iterable[Mapping[str, Any]] | None = None,
    ) -> None:
        # Checked here, so a wrong field fails where it was written, not deep in a later call.
        _check_count("requests", requests)
        _check_count("input_tokens", input_tokens)
        _check_count("output_tokens", output_tokens)
        _check_count("total_tokens", total_tokens, optional=True)
        self.requests = requests
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.total_tokens = input_tokens + output_tokens if total_tokens is None else total_tokens
        self.input_tokens_details = _details("input_tokens_details", input_tokens_details)
        self.output_tokens_details = _details("output_tokens_details", output_tokens_details)
        self.request_usage_entries = None
        entries: Any = request_usage_entries
        if entries is not None:
            kind = _type_name(entries)
            if isinstance(entries, (str, bytes, Mapping)) or not isinstance(entries, Iterable):
                raise TypeError(
                    f"Usage.request_usage_entries must be a list of mappings or None, got {kind}."
                )
            normalized = [
                _request_usage_entry(position, entry)
                for position, entry in enumerate(cast("Iterable[object]", entries))
            ]
            self.request_usage_entries = normalized or None

    @classmethod
    def _one_request(cls) -> "Usage":
        """Return ``Usage(requests=1)``, made without checking arguments it has none of.

        Every call served from a plain list of items reports this usage.
        """
        usage = object.__new__(cls)
        usage.__dict__.update(
            requests=1,
            input_tokens=0,
            output_tokens=0,
            total_tokens=0,
            input_tokens_details=[],
            output_tokens_details=[],
            request_usage_entries=None,
        )
        return usage


@_dataclass()
class ModelResponse:
    """A full model response: output items plus usage and ids."""

    output: list[Any]
    usage: Usage
    response_id: str | None = None
    request_id: str | None = None
    provider_data: Any = None
    raw_usage: Any = None

    def __init__(
        self,
        output: list[Any],
        usage: Usage,
        response_id: str | None = None,
        request_id: str | None = None,
        provider_data: Any = None,
        raw_usage: Any = None,
    ) -> None:
        self.output = output
        self.usage = usage
        self.response_id = response_id
        self.request_id = request_id
        self.provider_data = provider_data
        self.raw_usage = raw_usage


@_dataclass(frozen=True)
class ModelRequest:
    """What the code under test sent across the model boundary.

    Adapters fill ``input`` and the other fields from the framework's own call; ``extra``
    holds adapter-specific data that has no normalized field.
    """

    input: str | list[Any]
    system_instructions: str | None = None
    model_settings: Mapping[str, Any] = field(default_factory=dict[str, Any])
    tools: Sequence[Any] = ()
    handoffs: Sequence[Any] = ()
    output_type: Any = None
    tracing: Any = None
    signal: Any = None
    previous_response_id: str | None = None
    conversation_id: str | None = None
    prompt: Any = None
    extra: Mapping[str, Any] = field(default_factory=dict[str, Any])

    def __init__(
        self,
        input: str | list[Any],  # noqa: A002 - the field's own name
        system_instructions: str | None = None,
        model_settings: Mapping[str, Any] = _FACTORY,
        tools: Sequence[Any] = (),
        handoffs: Sequence[Any] = (),
        output_type: Any = None,
        tracing: Any = None,
        signal: Any = None,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
        prompt: Any = None,
        extra: Mapping[str, Any] = _FACTORY,
    ) -> None:
        # Frozen: set the fields as the generated __init__ does, past the refusing __setattr__.
        set_field = object.__setattr__
        set_field(self, "input", input)
        set_field(self, "system_instructions", system_instructions)
        set_field(self, "model_settings", {} if model_settings is _FACTORY else model_settings)
        set_field(self, "tools", tools)
        set_field(self, "handoffs", handoffs)
        set_field(self, "output_type", output_type)
        set_field(self, "tracing", tracing)
        set_field(self, "signal", signal)
        set_field(self, "previous_response_id", previous_response_id)
        set_field(self, "conversation_id", conversation_id)
        set_field(self, "prompt", prompt)
        set_field(self, "extra", {} if extra is _FACTORY else extra)

    # Read helpers: ``input``, ``tools`` and ``handoffs`` keep each framework's own shapes
    # (they are the contract); these read them the same way on every adapter.

    @property
    def tool_names(self) -> tuple[str, ...]:
        """Return the names of the tools offered in this request, in order.

        Reads a ``name`` attribute (openai-agents tools, pydantic-ai ``ToolDefinition``) or
        a ``name`` / ``function.name`` key (OpenAI-format tool dicts, as LangChain binds them).
        Handoffs are not tools here: see ``handoff_names``.
        """
        return tuple(name for name in map(_tool_name, _entries(self.tools)) if name is not None)

    @property
    def handoff_names(self) -> tuple[str, ...]:
        """Return the tool names the model sees for this request's handoffs, in order.

        These are the names a scripted ``function_call`` uses to hand off (for example
        ``"transfer_to_billing"``). Frameworks without handoffs record none.
        """
        names: list[str] = []
        for handoff in _entries(self.handoffs):
            name: Any = getattr(handoff, "tool_name", None)
            if isinstance(handoff, Mapping):
                fields = cast("Mapping[str, Any]", handoff)
                name = fields.get("tool_name") or fields.get("name")
            if isinstance(name, str):
                names.append(name)
            else:
                other = _tool_name(handoff)
                if other is not None:
                    names.append(other)
        return tuple(names)

    @property
    def last_user_text(self) -> str | None:
        """Return the text of the last user message in ``input``, or ``None`` if there is none.

        A string ``input`` is the user's text; a message whose content is a list of parts
        has its text parts joined.
        """
        if isinstance(self.input, str):
            return self.input
        for item in reversed(_entries(self.input)):
            if isinstance(item, Mapping):
                message = cast("Mapping[str, Any]", item)
                if message.get("role") == "user" and message.get("type", "message") == "message":
                    return _content_text(message.get("content"))
        return None

    @property
    def tool_outputs(self) -> dict[str, Any]:
        """Return the tool outputs in ``input`` by call id (``function_call_output`` items).

        Later outputs for the same call id replace earlier ones; values are the items'
        ``output`` as recorded (usually a string).
        """
        outputs: dict[str, Any] = {}
        for item in _entries(self.input):
            if isinstance(item, Mapping):
                output_item = cast("Mapping[str, Any]", item)
                kind = output_item.get("type")
                call_id = output_item.get("call_id")
                if (
                    isinstance(kind, str)
                    and kind.endswith("_call_output")
                    and isinstance(call_id, str)
                ):
                    outputs[call_id] = output_item.get("output")
        return outputs


def _entries(value: object) -> list[Any]:
    # A request built by hand may hold anything; the read helpers then find nothing in it
    # rather than fail in the middle of a test's assertion.
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray)):
        entries: Sequence[Any] = value  # pyright: ignore[reportUnknownVariableType]
        return list(entries)
    return []


def _tool_name(tool: Any) -> str | None:
    name: Any
    if isinstance(tool, Mapping):
        spec = cast("Mapping[str, Any]", tool)
        name = spec.get("name")
        function: Any = spec.get("function")
        if name is None and isinstance(function, Mapping):
            name = cast("Mapping[str, Any]", function).get("name")
    else:
        name = getattr(tool, "name", None)
    return name if isinstance(name, str) else None


def _content_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts: list[Any] = content  # pyright: ignore[reportUnknownVariableType]
    texts: list[str] = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, Mapping):
            text: Any = cast("Mapping[str, Any]", part).get("text")
            if isinstance(text, str):
                texts.append(text)
    return "".join(texts)


@_dataclass()
class ModelRetryAdvice:
    """The model's advice on whether and when a failed request may be retried."""

    suggested: bool | None = None
    retry_after: float | None = None
    replay_safety: Literal["safe", "unsafe"] | None = None
    reason: str | None = None
    response_started: bool | None = None
    provider_data: Any = None

    def __init__(
        self,
        suggested: bool | None = None,
        retry_after: float | None = None,
        replay_safety: Literal["safe", "unsafe"] | None = None,
        reason: str | None = None,
        response_started: bool | None = None,
        provider_data: Any = None,
    ) -> None:
        self.suggested = suggested
        self.retry_after = retry_after
        self.replay_safety = replay_safety
        self.reason = reason
        self.response_started = response_started
        self.provider_data = provider_data


@_dataclass()
class RetryAdviceRequest:
    """A runner's question about a failed request: which error, which mode, which attempt."""

    error: BaseException
    stream: bool
    attempt: int
    request: ModelRequest | None = None

    def __init__(
        self,
        error: BaseException,
        stream: bool,
        attempt: int,
        request: ModelRequest | None = None,
    ) -> None:
        self.error = error
        self.stream = stream
        self.attempt = attempt
        self.request = request


class ResponseStartedEvent(TypedDict):
    type: Literal["response_started"]


class _OutputTextDeltaEventRequired(TypedDict):
    type: Literal["output_text_delta"]
    item_id: str | None
    delta: str


class OutputTextDeltaEvent(_OutputTextDeltaEventRequired, total=False):
    provider_data: Any


class UsagePayload(TypedDict):
    requests: int
    input_tokens: int
    output_tokens: int
    total_tokens: int
    input_tokens_details: list[dict[str, Any]] | None
    output_tokens_details: list[dict[str, Any]] | None
    request_usage_entries: list[dict[str, Any]] | None


class ResponseDonePayload(TypedDict):
    id: str | None
    request_id: str | None
    usage: UsagePayload
    raw_usage: Any
    provider_data: Any
    output: list[Any]


class ResponseDoneEvent(TypedDict):
    type: Literal["response_done"]
    response: ResponseDonePayload


# Used by the adapters' streams (a private helper of the package, not of this module).
def _done_response(response: object) -> Mapping[str, Any]:  # pyright: ignore[reportUnusedFunction]
    """Return a hand-written ``response_done`` event's response, or say what is wrong with it.

    The adapters' streams read the response's ``output`` and ``usage``: a ``TypeError`` here
    names the first part of the wrong shape and how to script it. The output is required (the
    framework's final response is built from it), the usage is not.
    """
    if not isinstance(response, Mapping):
        raise TypeError(
            f"its response is a {_type_name(response)}, not a mapping; script it as "
            '{"type": "response_done", "response": {"output": [...], "usage": {...}}}.'
        )
    payload = cast("Mapping[str, Any]", response)
    output = payload.get("output")
    if output is None:
        raise TypeError(
            "its response has no output; script the output items as a list, such as "
            '"output": [assistant_message(...)], or "output": [] for none.'
        )
    if not isinstance(output, (list, tuple)):
        raise TypeError(
            f"its response's output is a {_type_name(output)}, not a list of output items; "
            "script it as a list, such as [assistant_message(...)]."
        )
    usage = payload.get("usage")
    if usage is not None and not isinstance(usage, Mapping):
        raise TypeError(
            f"its response's usage is a {_type_name(usage)}, not a mapping; script it as "
            '{"input_tokens": ..., "output_tokens": ...} or leave it out.'
        )
    if usage:
        try:
            Usage(**cast("Mapping[str, Any]", usage))  # the checks of each usage field
        except TypeError as error:
            raise TypeError(
                f"its response's usage cannot be read: {error} Fix it or leave it out."
            ) from error
    return payload


class ModelEvent(TypedDict):
    type: Literal["model"]
    event: Any


StreamEvent = ResponseStartedEvent | OutputTextDeltaEvent | ResponseDoneEvent | ModelEvent
