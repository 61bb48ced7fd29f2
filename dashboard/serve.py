"""How the dashboard is served: `streamlit run dashboard/serve.py` (what `make demo` runs) serves
`dashboard/app.py` through Streamlit's ASGI app, with one middleware of ours in front.

The middleware tells Streamlit's page where its server is. Without that, a page opened at a deep
link (`/replay?hand=…`) first asks `/replay/_stcore/health` and `/replay/_stcore/host-config`, to
learn whether the app is served under `/replay`, and the browser logs two 404s before the page asks
the root's. Streamlit's page reads `window.__streamlit.BACKEND_BASE_URL` once, when its script
loads: the middleware writes it into the HTML page, before that script, as the server's root
(`server.baseUrlPath` included). Every other response passes through untouched.

`streamlit run dashboard/app.py` still works (the tests' AppTest runs it directly); it only keeps
the two 404s on deep links.
"""

from __future__ import annotations

import json
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import streamlit as st
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from streamlit import config

_HEAD = b"<head>"


def backend_script(base_url_path: str) -> bytes:
    """The inline script that names the server's root for Streamlit's page (the origin is the
    page's own, so a proxy in front keeps working)."""
    base = "/" + base_url_path.strip("/") + "/" if base_url_path.strip("/") else "/"
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


app = st.App(str(Path(__file__).with_name("app.py")), middleware=[Middleware(BackendBaseUrl)])
