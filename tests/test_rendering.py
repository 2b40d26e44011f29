"""Rendering templates without jinja2 (``translator/rendering.py``): the generated functions give
jinja2's text, byte for byte, and anything they do not cover is left to jinja2."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jinja2
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import translator.rendering as rendering  # noqa: E402
from translator.api import translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.dialects import source_dialects, target_dialects  # noqa: E402
from translator.grammar import resource_dir, template_environment  # noqa: E402


def _env() -> jinja2.Environment:
    """The options of the DSLs' template environments (strict, trimmed blocks)."""
    return jinja2.Environment(
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def test_every_bundled_translation_renders_as_jinja2(monkeypatch):
    # Every template render of every example into every DSL, through the generated function,
    # then through jinja2 itself: the same text.
    renders: list[tuple[str, str, dict[str, Any], str]] = []
    real = rendering._function

    def recording(dsl: str, template: str):
        function = real(dsl, template)
        assert function is not None, f"{dsl}/{template} fell back to jinja2"

        def render(context: dict[str, Any]) -> str:
            text = function(context)
            renders.append((dsl, template, dict(context), text))
            return text

        return render

    monkeypatch.setattr(rendering, "_function", recording)
    for src in source_dialects():
        for path in sorted((ROOT / "examples" / src).glob("*.py")):
            for dst in target_dialects():
                with contextlib.suppress(TranslationError):
                    translate_file(path, src, dst)
    assert {dsl for dsl, *_ in renders} == set(target_dialects())
    for dsl, template, context, text in renders:
        expected = template_environment(dsl).get_template(template).render(**context)
        assert text == expected, (dsl, context)


def test_bundled_templates_are_all_generated():
    for dsl in target_dialects():
        text = (resource_dir("templates") / dsl / "kernel.py.j2").read_text()
        assert rendering.python_source(template_environment(dsl), text) is not None, dsl


CASES = [
    # (template, context)
    ("{% for x in xs %}{{ x }}{% if not loop.last %}, {% endif %}{% endfor %}", {"xs": [1, 2, 3]}),
    ("{% for x in xs %}{% if loop.first %}[{% endif %}{{ x }}{% endfor %}", {"xs": "ab"}),
    ("{% for x in xs %}{{ x }}{% else %}none{% endfor %}!", {"xs": []}),
    ("{% for x in xs %}{{ x }}{% else %}none{% endfor %}!", {"xs": [0]}),
    (
        "{% for k, v in d.items() %}{% for x in v %}{{ k }}{{ x }}{% if not loop.last %}"
        ",{% endif %}{% endfor %};{% endfor %}",
        {"d": {"a": [1, 2], "b": [3]}},
    ),
    ("{{ s | indent(4) }}|{{ s | indent(2, true) }}|{{ s | indent('> ', false, true) }}", {}),
    ("{{ xs | join(', ') }}/{{ xs | join }}/{{ xs | length }}", {"xs": [1, "b", None]}),
    ("{% if a is not none %}A{% elif b %}B{% else %}C{% endif %}", {"a": None, "b": 0}),
    ("{% if a is none and (b or c) %}{{ c }}{% endif %}{{ a == None }}", {"a": None, "b": 0}),
    ("{{ o.x }} {{ o['y'] }} {{ m.x }} {{ xs[1] }} {{ '{' }}{{ 1.5 }}", {"xs": [7, 8]}),
    ("{% if '\n' in s %}multi{% endif %}\n  {% if s %}\n    x\n  {% endif %}\n", {}),
]


class _Obj:
    x = "attr"

    def __getitem__(self, key: str) -> str:
        return f"item-{key}"


@pytest.mark.parametrize("template, context", CASES)
def test_generated_function_is_jinja2(template, context):
    context = {"s": "one\n\ntwo\n  three", "o": _Obj(), "m": {"x": "key"}, **context}
    context.setdefault("c", "c!")
    env = _env()
    source = rendering.python_source(env, template)
    assert source is not None, template
    assert rendering.compile_function(source)(context) == env.from_string(template).render(
        **context
    )


@pytest.mark.parametrize(
    "template",
    [
        "{% set x = 1 %}{{ x }}",
        "{{ x | upper }}",
        "{% for x in xs recursive %}{{ x }}{% endfor %}",
        "{% for x in xs %}{{ loop.index }}{% endfor %}",
        "{{ range(3) | list }}",
        "{% macro m() %}{% endmacro %}",
        "{{ f(a=1) }}",
        "{{ x is defined }}",
        "{{ s | indent(blank=true) }}",
        "{{ 1 + 2 }}",
    ],
)
def test_what_the_generator_does_not_write_is_left_to_jinja2(template):
    assert rendering.python_source(_env(), template) is None


@pytest.mark.parametrize(
    "template, context",
    [
        ("{{ missing }}", {}),  # jinja2: UndefinedError
        ("{{ o.nothing }}", {"o": object()}),  # jinja2: UndefinedError
        ("{{ o.x }}", {"o": {"x": "an item, found by getattr's fallback"}}),
        ("{{ xs['1'] }}", {"xs": type("T", (), {"1": "attribute"})()}),
        ("{{ s | indent }}", {"s": jinja2.utils.markupsafe.Markup("<b>\nx")}),
    ],
)
def test_off_the_plain_path_renders_as_jinja2_does(template, context):
    env = _env()
    function = rendering.compile_function(rendering.python_source(env, template))
    try:
        expected: Any = env.from_string(template).render(**context)
    except jinja2.UndefinedError as err:
        expected = err
    try:
        got: Any = function(context)
    except Exception as err:  # render_template then asks jinja2, which gives `expected`
        got = err
    if isinstance(expected, Exception):
        assert isinstance(got, Exception)
    elif isinstance(got, Exception):
        assert isinstance(got, rendering._OffPath)
    else:
        assert got == expected


def test_a_warm_run_imports_no_jinja2(tmp_path):
    # The generated functions are cached: a translation after the first needs no jinja2.
    script = (
        "import json, sys\n"
        "from translator.api import translate_file\n"
        "for dst in ('helion', 'triton', 'tilelang', 'cutile'):\n"
        "    translate_file('examples/triton/softmax.py', 'triton', dst)\n"
        "print(json.dumps('jinja2' in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TILETRANS_CACHE_DIR": str(tmp_path)}
    env.pop("TILETRANS_NO_CACHE", None)
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
            ).stdout
        )
        for _ in range(2)
    ]
    assert runs == [True, False]
