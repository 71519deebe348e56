"""In-process ``httpx`` transport: serve scripted models to httpx clients with no socket.

``scripted_transport(models)`` returns a transport usable by both ``httpx.Client`` and
``httpx.AsyncClient``, and by clients of the ``httpx2`` fork the recent ``openai`` and
``anthropic`` SDKs are built on (it answers in the request's own package). Give it to the
client's ``http_client``::

    openai.OpenAI(base_url="http://scripted/v1", api_key="test",
                  http_client=httpx.Client(transport=scripted_transport(model)))

A client reads a ``model_stream`` step's events as the scripted source yields them. A sync
client's steps run on an event loop of the transport's, run in the client's own thread (one
loop per thread, no thread hop per request or per chunk); a sync client called from inside
a running event loop gets a loop in a thread the transport starts instead. Closing the
client closes them all.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Coroutine, Iterator, Mapping
from typing import Any, TypeVar

try:
    import httpx
except ImportError as _missing:  # the import tests hide httpx to reach this
    # Loaded only here: a successful import of the adapter does not need it.
    from ._requirements import framework_import_error

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


_T = TypeVar("_T")


class _LoopThread:
    """An event loop on a thread of its own, for sync clients called inside a running loop.

    The scripted source may hold objects of the loop it started on, so every step of an
    exchange, from the request to the stream's close, runs on this one loop.
    """

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        # A daemon: a response its client never closes must not keep the process alive.
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="agents-testing-wire-stream", daemon=True
        )
        self._thread.start()

    @property
    def closed(self) -> bool:
        """Return whether the loop was stopped and closed."""
        return self._loop.is_closed()

    def run(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        """Run ``coroutine`` on the loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def close(self) -> None:
        """Finish the loop's async generators, then stop the loop and its thread."""
        if self._loop.is_closed():
            return
        if threading.current_thread() is self._thread:
            # Closed from a step running on this loop: stop it once that step is done.
            self._loop.call_soon(self._loop.stop)
            return
        try:
            self.run(self._loop.shutdown_asyncgens())
            self.run(self._loop.shutdown_default_executor())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()


class _CallerLoop:
    """An event loop run in the thread that calls: a sync client's own thread.

    Running the loop where the client waits anyway costs a fraction of a hop to another
    thread, per request and per streamed chunk. An exchange runs on the loop of the thread
    that made the request, from its first step to its stream's close.
    """

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()

    @property
    def closed(self) -> bool:
        """Return whether the loop was closed."""
        return self._loop.is_closed()

    def run(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        """Run ``coroutine`` to its end on the loop, in this thread."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return self._loop.run_until_complete(coroutine)
        # A stream requested outside async code, read inside it: this thread runs another
        # loop now, so run this one in a helper thread for the step.
        result: list[_T] = []
        failure: list[BaseException] = []

        def step() -> None:
            try:
                result.append(self._loop.run_until_complete(coroutine))
            except BaseException as error:  # handed back to the calling thread
                failure.append(error)

        helper = threading.Thread(target=step, name="agents-testing-wire-step")
        helper.start()
        helper.join()
        if failure:
            raise failure[0]
        return result[0]

    def close(self) -> None:
        """Finish the loop's async generators and worker threads, then close it."""
        loop = self._loop
        if loop.is_closed() or loop.is_running():
            return  # a request of another thread is still running on it: it stays open

        def finish() -> None:
            try:
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.run_until_complete(loop.shutdown_default_executor())
            finally:
                loop.close()

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            finish()
            return
        # Closed from async code, where this thread cannot run another loop.
        helper = threading.Thread(target=finish, name="agents-testing-wire-close")
        helper.start()
        helper.join()


_Runner = _LoopThread | _CallerLoop


def _close_all(runners: list[_Runner], lock: threading.Lock) -> None:
    """Close every loop in ``runners`` and forget them (the list is the transport's own)."""
    with lock:
        closing = list(runners)
        runners.clear()
    for runner in closing:
        runner.close()


async def _next_chunk(rest: AsyncGenerator[bytes, None]) -> bytes | None:
    try:
        return await rest.__anext__()
    except StopAsyncIteration:
        return None


def _chunk_stream_class(module: Any) -> Any:
    """Return a byte stream class of ``module`` (httpx, or a fork such as httpx2)."""
    found = _STREAM_CLASSES.get(module.__name__)
    if found is not None:
        return found

    class _Chunks(module.SyncByteStream, module.AsyncByteStream):  # type: ignore[misc]
        def __init__(
            self,
            chunks: tuple[bytes, ...],
            rest: AsyncGenerator[bytes, None] | None = None,
            runner: _Runner | None = None,
        ) -> None:
            self._chunks = chunks
            self._rest = rest  # an exact stream's remaining chunks, produced as they are read
            self._runner = runner  # the loop a sync client's stream runs on

        def __iter__(self) -> Iterator[bytes]:
            yield from self._chunks
            if self._rest is None or self._runner is None:
                return
            while (chunk := self._runner.run(_next_chunk(self._rest))) is not None:
                yield chunk

        def close(self) -> None:
            # The sync client closed the response: stop the scripted stream and its source.
            # (A transport closed first has closed it while shutting its loop down.)
            runner, self._runner = self._runner, None
            if runner is not None and self._rest is not None and not runner.closed:
                runner.run(self._rest.aclose())

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
    request: Any,
    response: WireResponse,
    rest: AsyncGenerator[bytes, None] | None = None,
    runner: _Runner | None = None,
) -> Any:
    # Answer in the request's own package: clients built on an httpx fork (the openai and
    # anthropic SDKs use httpx2) only accept that package's responses.
    module = sys.modules.get(type(request).__module__.partition(".")[0], httpx)
    chunks = response.chunks
    if rest is None and len(chunks) == 1:
        # A body known whole, in one piece: the package's own stream carries it.
        stream = module.ByteStream(chunks[0])
    else:
        stream = _chunk_stream_class(module)(chunks, rest, runner)
    return module.Response(response.status, headers=list(response.headers), stream=stream)


class ScriptedTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """An httpx transport, sync and async, backed by a ``ScriptedEndpoint``."""

    def __init__(self, endpoint: ScriptedEndpoint) -> None:
        if not isinstance(endpoint, ScriptedEndpoint):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(
                f"ScriptedTransport expects a ScriptedEndpoint, got {type(endpoint).__name__}"
            )
        self.endpoint = endpoint
        self._lock = threading.Lock()
        # The sync requests' loops, made on demand: one per calling thread, and one on a
        # thread of its own for sync clients called inside a running loop.
        self._local = threading.local()
        self._runners: list[_Runner] = []
        self._thread_runner: _LoopThread | None = None
        # A client nobody closed still closes its loops once the transport is collected.
        weakref.finalize(self, _close_all, self._runners, self._lock)

    def __repr__(self) -> str:
        return f"<ScriptedTransport requests={len(self.endpoint.requests)}>"

    def close(self) -> None:
        """Close the event loops the sync requests ran on; ``httpx.Client`` calls this."""
        with self._lock:
            self._thread_runner = None
        _close_all(self._runners, self._lock)

    def _sync_loop(self) -> _Runner:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            runner: _CallerLoop | None = getattr(self._local, "runner", None)
            if runner is None or runner.closed:
                runner = self._local.runner = _CallerLoop()
                with self._lock:
                    self._runners.append(runner)
            return runner
        # A sync client inside async code: this thread's loop is busy running that code.
        with self._lock:
            if self._thread_runner is None or self._thread_runner.closed:
                self._thread_runner = _LoopThread()
                self._runners.append(self._thread_runner)
            return self._thread_runner

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
        headers = request.headers
        # A scripted response needs no event loop: only a stream or an awaiting responder
        # runs on this thread's loop, found (or made) when one of them asks for it.
        response, rest = self.endpoint._open_sync(  # pyright: ignore[reportPrivateUsage]
            request.method,
            request.url.raw_path.decode("ascii"),
            headers.raw,
            headers.encoding,
            body,
            self._run,
        )
        if rest is None:
            return _response(request, response)  # type: ignore[no-any-return]
        # The rest of a stream goes on in the loop that started it: the same thread, so the
        # same runner.
        return _response(request, response, rest, self._sync_loop())  # type: ignore[no-any-return]

    def _run(self, awaitable: Coroutine[Any, Any, WireResponse]) -> WireResponse:
        return self._sync_loop().run(awaitable)

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
