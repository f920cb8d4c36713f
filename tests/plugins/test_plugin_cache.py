"""The cached list of entry points: used while the installation is unchanged, redone after.

The fake distributions live in a directory put on ``sys.path`` for the test, so
``importlib.metadata`` finds them the way it finds pip-installed ones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from lessons_core.plugins import cache as plugin_cache
from lessons_core.plugins.manager import get_plugin_manager

_SOURCE = """
from lessons_core.plugin import hookimpl
from lessons_core.plugins.specs import DetectorSpec

@hookimpl
def lessons_register_detectors(register):
    register(DetectorSpec(name={name!r}, detect=lambda lines, config: [], tier=2))
"""


Make = Callable[..., None]


def _install(make: Make, detector: str) -> tuple[str, str]:
    """A distribution with one entry point registering ``detector``; (entry, module) names."""
    tag = uuid.uuid4().hex[:8]
    entry = f"cached-{tag}"
    make(f"dist-{tag}", entry, _SOURCE.format(name=detector), version="1.0")
    return entry, entry.replace("-", "_") + "_plugin"


@pytest.fixture(name="site")
def fixture_site(site_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake site directory, importable (and scanned for metadata) by this process.

    The cache is keyed on the directories' mtimes, so nothing may write into them behind the
    test's back: importing a fake plugin would otherwise create ``__pycache__`` there (when
    bytecode writing is on, as under tox) and invalidate the cache mid-test.
    """
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.syspath_prepend(str(site_dir))
    return site_dir


def _detectors(home: Path) -> set[str]:
    from lessons_core.plugins.manager import Plugins

    home.mkdir(parents=True, exist_ok=True)
    cache = home / plugin_cache.CACHE_NAME
    return set(Plugins(get_plugin_manager({}, entry_point_cache=cache)).detectors())


def test_first_use_writes_the_cache_and_loads_the_plugin(
    home: Path, site: Path, fake_dist: Make
) -> None:
    """A missing cache means a scan; the plugin loads and the cache lists its entry point,
    with the metadata directory that declares it."""
    entry, module = _install(fake_dist, "first-detector")
    assert "first-detector" in _detectors(home)
    document = json.loads((home / plugin_cache.CACHE_NAME).read_text())
    dist = entry.replace("cached", "dist")
    source = str(site / f"{dist.replace('-', '_')}-1.0.dist-info")
    assert [entry, module, "", dist, source] in document["entryPoints"]


def test_a_fresh_cache_is_believed(home: Path, site: Path, fake_dist: Make) -> None:
    """While the fingerprint matches, the cached list is used as it is: an entry point left
    out of it is not loaded (no rescan behind the cache's back)."""
    entry, _ = _install(fake_dist, "left-out")
    _install(fake_dist, "kept")
    _detectors(home)
    cache = home / plugin_cache.CACHE_NAME
    document = json.loads(cache.read_text())
    document["entryPoints"] = [item for item in document["entryPoints"] if item[0] != entry]
    cache.write_text(json.dumps(document))
    found = _detectors(home)
    assert "kept" in found
    assert "left-out" not in found


def test_installing_a_distribution_invalidates_the_cache(
    home: Path, site: Path, fake_dist: Make
) -> None:
    """A new ``*.dist-info`` changes the directory's mtime, so the next command rescans."""
    _install(fake_dist, "one")
    assert "one" in _detectors(home)
    stamp = site.stat().st_mtime_ns
    _install(fake_dist, "two")
    os.utime(site, ns=(stamp + 10_000_000, stamp + 10_000_000))
    assert {"one", "two"} <= _detectors(home)


def test_a_broken_cache_entry_falls_back_to_the_real_scan(
    home: Path, site: Path, fake_dist: Make
) -> None:
    """A cached entry point no installed distribution declares costs a rescan, not an error,
    and is dropped from the cache."""
    _install(fake_dist, "still-here")
    _detectors(home)
    cache = home / plugin_cache.CACHE_NAME
    document = json.loads(cache.read_text())
    source = document["entryPoints"][0][4]
    document["entryPoints"].append(["gone", "no_such_module_anywhere", "", "gone-dist", source])
    cache.write_text(json.dumps(document))
    assert "still-here" in _detectors(home)
    assert "no_such_module_anywhere" not in cache.read_text()


def test_unreadable_or_foreign_cache_is_ignored(home: Path, site: Path, fake_dist: Make) -> None:
    """Garbage in the cache file is treated as no cache."""
    _install(fake_dist, "sturdy")
    home.mkdir(parents=True, exist_ok=True)
    (home / plugin_cache.CACHE_NAME).write_text("{not json")
    assert "sturdy" in _detectors(home)
    assert plugin_cache.read(home / plugin_cache.CACHE_NAME, "lessons") is not None
    assert plugin_cache.read(home / plugin_cache.CACHE_NAME, "other-group") is None


def test_fingerprint_leaves_out_the_start_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Running from another directory must not invalidate the cache."""
    monkeypatch.setattr(sys, "path", ["", *sys.path[1:]])
    first = plugin_cache.fingerprint()
    monkeypatch.setattr(sys, "path", [str(Path.cwd()), *sys.path[1:]])
    assert plugin_cache.fingerprint() == first


# -- the rescan reads the metadata directories itself --------------------------------------------


def _odd_distributions(site: Path) -> None:
    """Metadata in the shapes installers leave: comments, other groups, extras, attributes,
    an ``.egg-info`` directory, an ``.egg-info`` file, the same name twice, odd case."""
    one = site / "Odd.Name-2.0.dist-info"
    one.mkdir()
    (one / "METADATA").write_text("Metadata-Version: 2.1\nName: Odd.Name\nVersion: 2.0\n\nBody\n")
    (one / "entry_points.txt").write_text(
        "# a comment\n[console_scripts]\nodd = odd.cli:main\n\n"
        "[lessons]\n  odd-b = odd.plugins.b : register [extra]\nodd-a=odd.plugins.a\n"
        "[lessons.other]\nnot-ours = odd.other\n"
    )
    egg = site / "legacy_dist.egg-info"
    egg.mkdir()
    (egg / "PKG-INFO").write_text("Metadata-Version: 1.0\nname: legacy-dist\n")
    (egg / "entry_points.txt").write_text("[lessons]\nlegacy = legacy.plugin:Plugin.hooks\n")
    (site / "flat-1.0.egg-info").write_text("Metadata-Version: 1.0\nName: flat\n")
    again = site / "odd_name-1.0.dist-info"
    again.mkdir()
    (again / "METADATA").write_text("Name: odd_name\n")
    (again / "entry_points.txt").write_text("[lessons]\nodd-old = odd_old\n")


def test_the_rescan_lists_what_importlib_metadata_lists(
    site: Path, fake_dist: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same entry points, same distribution names, same order (the order plugins register in),
    over this environment and the odd shapes above."""
    _install(fake_dist, "plain")
    _odd_distributions(site)
    monkeypatch.syspath_prepend(str(site / "missing-entry"))
    ours = plugin_cache._read_metadata_dirs("lessons")
    assert ours is not None
    assert ours == plugin_cache._scan_with_importlib("lessons")
    names = [name for name, *_ in ours]
    assert {"odd-a", "odd-b", "odd-old", "legacy"} <= set(names)
    assert ("odd-b", "odd.plugins.b", "register", "Odd.Name") in ours
    assert ("legacy", "legacy.plugin", "Plugin.hooks", "legacy-dist") in ours


def test_a_rescan_imports_neither_importlib_metadata_nor_email(tmp_path: Path) -> None:
    """The point of reading the directories: a command with a stale cache stays cheap."""
    code = (
        "import sys\n"
        "from lessons_core.plugins import cache as plugin_cache\n"
        "found = plugin_cache.scan('lessons')\n"
        "print(any(name == 'claude' for name, *_ in found), "
        "'importlib.metadata' in sys.modules, 'email' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert out.stdout.split() == ["True", "False", "False"]


def test_shapes_it_does_not_read_go_to_importlib_metadata(
    site: Path, fake_dist: Make, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A zip file or an egg on the path, or a finder of its own, hands the rescan over."""
    _install(fake_dist, "zipped-too")
    import zipfile

    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("zipped-1.0.dist-info/METADATA", "Name: zipped\n")
        zf.writestr("zipped-1.0.dist-info/entry_points.txt", "[lessons]\nzipped = zipped_mod\n")
    monkeypatch.syspath_prepend(str(archive))
    assert plugin_cache._read_metadata_dirs("lessons") is None
    found = plugin_cache.scan("lessons")
    assert ("zipped", "zipped_mod", "", "zipped") in found
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(archive)])
    assert plugin_cache._read_metadata_dirs("lessons") is not None

    class Finder:
        def find_spec(self, *args: object) -> None:
            return None

        def find_distributions(self, *args: object) -> list[object]:
            return []

    monkeypatch.setattr(sys, "meta_path", [Finder(), *sys.meta_path])
    assert plugin_cache._read_metadata_dirs("lessons") is None


def test_removing_a_distribution_invalidates_the_cache(
    home: Path, site: Path, fake_dist: Make
) -> None:
    """Uninstalling removes the ``*.dist-info`` directory: the next command rescans and the
    plugin is gone, though ``importlib.metadata`` was never asked."""
    _install(fake_dist, "staying")
    entry, module = _install(fake_dist, "leaving")
    assert {"staying", "leaving"} <= _detectors(home)
    stamp = site.stat().st_mtime_ns
    info = next(site.glob(f"{entry.replace('cached', 'dist').replace('-', '_')}-*.dist-info"))
    for child in info.iterdir():
        child.unlink()
    info.rmdir()
    (site / f"{module}.py").unlink()
    os.utime(site, ns=(stamp + 10_000_000, stamp + 10_000_000))
    found = _detectors(home)
    assert "staying" in found
    assert "leaving" not in found
    document = json.loads((home / plugin_cache.CACHE_NAME).read_text())
    assert entry not in [row[0] for row in document["entryPoints"]]
