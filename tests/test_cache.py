"""The on-disk cache of parsed grammars, compiled templates and dataclass methods
(``translator/cache.py``): an edited file is never served stale, a broken entry is rebuilt, a
cached method is the method, and caching can be turned off."""

from __future__ import annotations

import dataclasses
import inspect
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import translator.cache as cache_module  # noqa: E402
from translator.cache import cache_dir, cached_by_content, compiled_dataclasses  # noqa: E402
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


def _point_class() -> type:
    @dataclasses.dataclass(frozen=True, order=True)
    class Point:
        x: int
        tags: tuple[str, ...] = ()
        extra: list[int] = dataclasses.field(default_factory=list, compare=False)

    return Point


def _behaviour(cls: type) -> tuple:
    a, b = cls(1, ("t",)), cls(2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.x = 3
    return (
        a == cls(1, ("t",)),
        a < b,
        repr(a),
        hash(a) == hash(cls(1, ("t",))),
        b.extra == [] and b.extra is not cls(2).extra,
        str(inspect.signature(cls)),
        cls.__init__.__annotations__,
    )


def test_dataclass_methods_come_from_the_cache_unchanged(cache, monkeypatch):
    plain = _behaviour(_point_class())
    with compiled_dataclasses():
        first = _behaviour(_point_class())  # compiled, then written on exit
    assert "exec" not in vars(dataclasses)
    files = list(cache.glob("dataclass-code-*.marshal"))
    assert len(files) == 1

    def no_compile(*args, **kwargs):
        raise AssertionError("compiled although cached")

    # The second time every method's code is read from the file, none compiled.
    monkeypatch.setattr(cache_module, "compile", no_compile, raising=False)
    with compiled_dataclasses():
        second = _behaviour(_point_class())
    assert plain == first == second
    # The annotation (a string here, this module's `from __future__ import annotations`), not the
    # name of dataclasses' local for it, as a `__future__` flag inherited by the compile gives.
    assert plain[-1]["x"] == "int"


def test_dataclass_cache_off_and_broken(cache, monkeypatch):
    cache.mkdir(parents=True, exist_ok=True)
    with compiled_dataclasses():
        pass
    path = next(iter(cache.glob("dataclass-code-*.marshal")), None)
    assert path is None  # nothing created, nothing written
    with compiled_dataclasses():
        _point_class()
    path = next(cache.glob("dataclass-code-*.marshal"))
    path.write_bytes(b"\x00garbage")
    with compiled_dataclasses():
        assert _behaviour(_point_class())[0]
    monkeypatch.setenv("TILETRANS_NO_CACHE", "1")
    with compiled_dataclasses():
        assert "exec" not in vars(dataclasses)


def _class_of(package: str, monkeypatch: pytest.MonkeyPatch) -> type:
    """A frozen dataclass defined in a module of ``package``."""
    import types

    module = types.ModuleType(f"{package}.kinds")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(
        "import dataclasses\n@dataclasses.dataclass(frozen=True)\nclass P:\n    x: int\n",
        module.__dict__,
    )
    return module.P


def test_dataclass_cache_has_a_file_per_package(cache, monkeypatch):
    # A translation reads the methods of libcst's and tiletrans's dataclasses, not those of the
    # thousands that `validate` creates when it imports torch.
    with compiled_dataclasses():
        _class_of("alpha", monkeypatch)
        _class_of("beta", monkeypatch)
    files = sorted(p.name.rsplit("-", 1)[1] for p in cache.glob("dataclass-code-*.marshal"))
    assert files == ["alpha.marshal", "beta.marshal"]
    read: list[str] = []
    real_open = open

    def spy(path, *args, **kwargs):
        read.append(Path(path).name.rsplit("-", 1)[1])
        return real_open(path, *args, **kwargs)

    def no_compile(*args, **kwargs):
        raise AssertionError("compiled although cached")

    monkeypatch.setattr(cache_module, "open", spy, raising=False)
    monkeypatch.setattr(cache_module, "compile", no_compile, raising=False)
    with compiled_dataclasses():
        assert _class_of("alpha", monkeypatch)(3).x == 3
    assert read == ["alpha.marshal"]
