"""Normalized items: the two builders, Usage, and the request/response records."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents_testing import items
from agents_testing.items import (
    ModelRequest,
    ModelResponse,
    ModelRetryAdvice,
    RetryAdviceRequest,
    Usage,
    assistant_message,
    function_call,
    shell_call,
)

# -- assistant_message --------------------------------------------------------------------


def test_assistant_message_builds_a_completed_text_message() -> None:
    item = assistant_message("hi")

    assert item == {
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "hi"}],
    }
    assert list(item) == ["type", "role", "status", "content"]


def test_assistant_message_adds_optional_keys_in_reference_order() -> None:
    provider_data = {"source": "test"}

    item = assistant_message("hi", id="msg-1", phase="final_answer", provider_data=provider_data)

    assert list(item) == ["type", "role", "status", "id", "phase", "content", "provider_data"]
    assert (item["id"], item["phase"]) == ("msg-1", "final_answer")
    assert item["provider_data"] is provider_data


@pytest.mark.parametrize(
    ("options", "keys"),
    [
        pytest.param({"id": "m"}, ["type", "role", "status", "id", "content"], id="id"),
        pytest.param({"phase": "p"}, ["type", "role", "status", "phase", "content"], id="phase"),
        pytest.param(
            {"provider_data": {}},
            ["type", "role", "status", "content", "provider_data"],
            id="provider-data",
        ),
        pytest.param({"id": ""}, ["type", "role", "status", "id", "content"], id="empty-id"),
    ],
)
def test_assistant_message_adds_only_the_given_optional_keys(
    options: dict[str, Any], keys: list[str]
) -> None:
    assert list(assistant_message("hi", **options)) == keys


def test_assistant_messages_do_not_share_content_lists() -> None:
    first, second = assistant_message("hi"), assistant_message("hi")

    first["content"].append({"type": "output_text", "text": "more"})

    assert second["content"] == [{"type": "output_text", "text": "hi"}]


# -- function_call ------------------------------------------------------------------------


def test_function_call_builds_every_key_in_reference_order() -> None:
    item = function_call("lookup", {"city": "Paris"}, call_id="call-1")

    assert item == {
        "type": "function_call",
        "name": "lookup",
        "call_id": "call-1",
        "id": "call-1",
        "namespace": None,
        "status": "completed",
        "arguments": '{"city":"Paris"}',
        "provider_data": None,
    }
    assert list(item) == [
        "type",
        "name",
        "call_id",
        "id",
        "namespace",
        "status",
        "arguments",
        "provider_data",
    ]


def test_function_call_keeps_the_given_id_namespace_and_provider_data() -> None:
    provider_data = {"trace": 1}

    item = function_call(
        "lookup", "{}", call_id="call-1", id="fc-1", namespace="tools", provider_data=provider_data
    )

    assert (item["id"], item["namespace"]) == ("fc-1", "tools")
    assert item["provider_data"] is provider_data


def test_function_call_keeps_an_empty_string_id() -> None:
    assert function_call("lookup", "{}", call_id="call-1", id="")["id"] == ""


@pytest.mark.parametrize(
    "arguments",
    ['{"city": "Paris"}', "not json at all", "", '{ "b" : 2, "a" : 1 }'],
)
def test_function_call_keeps_string_arguments_verbatim(arguments: str) -> None:
    assert function_call("f", arguments, call_id="c")["arguments"] == arguments


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param({"b": 2, "a": [1, 2]}, '{"b":2,"a":[1,2]}', id="compact-insertion-order"),
        pytest.param({"city": "Zürich 東京"}, '{"city":"Zürich 東京"}', id="non-ascii-kept"),
        pytest.param(None, "null", id="none"),
        pytest.param([1, "x", None], '[1,"x",null]', id="list"),
        pytest.param(7, "7", id="number"),
        pytest.param(True, "true", id="bool"),
        pytest.param({"nested": {"deep": {}}}, '{"nested":{"deep":{}}}', id="nested"),
    ],
)
def test_function_call_writes_other_arguments_as_compact_json(
    arguments: Any, expected: str
) -> None:
    assert function_call("f", arguments, call_id="c")["arguments"] == expected


def test_function_call_refuses_arguments_json_cannot_write() -> None:
    with pytest.raises(TypeError):
        function_call("f", {"when": object()}, call_id="c")


# -- Usage -----------------------------------------------------------------------------------


def test_usage_defaults() -> None:
    usage = Usage()

    assert dataclasses.astuple(usage) == (1, 0, 0, 0, [], [], None)


def test_usage_total_defaults_to_input_plus_output() -> None:
    assert Usage(input_tokens=3, output_tokens=4).total_tokens == 7


def test_usage_keeps_an_explicit_total() -> None:
    assert Usage(input_tokens=3, output_tokens=4, total_tokens=10).total_tokens == 10


def test_usage_keeps_zero_requests() -> None:
    assert Usage(requests=0).requests == 0


def test_usage_wraps_a_single_details_mapping_in_a_list() -> None:
    usage = Usage(input_tokens_details={"cached_tokens": 2}, output_tokens_details=None)

    assert usage.input_tokens_details == [{"cached_tokens": 2}]
    assert usage.output_tokens_details == []


def test_usage_copies_a_details_list() -> None:
    details = [{"cached_tokens": 2}]

    usage = Usage(input_tokens_details=details)

    assert usage.input_tokens_details == details
    assert usage.input_tokens_details is not details
    assert usage.input_tokens_details[0] is not details[0]


def test_usage_takes_any_iterable_of_details_mappings() -> None:
    usage = Usage(output_tokens_details=(entry for entry in [{"reasoning_tokens": 4}]))

    assert usage.output_tokens_details == [{"reasoning_tokens": 4}]


def test_usage_is_built_by_position_and_by_dataclasses_replace() -> None:
    usage = Usage(2, 3, 4, None, {"cached_tokens": 1})

    assert dataclasses.astuple(usage) == (2, 3, 4, 7, [{"cached_tokens": 1}], [], None)
    changed = dataclasses.replace(usage, requests=5)
    assert changed == Usage(5, 3, 4, 7, [{"cached_tokens": 1}])
    assert changed.input_tokens_details is not usage.input_tokens_details


def test_usage_turns_empty_request_usage_entries_into_none() -> None:
    assert Usage(request_usage_entries=[]).request_usage_entries is None


def test_usage_normalizes_request_usage_entries() -> None:
    usage = Usage(
        request_usage_entries=[
            {"input_tokens": 2, "output_tokens": 3},
            {
                "input_tokens": 1,
                "output_tokens": 1,
                "total_tokens": 5,
                "input_tokens_details": {"cached_tokens": 1},
                "endpoint": "responses",
            },
        ]
    )

    assert usage.request_usage_entries == [
        {
            "input_tokens": 2,
            "output_tokens": 3,
            "total_tokens": 5,
            "input_tokens_details": {},
            "output_tokens_details": {},
        },
        {
            "input_tokens": 1,
            "output_tokens": 1,
            "total_tokens": 5,
            "input_tokens_details": {"cached_tokens": 1},
            "output_tokens_details": {},
            "endpoint": "responses",
        },
    ]


# -- records ----------------------------------------------------------------------------------


def test_model_response_defaults() -> None:
    response = ModelResponse(output=[], usage=Usage())

    assert (
        response.response_id,
        response.request_id,
        response.provider_data,
        response.raw_usage,
    ) == (None, None, None, None)


def test_model_request_defaults() -> None:
    request = ModelRequest(input="hi")

    assert request == ModelRequest(
        input="hi",
        system_instructions=None,
        model_settings={},
        tools=(),
        handoffs=(),
        output_type=None,
        tracing=None,
        signal=None,
        previous_response_id=None,
        conversation_id=None,
        prompt=None,
        extra={},
    )


def test_model_requests_do_not_share_default_mappings() -> None:
    first, second = ModelRequest(input="a"), ModelRequest(input="b")

    assert first.model_settings is not second.model_settings
    assert first.extra is not second.extra


def test_model_request_is_frozen() -> None:
    request = ModelRequest(input="hi")

    with pytest.raises(dataclasses.FrozenInstanceError):
        request.input = "changed"  # type: ignore[misc]  # frozen: refused at run time too


def test_model_retry_advice_defaults_to_no_opinion() -> None:
    assert dataclasses.astuple(ModelRetryAdvice()) == (None,) * 6


def test_retry_advice_request_has_no_request_by_default() -> None:
    query = RetryAdviceRequest(error=ValueError("x"), stream=False, attempt=1)

    assert query.request is None


def test_optional_keys_of_the_typed_dicts_are_optional_at_run_time() -> None:
    # Runtime introspection (schema generators, pydantic, TypeAdapter) must see the same
    # optional keys as a type checker does.
    from agents_testing import AssistantMessageItem, OutputTextContent, OutputTextDeltaEvent

    assert AssistantMessageItem.__optional_keys__ == {"id", "phase", "provider_data"}
    assert AssistantMessageItem.__required_keys__ == {"type", "role", "status", "content"}
    assert OutputTextDeltaEvent.__optional_keys__ == {"provider_data"}
    assert OutputTextDeltaEvent.__required_keys__ == {"type", "item_id", "delta"}
    assert OutputTextContent.__optional_keys__ == {"provider_data"}
    assert OutputTextContent.__required_keys__ == {"type", "text"}


# -- ModelRequest read helpers -------------------------------------------------------------


class NamedTool:
    def __init__(self, name: str) -> None:
        self.name = name


class Handoff:
    def __init__(self, tool_name: str) -> None:
        self.tool_name = tool_name


def test_tool_names_read_objects_plain_dicts_and_openai_format_dicts() -> None:
    request = ModelRequest(
        input="hi",
        tools=[
            NamedTool("get_weather"),
            {"name": "search"},
            {"type": "function", "function": {"name": "lookup", "parameters": {}}},
            {"type": "web_search"},  # a hosted tool without a name is left out
            object(),
        ],
    )

    assert request.tool_names == ("get_weather", "search", "lookup")


def test_handoff_names_are_the_tool_names_the_model_sees() -> None:
    request = ModelRequest(
        input="hi",
        handoffs=[Handoff("transfer_to_billing"), {"tool_name": "transfer_to_refunds"}],
    )

    assert request.handoff_names == ("transfer_to_billing", "transfer_to_refunds")
    assert ModelRequest(input="hi").handoff_names == ()


@pytest.mark.parametrize(
    ("input_items", "text"),
    [
        ("plain prompt", "plain prompt"),
        ([{"role": "user", "content": "first"}, {"role": "user", "content": "second"}], "second"),
        (
            [
                {"type": "message", "role": "user", "content": "question"},
                {"type": "message", "role": "assistant", "content": "answer"},
                {"type": "function_call_output", "call_id": "c", "output": "x"},
            ],
            "question",
        ),
        (
            [
                {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "look at "},
                        {"type": "input_image", "image_url": "data:"},
                        {"type": "input_text", "text": "this"},
                    ],
                }
            ],
            "look at this",
        ),
        ([{"role": "system", "content": "rules"}], None),
        ([], None),
    ],
    ids=["string", "openai-agents-shape", "normalized-shape", "parts", "no-user", "empty"],
)
def test_last_user_text_reads_every_adapter_shape(input_items: Any, text: str | None) -> None:
    assert ModelRequest(input=input_items).last_user_text == text


def test_tool_outputs_map_call_ids_to_outputs() -> None:
    request = ModelRequest(
        input=[
            {"role": "user", "content": "hi"},
            {"type": "function_call", "call_id": "call_1", "name": "a", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "first"},
            {"type": "shell_call_output", "call_id": "call_2", "output": [{"stdout": "ok"}]},
            {"type": "function_call_output", "call_id": "call_1", "output": "retried"},
        ]
    )

    assert request.tool_outputs == {"call_1": "retried", "call_2": [{"stdout": "ok"}]}
    assert ModelRequest(input="hi").tool_outputs == {}


def test_the_optional_key_of_model_steps_is_optional_at_run_time() -> None:
    from agents_testing import (
        ErrorStep,
        ResponderStep,
        ResponseStep,
        StreamResponderStep,
        StreamStep,
    )

    # A list of TypedDict classes is only a list[type] to mypy, which hides their key sets.
    steps: list[Any] = [ResponseStep, ErrorStep, ResponderStep, StreamStep, StreamResponderStep]
    for step in steps:
        assert step.__optional_keys__ == {"optional"}, step
        assert "type" in step.__required_keys__


# -- shell_call -----------------------------------------------------------------------------


def test_shell_call_builds_a_completed_hosted_shell_call() -> None:
    assert shell_call("ls -la", call_id="call_1") == {
        "type": "shell_call",
        "call_id": "call_1",
        "id": "call_1",
        "status": "completed",
        "action": {"commands": ["ls -la"]},
    }


def test_shell_call_keeps_several_commands_and_the_optional_limits() -> None:
    item = shell_call(
        ("cd /tmp", "ls"),
        call_id="call_2",
        id="sh_2",
        timeout_ms=1000,
        max_output_length=200,
        provider_data={"k": 1},
    )

    assert item["id"] == "sh_2"
    assert item["action"] == {
        "commands": ["cd /tmp", "ls"],
        "timeout_ms": 1000,
        "max_output_length": 200,
    }
    assert item["provider_data"] == {"k": 1}


@pytest.mark.parametrize("commands", [None, 3, ["ls", 3]], ids=["none", "number", "mixed"])
def test_shell_call_refuses_commands_that_are_not_strings(commands: Any) -> None:
    with pytest.raises(TypeError, match="commands must be a string or a sequence of strings"):
        shell_call(commands, call_id="call_1")


_JUNK = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["type", "role", "content", "call_id", "output", "name", "text"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(input_items=_JUNK, tools=_JUNK, handoffs=_JUNK)
def test_read_helpers_never_fail_on_whatever_a_request_holds(
    input_items: Any, tools: Any, handoffs: Any
) -> None:
    request = ModelRequest(input=input_items, tools=tools, handoffs=handoffs)

    assert all(isinstance(name, str) for name in request.tool_names)
    assert all(isinstance(name, str) for name in request.handoff_names)
    assert request.last_user_text is None or isinstance(request.last_user_text, str)
    assert all(isinstance(call_id, str) for call_id in request.tool_outputs)


def test_the_item_types_hold_evaluated_annotations() -> None:
    # String annotations would each be compiled into a ForwardRef when items.py is imported,
    # which every test pays for; evaluated ones cost nothing and resolve without a namespace.
    typed_dicts = [
        value
        for value in vars(items).values()
        if isinstance(value, type) and issubclass(value, dict) and hasattr(value, "__total__")
    ]
    records = [
        value
        for value in vars(items).values()
        if isinstance(value, type) and dataclasses.is_dataclass(value)
    ]

    assert len(typed_dicts) >= 10
    assert len(records) == 5
    for kind in typed_dicts:
        assert not any(
            isinstance(hint, typing.ForwardRef) for hint in kind.__annotations__.values()
        )
    for record in records:
        assert not any(isinstance(field.type, str) for field in dataclasses.fields(record))
