"""How the dashboard is served: `streamlit run dashboard/serve.py` (what `make demo` runs) serves
`dashboard/app.py` through Streamlit's ASGI app, with two middlewares of ours in front.

The first tells Streamlit's page where its server is. Without that, a page opened at a deep
link (`/replay?hand=…`) first asks `/replay/_stcore/health` and `/replay/_stcore/host-config`, to
learn whether the app is served under `/replay`, and the browser logs two 404s before the page asks
the root's. Streamlit's page reads `window.__streamlit.BACKEND_BASE_URL` once, when its script
loads: the middleware writes it into the HTML page, before that script, as the server's root
(`server.baseUrlPath` included). Every other response passes through untouched.

A second middleware serves Streamlit's own page files (`/static/…`: some 140 scripts, styles and
fonts, 5.6 MB, that every reader's first visit fetches). Streamlit's file handler reads each from
disk through the whole middleware stack on every request, uncompressed: about 0.2 CPU-s of the
server per first visit, half of a page view's cost (docs/benchmarks.md, "Serving"). Here each
file is read once, its gzip made once, and both answered from memory; only files that exist in
Streamlit's static folder, looked up by exact path, are served this way, anything else goes on
to Streamlit.

`streamlit run dashboard/app.py` still works (the tests' AppTest runs it directly); it only keeps
the two 404s on deep links and the slower file serving.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib
import json
import mimetypes
import os
from collections.abc import MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from streamlit import config, file_util

_HEAD = b"<head>"


def backend_script(base_url_path: str) -> bytes:
    """The inline script that names the server's root for Streamlit's page (the origin is the
    page's own, so a proxy in front keeps working)."""
    inner = base_url_path.strip("/")
    base = f"/{inner}/" if inner else "/"
    # `<` escaped: a `</script>` in the setting must not end the script.
    value = json.dumps(base).replace("<", "\\u003c")
    return (
        "<script>window.__streamlit=Object.assign(window.__streamlit||{},"
        f"{{BACKEND_BASE_URL:location.origin+{value}}});</script>"
    ).encode()


def inject(html: bytes, script: bytes) -> bytes:
    """`html` with `script` right after its `<head>` (unchanged when there is none)."""
    at = html.find(_HEAD)
    if at < 0:
        return html
    at += len(_HEAD)
    return html[:at] + script + html[at:]


class BackendBaseUrl:
    """ASGI middleware: a page's address answered with Streamlit's HTML page gets the backend
    script; nothing else is buffered or changed."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not _is_page_request(scope):
            await self.app(scope, receive, send)
            return
        # Streamlit compresses its page; this one is small and read once, so it is asked plain.
        scope = {
            **scope,
            "headers": [
                (name, value)
                for name, value in scope.get("headers", [])
                if name.lower() != b"accept-encoding"
            ],
        }
        start: MutableMapping[str, Any] | None = None
        body: list[bytes] = []

        async def rewrite(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                if _is_plain_html(message):
                    start = message
                    return
            elif message["type"] == "http.response.body" and start is not None:
                body.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                page = inject(b"".join(body), backend_script(_base_url_path()))
                headers = [
                    (name, value)
                    for name, value in start.get("headers", [])
                    if name.lower() != b"content-length"
                ]
                headers.append((b"content-length", str(len(page)).encode()))
                await send({**start, "headers": headers})
                await send({"type": "http.response.body", "body": page, "more_body": False})
                return
            await send(message)

        await self.app(scope, receive, rewrite)


def _is_page_request(scope: Scope) -> bool:
    """A GET of a page's address (`/`, `/replay`): not a file (no dot in its last part) and not
    one of Streamlit's own endpoints."""
    if scope["type"] != "http" or scope["method"] != "GET":
        return False
    path: str = scope["path"]
    return "/_stcore/" not in path and "." not in path.rsplit("/", 1)[-1]


def _is_plain_html(start: MutableMapping[str, Any]) -> bool:
    if start.get("status") != 200:
        return False
    headers = {name.lower(): value for name, value in start.get("headers", [])}
    return b"content-encoding" not in headers and headers.get(b"content-type", b"").startswith(
        b"text/html"
    )


def _base_url_path() -> str:
    value = config.get_option("server.baseUrlPath")
    return value if isinstance(value, str) else ""


_YEAR = 365 * 24 * 60 * 60
_COMPRESSIBLE = (".js", ".css", ".json", ".svg", ".txt", ".map", ".html")


@dataclass(frozen=True)
class Asset:
    """One static file as answered: its bytes, their gzip (None when not worth it), its type and
    its entity tag."""

    body: bytes
    zipped: bytes | None
    content_type: bytes
    etag: bytes


def static_files(folder: Path) -> dict[str, Path]:
    """Every regular file under `folder/static`, by the URL path it is asked at (`/static/…`).
    Symbolic links are left out: only the package's own files are answered."""
    files: dict[str, Path] = {}
    root = folder / "static"
    for here, _dirs, names in os.walk(root):
        for name in names:
            path = Path(here) / name
            if path.is_file() and not path.is_symlink():
                files["/" + path.relative_to(folder).as_posix()] = path
    return files


def load_asset(path: Path) -> Asset:
    body = path.read_bytes()
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind in ("application/javascript", "application/json"):
        kind += "; charset=utf-8"
    zipped = None
    if path.suffix in _COMPRESSIBLE and len(body) > 1024:
        packed = gzip.compress(body, compresslevel=6, mtime=0)
        zipped = packed if len(packed) < len(body) else None
    # Weak: one tag for the file whichever encoding is sent (a strong one names one encoding).
    tag = b'W/"' + hashlib.blake2b(body, digest_size=12).hexdigest().encode() + b'"'
    return Asset(body, zipped, kind.encode(), tag)


class StaticAssets:
    """ASGI middleware: a GET or HEAD of one of Streamlit's static files (exact path, base path
    stripped) answered from memory, gzipped when the browser takes it; the rest goes on."""

    def __init__(self, app: ASGIApp, folder: Path | None = None) -> None:
        self.app = app
        self.files = static_files(folder or Path(file_util.get_static_dir()))
        self.loaded: dict[str, Asset] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = _strip_base(scope.get("path", "")) if scope["type"] == "http" else ""
        if path not in self.files or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        asset = self._asset(path)
        headers = dict(_headers(scope))
        common = [
            (b"cache-control", f"public, immutable, max-age={_YEAR}".encode()),
            (b"etag", asset.etag),
        ]
        if asset.zipped is not None:
            common.append((b"vary", b"Accept-Encoding"))
        if headers.get(b"if-none-match") == asset.etag:
            await send({"type": "http.response.start", "status": 304, "headers": common})
            await send({"type": "http.response.body", "body": b""})
            return
        body = asset.body
        if asset.zipped is not None and b"gzip" in headers.get(b"accept-encoding", b""):
            body = asset.zipped
            common.append((b"content-encoding", b"gzip"))
        common += [
            (b"content-type", asset.content_type),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": common})
        await send(
            {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body}
        )

    def _asset(self, path: str) -> Asset:
        # Read on the first request (once per file and process): requests are answered on one
        # event loop, so no two threads fill the dict.
        found = self.loaded.get(path)
        if found is None:
            found = self.loaded[path] = load_asset(self.files[path])
        return found


def _headers(scope: Scope) -> list[tuple[bytes, bytes]]:
    return [(name.lower(), value) for name, value in scope.get("headers", [])]


def _strip_base(path: str) -> str:
    base = _base_url_path().strip("/")
    if base and path.startswith(f"/{base}/"):
        return path[len(base) + 1 :]
    return path


def warm_up() -> None:
    """Import the libraries the first page view would, so the first reader does not wait: among
    them pandas, which Streamlit imports at its first table (a quarter of a second). Not the
    dashboard's own modules: their caches must be declared once Streamlit's runtime is up (before
    it, Streamlit warns that it has none)."""
    for name in ("pandas", "pyarrow", "polars", "duckdb", "altair", "analytics.charts"):
        importlib.import_module(name)


warm_up()
app = st.App(
    str(Path(__file__).with_name("app.py")),
    middleware=[Middleware(StaticAssets), Middleware(BackendBaseUrl)],
)
