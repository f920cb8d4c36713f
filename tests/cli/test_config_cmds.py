"""``lessons config`` and the keys users of the Node original bring, through the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

LESSONS = str(Path(sys.executable).parent / "lessons")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


def lessons(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LESSONS, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
        check=False,
    )


def _home() -> Path:
    return Path(os.environ["LESSONS_HOME"])


def _config_file() -> Path:
    return _home() / "config.json"


def _write_config(data: dict) -> None:
    _home().mkdir(parents=True, exist_ok=True)
    _config_file().write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture(autouse=True)
def _no_xdg_config(monkeypatch):
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("LESSONS_SCAN_WORKERS", raising=False)


# -- lessons config ------------------------------------------------------------------------------


def test_config_lists_every_key_with_value_and_source(monkeypatch):
    """Defaults, config.json and the environment are each named as the source."""
    _write_config({"minConfidence": 0.7, "scoring": {"base": 0.2}})
    monkeypatch.setenv("LESSONS_AUTO_SCAN", "0")
    out = lessons("config", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    settings = data["settings"]
    assert settings["minConfidence"] == {"value": 0.7, "default": 0.5, "source": "config.json"}
    assert settings["scoring.base"]["source"] == "config.json"
    assert settings["injectionBudgetBytes"] == {
        "value": 4096,
        "default": 4096,
        "source": "default",
    }
    assert settings["autoScan"]["source"] == "environment (LESSONS_AUTO_SCAN)"
    assert settings["autoScan"]["value"] is False
    for key in ("scanPaths", "maxCandidatesPerScan", "deep.maxCalls", "scoring.maxConfidence"):
        assert key in settings
    text = lessons("config")
    assert text.returncode == 0
    assert any(
        line.split()[:3] == ["minConfidence", "0.7", "(config.json)"]
        for line in text.stdout.splitlines()
    )


def test_config_key_shows_one():
    out = lessons("config", "maxLessonsPerInjection")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "maxLessonsPerInjection = 3  (default)"
    one = json.loads(lessons("config", "deep.maxCalls", "--json").stdout)
    assert one == {"key": "deep.maxCalls", "value": 20, "default": 20, "source": "default"}


def test_config_set_writes_a_valid_file_and_unset_removes_the_key():
    out = lessons("config", "minConfidence", "0.8")
    assert out.returncode == 0, out.stderr
    document = json.loads(_config_file().read_text(encoding="utf-8"))
    assert document["type"] == "lessons-config"
    assert document["minConfidence"] == 0.8
    assert lessons("config", "scanPaths", "~/transcripts").returncode == 0
    assert lessons("config", "deep.model", "small").returncode == 0
    document = json.loads(_config_file().read_text(encoding="utf-8"))
    assert document["scanPaths"] == ["~/transcripts"]
    assert document["deep"] == {"model": "small"}
    assert json.loads(lessons("config", "minConfidence", "--json").stdout)["value"] == 0.8
    gone = lessons("config", "--unset", "deep.model")
    assert gone.returncode == 0, gone.stderr
    document = json.loads(_config_file().read_text(encoding="utf-8"))
    assert "deep" not in document
    assert document["minConfidence"] == 0.8
    # The file still loads for every other command.
    assert lessons("list").returncode == 0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("minConfidence", "2"), "must be between 0 and 1"),
        (("minConfidence", "high"), "minConfidence"),
        (("maxCandidatesPerScan", "-1"), "must be at least 0"),
        (("minConfidenc", "0.5"), "did you mean 'minConfidence'"),
        (("scoring.hangTimeoutBonus", "1"), "use 'scoring.hangOrTimeout'"),
    ],
)
def test_config_set_refuses_bad_values_and_keeps_the_file(args, words):
    lessons("config", "minConfidence", "0.6")
    before = _config_file().read_bytes()
    out = lessons("config", *args)
    assert out.returncode == 1
    assert out.stderr.startswith("Error: ")
    assert words in out.stderr
    assert "Traceback" not in out.stderr
    assert _config_file().read_bytes() == before
    assert not [p for p in _home().iterdir() if p.name.startswith(".config-")]


def test_config_set_writes_through_a_linked_config_file(tmp_path):
    """A config.json kept elsewhere (a dotfiles link) is updated where it lives."""
    real = tmp_path / "dotfiles" / "lessons.json"
    real.parent.mkdir()
    real.write_text("{}", encoding="utf-8")
    _home().mkdir(parents=True, exist_ok=True)
    _config_file().symlink_to(real)
    assert lessons("config", "minPriority", "3").returncode == 0
    assert _config_file().is_symlink()
    assert json.loads(real.read_text(encoding="utf-8"))["minPriority"] == 3


# -- the Node original's config.json ------------------------------------------------------------


NODE_CONFIG = {
    "$schema": "../schemas/config.schema.json",
    "type": "lessons-learned-config",
    "version": 1,
    "injectionBudgetBytes": 4096,
    "maxLessonsPerInjection": 3,
    "minConfidence": 0.5,
    "minPriority": 1,
    "compactionReinjectionThreshold": 7,
    "scanPaths": ["~/.claude/projects/"],
    "autoScanIntervalHours": 24,
    "maxCandidatesPerScan": 50,
}


def test_node_config_without_scoring_is_read():
    """The Node original's file, type and keys, is read as ours."""
    _write_config(NODE_CONFIG)
    out = lessons("config", "--json")
    assert out.returncode == 0, out.stderr
    settings = json.loads(out.stdout)["settings"]
    assert settings["maxCandidatesPerScan"]["value"] == 50
    assert settings["scanPaths"]["value"] == ["~/.claude/projects/"]
    assert settings["autoScanIntervalHours"]["value"] == 24


@pytest.mark.parametrize(
    ("scoring", "words"),
    [
        ({"hangTimeoutBonus": 1}, "use 'scoring.hangOrTimeout'"),
        ({"userCorrectionBonus": 1}, "use 'scoring.userCorrection'"),
        ({"singleOccurrencePenalty": -1}, "lower 'scoring.base'"),
        ({"multiSessionBonus": 2}, "counted priority points"),
    ],
)
def test_node_scoring_keys_name_their_replacement(scoring, words):
    _write_config({**NODE_CONFIG, "scoring": scoring})
    out = lessons("list")
    assert out.returncode == 1
    assert words in out.stderr
    assert "Traceback" not in out.stderr


# -- scanPaths and maxCandidatesPerScan -----------------------------------------------------------


def test_scan_paths_add_transcript_roots(tmp_path):
    """A folder in scanPaths is scanned with the agents' roots; a missing one is named."""
    extra = tmp_path / "elsewhere"
    shutil.copytree(FIXTURES / "codex", extra)
    missing = tmp_path / "gone"
    _write_config({"scanPaths": [str(extra), str(missing)]})
    out = lessons("scan", "--json")
    assert out.returncode == 0, out.stderr
    found = [json.loads(line) for line in out.stdout.splitlines()]
    assert found
    assert all(str(extra) in c["evidence"][0]["file"] for c in found)
    assert f"Skipped {missing}: does not exist" in out.stderr


def test_scan_paths_do_not_scan_a_default_root_twice():
    """The Node default (~/.claude/projects/) is the Claude root already: read once."""
    home = Path(os.environ["HOME"])
    shutil.copytree(FIXTURES / "claude", home / ".claude")
    _write_config({"scanPaths": ["~/.claude/projects/"]})
    out = lessons("scan")
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0]
    plain = lessons("scan")  # nothing changed: every file is seen once, unchanged
    total = int(first.split(" of ")[1].split()[0])
    assert f"Scanned 0 of {total} transcript(s)" in plain.stdout


def test_max_candidates_per_scan_holds_back_the_lowest_scored():
    home = Path(os.environ["HOME"])
    shutil.copytree(FIXTURES / "claude", home / ".claude")
    _write_config({"maxCandidatesPerScan": 2})
    out = lessons("scan")
    assert out.returncode == 0, out.stderr
    assert "2 new candidate(s)" in out.stdout
    assert "3 more candidate(s) held back by maxCandidatesPerScan (2)" in out.stdout
    pending = [json.loads(line) for line in lessons("candidates", "--json").stdout.splitlines()]
    held = [
        json.loads(line)
        for line in lessons("candidates", "--json", "--status", "held").stdout.splitlines()
    ]
    assert len(pending) == 2
    assert len(held) == 3
    assert min(c["confidence"] for c in pending) >= max(c["confidence"] for c in held)
    # Nothing is lost: lifting the cap offers the held ones on the next scan.
    lessons("config", "maxCandidatesPerScan", "0")
    again = lessons("scan")
    assert "3 held candidate(s) from earlier scans are now pending" in again.stdout
    assert len(lessons("candidates", "--json").stdout.splitlines()) == 5


def test_scan_paths_with_agent_keep_only_that_agents_files(tmp_path):
    """`--agent claude` does not read the Codex files of a scanPaths folder as Claude's."""
    extra = tmp_path / "elsewhere"
    shutil.copytree(FIXTURES / "codex", extra)
    _write_config({"scanPaths": [str(extra)]})
    out = lessons("scan", "--agent", "claude", "--json")
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""
    codex = lessons("scan", "--agent", "codex", "--json")
    assert [json.loads(line)["agent"] for line in codex.stdout.splitlines()] != []


def test_the_multi_session_bonus_of_config_json_scores_a_repeated_mistake(tmp_path):
    """The same mistake in two sessions gains scoring.multiSessionBonus, as configured."""
    source = next((FIXTURES / "claude").rglob("5f0c2a8e-1111-*.jsonl"))
    folder = tmp_path / "t" / ".claude" / "projects" / "-home-dev-app"
    folder.mkdir(parents=True)
    shutil.copy(source, folder / source.name)
    other = source.name.replace("1111", "2222").replace("000000000001", "000000000002")
    text = source.read_text(encoding="utf-8")
    (folder / other).write_text(
        text.replace(source.stem, other.removesuffix(".jsonl")), encoding="utf-8"
    )
    scores = {}
    for bonus in ("0", "0.2"):
        env = {"LESSONS_HOME": str(tmp_path / f"home-{bonus}")}
        assert lessons("config", "scoring.multiSessionBonus", bonus, **env).returncode == 0
        assert lessons("scan", str(tmp_path / "t"), **env).returncode == 0
        found = [
            json.loads(line) for line in lessons("candidates", "--json", **env).stdout.splitlines()
        ]
        assert found and all(len({e["session_id"] for e in c["evidence"]}) == 2 for c in found)
        scores[bonus] = sorted(c["confidence"] for c in found)
    # Each gains the bonus, up to the confidence cap of the scoring weights.
    from lessons_core.models import ScoringWeights

    cap = ScoringWeights().max_confidence
    assert [round(b - a, 3) for a, b in zip(scores["0"], scores["0.2"], strict=True)] == [
        round(min(a + 0.2, cap) - a, 3) for a in scores["0"]
    ]
    assert any(round(b - a, 3) == 0.2 for a, b in zip(scores["0"], scores["0.2"], strict=True))
