"""Plugin dialects installed under the ``tiletrans.dialects`` entry-point group are discovered,
and the quick look that spares ``importlib.metadata`` when none is installed never misses one."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import translator.dialects as registry  # noqa: E402

PLUGIN = """
from translator.dialects.base import Dialect

DIALECT = Dialect(name="entrypointtoy", description="a plugin found by its entry point")
"""


def _install(site: Path, group: str) -> None:
    """A distribution in ``site`` whose entry point names the plugin module under ``group``."""
    (site / "entrypointtoy_plugin.py").write_text(PLUGIN)
    info = site / "entrypointtoy-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: entrypointtoy\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{group}]\ntoy = entrypointtoy_plugin:DIALECT\n")


def test_an_installed_plugin_is_discovered(tmp_path, monkeypatch):
    _install(tmp_path, registry.GROUP)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_DISCOVERED", None)
    assert registry._may_have_plugins()
    assert "entrypointtoy" in registry.dialects()
    monkeypatch.setattr(registry, "_DISCOVERED", None)  # the next test's registry is rebuilt


def test_the_quick_look_says_no_only_when_nothing_declares_the_group(tmp_path, monkeypatch):
    _install(tmp_path, "some.other.group")
    monkeypatch.setattr(sys, "path", [str(tmp_path), str(tmp_path / "missing")])
    assert not registry._may_have_plugins()
    (tmp_path / "entrypointtoy-1.0.dist-info" / "entry_points.txt").write_text(
        f"[{registry.GROUP}]\ntoy = entrypointtoy_plugin:DIALECT\n"
    )
    assert registry._may_have_plugins()


def test_a_zip_on_the_path_is_left_to_importlib_metadata(tmp_path, monkeypatch):
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("nothing.py", "")
    monkeypatch.setattr(sys, "path", [str(archive)])
    assert registry._may_have_plugins()
