"""route_openai_agents_models on the real SDK: apps that build agents and call Runner themselves."""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import inspect
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("agents")

import agents.run
import agents.tracing
from agents import (
    Agent,
    InputGuardrailTripwireTriggered,
    ModelRetrySettings,
    ModelSettings,
    ModelTracing,
    RunConfig,
    Runner,
    function_tool,
    retry_policies,
    trace,
)
from agents.run import CallModelData, ModelInputData
from agents.tool_context import ToolContext
from agents.tracing import TraceProvider
from agents.tracing.traces import NoOpTrace

from agents_testing import (
    ModelRetryAdvice,
    RecordedModelCall,
    ScriptedModel,
    UnscriptedAgentError,
    assistant_message,
    function_call,
    model_error,
    model_responder,
)
from agents_testing.adapters._openai_agents_route import _routed_run_config
from agents_testing.adapters.openai_agents import (
    OpenAIAgentsModelRoute,
    openai_agents_model,
    route_openai_agents_models,
)

from . import support_desk_app as app


def not_homework() -> list[Any]:
    return [assistant_message('{"is_homework": false}')]


def translator_script(term: str, answer: str, call_id: str) -> ScriptedModel:
    return ScriptedModel(
        [
            [function_call("glossary", {"term": term}, call_id=call_id)],
            [assistant_message(answer)],
        ]
    )


def echo_agent(name: str, model: ScriptedModel | None = None) -> Agent[Any]:
    own = model if model is not None else ScriptedModel([[assistant_message(f"{name} own")]])
    return Agent(name=name, model=openai_agents_model(own))


# -- one script per agent ---------------------------------------------------------------------


async def test_routes_agent_tools_and_the_guardrail_agent_by_name() -> None:
    models = {
        "Homework checker": ScriptedModel([not_homework()]),
        "Triage": ScriptedModel(
            [
                [
                    function_call("to_spanish", {"input": "invoice"}, call_id="call_es"),
                    function_call("to_french", {"input": "invoice"}, call_id="call_fr"),
                ],
                [assistant_message("factura / facture")],
            ]
        ),
        "Spanish translator": translator_script("invoice", "factura", "call_g_es"),
        "French translator": translator_script("invoice", "facture", "call_g_fr"),
    }

    with route_openai_agents_models(models) as route:
        answer = await app.answer("Translate 'invoice'")

    assert answer == "factura / facture"
    for model in models.values():
        model.assert_complete()
    # Each sub-agent saw its own conversation, whatever order the concurrent calls took.
    spanish_last = models["Spanish translator"].calls[1].request.input
    assert isinstance(spanish_last, list)
    assert spanish_last[-1]["output"] == "glossary[invoice]"
    assert spanish_last[-1]["call_id"] == "call_g_es"
    french_last = models["French translator"].calls[1].request.input
    assert isinstance(french_last, list)
    assert french_last[-1]["call_id"] == "call_g_fr"
    triage_last = models["Triage"].calls[1].request.input
    assert isinstance(triage_last, list)
    tool_outputs = {item["call_id"]: item["output"] for item in triage_last if "output" in item}
    assert tool_outputs == {"call_es": "factura", "call_fr": "facture"}
    assert sorted(route.agent_names) == sorted(
        ["Homework checker", "Triage", "Triage"] + ["Spanish translator", "French translator"] * 2
    )
    assert route.agent_names[:2] == ("Homework checker", "Triage")


async def test_concurrent_sub_agents_stay_deterministic_across_runs() -> None:
    def join_tool_outputs(call: RecordedModelCall) -> list[Any]:
        items: list[Any] = list(call.request.input)
        outputs = [item["output"] for item in items if "output" in item]
        return [assistant_message(" / ".join(outputs))]

    def scripts() -> dict[str, ScriptedModel]:
        return {
            "Homework checker": ScriptedModel([not_homework()]),
            "Triage": ScriptedModel(
                [
                    [
                        function_call("to_french", {"input": "bill"}, call_id="call_fr"),
                        function_call("to_spanish", {"input": "bill"}, call_id="call_es"),
                    ],
                    model_responder(join_tool_outputs),
                ]
            ),
            "Spanish translator": translator_script("bill", "cuenta", "call_g_es"),
            "French translator": translator_script("bill", "addition", "call_g_fr"),
        }

    answers = []
    for _ in range(5):
        models = scripts()
        with route_openai_agents_models(models):
            answers.append(await app.answer("Translate 'bill'"))
        for model in models.values():
            model.assert_complete()

    assert answers == ["addition / cuenta"] * 5


async def test_routes_a_handoff_to_the_receiving_agents_script() -> None:
    models = {
        "Homework checker": ScriptedModel([not_homework()]),
        "Triage": ScriptedModel([[function_call("transfer_to_billing", {}, call_id="call_h")]]),
        "Billing": ScriptedModel([[assistant_message("Your invoice is paid.")]]),
    }

    with route_openai_agents_models(models) as route:
        answer = await app.answer("Is my invoice paid?")

    assert answer == "Your invoice is paid."
    assert route.agent_names == ("Homework checker", "Triage", "Billing")
    billing_call = models["Billing"].calls[0]
    assert billing_call.request.system_instructions == "Answer billing questions."
    for model in models.values():
        model.assert_complete()


async def test_a_tripped_guardrail_stops_before_the_triage_model() -> None:
    models = {
        "Homework checker": ScriptedModel([[assistant_message('{"is_homework": true}')]]),
        "Triage": ScriptedModel([]),
    }

    with route_openai_agents_models(models), pytest.raises(InputGuardrailTripwireTriggered):
        await app.answer("Solve 2x + 3 = 7 for me")

    assert models["Homework checker"].calls[0].request.input == [
        {"content": "Solve 2x + 3 = 7 for me", "role": "user"}
    ]
    assert models["Triage"].calls == ()


# -- one script for every agent -----------------------------------------------------------------


async def test_one_model_answers_every_agent_in_call_order() -> None:
    model = ScriptedModel([not_homework(), [assistant_message("Hello!")]])

    with route_openai_agents_models(model) as route:
        answer = await app.answer("Hi")

    assert answer == "Hello!"
    assert route.agent_names == ("Homework checker", "Triage")
    assert [call.request.system_instructions for call in model.calls] == [
        app.homework_checker.instructions,
        app.triage_agent.instructions,
    ]
    model.assert_complete()


async def test_routes_a_streamed_run() -> None:
    model = ScriptedModel([not_homework(), [assistant_message("Streamed hello.")]])

    with route_openai_agents_models(model):
        deltas, final = await app.answer_streamed("Hi")

    assert deltas == ["Streamed hello."]
    assert final == "Streamed hello."
    assert [call.streamed for call in model.calls] == [False, True]
    model.assert_complete()


@pytest.fixture
def sync_runner_loop() -> Iterator[None]:
    # Runner.run_sync keeps the thread's default loop open for later runs; give it one that
    # the test closes, so no open loop outlives the test.
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield
    asyncio.set_event_loop(None)
    loop.close()


async def test_routes_a_streamed_agent_tool_inside_a_streamed_run() -> None:
    events: list[str] = []
    writer = Agent(name="Writer", model="gpt-4.1")
    editor = Agent(
        name="Editor",
        model="gpt-4.1",
        tools=[
            writer.as_tool(
                tool_name="write",
                tool_description="Write a draft.",
                on_stream=lambda event: events.append(event["event"].type),
            )
        ],
    )
    models = {
        "Editor": ScriptedModel(
            [
                [function_call("write", {"input": "a haiku"}, call_id="call_w")],
                [assistant_message("Edited draft.")],
            ]
        ),
        "Writer": ScriptedModel([[assistant_message("Draft.")]]),
    }

    with route_openai_agents_models(models) as route:
        result = Runner.run_streamed(editor, "Write a haiku")
        async for _ in result.stream_events():
            pass

    assert result.final_output == "Edited draft."
    assert route.agent_names == ("Editor", "Writer", "Editor")
    assert [call.streamed for call in models["Writer"].calls] == [True]
    assert "raw_response_event" in events
    for model in models.values():
        model.assert_complete()


@pytest.mark.usefixtures("sync_runner_loop")
def test_routes_a_synchronous_run() -> None:
    model = ScriptedModel([not_homework(), [assistant_message("Sync hello.")]])

    with route_openai_agents_models(model):
        assert app.answer_sync("Hi") == "Sync hello."
        # asyncio.run copies this context into its task, so the route holds there too.
        model.enqueue(not_homework())
        model.enqueue([assistant_message("Async hello.")])
        assert asyncio.run(app.answer("Hi")) == "Async hello."

    model.assert_complete()


async def test_works_as_an_async_context_manager() -> None:
    model = ScriptedModel([not_homework(), [assistant_message("Hello.")]])

    async with route_openai_agents_models(model) as route:
        assert await app.answer("Hi") == "Hello."

    assert isinstance(route, OpenAIAgentsModelRoute)
    assert route.agent_names == ("Homework checker", "Triage")


# -- what the route keeps from the app's own run config ---------------------------------------


async def test_keeps_the_apps_run_config_and_input_filter() -> None:
    def shout(data: CallModelData[Any]) -> ModelInputData:
        instructions = (data.model_data.instructions or "").upper()
        return ModelInputData(input=data.model_data.input, instructions=instructions)

    config = RunConfig(
        workflow_name="Support",
        model_settings=ModelSettings(temperature=0.25),
        call_model_input_filter=shout,
    )
    model = ScriptedModel([not_homework(), [assistant_message("OK.")]])

    with route_openai_agents_models(model):
        assert await app.answer("Hi", run_config=config) == "OK."

    triage_call = model.calls[1]
    assert triage_call.request.system_instructions == app.triage_agent.instructions.upper()  # type: ignore[union-attr]
    assert triage_call.request.model_settings["temperature"] == 0.25
    # Routed runs do not trace, and the app's config object is left as it was.
    assert triage_call.request.tracing is ModelTracing.DISABLED
    assert config.model is None
    assert config.call_model_input_filter is shout
    assert config.tracing_disabled is False


async def test_keeps_a_run_config_given_as_a_dict() -> None:
    model = ScriptedModel([[assistant_message("OK.")]])
    config: dict[str, Any] = {"model_settings": ModelSettings(temperature=0.5)}

    with route_openai_agents_models(model):
        result = await Runner.run(Agent(name="Assistant", model="gpt-4.1"), "hi", run_config=config)

    assert result.final_output == "OK."
    assert model.calls[0].request.model_settings["temperature"] == 0.5
    assert config == {"model_settings": ModelSettings(temperature=0.5)}


async def test_routes_retries_to_the_model_that_failed() -> None:
    agent = Agent(
        name="Flaky",
        model="gpt-4.1",
        model_settings=ModelSettings(
            retry=ModelRetrySettings(max_retries=1, policy=retry_policies.provider_suggested())
        ),
    )
    model = ScriptedModel(
        [
            model_error(RuntimeError("503"), ModelRetryAdvice(suggested=True, retry_after=0.0)),
            [assistant_message("Recovered.")],
        ]
    )

    with route_openai_agents_models({"Flaky": model}) as route:
        result = await Runner.run(agent, "hi")

    assert result.final_output == "Recovered."
    assert route.agent_names == ("Flaky", "Flaky")
    model.assert_complete()


# -- scope: nothing leaks out of the block ------------------------------------------------------


async def test_restores_the_runner_and_trace_provider_on_exit() -> None:
    runner = agents.run.get_default_agent_runner()
    provider = agents.tracing.get_trace_provider()

    with route_openai_agents_models(ScriptedModel([])):
        assert agents.run.get_default_agent_runner() is not runner
        assert agents.tracing.get_trace_provider() is not provider

    assert agents.run.get_default_agent_runner() is runner
    assert agents.tracing.get_trace_provider() is provider


async def test_restores_everything_when_the_block_raises() -> None:
    runner = agents.run.get_default_agent_runner()
    provider = agents.tracing.get_trace_provider()
    own = ScriptedModel([[assistant_message("own answer")]])
    agent = echo_agent("Assistant", own)

    with pytest.raises(KeyError), route_openai_agents_models(ScriptedModel([])):
        raise KeyError("boom")

    assert agents.run.get_default_agent_runner() is runner
    assert agents.tracing.get_trace_provider() is provider
    result = await Runner.run(agent, "hi", run_config=RunConfig(tracing_disabled=True))
    assert result.final_output == "own answer"


async def test_runs_after_the_block_use_the_agents_own_model() -> None:
    own = ScriptedModel([[assistant_message("own answer")]])
    agent = echo_agent("Assistant", own)
    routed = ScriptedModel([[assistant_message("routed answer")]])

    with route_openai_agents_models(routed):
        inside = await Runner.run(agent, "hi")
    outside = await Runner.run(agent, "hi", run_config=RunConfig(tracing_disabled=True))

    assert (inside.final_output, outside.final_output) == ("routed answer", "own answer")
    routed.assert_complete()
    own.assert_complete()


async def test_a_config_reused_from_a_routed_run_is_not_routed_elsewhere() -> None:
    # An agent tool passes its parent's (routed) config on to its own run, as ToolContext
    # does. A run without a route must get the app's own settings back from such a config.
    seen: list[RunConfig] = []

    @function_tool
    def remember_config(ctx: ToolContext[Any]) -> str:
        """Remembers the run config."""
        seen.append(ctx.run_config)  # type: ignore[arg-type]
        return "ok"

    routed = ScriptedModel(
        [[function_call("remember_config", {}, call_id="call_1")], [assistant_message("routed")]]
    )
    own = ScriptedModel([[assistant_message("own")], [assistant_message("own again")]])
    agent = Agent(name="Assistant", model=openai_agents_model(own), tools=[remember_config])
    config = RunConfig(workflow_name="Support", tracing_disabled=True)
    block_open = asyncio.Event()
    done = asyncio.Event()

    async def routed_task() -> Any:
        with route_openai_agents_models(routed):
            result = await Runner.run(agent, "hi", run_config=config)
            block_open.set()
            await done.wait()
        return result.final_output

    async def unrouted_task() -> Any:
        await block_open.wait()  # another context's block is open: the routing runner is in
        result = await Runner.run(agent, "hi", run_config=seen[0])
        done.set()
        return result.final_output

    answers = await asyncio.gather(routed_task(), unrouted_task())

    assert list(answers) == ["routed", "own"]
    assert seen[0].workflow_name == "Support"
    # Once every block is closed, the leftover config fails loudly instead of routing.
    with pytest.raises(UnscriptedAgentError) as raised:
        await Runner.run(agent, "hi", run_config=seen[0])
    assert raised.value.reason == "route_closed"


async def test_inner_block_overrides_the_outer_one_until_it_exits() -> None:
    outer = ScriptedModel([[assistant_message("outer 1")], [assistant_message("outer 2")]])
    inner = ScriptedModel([[assistant_message("inner")]])
    agent = echo_agent("Assistant")

    with route_openai_agents_models(outer):
        first = await Runner.run(agent, "hi")
        with route_openai_agents_models(inner):
            second = await Runner.run(agent, "hi")
        third = await Runner.run(agent, "hi")

    assert [first.final_output, second.final_output, third.final_output] == [
        "outer 1",
        "inner",
        "outer 2",
    ]


async def test_concurrent_tasks_each_keep_their_own_route() -> None:
    started = asyncio.Event()
    release = asyncio.Event()

    async def routed(answer: str) -> Any:
        model = ScriptedModel([[assistant_message(answer)]])
        with route_openai_agents_models(model):
            started.set()
            await release.wait()  # both blocks are open at once
            return (await Runner.run(echo_agent("Assistant"), "hi")).final_output

    async def unrouted() -> Any:
        await started.wait()
        agent = echo_agent("Assistant")
        result = await Runner.run(agent, "hi", run_config=RunConfig(tracing_disabled=True))
        release.set()
        return result.final_output

    answers = await asyncio.gather(routed("first"), routed("second"), unrouted())

    assert list(answers) == ["first", "second", "Assistant own"]


async def test_tasks_may_share_one_route_object() -> None:
    model = ScriptedModel([[assistant_message("a")], [assistant_message("b")]])
    route = route_openai_agents_models(model)
    first_in = asyncio.Event()
    second_in = asyncio.Event()

    async def first() -> Any:
        with route:
            first_in.set()
            await second_in.wait()  # both tasks are inside the same route at once
            return (await Runner.run(echo_agent("Assistant"), "hi")).final_output

    async def second() -> Any:
        await first_in.wait()
        with route:
            second_in.set()
            answer = (await Runner.run(echo_agent("Assistant"), "hi")).final_output
        # The first task's block is still open: leaving this one must not close it.
        assert route.active
        return answer

    answers = await asyncio.gather(first(), second())

    assert sorted(answers) == ["a", "b"]
    assert not route.active
    model.assert_complete()


def test_a_block_exited_in_another_context_stops_routing_here() -> None:
    # An async fixture may enter in one context and exit in another (its teardown).
    runner = agents.run.get_default_agent_runner()
    inner = route_openai_agents_models(ScriptedModel([]))

    def body() -> None:
        with route_openai_agents_models(ScriptedModel([[assistant_message("outer")]])) as outer:
            inner.__enter__()
            contextvars.copy_context().run(inner.__exit__, None, None, None)

            assert not inner.active
            # This context still holds the closed inner frame: runs skip it.
            assert asyncio.run(Runner.run(echo_agent("Assistant"), "hi")).final_output == "outer"
        assert outer.agent_names == ("Assistant",)

    contextvars.copy_context().run(body)

    assert agents.run.get_default_agent_runner() is runner


async def test_traces_nothing_inside_the_block() -> None:
    with route_openai_agents_models(ScriptedModel([])), trace("App trace") as current:
        assert isinstance(current, NoOpTrace)


# -- unscripted agents --------------------------------------------------------------------------


async def test_an_unscripted_agent_fails_its_run_with_the_fix() -> None:
    agent = Agent(name="Weather", model="gpt-4.1")
    route = route_openai_agents_models({"Triage": ScriptedModel([])})

    with pytest.raises(UnscriptedAgentError) as raised, route:
        await Runner.run(agent, "hi")

    error = raised.value
    assert error.agent_name == "Weather"
    assert error.reason == "no_script"
    assert error.call_index == 0
    assert error.scripted_agent_names == ("Triage",)
    assert 'add "Weather": ScriptedModel([...]) to the mapping' in str(error)
    assert route.agent_names == ()


async def test_an_unscripted_agent_tool_fails_the_block_even_when_the_sdk_hides_it() -> None:
    models = {
        "Homework checker": ScriptedModel([not_homework()]),
        "Triage": ScriptedModel(
            [
                [function_call("to_spanish", {"input": "hi"}, call_id="call_es")],
                [assistant_message("done")],
            ]
        ),
    }
    answers: list[str] = []

    with pytest.raises(UnscriptedAgentError) as raised, route_openai_agents_models(models):
        answers.append(await app.answer("Translate 'hi'"))

    # The SDK turned the failing agent tool into a tool message and the run went on...
    assert answers == ["done"]
    triage_input: list[Any] = list(models["Triage"].calls[1].request.input)
    tool_output = triage_input[-1]
    assert tool_output["output"] == "An error occurred while running the tool. Please try again."
    # ...but leaving the block reports the missing script.
    assert raised.value.agent_name == "Spanish translator"
    assert raised.value.reason == "no_script"
    assert raised.value.call_index == 2
    assert raised.value.scripted_agent_names == ("Homework checker", "Triage")


async def test_a_run_still_going_after_the_block_fails_loudly() -> None:
    agent = Agent(name="Assistant", model="gpt-4.1")

    with route_openai_agents_models(ScriptedModel([[assistant_message("late")]])):
        result = Runner.run_streamed(agent, "hi")  # the run loop has not called the model yet

    with pytest.raises(UnscriptedAgentError) as raised:
        async for _ in result.stream_events():
            pass

    assert raised.value.reason == "route_closed"
    assert raised.value.agent_name == "Assistant"
    assert "finish the run inside the block" in str(raised.value)


async def test_a_model_call_without_its_agent_is_refused() -> None:
    # The route learns the calling agent from call_model_input_filter, which the SDK calls
    # before every model call; if a future SDK stopped doing so, calls must fail loudly.
    route = route_openai_agents_models({"Assistant": ScriptedModel([])})
    with route:
        routed = _routed_run_config(None, route)
        assert isinstance(routed, dict)
        with pytest.raises(UnscriptedAgentError) as raised:
            await routed["model"].get_response(
                None,
                "hi",
                ModelSettings(),
                [],
                None,
                [],
                ModelTracing.DISABLED,
                previous_response_id=None,
                conversation_id=None,
                prompt=None,
            )
        route._errors.clear()  # pyright: ignore[reportPrivateUsage]

    assert raised.value.reason == "unknown_agent"
    assert raised.value.agent_name is None
    assert "no longer calls RunConfig.call_model_input_filter" in str(raised.value)


# -- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("models", "error_type", "message"),
    [
        ("gpt-4.1", TypeError, "models must be a ScriptedModel or an agents.Model, got str"),
        (None, TypeError, "models must be a ScriptedModel or an agents.Model, got NoneType"),
        (
            {"Triage": "gpt-4.1"},
            TypeError,
            "models['Triage'] must be a ScriptedModel or an agents.Model, got str",
        ),
        ({1: ScriptedModel([])}, TypeError, "models must map agent names (str) to models"),
        ({}, ValueError, "models is an empty mapping; name at least one agent"),
        (
            [ScriptedModel([])],
            TypeError,
            "models must be a ScriptedModel or an agents.Model, got list",
        ),
        (
            {"Triage": ScriptedModel([]), "Billing": None},
            TypeError,
            "models['Billing'] must be a ScriptedModel or an agents.Model, got NoneType",
        ),
    ],
)
def test_rejects_bad_models(models: Any, error_type: type[Exception], message: str) -> None:
    with pytest.raises(error_type, match=re.escape(f"route_openai_agents_models {message}")):
        route_openai_agents_models(models)


ANY_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text() | st.binary(),
    lambda children: st.lists(children) | st.dictionaries(st.text() | st.integers(), children),
    max_leaves=5,
)


@settings(max_examples=100, deadline=None, database=None)
@given(
    models=ANY_VALUE
    | st.dictionaries(st.text(), ANY_VALUE | st.builds(lambda: ScriptedModel([])), max_size=3)
)
def test_any_bad_models_argument_is_refused_by_name(models: Any) -> None:
    valid = (
        isinstance(models, dict)
        and bool(models)
        and all(isinstance(model, ScriptedModel) for model in models.values())
    )
    if valid:
        assert not route_openai_agents_models(models).active
        return
    with pytest.raises((TypeError, ValueError), match=r"^route_openai_agents_models models"):
        route_openai_agents_models(models)


def test_accepts_an_sdk_model_as_is() -> None:
    sdk_model = openai_agents_model(ScriptedModel([]))

    route = route_openai_agents_models({"Triage": sdk_model})

    assert route._by_name == {"Triage": sdk_model}  # pyright: ignore[reportPrivateUsage]


# -- the SDK surface the route depends on -------------------------------------------------------


def test_the_sdk_still_offers_what_the_route_hooks_into() -> None:
    # Runner's entry points are the ones the routing runner wraps; a new one would bypass it.
    entry_points = {
        name
        for name, value in vars(Runner).items()
        if not name.startswith("_") and isinstance(value, classmethod)
    }
    assert entry_points == {"run", "run_sync", "run_streamed"}
    # The experimental runner hook Runner delegates to.
    assert callable(agents.run.get_default_agent_runner)
    assert callable(agents.run.set_default_agent_runner)
    for method in ("run", "run_sync", "run_streamed"):
        parameters = inspect.signature(getattr(agents.run.AgentRunner, method)).parameters
        assert list(parameters)[:3] == ["self", "starting_agent", "input"]
    # The public run config fields a routed run sets.
    fields = {field.name for field in dataclasses.fields(RunConfig)}
    assert {"model", "call_model_input_filter", "tracing_disabled"} <= fields
    # Every abstract TraceProvider method is delegated (else the wrapper cannot be built).
    assert TraceProvider.__abstractmethods__ <= {
        "register_processor",
        "set_processors",
        "get_current_trace",
        "get_current_span",
        "set_disabled",
        "time_iso",
        "gen_trace_id",
        "gen_span_id",
        "gen_group_id",
        "create_trace",
        "create_span",
    }
