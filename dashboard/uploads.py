"""Where the Import page saves an upload: a safe, unique file name beside the database."""

from __future__ import annotations

import hashlib
import re

SUFFIXES = (
    ".jsonl.gz",
    ".jsonl",
    ".json.gz",
    ".json",
    ".ndjson.gz",
    ".ndjson",
    ".log.gz",
    ".log",
)
"""Hand histories, and other engines' logs (docs/import.md): ingest recognises each by content."""
MAX_NAME = 120
"""Characters in a stored name, suffix and hash included."""


def stored_name(name: str, content: bytes) -> str | None:
    """The file name an upload is saved under, or None when `name` has none of SUFFIXES.

    The suffix is checked on the name as uploaded, then the stem is cleaned to ASCII and cut so the
    whole name fits MAX_NAME characters, and a short hash of the content is added: two uploads
    whose names clean alike (`ü.jsonl`, `ö.jsonl`) cannot overwrite each other, and the same file
    uploaded twice keeps one name (re-ingesting it then changes nothing)."""
    suffix = next((s for s in SUFFIXES if name.lower().endswith(s)), None)
    if suffix is None:
        return None
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", name[: -len(suffix)]).strip("._") or "upload"
    tag = hashlib.sha256(content).hexdigest()[:12]
    return f"{stem[: MAX_NAME - len(suffix) - len(tag) - 1]}-{tag}{suffix}"
