"""The error an adapter raises when its framework cannot be imported."""

from __future__ import annotations

import sys

__all__ = ["framework_import_error"]


def framework_import_error(
    error: ImportError, *, adapter: str, requirement: str, extra: str, root: str | None = None
) -> ImportError:
    """Return the error that tells the user which framework version to install.

    ``root`` names the framework's package when it lives inside another distribution's
    namespace (``opentelemetry.sdk`` beside ``opentelemetry-api``): its absence is the
    framework's absence even though the top-level package is installed.
    """
    install = f'pip install "agents-testing[{extra}]"'
    missing = error.name or ""
    package = missing.partition(".")[0]
    # A parent hidden or absent (None or no entry in sys.modules) means the whole framework is.
    absent = missing == package or sys.modules.get(package) is None
    if root is not None:
        inside = missing.startswith(root + ".") and sys.modules.get(root) is None
        absent = absent or missing == root or root.startswith(missing + ".") or inside
    if isinstance(error, ModuleNotFoundError) and absent:
        # The framework is absent: a ModuleNotFoundError (not a bare ImportError) is what
        # pytest.importorskip skips on, and `name` says which module was missing.
        return ModuleNotFoundError(
            f"{adapter} needs {requirement}, which is not installed; install it with {install} "
            f"({error})",
            name=error.name,
        )
    # The framework is installed but lacks a module or name the adapter uses: an older
    # version. That must fail loudly rather than skip, so it stays a plain ImportError.
    return ImportError(
        f"{adapter} needs {requirement}, but the installed version lacks what the adapter uses; "
        f"upgrade it with {install} ({error})",
        name=error.name,
    )
