"""MCP rows: one tools/call through ScriptedMCPServer against a minimal real MCP server.

The baseline is the official SDK's high-level server, ``mcp.server.mcpserver.MCPServer`` (the
FastMCP API that ``mcp`` 2.x ships under that name), serving the same one-tool echo. The client
is the official ``mcp.Client`` in its default mode for both, connected once per sample.

- Streamable HTTP: both servers run in this process (ours in its thread, MCPServer on uvicorn
  in a thread), so the CPU time counts client and server alike.
- stdio: each server's work is partly in a child process (our relay, or the whole MCPServer),
  which CPU time of this process cannot see; that row compares wall time per call instead.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from _harness import Row, compare, cpu_seconds_async

from agents_testing import MCPCall, ScriptedMCPServer, mcp_tool, mcp_tool_call

GROUP = "mcp"

_ECHO_SERVER = """
from mcp.server.mcpserver import MCPServer

app = MCPServer("bench")


@app.tool()
def echo(text: str) -> str:
    return text


if __name__ == "__main__":
    app.run("stdio")
"""


def _echo(call: MCPCall) -> str:
    arguments = call.arguments or {}
    return str(arguments.get("text"))


def _scripted(calls: int) -> ScriptedMCPServer:
    return ScriptedMCPServer(
        [mcp_tool_call("echo", respond=_echo)] * calls,
        tools=[mcp_tool("echo", "Echo the text.", {"type": "object", "properties": {}})],
    )


async def _calls(target: Any, calls: int) -> None:
    from mcp import Client

    async with Client(target) as client:
        for _ in range(calls):
            await client.call_tool("echo", {"text": "hi"})


class _Uvicorn:
    """MCPServer's streamable HTTP app on uvicorn, in a thread of this process."""

    def __init__(self, script: Path) -> None:
        import importlib.util

        import uvicorn

        spec = importlib.util.spec_from_file_location("bench_echo_server", script)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        config = uvicorn.Config(
            module.app.streamable_http_app(), host="127.0.0.1", port=0, log_level="error"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:  # bounded by uvicorn's own startup
            time.sleep(0.01)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/mcp"

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join()


def rows(quick: bool) -> list[Row]:
    repeats, calls = (1, 2) if quick else (9, 50)
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder, "echo_server.py")
        script.write_text(_ECHO_SERVER)
        baseline = _Uvicorn(script)
        try:

            def ours_http() -> float:
                with _scripted(calls) as server:
                    return cpu_seconds_async(lambda: _calls(server.url, calls)) / calls

            def base_http() -> float:
                return cpu_seconds_async(lambda: _calls(baseline.url, calls)) / calls

            http_row = compare(
                GROUP,
                "tools/call over streamable HTTP, mcp.Client (CPU per call)",
                "mcp MCPServer on uvicorn",
                ours_http,
                base_http,
                repeats=repeats,
                goal="<= 1.0",
            )
        finally:
            baseline.close()

        from mcp.client.stdio import StdioServerParameters

        def wall(target: Any) -> float:
            start = time.perf_counter()
            asyncio.run(_calls(target, calls))
            return (time.perf_counter() - start) / calls

        def ours_stdio() -> float:
            with _scripted(calls) as server:
                return wall(StdioServerParameters(**server.stdio_params))

        def base_stdio() -> float:
            return wall(StdioServerParameters(command=sys.executable, args=[str(script)]))

        stdio_row = compare(
            GROUP,
            "connect + tools/call over stdio, mcp.Client (wall time per call)",
            "mcp MCPServer over stdio",
            ours_stdio,
            base_stdio,
            repeats=repeats,
            goal="<= 1.0",
        )
    return [http_row, stdio_row]
