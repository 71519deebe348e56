"""Serve scripted models at the wire: OpenAI Responses, Chat Completions, Anthropic Messages.

``ScriptedServer`` runs a loopback HTTP server for any client or framework that takes a base
URL; ``agents_testing.adapters.httpx`` serves the same endpoint in-process to ``httpx``
clients. One module per wire format translates the HTTP JSON to and from the core's
``ModelRequest`` and output items. Everything here is standard library only.
"""

from ..errors import ScriptedHTTPError as ScriptedHTTPError
from ..errors import WireRequestError as WireRequestError
from ._endpoint import SECRET_HEADERS as SECRET_HEADERS
from ._endpoint import ScriptedEndpoint as ScriptedEndpoint
from ._endpoint import WireExchange as WireExchange
from ._endpoint import WireResponse as WireResponse
from .recording_proxy import RecordingProxy as RecordingProxy
from .server import ScriptedServer as ScriptedServer

__all__ = [
    "SECRET_HEADERS",
    "RecordingProxy",
    "ScriptedEndpoint",
    "ScriptedHTTPError",
    "ScriptedServer",
    "WireExchange",
    "WireRequestError",
    "WireResponse",
]
