"""How a plain step's text is cut into stream deltas, shared by the core and the wire."""

from __future__ import annotations

__all__ = ["check_text_delta_size", "text_deltas"]


def check_text_delta_size(size: object) -> int | None:
    """Return ``size`` if it is ``None`` or a positive int; raise naming the argument otherwise."""
    if size is None:
        return None
    if isinstance(size, bool) or not isinstance(size, int):
        raise TypeError(
            f"text_delta_size must be a positive int or None, got {type(size).__name__}"
        )
    if size < 1:
        raise ValueError(f"text_delta_size must be at least 1 character, got {size}")
    return size


def text_deltas(text: str, size: int | None) -> list[str]:
    """Cut ``text`` into deltas of at most ``size`` characters (one delta when ``None``).

    An empty text is still one empty delta, as the reference streams it.
    """
    if size is None or len(text) <= size:
        return [text]
    return [text[start : start + size] for start in range(0, len(text), size)]
