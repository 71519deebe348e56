"""Plug the agents-testing doubles into the OpenAI Agents SDK (``openai-agents`` >= 0.24).

- ``openai_agents_model(model)`` wraps a core ``ScriptedModel`` as an ``agents.Model`` for
  ``Agent(model=...)`` or ``RunConfig(model=...)``.
- ``openai_agents_sandbox_session(steps)`` is a ``BaseSandboxSession`` for
  ``RunConfig(sandbox=SandboxRunConfig(session=...))``, scripted with the SDK's own method
  names.
- ``openai_agents_realtime_model(transport)`` is a ``RealtimeModel`` over a core
  ``ScriptedRealtimeTransport`` for ``RealtimeSession`` / ``RealtimeRunner``;
  ``wait_for_session_event(session, type)`` waits until the session has processed an event.
- ``openai_agents_stt_model(stt)`` and ``openai_agents_tts_model(tts)`` are the ``STTModel``
  and ``TTSModel`` of a ``VoicePipeline`` over the core ``ScriptedSpeechToText`` and
  ``ScriptedTextToSpeech`` (they need ``openai-agents[voice]``, that is numpy).
- ``route_openai_agents_models(models)`` is a context manager for code that builds its own
  agents and calls ``Runner.run`` itself: every run inside it (nested runs included) answers
  from one ``ScriptedModel``, or from one per agent name, with tracing off.

Keep asserting on the core objects (``calls``, ``assert_complete()``): the adapters only
translate between the SDK's types and the normalized ones. Importing this module without
``openai-agents`` installed raises ``ImportError`` naming the extra to install.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import _lazy
from ._openai_agents_model import openai_agents_model as openai_agents_model

if TYPE_CHECKING:
    from ._openai_agents_realtime import (
        openai_agents_realtime_model as openai_agents_realtime_model,
    )
    from ._openai_agents_realtime import wait_for_session_event as wait_for_session_event
    from ._openai_agents_route import OpenAIAgentsModelRoute as OpenAIAgentsModelRoute
    from ._openai_agents_route import route_openai_agents_models as route_openai_agents_models
    from ._openai_agents_sandbox import (
        OPENAI_AGENTS_SANDBOX_INTERFACE as OPENAI_AGENTS_SANDBOX_INTERFACE,
    )
    from ._openai_agents_sandbox import OpenAIAgentsSandboxSession as OpenAIAgentsSandboxSession
    from ._openai_agents_sandbox import (
        openai_agents_sandbox_session as openai_agents_sandbox_session,
    )
    from ._openai_agents_voice import openai_agents_stt_model as openai_agents_stt_model
    from ._openai_agents_voice import openai_agents_tts_model as openai_agents_tts_model

# Each part beyond the model adapter loads on first use of one of its names: most tests use
# one part, and the realtime one alone costs about a tenth of the SDK's import.
_LAZY_MODULES: dict[str, str] = {
    "openai_agents_realtime_model": "_openai_agents_realtime",
    "wait_for_session_event": "_openai_agents_realtime",
    "OpenAIAgentsModelRoute": "_openai_agents_route",
    "route_openai_agents_models": "_openai_agents_route",
    "OPENAI_AGENTS_SANDBOX_INTERFACE": "_openai_agents_sandbox",
    "OpenAIAgentsSandboxSession": "_openai_agents_sandbox",
    "openai_agents_sandbox_session": "_openai_agents_sandbox",
    "openai_agents_stt_model": "_openai_agents_voice",
    "openai_agents_tts_model": "_openai_agents_voice",
}


__getattr__: Callable[[str], Any]
__dir__: Callable[[], list[str]]
__getattr__, __dir__ = _lazy.lazy_names(globals(), _LAZY_MODULES)


__all__ = [
    "OPENAI_AGENTS_SANDBOX_INTERFACE",
    "OpenAIAgentsModelRoute",
    "OpenAIAgentsSandboxSession",
    "openai_agents_model",
    "openai_agents_realtime_model",
    "openai_agents_sandbox_session",
    "openai_agents_stt_model",
    "openai_agents_tts_model",
    "route_openai_agents_models",
    "wait_for_session_event",
]
