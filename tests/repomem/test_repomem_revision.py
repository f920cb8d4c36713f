"""The repository source's revision, which every scan asks for, without a registry to read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lessons_core.repomem import registry, source


def test_no_registry_and_an_empty_one_have_one_revision(tmp_path: Path) -> None:
    """Never including a repository and forgetting the last one give the same revision, so a
    manifest built either way is not rebuilt for nothing."""
    assert source._REGISTRY_NAME == registry.NAME
    without = source.revision(tmp_path)
    registry.save(tmp_path, registry.Registry())
    assert (tmp_path / registry.NAME).exists()
    assert source.revision(tmp_path) == without
    repo = tmp_path / "repo"
    (repo / ".lessons").mkdir(parents=True)
    registry.save(tmp_path, registry.Registry().with_repository(repo))
    assert source.revision(tmp_path) != without


def test_the_revision_without_a_registry_imports_no_registry(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom pathlib import Path\nfrom lessons_core.repomem import source\n"
        f"source.revision(Path({str(tmp_path)!r}))\n"
        "print('lessons_core.repomem.registry' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]
