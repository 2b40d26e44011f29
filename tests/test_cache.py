"""The on-disk cache of parsed grammars and compiled templates (``translator/cache.py``): an
edited file is never served stale, a broken entry is rebuilt, and caching can be turned off."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from translator.cache import cache_dir, cached_by_content  # noqa: E402
from translator.grammar import GrammarError, grammar_path, load_grammar_file  # noqa: E402


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("TILETRANS_CACHE_DIR", str(folder))
    monkeypatch.delenv("TILETRANS_NO_CACHE", raising=False)
    return folder


def test_grammar_parse_is_cached_by_content_and_an_edit_is_read(cache, tmp_path):
    grammar = tmp_path / "toy.toml"
    text = grammar_path("triton").read_text()
    grammar.write_text(text)
    first = load_grammar_file(grammar)
    entries = sorted(cache.glob("grammar-*.pickle"))
    assert len(entries) == 1
    assert load_grammar_file(grammar) == first  # served from the entry
    # The same file edited (same size and mtime would not matter: the key is the text).
    grammar.write_text(text.replace('device_module = "triton.language"', 'device_module = "x.y"'))
    assert load_grammar_file(grammar)["device_module"] == "x.y"
    assert len(list(cache.glob("grammar-*.pickle"))) == 2


def test_a_cached_grammar_is_still_validated(cache, tmp_path):
    grammar = tmp_path / "bad.toml"
    grammar.write_text(grammar_path("triton").read_text() + "\n[frontend.no_such_table]\n")
    for _ in range(2):  # parsed, then from the cache: the schema check runs both times
        with pytest.raises(GrammarError, match="no_such_table"):
            load_grammar_file(grammar)


def test_a_broken_entry_is_rebuilt(cache):
    calls = []

    def build() -> dict[str, int]:
        calls.append(1)
        return {"n": len(calls)}

    assert cached_by_content("thing", b"text", build) == {"n": 1}
    (entry,) = cache.glob("thing-*.pickle")
    entry.write_bytes(b"\x80truncated")
    assert cached_by_content("thing", b"text", build) == {"n": 2}
    assert cached_by_content("thing", b"text", build) == {"n": 2}  # the rebuilt entry
    assert len(calls) == 2


def test_caching_can_be_turned_off(cache, monkeypatch):
    monkeypatch.setenv("TILETRANS_NO_CACHE", "1")
    assert cache_dir() is None
    assert cached_by_content("thing", b"text", lambda: 7) == 7
    assert not cache.exists()


def test_compiled_templates_go_to_the_cache(cache):
    import jinja2

    from translator.cache import template_bytecode_cache

    env = jinja2.Environment(
        loader=jinja2.DictLoader({"t.j2": "{{ x }}!"}), bytecode_cache=template_bytecode_cache()
    )
    assert env.get_template("t.j2").render(x=1) == "1!"
    assert len(list((cache / "jinja2").glob("*.cache"))) == 1
