"""A scripted openai-agents sandbox session that the real ``SandboxAgent`` runtime accepts.

``openai_agents_sandbox_session(steps)`` returns a ``BaseSandboxSession`` backed by the core
:func:`~agents_testing.scripted_sandbox_session`. Pass it as
``RunConfig(sandbox=SandboxRunConfig(session=sandbox))``. Steps use the SDK's own method names
and the core's ``match`` / ``result`` / ``respond`` / ``error`` semantics; a matcher receives
the SDK call's arguments, with every keyword argument of the SDK signature filled in
(``exec("pwd", timeout=10.0, shell=True, user=None)``).

Scriptable methods, all asynchronous (:data:`OPENAI_AGENTS_SANDBOX_INTERFACE`):

- Operations: ``exec``, ``pty_exec_start``, ``pty_write_stdin``, ``read``, ``write``, ``ls``,
  ``rm``, ``mkdir``, ``mv``, ``same_file``, ``extract``, ``apply_patch``,
  ``persist_workspace``, ``hydrate_workspace``, ``resolve_exposed_port``. Calling one the
  script does not name raises :class:`~agents_testing.UnexpectedSandboxCallError`, which is
  recorded, and ``assert_complete()`` reports it even if the SDK turned it into tool output.
- Lifecycle: ``start``, ``running``, ``stop``, ``shutdown``, ``run_pre_stop_hooks``,
  ``pty_terminate_all``, ``apply_manifest``, ``provision_manifest_accounts``. While the script
  does not name one, the session serves it itself and records nothing: ``start`` marks the
  session running without materializing the manifest, ``running`` reports that flag, ``stop``
  persists nothing, ``shutdown`` marks it stopped, ``run_pre_stop_hooks`` runs the registered
  hooks, ``pty_terminate_all`` does nothing, and the two manifest methods materialize
  nothing. Once the script names one, every call to it takes a step; a successful scripted
  ``start`` or ``shutdown`` still updates the running flag, so the runtime does not start
  the session twice.

The protected hooks the runtime calls (concurrency and archive limits, manifest validation,
``_apply_entry_batch``) are served and never recorded; ``_apply_entry_batch`` materializes
nothing. Methods the SDK derives from others keep the SDK's implementation and reach the
script through what they call: ``read_bounded`` reads through ``read``, ``aclose`` runs
``run_pre_stop_hooks``, ``stop`` and ``shutdown``, and the apply-patch tool's file creation
is ``mkdir`` then ``write``.

``supports_pty()`` is True when the script names ``pty_exec_start`` or ``pty_write_stdin``; the
Shell capability then offers ``write_stdin`` and runs commands through ``pty_exec_start``. It is
derived from the script and is never a step.

Result shorthands: a ``str`` or ``bytes`` value for ``exec`` becomes
``ExecResult(stdout=..., stderr=b"", exit_code=0)`` (text is UTF-8 encoded), and for ``read``
an ``io.BytesIO`` of those bytes. They apply to ``result`` and ``respond`` values alike; any
other value is returned as it is.
"""

from __future__ import annotations

import copy
import io
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, cast

try:
    from agents.editor import ApplyPatchOperation
    from agents.run_config import SandboxArchiveLimits
    from agents.sandbox.apply_patch import PatchFormat
    from agents.sandbox.entries import BaseEntry
    from agents.sandbox.files import FileEntry
    from agents.sandbox.manifest import Manifest
    from agents.sandbox.materialization import MaterializationResult, MaterializedFile
    from agents.sandbox.session.base_sandbox_session import BaseSandboxSession
    from agents.sandbox.session.pty_types import PtyExecUpdate
    from agents.sandbox.session.sandbox_session_state import SandboxSessionState
    from agents.sandbox.snapshot import NoopSnapshot
    from agents.sandbox.types import ExecResult, ExposedPortEndpoint, User
except ImportError as _missing:  # the import tests hide the framework to reach this
    # Loaded only here: a successful import of the adapter does not need it.
    from ._requirements import framework_import_error

    raise framework_import_error(
        _missing,
        adapter="agents_testing.adapters.openai_agents",
        requirement="openai-agents>=0.24",
        extra="openai-agents",
    ) from _missing

from ..sandbox import SandboxCall, SandboxMethodMode, SandboxStep, ScriptedSandboxSession

__all__ = [
    "OPENAI_AGENTS_SANDBOX_INTERFACE",
    "OpenAIAgentsSandboxSession",
    "openai_agents_sandbox_session",
]

_OPERATIONS = (
    "exec",
    "pty_exec_start",
    "pty_write_stdin",
    "read",
    "write",
    "ls",
    "rm",
    "mkdir",
    "mv",
    "same_file",
    "extract",
    "apply_patch",
    "persist_workspace",
    "hydrate_workspace",
    "resolve_exposed_port",
)
_LIFECYCLE = (
    "start",
    "running",
    "stop",
    "shutdown",
    "run_pre_stop_hooks",
    "pty_terminate_all",
    "apply_manifest",
    "provision_manifest_accounts",
)
_PTY_METHODS = frozenset({"pty_exec_start", "pty_write_stdin"})

OPENAI_AGENTS_SANDBOX_INTERFACE: Mapping[str, SandboxMethodMode] = MappingProxyType(
    dict.fromkeys(_OPERATIONS + _LIFECYCLE, "async")
)
"""The ``BaseSandboxSession`` methods a step may name, and their modes."""


def openai_agents_sandbox_session(
    steps: Iterable[SandboxStep | Mapping[str, Any]] = (),
    *,
    manifest: Manifest | None = None,
) -> OpenAIAgentsSandboxSession:
    """Build an in-memory ``BaseSandboxSession`` that answers from ``steps``, in order.

    Args:
        steps: Core sandbox steps naming methods of
            :data:`OPENAI_AGENTS_SANDBOX_INTERFACE`.
        manifest: The session's ``state.manifest`` (copied), which the runtime uses for an
            injected session instead of the agent's ``default_manifest``. Defaults to
            ``Manifest()``, rooted at ``/workspace``.

    Raises:
        InvalidScriptedSandboxStepError: For the first malformed step, or one naming a method
            outside the interface (``supports_pty`` included).
        TypeError: For ``steps`` that are not an iterable of steps (``None``, a single step).
    """
    return OpenAIAgentsSandboxSession(steps, manifest=manifest)


class OpenAIAgentsSandboxSession(BaseSandboxSession):
    """A ``BaseSandboxSession`` whose scripted methods answer from one ordered script.

    Build one with :func:`openai_agents_sandbox_session`. ``calls``, ``remaining_steps`` and
    ``assert_complete`` are the core session's.
    """

    def __init__(
        self,
        steps: Iterable[SandboxStep | Mapping[str, Any]] = (),
        *,
        manifest: Manifest | None = None,
    ) -> None:
        self._script = ScriptedSandboxSession(steps, interface=OPENAI_AGENTS_SANDBOX_INTERFACE)
        self.state: SandboxSessionState = SandboxSessionState(
            type="scripted",
            snapshot=NoopSnapshot(id="scripted"),
            manifest=Manifest() if manifest is None else copy.deepcopy(manifest),
        )
        self._running = False

    @property
    def calls(self) -> tuple[SandboxCall, ...]:
        """Every call the script saw, in order: scripted methods and unexpected operations.

        Served lifecycle calls are not here. Each read gives new detached records.
        """
        return self._script.calls

    @property
    def remaining_steps(self) -> int:
        """The number of steps no call has taken yet."""
        return self._script.remaining_steps

    def assert_complete(self) -> None:
        """Fail if a call broke the script or a scripted step was never used."""
        self._script.assert_complete()

    def __repr__(self) -> str:
        return (
            f"<OpenAIAgentsSandboxSession calls={len(self._script.calls)} "
            f"remaining_steps={self._script.remaining_steps}>"
        )

    def _scripts(self, method: str) -> bool:
        # The core installs exactly the methods its steps name.
        return hasattr(self._script, method)

    def _take(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Awaitable[Any]:
        """Record the call and take its step now; the returned awaitable gives the outcome."""
        # invoke() also serves methods the script does not name: the call is recorded and
        # fails with UnexpectedSandboxCallError, which assert_complete() reports even if the
        # SDK turned it into tool output.
        result: Awaitable[Any] = self._script.invoke(method, *args, **kwargs)
        return result

    # -- served lifecycle ------------------------------------------------------------------

    async def start(self) -> None:
        """Mark the session running, without materializing the manifest."""
        if self._scripts("start"):
            await self._take("start", (), {})
        self._running = True
        self.state.workspace_root_ready = True

    async def running(self) -> bool:
        """Report whether start() ran and shutdown() has not."""
        if self._scripts("running"):
            return cast(bool, await self._take("running", (), {}))
        return self._running

    async def stop(self) -> None:
        """Persist nothing: an in-memory session has no workspace to snapshot."""
        if self._scripts("stop"):
            await self._take("stop", (), {})

    async def shutdown(self) -> None:
        """Mark the session stopped."""
        if self._scripts("shutdown"):
            await self._take("shutdown", (), {})
        self._running = False

    async def run_pre_stop_hooks(self) -> None:
        if self._scripts("run_pre_stop_hooks"):
            await self._take("run_pre_stop_hooks", (), {})
            return
        await super().run_pre_stop_hooks()

    async def pty_terminate_all(self) -> None:
        if self._scripts("pty_terminate_all"):
            await self._take("pty_terminate_all", (), {})

    async def apply_manifest(self, *, only_ephemeral: bool = False) -> MaterializationResult:
        if self._scripts("apply_manifest"):
            return cast(
                MaterializationResult,
                await self._take("apply_manifest", (), {"only_ephemeral": only_ephemeral}),
            )
        return MaterializationResult(files=[])

    async def provision_manifest_accounts(self) -> None:
        if self._scripts("provision_manifest_accounts"):
            await self._take("provision_manifest_accounts", (), {})

    async def _apply_entry_batch(
        self,
        entries: Sequence[tuple[Path, BaseEntry]],
        *,
        base_dir: Path,
    ) -> list[MaterializedFile]:
        # The runtime materializes capability manifest entries on a running injected session
        # through this hook; an in-memory session keeps them only in state.manifest.
        return []

    def supports_pty(self) -> bool:
        """Report whether the script names a PTY method (never a step itself)."""
        return any(self._scripts(method) for method in _PTY_METHODS)

    # -- scripted operations ---------------------------------------------------------------

    async def exec(
        self,
        *command: str | Path,
        timeout: float | None = None,
        shell: bool | list[str] = True,
        user: str | User | None = None,
    ) -> ExecResult:
        value = await self._take(
            "exec", command, {"timeout": timeout, "shell": shell, "user": user}
        )
        if isinstance(value, (str, bytes, bytearray)):
            return ExecResult(stdout=_as_bytes(value), stderr=b"", exit_code=0)
        return cast(ExecResult, value)

    async def _exec_internal(
        self,
        *command: str | Path,
        timeout: float | None = None,
    ) -> ExecResult:
        # exec() is scripted whole, so nothing reaches this hook through it. A direct caller
        # holds an already prepared argv, which is exec() of that argv without a shell.
        return await self.exec(*command, timeout=timeout, shell=False)

    async def pty_exec_start(
        self,
        *command: str | Path,
        timeout: float | None = None,
        shell: bool | list[str] = True,
        user: str | User | None = None,
        tty: bool = False,
        yield_time_s: float | None = None,
        max_output_tokens: int | None = None,
    ) -> PtyExecUpdate:
        options = {
            "timeout": timeout,
            "shell": shell,
            "user": user,
            "tty": tty,
            "yield_time_s": yield_time_s,
            "max_output_tokens": max_output_tokens,
        }
        return cast(PtyExecUpdate, await self._take("pty_exec_start", command, options))

    async def pty_write_stdin(
        self,
        *,
        session_id: int,
        chars: str,
        yield_time_s: float | None = None,
        max_output_tokens: int | None = None,
    ) -> PtyExecUpdate:
        options = {
            "session_id": session_id,
            "chars": chars,
            "yield_time_s": yield_time_s,
            "max_output_tokens": max_output_tokens,
        }
        return cast(PtyExecUpdate, await self._take("pty_write_stdin", (), options))

    async def read(self, path: Path, *, user: str | User | None = None) -> io.IOBase:
        value = await self._take("read", (path,), {"user": user})
        if isinstance(value, (str, bytes, bytearray)):
            return io.BytesIO(_as_bytes(value))
        return cast(io.IOBase, value)

    async def write(
        self,
        path: Path,
        data: io.IOBase,
        *,
        user: str | User | None = None,
    ) -> None:
        await self._take("write", (path, data), {"user": user})

    async def ls(
        self,
        path: Path | str,
        *,
        user: str | User | None = None,
    ) -> list[FileEntry]:
        return cast(list[FileEntry], await self._take("ls", (path,), {"user": user}))

    async def rm(
        self,
        path: Path | str,
        *,
        recursive: bool = False,
        user: str | User | None = None,
    ) -> None:
        await self._take("rm", (path,), {"recursive": recursive, "user": user})

    async def mkdir(
        self,
        path: Path | str,
        *,
        parents: bool = False,
        user: str | User | None = None,
    ) -> None:
        await self._take("mkdir", (path,), {"parents": parents, "user": user})

    async def mv(
        self,
        source: Path | str,
        destination: Path | str,
        *,
        user: str | User | None = None,
    ) -> None:
        await self._take("mv", (source, destination), {"user": user})

    async def same_file(
        self,
        left: Path | str,
        right: Path | str,
        *,
        follow_symlinks: bool = True,
        user: str | User | None = None,
    ) -> bool:
        options = {"follow_symlinks": follow_symlinks, "user": user}
        return cast(bool, await self._take("same_file", (left, right), options))

    async def extract(
        self,
        path: Path | str,
        data: io.IOBase,
        *,
        compression_scheme: Literal["tar", "zip"] | None = None,
        archive_limits: SandboxArchiveLimits | None = None,
    ) -> None:
        options = {"compression_scheme": compression_scheme, "archive_limits": archive_limits}
        await self._take("extract", (path, data), options)

    async def apply_patch(
        self,
        operations: ApplyPatchOperation
        | dict[str, object]
        | list[ApplyPatchOperation | dict[str, object]],
        *,
        patch_format: PatchFormat | Literal["v4a"] = "v4a",
    ) -> str:
        options = {"patch_format": patch_format}
        return cast(str, await self._take("apply_patch", (operations,), options))

    async def persist_workspace(self) -> io.IOBase:
        return cast(io.IOBase, await self._take("persist_workspace", (), {}))

    async def hydrate_workspace(self, data: io.IOBase) -> None:
        await self._take("hydrate_workspace", (data,), {})

    async def resolve_exposed_port(self, port: int) -> ExposedPortEndpoint:
        return cast(ExposedPortEndpoint, await self._take("resolve_exposed_port", (port,), {}))


def _as_bytes(value: str | bytes | bytearray) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)
