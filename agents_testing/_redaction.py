"""Redaction shared by recording and replay: secrets never reach a script, record or message."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

__all__ = ["REDACTED", "RedactPattern", "Redactor", "plural", "type_name"]

REDACTED = "[REDACTED]"

# A pattern to redact: a regular expression as text or compiled.
RedactPattern = str | re.Pattern[str]

# Credentials travel in these headers; they are never recorded, and their values are
# redacted wherever they appear in a body.
_SECRET_HEADERS = (
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "x-goog-api-key",
    "cookie",
    "set-cookie",
)

# Keys whose string values a stream spreads over several events: a secret can be split
# across them, so they are redacted as one text.
_PIECE_KEYS = frozenset({"delta", "text", "content", "partial_json", "arguments", "thinking"})


class Redactor:
    """Replace secrets with ``REDACTED``: the credentials seen in headers and the patterns."""

    def __init__(self, patterns: Iterable[RedactPattern] = ()) -> None:
        compiled: list[re.Pattern[str]] = []
        for position, pattern in enumerate(_patterns(patterns)):
            if isinstance(pattern, re.Pattern):
                compiled.append(cast("re.Pattern[str]", pattern))  # pragma: no mutate
            elif isinstance(pattern, str) and pattern:
                try:
                    compiled.append(re.compile(pattern))
                except re.error as error:
                    raise ValueError(
                        f"redact[{position}] is not a valid pattern: {error}"
                    ) from None
            else:
                raise TypeError(
                    f"redact[{position}] must be a non-empty regular expression (a str or a "
                    f"compiled pattern), got {type(pattern).__name__}"
                )
        self._patterns = compiled
        self._secrets: set[str] = set()
        self._lock = threading.Lock()
        self.header_counts: dict[str, int] = {}
        self.secret_count = 0
        self.pattern_counts = [0] * len(compiled)

    def learn_headers(self, headers: Iterable[tuple[str, str]]) -> None:
        """Note the credentials a request carries, so no body or answer can keep them."""
        for key, value in headers:
            name = key.lower()
            if name not in _SECRET_HEADERS:
                continue
            with self._lock:
                self.header_counts[name] = self.header_counts.get(name, 0) + 1
                for secret in (value.strip(), value.strip().partition(" ")[2].strip()):
                    # A value this short would redact ordinary words, not a credential.
                    if len(secret) >= 8:
                        self._secrets.add(secret)

    def text(self, text: str) -> str:
        """Return ``text`` with every secret replaced."""
        with self._lock:
            secrets = sorted(self._secrets, key=lambda secret: (-len(secret), secret))
        for secret in secrets:
            found = text.count(secret)
            if found:
                text = text.replace(secret, REDACTED)
                with self._lock:
                    self.secret_count += found
        for position, pattern in enumerate(self._patterns):
            text, found = _replace_matches(pattern, text)
            if found:
                with self._lock:
                    self.pattern_counts[position] += found
        return text

    def value(self, value: Any) -> Any:
        """Return a copy of JSON data with every string (keys too) redacted."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            mapping = cast("Mapping[str, Any]", value)  # pragma: no mutate
            return {
                (self.text(key) if isinstance(key, str) else key): self.value(item)
                for key, item in mapping.items()
            }
        if isinstance(value, (list, tuple)):
            items = cast("Sequence[Any]", value)  # pragma: no mutate
            return [self.value(item) for item in items]
        return value

    def pieces(self, pieces: list[str]) -> list[str]:
        """Redact texts that are parts of one text: a secret split across parts goes too."""
        joined = "".join(pieces)
        if self.text(joined) == joined:
            return pieces
        spans = self._spans(joined)
        starts = [start for start, _ in spans]
        result: list[str] = []
        offset = 0
        for piece in pieces:
            kept: list[str] = []
            for position, char in enumerate(piece, start=offset):
                if any(start <= position < end for start, end in spans):
                    if position in starts:
                        kept.append(REDACTED)
                    continue
                kept.append(char)
            result.append("".join(kept))
            offset += len(piece)
        return result

    def _spans(self, text: str) -> list[tuple[int, int]]:
        with self._lock:
            secrets = list(self._secrets)  # any order: the spans are merged
        spans: list[tuple[int, int]] = []
        for secret in secrets:
            spans += [(m.start(), m.end()) for m in re.finditer(re.escape(secret), text)]
        for pattern in self._patterns:
            # An empty match covers no character: merged or not, it changes nothing.
            spans += [(m.start(), m.end()) for m in pattern.finditer(text)]
        merged: list[tuple[int, int]] = []
        for start, end in sorted(spans):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        return merged

    def events(self, events: list[Any]) -> list[Any]:
        """Redact exact stream events: the streamed texts as one text, then every string."""
        leaves: list[tuple[Any, Any]] = []  # (container, key) of each streamed text

        def collect(node: Any) -> None:
            if isinstance(node, dict):
                mapping = cast("dict[str, Any]", node)  # pragma: no mutate
                for key, item in mapping.items():
                    if key in _PIECE_KEYS and isinstance(item, str):
                        leaves.append((mapping, key))
                    else:
                        collect(item)
            elif isinstance(node, list):
                for item in _items(node):  # pyright: ignore[reportUnknownArgumentType]
                    collect(item)

        copied: list[Any] = json.loads(json.dumps(events))
        collect(copied)
        redacted = self.pieces([container[key] for container, key in leaves])
        for position, (container, key) in enumerate(leaves):
            container[key] = redacted[position]  # one text for each piece
        result: list[Any] = self.value(copied)
        return result

    def describe(self) -> list[str]:
        """Say what was redacted, without saying what the secrets were."""
        lines = [
            f"the {name} header: never recorded (sent with {plural(count, 'request')})"
            for name, count in sorted(self.header_counts.items())
        ]
        if self.secret_count:
            lines.append(
                f"a credential from those headers: {plural(self.secret_count, 'occurrence')} "
                "in bodies or answers"
            )
        lines += [
            f"redact[{position}]: {plural(count, 'match', 'matches')}"
            for position, count in enumerate(self.pattern_counts)
        ]
        return lines


def plural(count: int, word: str, many: str | None = None) -> str:
    """Return ``count`` with the word in the right number."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def _replace_matches(pattern: re.Pattern[str], text: str) -> tuple[str, int]:
    """Replace each match that holds a character; an empty match (``x*``) stays empty."""
    found = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal found
        if match.end() == match.start():
            return ""
        found += 1
        return REDACTED

    return pattern.sub(replace, text), found


def _patterns(value: Any) -> list[Any]:
    kind = type_name(value)
    if isinstance(value, (str, bytes, re.Pattern)) or not isinstance(value, Iterable):
        raise TypeError(
            f"redact must be an iterable (a tuple or list) of regular expressions, got {kind}"
        )
    return _items(value)  # pyright: ignore[reportUnknownArgumentType]


def type_name(value: object) -> str:
    """Return the name of a value's type, for messages."""
    return type(value).__name__


def _items(value: Any) -> list[Any]:
    found: list[Any] = list(value)
    return found
