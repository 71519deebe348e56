"""Deterministic test doubles for agent loops: model, sandbox, realtime, MCP and voice.

Every public name of the core is importable from here. Importing this package imports only
the standard library; framework adapters live in ``agents_testing.adapters``.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import _lazy
from .errors import IncompleteRealtimeScenarioError as IncompleteRealtimeScenarioError
from .errors import InvalidRealtimeEventError as InvalidRealtimeEventError
from .errors import InvalidScriptedMCPStepError as InvalidScriptedMCPStepError
from .errors import InvalidScriptedMCPStepReason as InvalidScriptedMCPStepReason
from .errors import InvalidScriptedModelOutputError as InvalidScriptedModelOutputError
from .errors import InvalidScriptedModelStepError as InvalidScriptedModelStepError
from .errors import InvalidScriptedModelStepReason as InvalidScriptedModelStepReason
from .errors import InvalidScriptedSandboxStepError as InvalidScriptedSandboxStepError
from .errors import InvalidScriptedSandboxStepReason as InvalidScriptedSandboxStepReason
from .errors import InvalidScriptedVoiceStepError as InvalidScriptedVoiceStepError
from .errors import InvalidScriptedVoiceStepReason as InvalidScriptedVoiceStepReason
from .errors import MCPProtocolError as MCPProtocolError
from .errors import MCPProtocolErrorReason as MCPProtocolErrorReason
from .errors import RealtimeCallMatcherError as RealtimeCallMatcherError
from .errors import RealtimeEventLoopError as RealtimeEventLoopError
from .errors import RealtimeThreadError as RealtimeThreadError
from .errors import RealtimeTransportNotClosedError as RealtimeTransportNotClosedError
from .errors import RepeatedMCPListError as RepeatedMCPListError
from .errors import ReplayDriftReason as ReplayDriftReason
from .errors import ReplayRequestDriftError as ReplayRequestDriftError
from .errors import SandboxCallMatcherError as SandboxCallMatcherError
from .errors import ScriptedHTTPError as ScriptedHTTPError
from .errors import ScriptedJSONRPCError as ScriptedJSONRPCError
from .errors import ScriptedModelRequestAbortedError as ScriptedModelRequestAbortedError
from .errors import (
    ScriptedRealtimeConnectionSupersededError as ScriptedRealtimeConnectionSupersededError,
)
from .errors import ScriptedRealtimeScenarioCancelledError as ScriptedRealtimeScenarioCancelledError
from .errors import UnconsumedMCPStepsError as UnconsumedMCPStepsError
from .errors import UnconsumedModelStepsError as UnconsumedModelStepsError
from .errors import UnconsumedSandboxStepsError as UnconsumedSandboxStepsError
from .errors import UnconsumedVoiceStepsError as UnconsumedVoiceStepsError
from .errors import UnexpectedMCPCallError as UnexpectedMCPCallError
from .errors import UnexpectedModelCallError as UnexpectedModelCallError
from .errors import UnexpectedRealtimeCallError as UnexpectedRealtimeCallError
from .errors import UnexpectedSandboxCallError as UnexpectedSandboxCallError
from .errors import UnexpectedVoiceCallError as UnexpectedVoiceCallError
from .errors import UnscriptedAgentError as UnscriptedAgentError
from .errors import UnscriptedAgentReason as UnscriptedAgentReason
from .errors import VoiceCallMatcherError as VoiceCallMatcherError
from .errors import VoiceService as VoiceService
from .errors import WireRequestError as WireRequestError
from .errors import WireRequestReason as WireRequestReason
from .items import AssistantMessageItem as AssistantMessageItem
from .items import FunctionCallItem as FunctionCallItem
from .items import ModelEvent as ModelEvent
from .items import ModelRequest as ModelRequest
from .items import ModelResponse as ModelResponse
from .items import ModelRetryAdvice as ModelRetryAdvice
from .items import OutputTextContent as OutputTextContent
from .items import OutputTextDeltaEvent as OutputTextDeltaEvent
from .items import ResponseDoneEvent as ResponseDoneEvent
from .items import ResponseDonePayload as ResponseDonePayload
from .items import ResponseStartedEvent as ResponseStartedEvent
from .items import RetryAdviceRequest as RetryAdviceRequest
from .items import ShellCallAction as ShellCallAction
from .items import ShellCallItem as ShellCallItem
from .items import StreamEvent as StreamEvent
from .items import Usage as Usage
from .items import UsagePayload as UsagePayload
from .items import assistant_message as assistant_message
from .items import function_call as function_call
from .items import shell_call as shell_call
from .model import ErrorStep as ErrorStep
from .model import ModelResponder as ModelResponder
from .model import RecordedModelCall as RecordedModelCall
from .model import ResponderStep as ResponderStep
from .model import ResponseStep as ResponseStep
from .model import RetryAdviceCallback as RetryAdviceCallback
from .model import ScriptedModel as ScriptedModel
from .model import ScriptedModelInput as ScriptedModelInput
from .model import ScriptedModelStep as ScriptedModelStep
from .model import ScriptedModelStream as ScriptedModelStream
from .model import StreamResponder as StreamResponder
from .model import StreamResponderStep as StreamResponderStep
from .model import StreamStep as StreamStep
from .model import model_error as model_error
from .model import model_responder as model_responder
from .model import model_response as model_response
from .model import model_stream as model_stream
from .model import model_stream_responder as model_stream_responder
from .model import optional_step as optional_step

if TYPE_CHECKING:
    from .mcp import HANDSHAKE_PROTOCOL_VERSIONS as HANDSHAKE_PROTOCOL_VERSIONS
    from .mcp import MODERN_PROTOCOL_VERSIONS as MODERN_PROTOCOL_VERSIONS
    from .mcp import MCPCall as MCPCall
    from .mcp import MCPNotify as MCPNotify
    from .mcp import MCPResponder as MCPResponder
    from .mcp import MCPSessionDropped as MCPSessionDropped
    from .mcp import MCPStep as MCPStep
    from .mcp import ScriptedMCPServer as ScriptedMCPServer
    from .mcp import mcp_get_prompt as mcp_get_prompt
    from .mcp import mcp_image as mcp_image
    from .mcp import mcp_log as mcp_log
    from .mcp import mcp_progress as mcp_progress
    from .mcp import mcp_read_resource as mcp_read_resource
    from .mcp import mcp_tool as mcp_tool
    from .mcp import mcp_tool_call as mcp_tool_call
    from .mcp import mcp_tool_result as mcp_tool_result
    from .mcp import mcp_tools_changed as mcp_tools_changed
    from .realtime import AddImageCall as AddImageCall
    from .realtime import CloseCall as CloseCall
    from .realtime import ConnectCall as ConnectCall
    from .realtime import InterruptCall as InterruptCall
    from .realtime import MuteCall as MuteCall
    from .realtime import RealtimeConnectOptions as RealtimeConnectOptions
    from .realtime import RealtimeErrorEvent as RealtimeErrorEvent
    from .realtime import RealtimeScenarioContext as RealtimeScenarioContext
    from .realtime import RealtimeStatus as RealtimeStatus
    from .realtime import RealtimeTransportCall as RealtimeTransportCall
    from .realtime import RealtimeTransportMethod as RealtimeTransportMethod
    from .realtime import RecordedConnectOptions as RecordedConnectOptions
    from .realtime import RequestResponseCall as RequestResponseCall
    from .realtime import ResetHistoryCall as ResetHistoryCall
    from .realtime import ScriptedRealtimeTransport as ScriptedRealtimeTransport
    from .realtime import SendAudioCall as SendAudioCall
    from .realtime import SendEventCall as SendEventCall
    from .realtime import SendFunctionCallOutputCall as SendFunctionCallOutputCall
    from .realtime import SendMcpResponseCall as SendMcpResponseCall
    from .realtime import SendMessageCall as SendMessageCall
    from .realtime import UpdateSessionConfigCall as UpdateSessionConfigCall
    from .recording import REDACTED as REDACTED
    from .recording import RecordedExchange as RecordedExchange
    from .recording import Recording as Recording
    from .recording import RedactPattern as RedactPattern
    from .recording import Replay as Replay
    from .recording import ReplayIgnore as ReplayIgnore
    from .recording import load_recording as load_recording
    from .sandbox import DEFAULT_SANDBOX_INTERFACE as DEFAULT_SANDBOX_INTERFACE
    from .sandbox import SandboxCall as SandboxCall
    from .sandbox import SandboxMethodMode as SandboxMethodMode
    from .sandbox import SandboxStep as SandboxStep
    from .sandbox import ScriptedSandboxSession as ScriptedSandboxSession
    from .sandbox import scripted_sandbox_session as scripted_sandbox_session
    from .voice import AudioChunk as AudioChunk
    from .voice import HeardSpeech as HeardSpeech
    from .voice import PlayedAudio as PlayedAudio
    from .voice import ScriptedSpeechToText as ScriptedSpeechToText
    from .voice import ScriptedTextToSpeech as ScriptedTextToSpeech
    from .voice import ScriptedVoice as ScriptedVoice
    from .voice import SpeechToTextCall as SpeechToTextCall
    from .voice import STTStep as STTStep
    from .voice import Synthesis as Synthesis
    from .voice import TextToSpeechCall as TextToSpeechCall
    from .voice import TranscriptEvent as TranscriptEvent
    from .voice import TranscriptEventType as TranscriptEventType
    from .voice import TranscriptionSession as TranscriptionSession
    from .voice import TTSStep as TTSStep
    from .voice import VirtualClock as VirtualClock
    from .voice import VirtualSpeaker as VirtualSpeaker
    from .voice import VirtualTimer as VirtualTimer
    from .voice import pcm16_duration as pcm16_duration
    from .voice import pcm16_silence as pcm16_silence
    from .voice import stt_end as stt_end
    from .voice import stt_turn as stt_turn
    from .voice import tts_speech as tts_speech

# The realtime, sandbox, MCP and voice doubles load on first use: a test of a model loop (and
# every model adapter) then pays for none of those modules.
_LAZY_MODULES: dict[str, str] = {
    "AddImageCall": "realtime",
    "CloseCall": "realtime",
    "ConnectCall": "realtime",
    "InterruptCall": "realtime",
    "MuteCall": "realtime",
    "RealtimeConnectOptions": "realtime",
    "RealtimeErrorEvent": "realtime",
    "RealtimeScenarioContext": "realtime",
    "RealtimeStatus": "realtime",
    "RealtimeTransportCall": "realtime",
    "RealtimeTransportMethod": "realtime",
    "RecordedConnectOptions": "realtime",
    "RequestResponseCall": "realtime",
    "ResetHistoryCall": "realtime",
    "ScriptedRealtimeTransport": "realtime",
    "SendAudioCall": "realtime",
    "SendEventCall": "realtime",
    "SendFunctionCallOutputCall": "realtime",
    "SendMcpResponseCall": "realtime",
    "SendMessageCall": "realtime",
    "UpdateSessionConfigCall": "realtime",
    "DEFAULT_SANDBOX_INTERFACE": "sandbox",
    "SandboxCall": "sandbox",
    "SandboxMethodMode": "sandbox",
    "SandboxStep": "sandbox",
    "ScriptedSandboxSession": "sandbox",
    "scripted_sandbox_session": "sandbox",
    "REDACTED": "recording",
    "RecordedExchange": "recording",
    "Recording": "recording",
    "RedactPattern": "recording",
    "Replay": "recording",
    "ReplayIgnore": "recording",
    "load_recording": "recording",
    "HANDSHAKE_PROTOCOL_VERSIONS": "mcp",
    "MODERN_PROTOCOL_VERSIONS": "mcp",
    "MCPCall": "mcp",
    "MCPNotify": "mcp",
    "MCPResponder": "mcp",
    "MCPSessionDropped": "mcp",
    "MCPStep": "mcp",
    "ScriptedMCPServer": "mcp",
    "mcp_get_prompt": "mcp",
    "mcp_image": "mcp",
    "mcp_log": "mcp",
    "mcp_progress": "mcp",
    "mcp_read_resource": "mcp",
    "mcp_tool": "mcp",
    "mcp_tool_call": "mcp",
    "mcp_tool_result": "mcp",
    "mcp_tools_changed": "mcp",
    "AudioChunk": "voice",
    "HeardSpeech": "voice",
    "PlayedAudio": "voice",
    "STTStep": "voice",
    "ScriptedSpeechToText": "voice",
    "ScriptedTextToSpeech": "voice",
    "ScriptedVoice": "voice",
    "SpeechToTextCall": "voice",
    "Synthesis": "voice",
    "TTSStep": "voice",
    "TextToSpeechCall": "voice",
    "TranscriptEvent": "voice",
    "TranscriptEventType": "voice",
    "TranscriptionSession": "voice",
    "VirtualClock": "voice",
    "VirtualSpeaker": "voice",
    "VirtualTimer": "voice",
    "pcm16_duration": "voice",
    "pcm16_silence": "voice",
    "stt_end": "voice",
    "stt_turn": "voice",
    "tts_speech": "voice",
}


__getattr__: Callable[[str], Any]
__dir__: Callable[[], list[str]]
__getattr__, __dir__ = _lazy.lazy_names(globals(), _LAZY_MODULES)


__version__ = "0.1.0.dev0"

__all__ = [
    "AddImageCall",
    "AssistantMessageItem",
    "CloseCall",
    "ConnectCall",
    "DEFAULT_SANDBOX_INTERFACE",
    "ErrorStep",
    "FunctionCallItem",
    "IncompleteRealtimeScenarioError",
    "InterruptCall",
    "InvalidRealtimeEventError",
    "InvalidScriptedModelOutputError",
    "InvalidScriptedModelStepError",
    "InvalidScriptedModelStepReason",
    "InvalidScriptedSandboxStepError",
    "InvalidScriptedSandboxStepReason",
    "ModelEvent",
    "ModelRequest",
    "ModelResponder",
    "ModelResponse",
    "ModelRetryAdvice",
    "MuteCall",
    "OutputTextContent",
    "OutputTextDeltaEvent",
    "RealtimeCallMatcherError",
    "RealtimeConnectOptions",
    "RealtimeErrorEvent",
    "RealtimeScenarioContext",
    "RealtimeStatus",
    "RealtimeTransportCall",
    "RealtimeTransportMethod",
    "RealtimeEventLoopError",
    "RealtimeThreadError",
    "RealtimeTransportNotClosedError",
    "REDACTED",
    "RecordedConnectOptions",
    "RecordedExchange",
    "RecordedModelCall",
    "Recording",
    "RedactPattern",
    "Replay",
    "ReplayDriftReason",
    "ReplayIgnore",
    "ReplayRequestDriftError",
    "RequestResponseCall",
    "ResetHistoryCall",
    "ResponderStep",
    "ResponseDoneEvent",
    "ResponseDonePayload",
    "ResponseStartedEvent",
    "ResponseStep",
    "RetryAdviceCallback",
    "RetryAdviceRequest",
    "SandboxCall",
    "SandboxCallMatcherError",
    "SandboxMethodMode",
    "SandboxStep",
    "ScriptedHTTPError",
    "ScriptedModel",
    "ScriptedModelInput",
    "ScriptedModelRequestAbortedError",
    "ScriptedModelStep",
    "ScriptedModelStream",
    "ScriptedRealtimeConnectionSupersededError",
    "ScriptedRealtimeScenarioCancelledError",
    "ScriptedRealtimeTransport",
    "ScriptedSandboxSession",
    "SendAudioCall",
    "SendEventCall",
    "SendFunctionCallOutputCall",
    "SendMcpResponseCall",
    "SendMessageCall",
    "ShellCallAction",
    "ShellCallItem",
    "StreamEvent",
    "StreamResponder",
    "StreamResponderStep",
    "StreamStep",
    "UnconsumedModelStepsError",
    "UnconsumedSandboxStepsError",
    "UnexpectedModelCallError",
    "UnexpectedRealtimeCallError",
    "UnexpectedSandboxCallError",
    "UnscriptedAgentError",
    "UnscriptedAgentReason",
    "UpdateSessionConfigCall",
    "Usage",
    "UsagePayload",
    "WireRequestError",
    "WireRequestReason",
    "assistant_message",
    "function_call",
    "load_recording",
    "shell_call",
    "model_error",
    "model_responder",
    "model_response",
    "model_stream",
    "model_stream_responder",
    "optional_step",
    "scripted_sandbox_session",
    # MCP server
    "InvalidScriptedMCPStepError",
    "InvalidScriptedMCPStepReason",
    "MCPProtocolError",
    "MCPProtocolErrorReason",
    "RepeatedMCPListError",
    "ScriptedJSONRPCError",
    "UnconsumedMCPStepsError",
    "UnexpectedMCPCallError",
    "HANDSHAKE_PROTOCOL_VERSIONS",
    "MODERN_PROTOCOL_VERSIONS",
    "MCPCall",
    "MCPNotify",
    "MCPResponder",
    "MCPSessionDropped",
    "MCPStep",
    "ScriptedMCPServer",
    "mcp_get_prompt",
    "mcp_image",
    "mcp_log",
    "mcp_progress",
    "mcp_read_resource",
    "mcp_tool",
    "mcp_tool_call",
    "mcp_tool_result",
    "mcp_tools_changed",
    # voice pipeline
    "InvalidScriptedVoiceStepError",
    "InvalidScriptedVoiceStepReason",
    "UnconsumedVoiceStepsError",
    "UnexpectedVoiceCallError",
    "VoiceCallMatcherError",
    "VoiceService",
    "AudioChunk",
    "HeardSpeech",
    "PlayedAudio",
    "STTStep",
    "ScriptedSpeechToText",
    "ScriptedTextToSpeech",
    "ScriptedVoice",
    "SpeechToTextCall",
    "Synthesis",
    "TTSStep",
    "TextToSpeechCall",
    "TranscriptEvent",
    "TranscriptEventType",
    "TranscriptionSession",
    "VirtualClock",
    "VirtualSpeaker",
    "VirtualTimer",
    "pcm16_duration",
    "pcm16_silence",
    "stt_end",
    "stt_turn",
    "tts_speech",
]
