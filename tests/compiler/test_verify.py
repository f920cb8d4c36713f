"""``doctor``'s check of a manifest: an index naming a lesson the manifest lacks is a problem."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compiler_support import make_lesson

from lessons_core.compiler import verify
from lessons_core.compiler.build import compile_manifest, fingerprint
from lessons_core.models import Config, Provenance

GONE = "01COMPILERTEST0000000GONE0"


def _manifest() -> dict:
    lesson = make_lesson(
        priority=9,
        triggers={"tool_names": ["Bash"], "command_patterns": ["make"]},
        provenance=Provenance(source="scan:tier2", sessions=("a", "b")),
    )
    manifest, _, _, _ = compile_manifest([lesson], Config(), 1)
    return json.loads(json.dumps(manifest))


def test_a_compiled_manifest_passes(tmp_path: Path):
    verify.check_json(tmp_path / "m.json", _manifest())


@pytest.mark.parametrize("key", ["anyTool", "session", "reinject", "recurring", "byTool"])
def test_each_index_is_checked(tmp_path: Path, key: str):
    manifest = _manifest()
    if key == "byTool":
        manifest["byTool"]["Bash"].append(GONE)
    else:
        manifest[key] = [*manifest.get(key, ()), GONE]
    manifest["fingerprint"] = fingerprint(manifest)
    with pytest.raises(verify.Problem, match=GONE):
        verify.check_json(tmp_path / "m.json", manifest)
