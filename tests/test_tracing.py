"""The normalized trace tree and the GenAI semantic-convention check (standard library only)."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents_testing import (
    GenAIConventionError,
    SpanRecord,
    TraceSpan,
    TraceTree,
    check_genai_conventions,
    normalize_trace,
)

CHAT_ATTRIBUTES: dict[str, Any] = {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": "agents-testing",
    "gen_ai.request.model": "scripted",
    "gen_ai.response.model": "scripted",
    "gen_ai.usage.input_tokens": 12,
    "gen_ai.usage.output_tokens": 3,
    "gen_ai.response.finish_reasons": ("stop",),
}


def chat_trace(**changes: Any) -> TraceTree:
    """Return an agent span with one well-formed chat span, attributes changed as given."""
    attributes = {**CHAT_ATTRIBUTES, **changes}
    attributes = {name: value for name, value in attributes.items() if value is not _REMOVED}
    return normalize_trace(
        [
            SpanRecord("a", None, "invoke_agent agent", "invoke_agent"),
            SpanRecord("b", "a", "chat scripted", "chat", attributes),
        ]
    )


_REMOVED: Any = object()


def test_records_become_a_tree_in_start_order_without_ids() -> None:
    records = [
        SpanRecord(7, None, "workflow", "trace"),
        SpanRecord(3, 7, "first", "agent", {"b": 1, "a": (1, 2)}),
        SpanRecord(9, 3, "inner", "generation", {"nested": {"k": [("x",)]}}),
        SpanRecord(1, 7, "second", "function", error={"message": "boom"}),
    ]

    tree = normalize_trace(records)

    assert tree.as_data() == [
        {
            "name": "workflow",
            "kind": "trace",
            "children": [
                {
                    "name": "first",
                    "kind": "agent",
                    "attributes": {"a": [1, 2], "b": 1},
                    "children": [
                        {
                            "name": "inner",
                            "kind": "generation",
                            "attributes": {"nested": {"k": [["x"]]}},
                        }
                    ],
                },
                {"name": "second", "kind": "function", "error": {"message": "boom"}},
            ],
        }
    ]
    # Attribute keys are sorted, so a snapshot does not depend on the order a framework set them.
    assert list(tree.roots[0].children[0].attributes) == ["a", "b"]


def test_a_span_whose_parent_was_not_captured_is_a_root() -> None:
    tree = normalize_trace(
        [SpanRecord("x", "missing", "orphan", "chat"), SpanRecord("y", None, "root", "trace")]
    )

    assert [root.name for root in tree.roots] == ["orphan", "root"]


def test_attributes_keeps_only_matching_names_and_ignore_drops_names() -> None:
    record = SpanRecord(
        1,
        None,
        "chat",
        "chat",
        {"gen_ai.request.model": "m", "gen_ai.conversation.id": "u", "x": 1},
    )

    kept = normalize_trace([record], attributes=["gen_ai.*"], ignore=["*.conversation.id"])

    assert kept.roots[0].attributes == {"gen_ai.request.model": "m"}


def test_shape_keeps_names_kinds_and_links_only() -> None:
    tree = chat_trace()

    assert tree.shape() == TraceTree(
        (
            TraceSpan(
                "invoke_agent agent", "invoke_agent", children=(TraceSpan("chat scripted", "chat"),)
            ),
        )
    )


def test_spans_filters_by_kind_and_name_depth_first() -> None:
    tree = chat_trace()

    assert [span.name for span in tree.spans()] == ["invoke_agent agent", "chat scripted"]
    assert [span.name for span in tree.spans(kind="chat")] == ["chat scripted"]
    assert tree.spans(name="nothing") == ()


def test_as_data_is_detached_from_the_tree() -> None:
    tree = normalize_trace([SpanRecord(1, None, "s", "k", {"a": [1]})])

    data = tree.as_data()
    data[0]["attributes"]["a"].append(2)

    assert tree.roots[0].attributes == {"a": [1]}


def test_a_deep_chain_of_spans_does_not_exhaust_the_stack() -> None:
    records = [SpanRecord(0, None, "s0", "k")]
    records += [SpanRecord(i, i - 1, f"s{i}", "k") for i in range(1, 5000)]

    tree = normalize_trace(records)

    assert len(tree.spans()) == 5000


def test_nan_is_normalized_so_equal_traces_compare_equal() -> None:
    def build() -> TraceTree:
        return normalize_trace([SpanRecord(1, None, "s", "k", {"v": float("nan")})])

    assert build() == build()


@pytest.mark.parametrize(
    ("records", "error_type", "words"),
    [
        ("spans", TypeError, "records must be an iterable of SpanRecord"),
        ([{"name": "x"}], TypeError, "records[0] must be a SpanRecord"),
        ([SpanRecord(1, None, 5, "k")], TypeError, "records[0].name must be a str"),  # type: ignore[arg-type]
        ([SpanRecord([1], None, "s", "k")], TypeError, "must be hashable"),  # type: ignore[arg-type]
        ([SpanRecord(1, None, "s", "k", [1])], TypeError, "attributes must be a mapping"),  # type: ignore[arg-type]
        ([SpanRecord(1, None, "s", "k", {1: 2})], TypeError, "attribute names are str"),  # type: ignore[dict-item]
        ([SpanRecord(1, None, "s", "k", {"a": object()})], TypeError, "not JSON-like"),
        ([SpanRecord(1, None, "s", "k", {"a": {1: 2}})], TypeError, "keys must be str"),
        ([SpanRecord(1, None, "s", "k"), SpanRecord(1, None, "t", "k")], ValueError, "repeats"),
        ([SpanRecord(1, 2, "s", "k"), SpanRecord(2, 1, "t", "k")], ValueError, "cycle"),
    ],
)
def test_malformed_records_raise_an_error_naming_the_problem(
    records: Any, error_type: type[Exception], words: str
) -> None:
    with pytest.raises(error_type, match=words.replace("[", r"\[").replace("]", r"\]")):
        normalize_trace(records)


def test_a_value_that_contains_itself_is_refused() -> None:
    looped: list[Any] = []
    looped.append(looped)

    with pytest.raises(ValueError, match="contains itself"):
        normalize_trace([SpanRecord(1, None, "s", "k", {"a": looped})])


def test_a_value_nested_too_deep_is_refused() -> None:
    deep: Any = "leaf"
    for _ in range(100):
        deep = [deep]

    with pytest.raises(ValueError, match="nests deeper than 64"):
        normalize_trace([SpanRecord(1, None, "s", "k", {"a": deep})])


@pytest.mark.parametrize(("argument", "value"), [("attributes", "gen_ai.*"), ("ignore", [1])])
def test_bad_patterns_name_the_argument(argument: str, value: Any) -> None:
    with pytest.raises(TypeError, match=f"normalize_trace {argument} must"):
        normalize_trace([], **{argument: value})


# GenAI conventions ----------------------------------------------------------------------


def test_a_well_formed_chat_span_passes_and_is_returned() -> None:
    tree = chat_trace()

    assert [span.name for span in check_genai_conventions(tree)] == ["chat scripted"]


def test_the_older_gen_ai_system_stands_in_for_the_provider_name() -> None:
    tree = chat_trace(**{"gen_ai.provider.name": _REMOVED, "gen_ai.system": "openai"})

    check_genai_conventions(tree)


REQUIRED = [
    "gen_ai.operation.name",
    "gen_ai.provider.name",
    "gen_ai.request.model",
    "gen_ai.response.model",
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "gen_ai.response.finish_reasons",
]


@pytest.mark.parametrize("attribute", REQUIRED[1:])
def test_removing_a_required_attribute_fails_with_its_name(attribute: str) -> None:
    tree = chat_trace(**{attribute: _REMOVED})

    with pytest.raises(GenAIConventionError) as raised:
        check_genai_conventions(tree)

    error = raised.value
    assert (error.span_name, error.span_index, error.attribute, error.reason) == (
        "chat scripted",
        0,
        attribute,
        "missing",
    )
    assert f"has no {attribute} attribute" in str(error)
    assert "Set it where the model call is traced" in str(error)


@pytest.mark.parametrize(
    ("attribute", "value"),
    [
        ("gen_ai.request.model", ""),
        ("gen_ai.response.model", 3),
        ("gen_ai.usage.input_tokens", -1),
        ("gen_ai.usage.output_tokens", True),
        ("gen_ai.usage.output_tokens", 2.5),
        ("gen_ai.response.finish_reasons", "stop"),
        ("gen_ai.response.finish_reasons", []),
        ("gen_ai.response.finish_reasons", ["stop", ""]),
        ("gen_ai.provider.name", None),
    ],
)
def test_a_malformed_attribute_fails_with_its_name_and_value(attribute: str, value: Any) -> None:
    tree = chat_trace(**{attribute: value})

    with pytest.raises(GenAIConventionError) as raised:
        check_genai_conventions(tree)

    assert (raised.value.attribute, raised.value.reason) == (attribute, "malformed")
    assert raised.value.value == value
    assert pickle.loads(pickle.dumps(raised.value)).attribute == attribute


def test_a_trace_without_model_calls_fails_instead_of_passing_on_nothing() -> None:
    tree = chat_trace(**{"gen_ai.operation.name": "execute_tool"})

    with pytest.raises(GenAIConventionError) as raised:
        check_genai_conventions(tree)

    assert raised.value.reason == "no_model_call_spans"
    assert raised.value.span_name is None
    assert "Turn on the framework's instrumentation" in str(raised.value)


def test_operations_choose_which_spans_are_model_calls() -> None:
    tree = chat_trace(**{"gen_ai.operation.name": "embeddings"})

    assert len(check_genai_conventions(tree, operations=["embeddings"])) == 1


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"tree": [1]}, "tree must be a TraceTree"),
        ({"tree": TraceTree(), "operations": "chat"}, "operations must be an iterable"),
        ({"tree": TraceTree(), "operations": [1]}, "operations must hold"),
    ],
)
def test_check_refuses_bad_arguments_with_a_type_error(
    arguments: dict[str, Any], words: str
) -> None:
    with pytest.raises(TypeError, match=words):
        check_genai_conventions(**arguments)


# Property tests: any input gives a tree, a structured error or a TypeError/ValueError ---------

json_leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5))
anything = st.recursive(
    st.one_of(json_leaves, st.builds(object), st.binary(max_size=3)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.tuples(inner),
        st.dictionaries(st.one_of(st.text(max_size=3), st.integers()), inner, max_size=3),
    ),
    max_leaves=10,
)
ids = st.one_of(st.none(), st.integers(0, 5), st.sampled_from(["a", "b"]))
records = st.builds(
    SpanRecord,
    span_id=ids,
    parent_id=ids,
    name=st.one_of(st.text(max_size=5), st.integers()),
    kind=st.text(max_size=5),
    attributes=st.one_of(st.dictionaries(st.text(max_size=5), anything, max_size=4), anything),
    error=anything,
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.lists(records, max_size=6), anything))
def test_normalize_trace_survives_any_input(value: Any) -> None:
    try:
        tree = normalize_trace(value)
    except (TypeError, ValueError):
        return
    assert isinstance(tree, TraceTree)
    assert tree == normalize_trace(value)  # the same records give an equal tree


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from([*REQUIRED, "gen_ai.system"]), anything, max_size=8))
def test_convention_check_survives_any_attributes(attributes: dict[str, Any]) -> None:
    try:
        tree = normalize_trace([SpanRecord(1, None, "chat", "chat", attributes)])
    except (TypeError, ValueError):
        return
    try:
        checked = check_genai_conventions(tree)
    except GenAIConventionError as error:
        failure = (error.attribute, error.reason)
    else:
        assert checked == tree.roots
        return
    assert failure[0] in [*REQUIRED, "gen_ai.system"]
    assert failure[1] in ("missing", "malformed", "no_model_call_spans")


@pytest.mark.parametrize(
    ("build", "words"),
    [
        (lambda: TraceTree([1]), "TraceTree roots must hold TraceSpan"),  # type: ignore[arg-type]
        (lambda: TraceTree("ab"), "TraceTree roots must be a tuple"),  # type: ignore[arg-type]
        (lambda: TraceSpan("n", "k", children=[2]), "children must hold"),  # type: ignore[arg-type]
        (lambda: TraceSpan("n", 3), "name and kind must be str"),  # type: ignore[arg-type]
        (lambda: TraceSpan("n", "k", attributes=[]), "attributes must be a dict"),  # type: ignore[arg-type]
    ],
)
def test_a_tree_built_by_hand_is_checked_when_built(build: Any, words: str) -> None:
    with pytest.raises(TypeError, match=words):
        build()


def test_a_tree_built_by_hand_from_lists_compares_equal_to_a_normalized_one() -> None:
    built = TraceTree([TraceSpan("root", "trace", children=[TraceSpan("c", "k")])])  # type: ignore[arg-type]

    assert built == normalize_trace(
        [SpanRecord(1, None, "root", "trace"), SpanRecord(2, 1, "c", "k")]
    )
