"""The generated rules site in a real browser: headless Chromium driven by Playwright.

The site is generated for the bundled specs (with a small `verify --json` fixture) and
built by mkdocs with --strict, served over HTTP from a local thread, and checked page by
page: no console errors, every link resolves (and its #anchor exists), every image
renders, the search finds a rule by its ID and by a word of its text, a rule links to
the invariants that cite it. Chromium is Debian's (`/usr/bin/chromium`, installed by
`make test`), passed to Playwright as `executable_path`: Playwright's own browser
download cannot work on these machines. Without a browser the tests skip, saying why.
"""
from __future__ import annotations

import functools
import glob
import http.server
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urljoin, urldefrag, urlparse

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "verify_small.json"
SPECS = sorted(glob.glob(str(ROOT / "spec" / "*.rules"))) + sorted(glob.glob(str(ROOT / "spec" / "examples" / "*.rules")))


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def browser():
    path = chromium_path()
    if path is None:
        pytest.skip("no Chromium on this machine (Debian: apt-get install chromium; `make test` does it as root)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (it is in pyproject.toml: pip install -e .)")
    with sync_playwright() as pw:
        try:
            b = pw.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-gpu"])
        except Exception as exc:  # a browser that cannot start here: say so, do not fail the suite
            pytest.skip(f"Chromium at {path} does not start: {str(exc).splitlines()[0]}")
        yield b
        b.close()


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no line per request in the test output
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The built site's directory and the URL it is served at."""
    out = tmp_path_factory.mktemp("docs")
    project = out / "project"
    rulebook = [sys.executable, "-m", "verifier.cli"]
    subprocess.run([*rulebook, "docs", *SPECS, "-o", str(project), "--manual", str(ROOT / "docs"),
                    "--verify-json", str(FIXTURE)], cwd=ROOT, check=True, capture_output=True, text=True)
    built = out / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f",
                    str(project / "mkdocs.yml"), "-d", str(built)], check=True, capture_output=True, text=True,
                   env=env)
    handler = functools.partial(Quiet, directory=str(built))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield built, f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()


def pages(built: Path) -> list[str]:
    return sorted(str(p.relative_to(built)) for p in built.rglob("*.html") if p.name != "404.html")


def test_every_page_loads_with_no_console_errors_and_every_link_and_image_works(browser, site):
    built, base = site
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
    bad_links, bad_images, checked = [], [], 0
    for rel in pages(built):
        page.goto(base + rel, wait_until="load")
        for href in page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)"):
            target, frag = urldefrag(href)
            if urlparse(target).netloc != urlparse(base).netloc:
                continue  # the site links out nowhere it must reach; outside links are not ours to test
            path = urlparse(target).path.lstrip("/") or "index.html"
            file = built / path
            if path.endswith("/"):
                file = file / "index.html"
            if not file.exists():
                bad_links.append(f"{rel} -> {href}")
            elif frag and file.suffix == ".html" and f'id="{frag}"' not in file.read_text(encoding="utf-8"):
                bad_links.append(f"{rel} -> {href} (no such anchor)")
            checked += 1
        broken = page.eval_on_selector_all("img", "els => els.filter(e => !(e.complete && e.naturalWidth > 0))"
                                                  ".map(e => e.src)")
        bad_images += [f"{rel}: {src}" for src in broken]
    assert errors == []
    assert bad_links == []
    assert bad_images == []
    assert checked > 100
    svgs = list(built.rglob("*.svg"))
    assert len(svgs) >= 10, "pictures of states for every game"


def _search(page, base: str, words: str) -> list[str]:
    page.goto(base + "index.html", wait_until="load")
    page.set_viewport_size({"width": 1400, "height": 900})  # the header's search box is shown
    page.click("input.md-search__input")
    page.keyboard.type(words)
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    return page.eval_on_selector_all(".md-search-result__item a", "els => els.map(e => e.href)")


def test_search_finds_a_rule_by_its_id_and_by_a_word_of_its_text(browser, site):
    _, base = site
    page = browser.new_page()
    by_id = _search(page, base, "I-D4")
    assert any("ramen_ink/rules.html" in h for h in by_id), by_id
    by_word = _search(page, base, "Narutomaki")
    assert any("ramen_ink/" in h for h in by_word), by_word


def test_a_rule_links_to_the_invariants_that_cite_it(browser, site):
    built, base = site
    page = browser.new_page()
    page.goto(base + "ramen_ink/rules.html#I-D4", wait_until="load")
    # the clauses listed under I-D4, up to the next rule's heading
    hrefs = page.evaluate("""() => {
        const h = document.getElementById('I-D4'); const out = [];
        for (let e = h.nextElementSibling; e && e.tagName !== 'H3' && e.tagName !== 'H2'; e = e.nextElementSibling)
            for (const a of e.querySelectorAll('a[href]')) out.push(a.getAttribute('href'));
        return out; }""")
    assert "guarantees.html#inv-bowl_capacity" in hrefs, hrefs
    page.goto(base + "ramen_ink/guarantees.html#inv-bowl_capacity", wait_until="load")
    back = page.eval_on_selector_all("a[href*='rules.html#I-D4']", "els => els.length")
    assert back >= 1, "the invariant links back to its rule"
