"""Read a captured trace as a normalized tree, and check its GenAI semantic-convention attributes.

A collector (``agents_testing.adapters.openai_agents.capture_openai_agents_trace``,
``agents_testing.adapters.opentelemetry.capture_otel_spans``,
``agents_testing.adapters.langchain.capture_langchain_runs``) turns what a framework traces
into ``SpanRecord``s, in the order the spans started. ``normalize_trace`` builds the tree:
each span keeps its name, its kind, the attributes that matter, its error and its children;
ids and timestamps are gone, so the same scripted run gives an equal tree every time and the
tree can be compared with a literal or an inline snapshot (``tree.as_data()``).

``check_genai_conventions(tree)`` checks the model-call spans of a tree against the
OpenTelemetry GenAI semantic conventions a tracing backend reads.

This module is standard library only.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import math
from collections.abc import Hashable, Iterable, Iterator, Mapping
from typing import Any, cast

from .errors import GenAIConventionError, GenAIConventionReason

__all__ = [
    "GENAI_MODEL_OPERATIONS",
    "SpanRecord",
    "TraceSpan",
    "TraceTree",
    "check_genai_conventions",
    "normalize_trace",
]

# The gen_ai.operation.name values of a call to a model (OpenTelemetry GenAI conventions).
GENAI_MODEL_OPERATIONS: frozenset[str] = frozenset({"chat", "generate_content", "text_completion"})

# Nesting deeper than this in one attribute value is refused rather than recursed into.
_MAX_DEPTH = 64


@dataclasses.dataclass(frozen=True)
class SpanRecord:
    """One captured span as a collector hands it to ``normalize_trace``.

    ``span_id`` and ``parent_id`` only link spans (any hashable values; they do not reach the
    tree). A span whose ``parent_id`` is ``None`` or names no captured span is a root.
    ``attributes`` values are JSON-like: ``str``, ``int``, ``float``, ``bool``, ``None``,
    lists or tuples of them, and mappings with ``str`` keys.
    """

    span_id: Hashable
    parent_id: Hashable | None
    name: str
    kind: str
    attributes: Mapping[str, Any] = dataclasses.field(default_factory=dict[str, Any])
    error: Any = None


@dataclasses.dataclass(frozen=True)
class TraceSpan:
    """One span of a normalized trace: name, kind, attributes, error and child spans.

    ``attributes`` is a plain ``dict`` with its keys sorted; values are JSON-like (tuples
    became lists). ``error`` is ``None`` for a span that did not fail.
    """

    name: str
    kind: str
    attributes: dict[str, Any] = dataclasses.field(default_factory=dict[str, Any])
    error: Any = None
    children: tuple[TraceSpan, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not isinstance(self.kind, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError("TraceSpan name and kind must be str.")
        if not isinstance(self.attributes, dict):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(
                f"TraceSpan attributes must be a dict, got {type(self.attributes).__name__}."
            )
        object.__setattr__(self, "children", _spans(self.children, "TraceSpan children"))

    def walk(self) -> Iterator[TraceSpan]:
        """Yield this span, then its descendants depth first, in start order."""
        pending: list[TraceSpan] = [self]
        while pending:
            span = pending.pop()
            yield span
            pending.extend(reversed(span.children))

    def as_data(self) -> dict[str, Any]:
        """Return the span as plain data: ``name``, ``kind``, ``attributes``, ``children``.

        ``error`` is present only when the span failed; ``attributes`` and ``children`` only
        when not empty, so a literal to compare with stays short.
        """
        data: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if self.attributes:
            data["attributes"] = _copy_value(self.attributes)
        if self.error is not None:
            data["error"] = _copy_value(self.error)
        if self.children:
            data["children"] = [child.as_data() for child in self.children]
        return data

    def shape(self) -> TraceSpan:
        """Return this span and its descendants with names and kinds only."""
        return TraceSpan(self.name, self.kind, children=tuple(c.shape() for c in self.children))


@dataclasses.dataclass(frozen=True)
class TraceTree:
    """A normalized trace: its root spans in start order."""

    roots: tuple[TraceSpan, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "roots", _spans(self.roots, "TraceTree roots"))

    def spans(self, *, kind: str | None = None, name: str | None = None) -> tuple[TraceSpan, ...]:
        """Return every span depth first, or only those of ``kind`` and/or ``name``."""
        return tuple(
            span
            for root in self.roots
            for span in root.walk()
            if (kind is None or span.kind == kind) and (name is None or span.name == name)
        )

    def as_data(self) -> list[dict[str, Any]]:
        """Return the roots as plain data (see ``TraceSpan.as_data``), for a literal or snapshot."""
        return [root.as_data() for root in self.roots]

    def shape(self) -> TraceTree:
        """Return the tree with names, kinds and parent links only: no attributes, no errors."""
        return TraceTree(tuple(root.shape() for root in self.roots))


def _spans(value: object, what: str) -> tuple[TraceSpan, ...]:
    kind = type(value).__name__
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise TypeError(f"{what} must be a tuple of TraceSpan, got {kind}.")
    spans: tuple[object, ...] = tuple(cast(Iterable[object], value))
    for span in spans:
        if not isinstance(span, TraceSpan):
            raise TypeError(f"{what} must hold TraceSpan objects, got {type(span).__name__}.")
    return cast(tuple[TraceSpan, ...], spans)


def normalize_trace(
    records: Iterable[SpanRecord],
    *,
    attributes: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
) -> TraceTree:
    """Build the normalized tree of captured spans.

    Args:
        records: The spans in the order they started; children keep that order.
        attributes: Keep only the attributes whose names match one of these ``fnmatch``
            patterns (``"gen_ai.*"``); ``None`` keeps every attribute.
        ignore: Drop the attributes whose names match one of these patterns (run-specific
            values such as generated conversation ids).

    Raises:
        TypeError: ``records`` is not an iterable of ``SpanRecord``, or an attribute value is
            not JSON-like; the message names the span and the attribute.
        ValueError: Two records share a span id, parent links form a cycle, or a value nests
            deeper than 64 levels or contains itself.
    """
    keep = _patterns(attributes, "attributes") if attributes is not None else None
    drop = _patterns(ignore, "ignore")
    given = type(records).__name__
    if isinstance(records, (str, bytes, Mapping)) or not isinstance(records, Iterable):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(f"normalize_trace records must be an iterable of SpanRecord, got {given}.")
    ordered: list[SpanRecord] = []
    ids: set[Hashable] = set()
    for position, record in enumerate(records):
        if not isinstance(record, SpanRecord):
            raise TypeError(
                f"normalize_trace records[{position}] must be a SpanRecord, got "
                f"{type(record).__name__}."
            )
        _check_record(record, position)
        if record.span_id in ids:
            raise ValueError(
                f"normalize_trace records[{position}] repeats span id {record.span_id!r}; "
                "each captured span needs its own id."
            )
        ids.add(record.span_id)
        ordered.append(record)
    children: dict[Hashable, list[SpanRecord]] = {}
    roots: list[SpanRecord] = []
    for record in ordered:
        if record.parent_id is None or record.parent_id not in ids:
            roots.append(record)
        else:
            children.setdefault(record.parent_id, []).append(record)

    placed: set[Hashable] = set()

    def build(record: SpanRecord) -> TraceSpan:
        # Iterative post-order: a long chain of nested spans must not exhaust the stack.
        stack: list[tuple[SpanRecord, list[TraceSpan]]] = [(record, [])]
        placed.add(record.span_id)
        pending = {record.span_id: iter(children.get(record.span_id, ()))}
        while True:
            current, built = stack[-1]
            child = next(pending[current.span_id], None)
            if child is not None:
                placed.add(child.span_id)
                pending[child.span_id] = iter(children.get(child.span_id, ()))
                stack.append((child, []))
                continue
            stack.pop()
            span = TraceSpan(
                name=current.name,
                kind=current.kind,
                attributes=_selected(current, keep, drop),
                error=_plain(current.error, current, "error"),
                children=tuple(built),
            )
            if not stack:
                return span
            stack[-1][1].append(span)

    tree = TraceTree(tuple(build(root) for root in roots))
    for record in ordered:
        if record.span_id not in placed:
            raise ValueError(
                f"normalize_trace span {record.name!r} (id {record.span_id!r}) is its own "
                "ancestor: its parent links form a cycle, so it has no root. Check the "
                "collector's parent ids."
            )
    return tree


def _patterns(value: Iterable[str], argument: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise TypeError(
            f"normalize_trace {argument} must be an iterable of name patterns (str), got "
            f"{type(value).__name__}; wrap a single pattern in a tuple."
        )
    patterns = tuple(value)
    for pattern in patterns:
        if not isinstance(pattern, str):
            raise TypeError(
                f"normalize_trace {argument} must hold name patterns (str), got "
                f"{type(pattern).__name__}."
            )
    return patterns


def _check_record(record: SpanRecord, position: int) -> None:
    for field in ("name", "kind"):
        value = getattr(record, field)
        if not isinstance(value, str):
            raise TypeError(
                f"normalize_trace records[{position}].{field} must be a str, got "
                f"{type(value).__name__}."
            )
    try:
        hash(record.span_id)
        hash(record.parent_id)
    except TypeError:
        raise TypeError(
            f"normalize_trace records[{position}] span_id and parent_id must be hashable."
        ) from None
    if not isinstance(record.attributes, Mapping):
        raise TypeError(
            f"normalize_trace records[{position}].attributes must be a mapping, got "
            f"{type(record.attributes).__name__}."
        )


def _selected(
    record: SpanRecord, keep: tuple[str, ...] | None, drop: tuple[str, ...]
) -> dict[str, Any]:
    selected: dict[str, Any] = {}
    attributes: Mapping[Any, Any] = record.attributes
    for name in attributes:
        if not isinstance(name, str):
            raise TypeError(
                f"normalize_trace span {record.name!r} has an attribute named by a "
                f"{type(name).__name__}; attribute names are str."
            )
        if keep is not None and not any(fnmatch.fnmatchcase(name, p) for p in keep):
            continue
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in drop):
            continue
        selected[name] = _plain(attributes[name], record, f"attribute {name!r}")
    return dict(sorted(selected.items()))


def _plain(value: Any, record: SpanRecord, label: str) -> Any:
    """Return ``value`` as JSON-like plain data, refusing what a snapshot could not hold.

    ``label`` names the value in an error message (``"error"``, ``"attribute 'name'"``).
    """

    def convert(item: Any, depth: int, path: str, seen: frozenset[int]) -> Any:
        if item is None or isinstance(item, (str, bool, int)):
            return item
        if isinstance(item, float):
            # NaN never equals itself, which would make an equal trace compare unequal.
            return "NaN" if math.isnan(item) else item
        if depth >= _MAX_DEPTH:
            raise ValueError(
                f"normalize_trace span {record.name!r} {path} nests deeper than {_MAX_DEPTH} "
                "levels; flatten the value or leave the attribute out with ignore=."
            )
        if id(item) in seen:
            raise ValueError(
                f"normalize_trace span {record.name!r} {path} contains itself; leave the "
                "attribute out with ignore=."
            )
        inner = seen | {id(item)}
        if isinstance(item, Mapping):
            converted: dict[str, Any] = {}
            for key, entry in item.items():  # pyright: ignore[reportUnknownVariableType]
                if not isinstance(key, str):
                    raise TypeError(
                        f"normalize_trace span {record.name!r} {path} has a key of type "
                        f"{type(key).__name__}; mapping keys must be str."  # pyright: ignore[reportUnknownArgumentType]
                    )
                converted[key] = convert(entry, depth + 1, f"{path}[{key!r}]", inner)
            return converted
        if isinstance(item, (list, tuple)):
            return [
                convert(entry, depth + 1, f"{path}[{index}]", inner)
                for index, entry in enumerate(item)  # pyright: ignore[reportUnknownArgumentType, reportUnknownVariableType]
            ]
        raise TypeError(
            f"normalize_trace span {record.name!r} {path} is a {type(item).__name__}, not "
            "JSON-like data (str, int, float, bool, None, list, tuple, mapping); convert it "
            "in the collector or leave the attribute out with ignore=."
        )

    return convert(value, 0, label, frozenset())


def _copy_value(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy_value(entry) for key, entry in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list):
        return [_copy_value(entry) for entry in value]  # pyright: ignore[reportUnknownVariableType]
    return value


# GenAI semantic conventions -----------------------------------------------------------------


def check_genai_conventions(
    tree: TraceTree, *, operations: Iterable[str] = GENAI_MODEL_OPERATIONS
) -> tuple[TraceSpan, ...]:
    """Check the GenAI semantic-convention attributes of every model-call span of ``tree``.

    A model-call span is one whose ``gen_ai.operation.name`` is one of ``operations``
    (``chat``, ``generate_content``, ``text_completion``). Each must carry, well-formed:
    ``gen_ai.operation.name``, ``gen_ai.provider.name`` (or the older ``gen_ai.system``),
    ``gen_ai.request.model`` and ``gen_ai.response.model`` (non-empty strings),
    ``gen_ai.usage.input_tokens`` and ``gen_ai.usage.output_tokens`` (integers >= 0), and
    ``gen_ai.response.finish_reasons`` (a non-empty list of non-empty strings).

    Returns the model-call spans checked, depth first.

    Raises:
        GenAIConventionError: A span misses an attribute or carries a malformed one, or the
            tree has no model-call span at all (a check that passes on nothing proves nothing).
        TypeError: ``tree`` is not a ``TraceTree``, or ``operations`` is not strings.
    """
    if not isinstance(tree, TraceTree):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError(
            f"check_genai_conventions tree must be a TraceTree, got {type(tree).__name__}; "
            "build one with a capture's tree() or normalize_trace()."
        )
    if isinstance(operations, str) or not isinstance(operations, Iterable):
        raise TypeError(
            "check_genai_conventions operations must be an iterable of operation names (str)."
        )
    wanted = frozenset(operations)
    if not all(isinstance(name, str) for name in wanted):
        raise TypeError("check_genai_conventions operations must hold operation names (str).")
    model_spans = tuple(span for span in tree.spans() if _operation(span.attributes) in wanted)
    if not model_spans:
        raise GenAIConventionError(
            span_name=None,
            span_index=None,
            attribute="gen_ai.operation.name",
            reason="no_model_call_spans",
            operations=tuple(sorted(wanted)),
        )
    for index, span in enumerate(model_spans):
        problem = _convention_problem(span.attributes)
        if problem is not None:
            attribute, reason = problem
            raise GenAIConventionError(
                span_name=span.name,
                span_index=index,
                attribute=attribute,
                reason=reason,
                value=span.attributes.get(attribute),
                operations=tuple(sorted(wanted)),
            )
    return model_spans


def _operation(attributes: Mapping[str, Any]) -> str | None:
    operation = attributes.get("gen_ai.operation.name")
    return operation if isinstance(operation, str) else None


def _non_empty_str(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def _token_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _finish_reasons(value: Any) -> bool:
    if not isinstance(value, list):
        return False
    entries = cast(list[object], value)
    return bool(entries) and all(_non_empty_str(entry) for entry in entries)


_REQUIRED: tuple[tuple[str, Any], ...] = (
    ("gen_ai.operation.name", _non_empty_str),
    ("gen_ai.request.model", _non_empty_str),
    ("gen_ai.response.model", _non_empty_str),
    ("gen_ai.usage.input_tokens", _token_count),
    ("gen_ai.usage.output_tokens", _token_count),
    ("gen_ai.response.finish_reasons", _finish_reasons),
)


def _convention_problem(attributes: Mapping[str, Any]) -> tuple[str, GenAIConventionReason] | None:
    provider = "gen_ai.provider.name"
    if provider not in attributes and "gen_ai.system" in attributes:
        provider = "gen_ai.system"  # the name before semantic conventions 1.37
    for name, well_formed in ((provider, _non_empty_str), *_REQUIRED):
        if name not in attributes:
            return name, "missing"
        if not well_formed(attributes[name]):
            return name, "malformed"
    return None
