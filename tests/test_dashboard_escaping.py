"""No stored string becomes markup. Every page runs under AppTest on a store whose every log string
is hostile (tests/hostile_store.py); every element that Streamlit draws as Markdown (text, captions,
titles, alerts, metric and widget labels, help texts) is rendered here as CommonMark and checked:

- HTML written with `unsafe_allow_html` must be HTML blocks only (where Markdown does not apply),
  and Markdown without it must leave no `$` maths, `:colour[…]` directive or `:emoji:` code
  unescaped (Streamlit's extensions that CommonMark does not know);
- the result holds no element from the data (`img`, `iframe`, `form`, `style`, `a`, anything with
  an `evil-` id), no emphasis made of the data's `**…**` / `_…_`, and no text GFM would autolink;
- the hostile strings each page must show appear in its text literally.

tests/test_dashboard_browser.py checks the same store in Chromium."""

from __future__ import annotations

import html.parser
import re
from collections.abc import Iterator
from pathlib import Path

import hostile_store as hs
import pytest
from hostile_store import PAGES
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from analytics import review_codes
from dashboard import ui

APP = str(Path(__file__).resolve().parent.parent / "dashboard" / "app.py")
DATA_EMPHASIS = {"bold", "m", "raw", "why", "careful", "src", "h"}
"""Words the hostile strings wrap in `**…**`, `_…_`, `<b>` or `<i>`."""
ALLOWED_TAGS = {"div", "span", "b", "small", "br", "table", "tr", "th", "td", "p", "strong", "em"}
ALLOWED_TAGS |= {"ul", "ol", "li", "code", "pre"}
AUTOLINK = re.compile(r"https?://|www\.|[\w.+-]@[-\w]", re.IGNORECASE)
"""Text Streamlit's Markdown (GFM) would turn into a link even when every character is escaped."""


class _Html(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.open: list[str] = []
        self.text: list[str] = []
        self.emphasised: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in ("br", "img"):
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag) :]

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if {"strong", "em", "b", "i"} & set(self.open):
            self.emphasised.append(data.strip())


def _unescaped(pattern: str, source: str) -> list[str]:
    """Matches of `pattern` in `source` not preceded by a backslash, outside code spans."""
    plain = re.sub(r"`[^`]*`", "", source)
    return re.findall(r"(?<!\\)" + pattern, plain)


def check_markdown(source: str, allow_html: bool) -> tuple[list[str], str]:
    """(problems, the text a reader sees) of one Markdown source as Streamlit draws it."""
    problems = []
    tokens = MarkdownIt("commonmark", {"html": allow_html}).parse(source)
    if allow_html:
        loose = [t.type for t in tokens if t.type != "html_block"]
        if loose:
            problems.append(f"HTML mixed with Markdown ({loose[:3]}): {source[:120]!r}")
    else:
        for name, pattern in (
            ("maths", r"\$"),
            ("directive", r":[A-Za-z/_-]+\["),
            ("emoji code", r":[\w+-]+:"),
        ):
            if hits := _unescaped(pattern, source):
                problems.append(f"unescaped {name} {hits[:2]} in {source[:120]!r}")
    parser = _Html()
    parser.feed(MarkdownIt("commonmark", {"html": allow_html}).render(source))
    for tag, attrs in parser.tags:
        # The one link a page writes itself: to the dashboard's review guide (review_codes).
        guide = tag == "a" and str(attrs.get("href")).startswith(review_codes.GUIDE_PAGE)
        if (tag not in ALLOWED_TAGS and not guide) or any(
            str(v).startswith("evil") for v in attrs.values()
        ):
            problems.append(f"<{tag} {attrs}> from {source[:120]!r}")
    if made := DATA_EMPHASIS & set(parser.emphasised):
        problems.append(f"the data's emphasis {made} in {source[:120]!r}")
    text = "".join(parser.text).strip()
    if not allow_html and (hits := AUTOLINK.findall(text)):
        problems.append(f"GitHub-style autolinks {hits[:2]} in {source[:120]!r}")
    return problems, text.replace(ui.WORD_JOINER, "")


def _markdown_of(at: AppTest) -> Iterator[tuple[str, bool]]:
    """Every Markdown source the page drew, with whether it allows HTML."""
    for node in at._tree:
        proto = getattr(node, "proto", None)
        if proto is None:
            continue
        for field in ("body", "label", "help", "placeholder"):
            value = getattr(proto, field, None)
            if isinstance(value, str) and value:
                yield value, bool(field == "body" and getattr(proto, "allow_html", False))


def page_text(at: AppTest) -> str:
    """All problems asserted away; the page's visible text returned."""
    assert not at.exception, [e.value for e in at.exception]
    found: list[str] = []
    texts: list[str] = []
    for source, allow_html in _markdown_of(at):
        problems, text = check_markdown(source, allow_html)
        found += problems
        texts.append(text)
    assert not found, found
    return "\n".join(texts)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hs.hostile_db(Path(tmp_path_factory.mktemp("hostile")))


@pytest.fixture
def app(store: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("SHENGJI_DB", str(store))
    return AppTest.from_file(APP, default_timeout=60)


def test_the_checker_catches_what_it_must() -> None:
    """The check itself: the hostile strings written raw fail it, through `ui.md`/`ui.esc` pass."""
    for s in hs.ALL:
        # Raw HTML is text in Markdown without `unsafe_allow_html`; the rest is markup there.
        assert check_markdown(f"name {s}", False)[0] or s.startswith("<"), s
        assert check_markdown(f"<div>{s}</div>", True)[0] or not s.startswith("<"), s
        assert check_markdown(f"**name** {s}", True)[0], s
        problems, text = check_markdown(f"name {ui.md(s)}", False)
        assert not problems and text == f"name {s}", (s, problems, text)
        problems, text = check_markdown(f"<div><b>name</b> {ui.esc(s)}</div>", True)
        assert not problems and text == f"name {s}", (s, problems, text)
    # Escapes do not stop GFM autolinks; `ui.md` breaks them with an invisible word joiner.
    for url in ("see http://127.0.0.1:9/r", "www.example.com", "me@example.com"):
        assert check_markdown(ui.md(url).replace(ui.WORD_JOINER, ""), False)[0], url
        assert check_markdown(ui.md(url), False) == ([], url), url
    # A line break in a name must not end the HTML block and let Markdown in.
    broken = "a\n\n**bold** ![t](x)"
    assert not check_markdown("<div>" + ui.esc(broken) + "</div>", True)[0]
    assert check_markdown("<div>" + broken + "</div>", True)[0]


@pytest.mark.parametrize("page", PAGES)
def test_every_page_shows_hostile_strings_as_text(app: AppTest, page: str) -> None:
    app.run()
    page_text(app)
    # The sidebar names the chosen players and source in its caption: as text.
    app.sidebar.multiselect(key="f_players").set_value(list(hs.PLAYERS[:4])).run()
    app.sidebar.multiselect(key="f_sources").set_value([hs.SOURCE]).run()
    app.switch_page(page).run()
    text = page_text(app)
    if page != "views/import_files.py":
        for s in (*hs.PLAYERS[:4], hs.SOURCE):
            assert s in text, (page, s)


def test_players_page_names_are_text(app: AppTest) -> None:
    for name in hs.PLAYERS:
        app.query_params["player"] = name
        app.session_state["pl_player"] = name
        app.switch_page("views/players.py").run()
        text = page_text(app)
        assert name in [s.value.replace("\\", "") for s in app.subheader] or name in text
        assert any(ui.md(name) == s.value for s in app.subheader), name


def _replayer_json(at: AppTest) -> str:
    """The JSON the Hand replay hands its table component (which writes it with textContent;
    tests/test_dashboard_browser.py checks that in Chromium)."""
    (element,) = at.get("bidi_component")
    return str(element.proto.json)


@pytest.mark.parametrize("number", ["001", "010"])
def test_replay_shows_hostile_strings_as_text(app: AppTest, number: str) -> None:
    """A clean hand and the flagged one (its finding's reason is hostile too): the page's own
    Markdown is clean, and the component gets ids, source, match, players and reasons as data."""
    import json

    app.query_params.update({"hand": hs.HAND_PREFIX + number, "trick": "2"})
    app.switch_page("views/replay.py").run()
    page_text(app)
    data = json.dumps(json.loads(_replayer_json(app)), ensure_ascii=False)
    for s in (hs.HAND_PREFIX + number, hs.SOURCE, hs.MATCH, hs.REASON, *hs.PLAYERS[2:5]):
        assert json.dumps(s, ensure_ascii=False)[1:-1] in data, s


def test_replay_unknown_hand_link_is_text(app: AppTest) -> None:
    app.query_params.update({"hand": hs.IMAGE, "trick": "1"})
    app.switch_page("views/replay.py").run()
    page_text(app)
    assert [c.value for c in app.code] == [hs.IMAGE]


def test_import_shows_a_hostile_file_name_as_text(app: AppTest) -> None:
    app.switch_page("views/import_files.py").run()
    name = hs.MD_IMAGE + hs.LATEX + ".gz"  # the uploader takes `.gz`; the page wants `.jsonl.gz`
    app.file_uploader(key="im_files").set_value([(name, b"{}", "application/gzip")])
    app.run()
    app.button(key="im_go").click().run()
    assert name in page_text(app)
