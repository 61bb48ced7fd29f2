"""dashboard/serve.py: the middleware that names the server's root in Streamlit's page, so a
deep link does not probe `/<page>/_stcore/…` first. Chromium checks the whole effect
(tests/test_dashboard_browser_pages.py); these check the rewriting itself."""

from __future__ import annotations

import asyncio
import gzip
from pathlib import Path
from typing import Any

import pytest

from dashboard import serve

PAGE = b"<!doctype html><html><head><meta charset='utf-8'><script type=module src=x.js></script>"


def _run(
    path: str,
    status: int = 200,
    headers: list[tuple[bytes, bytes]] | None = None,
    chunks: tuple[bytes, ...] = (PAGE,),
    method: str = "GET",
) -> tuple[dict[str, Any], bytes, list[tuple[bytes, bytes]]]:
    """The middleware around an app that answers `chunks`: what it sent, the body, and the
    request headers the app saw."""
    seen: list[tuple[bytes, bytes]] = []
    answer = headers or [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"content-length", str(sum(map(len, chunks))).encode()),
    ]

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.extend(scope["headers"])
        await send({"type": "http.response.start", "status": status, "headers": answer})
        for i, chunk in enumerate(chunks):
            await send(
                {"type": "http.response.body", "body": chunk, "more_body": i + 1 < len(chunks)}
            )

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.request"}

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "headers": [(b"accept-encoding", b"gzip, br"), (b"host", b"127.0.0.1")],
    }
    asyncio.run(serve.BackendBaseUrl(app)(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start, body, seen


def test_a_page_gets_the_root_before_streamlits_script() -> None:
    start, body, seen = _run("/replay")
    script = serve.backend_script("")
    assert body.startswith(b"<!doctype html><html><head>" + script)
    assert body.index(script) < body.index(b"x.js")
    assert b'BACKEND_BASE_URL:location.origin+"/"' in script
    length = [v for k, v in start["headers"] if k == b"content-length"]
    assert length == [str(len(body)).encode()]
    # The page is asked uncompressed (Streamlit would gzip it past the rewriting).
    assert all(k != b"accept-encoding" for k, _ in seen)


def test_a_page_sent_in_pieces_is_rewritten_whole() -> None:
    _, body, _ = _run("/", chunks=(PAGE[:20], PAGE[20:40], PAGE[40:]))
    assert body == serve.inject(PAGE, serve.backend_script(""))


def test_everything_else_passes_through_untouched() -> None:
    for path, kwargs in (
        ("/_stcore/host-config", {}),
        ("/static/js/index.js", {}),
        ("/replay", {"status": 304}),
        ("/replay", {"method": "HEAD"}),
        ("/replay", {"headers": [(b"content-type", b"application/json")]}),
        ("/replay", {"headers": [(b"content-type", b"text/html"), (b"content-encoding", b"gzip")]}),
    ):
        _, body, seen = _run(path, **kwargs)
        assert body == PAGE, (path, kwargs)
    # Not a page: the browser's own choice of encoding stands.
    _, _, seen = _run("/static/js/index.js")
    assert (b"accept-encoding", b"gzip, br") in seen


def test_the_base_path_is_part_of_the_root() -> None:
    assert b'location.origin+"/tractor/"' in serve.backend_script("/tractor/")
    assert b'location.origin+"/a/b/"' in serve.backend_script("a/b")
    # A hostile setting stays a string in the script.
    script = serve.backend_script('x"</script>')
    assert script.count(b"</script>") == 1 and b'"/x\\"\\u003c/script>/"' in script
    assert serve.inject(b"<html>no head</html>", b"S") == b"<html>no head</html>"


def _static(
    folder: Path, path: str, headers: list[tuple[bytes, bytes]], method: str = "GET"
) -> tuple[int, dict[bytes, bytes], bytes, bool]:
    """A request through StaticAssets over `folder`: (status, headers, body, passed on)."""
    passed: list[bool] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        passed.append(True)
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b"streamlit's"})

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.request"}

    scope = {"type": "http", "method": method, "path": path, "headers": headers}
    asyncio.run(serve.StaticAssets(app, folder)(scope, receive, send))
    start = sent[0]
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], dict(start["headers"]), body, bool(passed)


def test_streamlits_files_are_answered_from_memory_gzipped(tmp_path: Path) -> None:
    script = b"console.log('tractor');\n" * 200
    (tmp_path / "static" / "js").mkdir(parents=True)
    (tmp_path / "static" / "js" / "index.abc.js").write_bytes(script)
    (tmp_path / "static" / "media").mkdir()
    (tmp_path / "static" / "media" / "font.woff2").write_bytes(bytes(range(256)) * 8)
    zipped = [(b"accept-encoding", b"gzip, deflate, br")]

    status, head, body, passed = _static(tmp_path, "/static/js/index.abc.js", zipped)
    assert (status, passed) == (200, False)
    assert head[b"content-encoding"] == b"gzip" and gzip.decompress(body) == script
    assert head[b"content-length"] == str(len(body)).encode() and len(body) < len(script) / 10
    assert head[b"cache-control"].startswith(b"public, immutable")
    assert head[b"content-type"].startswith(b"text/javascript") or head[b"content-type"].startswith(
        b"application/javascript"
    )

    status, head, body, _ = _static(tmp_path, "/static/js/index.abc.js", [])
    assert status == 200 and body == script and b"content-encoding" not in head

    # A browser that has it: 304, no body; HEAD: the headers only.
    tag = head[b"etag"]
    status, _, body, _ = _static(tmp_path, "/static/js/index.abc.js", [(b"if-none-match", tag)])
    assert (status, body) == (304, b"")
    status, head, body, _ = _static(tmp_path, "/static/js/index.abc.js", [], "HEAD")
    assert (status, body) == (200, b"") and head[b"content-length"] == str(len(script)).encode()

    # Already compressed: never gzipped again.
    status, head, body, _ = _static(tmp_path, "/static/media/font.woff2", zipped)
    assert status == 200 and b"content-encoding" not in head and len(body) == 2048


def test_anything_but_a_known_file_goes_on_to_streamlit(tmp_path: Path) -> None:
    (tmp_path / "static" / "js").mkdir(parents=True)
    (tmp_path / "static" / "js" / "a.js").write_text("a")
    (tmp_path / "secret.txt").write_text("not a static file")
    (tmp_path / "static" / "js" / "link.js").symlink_to(tmp_path / "secret.txt")
    for path in (
        "/static/js/missing.js",
        "/static/js/../../secret.txt",
        "/static/js/link.js",
        "/secret.txt",
        "/static/js",
        "/replay",
    ):
        status, _, body, passed = _static(tmp_path, path, [])
        assert passed and (status, body) == (404, b"streamlit's"), path
    status, _, _, passed = _static(tmp_path, "/static/js/a.js", [], "POST")
    assert passed


def test_under_a_base_path_the_files_are_found_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "static" / "js").mkdir(parents=True)
    (tmp_path / "static" / "js" / "a.js").write_text("a")
    monkeypatch.setattr(serve, "_base_url_path", lambda: "/tractor/")
    status, _, body, passed = _static(tmp_path, "/tractor/static/js/a.js", [])
    assert (status, body, passed) == (200, b"a", False)
    assert b'location.origin+"/tractor/"' in serve.backend_script(serve._base_url_path())
