"""The exact errors of the trace tree and the edges its tests did not pin (standard library only).

Each message names what was wrong (the span, the attribute, the path into a value, the type
found) and how to fix it; the edges are the nesting limit, the attribute filters' order and a
token count of zero.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agents_testing import (
    GENAI_MODEL_OPERATIONS,
    GenAIConventionError,
    SpanRecord,
    TraceSpan,
    TraceTree,
    check_genai_conventions,
    normalize_trace,
)

_NOT_JSON = (
    ", not JSON-like data (str, int, float, bool, None, list, tuple, mapping); convert it in "
    "the collector or leave the attribute out with ignore=."
)


def _span(**fields: Any) -> list[SpanRecord]:
    return [SpanRecord(fields.pop("span_id", 1), fields.pop("parent_id", None), "s", "k", **fields)]


@pytest.mark.parametrize(
    ("build", "error_type", "message"),
    [
        (
            lambda: normalize_trace("spans"),  # type: ignore[arg-type]
            TypeError,
            "normalize_trace records must be an iterable of SpanRecord, got str.",
        ),
        (
            lambda: normalize_trace([{"name": "x"}]),  # type: ignore[list-item]
            TypeError,
            "normalize_trace records[0] must be a SpanRecord, got dict.",
        ),
        (
            lambda: normalize_trace([SpanRecord(1, None, "s", 5)]),  # type: ignore[arg-type]
            TypeError,
            "normalize_trace records[0].kind must be a str, got int.",
        ),
        (
            lambda: normalize_trace(_span(parent_id=[2])),
            TypeError,
            "normalize_trace records[0] span_id and parent_id must be hashable.",
        ),
        (
            lambda: normalize_trace(_span(attributes=[1])),
            TypeError,
            "normalize_trace records[0].attributes must be a mapping, got list.",
        ),
        (
            lambda: normalize_trace(_span(attributes={1: 2})),
            TypeError,
            "normalize_trace span 's' has an attribute named by a int; attribute names are str.",
        ),
        (
            lambda: normalize_trace(_span(attributes={"a": {"k": [1, b"x"]}})),
            TypeError,
            "normalize_trace span 's' attribute 'a'['k'][1] is a bytes" + _NOT_JSON,
        ),
        (
            lambda: normalize_trace(_span(attributes={"error": object()})),
            TypeError,
            "normalize_trace span 's' attribute 'error' is a object" + _NOT_JSON,
        ),
        (
            lambda: normalize_trace(_span(error={"message": object()})),
            TypeError,
            "normalize_trace span 's' error['message'] is a object" + _NOT_JSON,
        ),
        (
            lambda: normalize_trace(_span(attributes={"a": {1: 2}})),
            TypeError,
            "normalize_trace span 's' attribute 'a' has a key of type int; mapping keys must "
            "be str.",
        ),
        (
            lambda: normalize_trace([*_span(), *_span()]),
            ValueError,
            "normalize_trace records[1] repeats span id 1; each captured span needs its own id.",
        ),
        (
            lambda: normalize_trace([*_span(parent_id=2), *_span(span_id=2, parent_id=1)]),
            ValueError,
            "normalize_trace span 's' (id 1) is its own ancestor: its parent links form a "
            "cycle, so it has no root. Check the collector's parent ids.",
        ),
        (
            lambda: normalize_trace([], attributes="gen_ai.*"),
            TypeError,
            "normalize_trace attributes must be an iterable of name patterns (str), got str; "
            "wrap a single pattern in a tuple.",
        ),
        (
            lambda: normalize_trace([], ignore=5),  # type: ignore[arg-type]
            TypeError,
            "normalize_trace ignore must be an iterable of name patterns (str), got int; "
            "wrap a single pattern in a tuple.",
        ),
        (
            lambda: normalize_trace([], ignore=["a", 1]),  # type: ignore[list-item]
            TypeError,
            "normalize_trace ignore must hold name patterns (str), got int.",
        ),
        (
            lambda: check_genai_conventions([1]),  # type: ignore[arg-type]
            TypeError,
            "check_genai_conventions tree must be a TraceTree, got list; build one with a "
            "capture's tree() or normalize_trace().",
        ),
        (
            lambda: check_genai_conventions(TraceTree(), operations="chat"),
            TypeError,
            "check_genai_conventions operations must be an iterable of operation names (str).",
        ),
        (
            lambda: check_genai_conventions(TraceTree(), operations=[1]),  # type: ignore[list-item]
            TypeError,
            "check_genai_conventions operations must hold operation names (str).",
        ),
        (
            lambda: TraceSpan("n", 3),  # type: ignore[arg-type]
            TypeError,
            "TraceSpan name and kind must be str.",
        ),
        (
            lambda: TraceSpan("n", "k", attributes=[]),  # type: ignore[arg-type]
            TypeError,
            "TraceSpan attributes must be a dict, got list.",
        ),
        (
            lambda: TraceSpan("n", "k", children="ab"),  # type: ignore[arg-type]
            TypeError,
            "TraceSpan children must be a tuple of TraceSpan, got str.",
        ),
        (
            lambda: TraceTree((TraceSpan("n", "k"), 2)),  # type: ignore[arg-type]
            TypeError,
            "TraceTree roots must hold TraceSpan objects, got int.",
        ),
    ],
)
def test_each_error_says_what_was_wrong_and_where(
    build: Callable[[], object], error_type: type[Exception], message: str
) -> None:
    with pytest.raises(error_type) as raised:
        build()

    assert str(raised.value) == message


def test_a_value_that_contains_itself_names_the_path_to_it() -> None:
    looped: dict[str, Any] = {}
    looped["self"] = looped

    with pytest.raises(ValueError, match="contains itself") as raised:
        normalize_trace(_span(attributes={"a": looped}))

    assert str(raised.value) == (
        "normalize_trace span 's' attribute 'a'['self'] contains itself; leave the attribute "
        "out with ignore=."
    )


def _nested(levels: int, container: str) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = [value] if container == "list" else {"k": value}
    return value


@pytest.mark.parametrize("container", ["list", "dict"])
def test_values_nest_up_to_64_levels_and_no_deeper(container: str) -> None:
    kept = normalize_trace(_span(attributes={"a": _nested(64, container)}))
    step = "[0]" if container == "list" else "['k']"

    assert kept.roots[0].attributes["a"] == _nested(64, container)
    with pytest.raises(ValueError, match="nests deeper") as raised:
        normalize_trace(_span(attributes={"a": _nested(65, container)}))
    assert str(raised.value) == (
        f"normalize_trace span 's' attribute 'a'{step * 64} nests deeper than 64 levels; "
        "flatten the value or leave the attribute out with ignore=."
    )
    with pytest.raises(ValueError, match="nests deeper than 64 levels"):
        normalize_trace(_span(error=_nested(65, container)))


def test_nan_reads_as_the_text_nan_in_the_tree() -> None:
    tree = normalize_trace(_span(attributes={"v": [float("nan"), 1.5]}))

    assert tree.as_data() == [{"name": "s", "kind": "k", "attributes": {"v": ["NaN", 1.5]}}]


def test_a_filtered_out_attribute_does_not_hide_the_ones_after_it() -> None:
    attributes = {"z.other": 1, "gen_ai.a": 2, "secret": 3, "gen_ai.b": 4}

    kept = normalize_trace(_span(attributes=attributes), attributes=["gen_ai.*", "secret"])
    dropped = normalize_trace(_span(attributes=attributes), ignore=["z.*", "secret"])

    assert kept.roots[0].attributes == {"gen_ai.a": 2, "gen_ai.b": 4, "secret": 3}
    assert dropped.roots[0].attributes == {"gen_ai.a": 2, "gen_ai.b": 4}


_CHAT: dict[str, Any] = {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": "agents-testing",
    "gen_ai.request.model": "scripted",
    "gen_ai.response.model": "scripted",
    "gen_ai.usage.input_tokens": 0,
    "gen_ai.usage.output_tokens": 0,
    "gen_ai.response.finish_reasons": ["stop"],
}


def test_zero_tokens_is_a_well_formed_count() -> None:
    tree = normalize_trace(_span(attributes=_CHAT))

    assert check_genai_conventions(tree) == tree.roots


def test_convention_errors_carry_the_operations_checked() -> None:
    missing = normalize_trace(_span(attributes={**_CHAT, "gen_ai.operation.name": "embeddings"}))
    broken = normalize_trace(_span(attributes={**_CHAT, "gen_ai.request.model": ""}))

    with pytest.raises(GenAIConventionError) as none_found:
        check_genai_conventions(missing)
    with pytest.raises(GenAIConventionError) as malformed:
        check_genai_conventions(broken, operations=["text_completion", "chat"])

    assert none_found.value.operations == tuple(sorted(GENAI_MODEL_OPERATIONS))
    assert "['chat', 'generate_content', 'text_completion']" in str(none_found.value)
    assert malformed.value.operations == ("chat", "text_completion")
    assert (malformed.value.span_name, malformed.value.span_index) == ("s", 0)
    assert (malformed.value.attribute, malformed.value.reason) == (
        "gen_ai.request.model",
        "malformed",
    )
    assert malformed.value.value == ""
