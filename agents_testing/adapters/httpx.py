"""In-process ``httpx`` transport: serve scripted models to httpx clients with no socket.

``scripted_transport(models)`` returns a transport usable by both ``httpx.Client`` and
``httpx.AsyncClient``, and by clients of the ``httpx2`` fork the recent ``openai`` and
``anthropic`` SDKs are built on (it answers in the request's own package). Give it to the
client's ``http_client``::

    openai.OpenAI(base_url="http://scripted/v1", api_key="test",
                  http_client=httpx.Client(transport=scripted_transport(model)))

An async client reads a ``model_stream`` step's events as the scripted source yields them;
a sync client gets the whole stream at once, built before the answer.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping
from typing import Any

from ._requirements import framework_import_error

try:
    import httpx
except ImportError as _missing:  # the import tests hide httpx to reach this
    raise framework_import_error(
        _missing, adapter="agents_testing.adapters.httpx", requirement="httpx>=0.27", extra="httpx"
    ) from _missing

from ..model import ScriptedModel
from ..wire import ScriptedEndpoint, WireExchange, WireResponse

__all__ = ["ScriptedTransport", "scripted_transport"]


def scripted_transport(
    models: ScriptedModel | Mapping[str, ScriptedModel] | ScriptedEndpoint,
) -> ScriptedTransport:
    """Return an httpx transport that answers from ``models`` (see ``ScriptedEndpoint``)."""
    endpoint = models if isinstance(models, ScriptedEndpoint) else ScriptedEndpoint(models)
    return ScriptedTransport(endpoint)


def _chunk_stream_class(module: Any) -> Any:
    """Return a byte stream class of ``module`` (httpx, or a fork such as httpx2)."""
    found = _STREAM_CLASSES.get(module.__name__)
    if found is not None:
        return found

    class _Chunks(module.SyncByteStream, module.AsyncByteStream):  # type: ignore[misc]
        def __init__(
            self, chunks: tuple[bytes, ...], rest: AsyncGenerator[bytes, None] | None = None
        ) -> None:
            self._chunks = chunks
            self._rest = rest  # an async client's exact stream, produced as it is read

        def __iter__(self) -> Iterator[bytes]:
            yield from self._chunks

        async def __aiter__(self) -> AsyncIterator[bytes]:
            for chunk in self._chunks:
                yield chunk
            if self._rest is not None:
                async for chunk in self._rest:
                    yield chunk

        async def aclose(self) -> None:
            # The client closed the response: stop the scripted stream and close its source.
            if self._rest is not None:
                await self._rest.aclose()

    _STREAM_CLASSES[module.__name__] = _Chunks
    return _Chunks


_STREAM_CLASSES: dict[str, Any] = {}


def _response(
    request: Any, response: WireResponse, rest: AsyncGenerator[bytes, None] | None = None
) -> Any:
    # Answer in the request's own package: clients built on an httpx fork (the openai and
    # anthropic SDKs use httpx2) only accept that package's responses.
    module = sys.modules.get(type(request).__module__.partition(".")[0], httpx)
    stream = _chunk_stream_class(module)(response.chunks, rest)
    return module.Response(response.status, headers=list(response.headers), stream=stream)


class ScriptedTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """An httpx transport, sync and async, backed by a ``ScriptedEndpoint``."""

    def __init__(self, endpoint: ScriptedEndpoint) -> None:
        if not isinstance(endpoint, ScriptedEndpoint):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(
                f"ScriptedTransport expects a ScriptedEndpoint, got {type(endpoint).__name__}"
            )
        self.endpoint = endpoint

    def __repr__(self) -> str:
        return f"<ScriptedTransport requests={len(self.endpoint.requests)}>"

    @property
    def requests(self) -> tuple[WireExchange, ...]:
        """Return every HTTP request answered so far, in arrival order."""
        return self.endpoint.requests

    def assert_complete(self) -> None:
        """Fail on the first unservable request, then on any model's unused or broken script."""
        self.endpoint.assert_complete()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Answer one request from a sync client."""
        body = request.read()
        response = self.endpoint.handle(
            request.method,
            request.url.raw_path.decode("ascii"),
            request.headers.multi_items(),
            body,
        )
        return _response(request, response)  # type: ignore[no-any-return]

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Answer one request from an async client."""
        body = await request.aread()
        response, rest = await self.endpoint.open_async(
            request.method,
            request.url.raw_path.decode("ascii"),
            request.headers.multi_items(),
            body,
        )
        return _response(request, response, rest)  # type: ignore[no-any-return]
