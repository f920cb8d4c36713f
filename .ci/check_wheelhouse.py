"""Prove the distributions install the way users install them.

Builds a wheel of every distribution, fetches their third-party dependencies into the same
wheelhouse, then installs ``lessons[all,llm,mcp]`` into a brand-new virtual environment with
``--no-index``: if an extra did not map onto its sibling distribution, or a wheel missed a file,
this fails. Finally it smoke-tests the installed commands.

The opt-in ``lessons-llm`` plugin depends on ``llm`` and its own dependencies; they are fetched
from the index by the plugin's requirements (not by its wheel, whose ``lessons-core``
requirement must come from this wheelhouse), so the offline install has all of them. The MCP
server (``lessons-mcp``: the MCP SDK and jsonschema), the team store (``lessons-postgres``:
psycopg and its pool, which ``lessons[all]`` pulls in) and the report's charts (the core's
``report`` extra: matplotlib, also in ``[all]``) are handled the same way.

Usage: python .ci/check_wheelhouse.py WORKDIR
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTIONS = [
    ROOT,
    ROOT / "src" / "lessons_core",
    ROOT / "src" / "adapters_claude",
    ROOT / "src" / "adapters_codex",
    ROOT / "src" / "adapters_gemini",
    ROOT / "src" / "adapters_opencode",
    ROOT / "src" / "adapters_qwen",
    ROOT / "src" / "adapters_kilo",
    ROOT / "src" / "adapters_copilot",
    ROOT / "plugins" / "llm-distiller",
    ROOT / "plugins" / "mcp-server",
    ROOT / "plugins" / "postgres-store",
]
#: Plugins whose third-party requirements are fetched into the wheelhouse.
PLUGINS = ("llm-distiller", "mcp-server", "postgres-store")
ADAPTERS = ("claude", "codex", "gemini", "opencode", "qwen", "kilo", "copilot")


def run(*args: str | Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    print("+", " ".join(str(a) for a in args), flush=True)
    return subprocess.run([str(a) for a in args], check=True, text=True, **kwargs)  # type: ignore[call-overload]


def plugin_requirements(pyproject: Path) -> list[str]:
    """The plugin's third-party requirements (its own ``lessons-*`` siblings left out)."""
    import tomllib

    declared = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    return [r for r in declared if not re.match(r"lessons(?:-[a-z]+)?\b", r)]


def report_requirements(pyproject: Path) -> list[str]:
    """The core's ``report`` extra (the charts' plotting library), which ``lessons[all]``
    pulls in and the core wheel's own requirements leave out."""
    import tomllib

    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    return list(project["optional-dependencies"]["report"])


def main(workdir: Path) -> int:
    wheelhouse = workdir / "wheelhouse"
    wheelhouse.mkdir(parents=True, exist_ok=True)
    for dist in DISTRIBUTIONS:
        run(sys.executable, "-m", "build", "--wheel", "--outdir", wheelhouse, dist)
    core_wheel = next(wheelhouse.glob("lessons_core-*.whl"))
    run(sys.executable, "-m", "pip", "download", "--quiet", "--dest", wheelhouse, core_wheel)
    third_party = [
        req
        for plugin in PLUGINS
        for req in plugin_requirements(ROOT / "plugins" / plugin / "pyproject.toml")
    ]
    third_party += report_requirements(ROOT / "src" / "lessons_core" / "pyproject.toml")
    run(sys.executable, "-m", "pip", "download", "--quiet", "--dest", wheelhouse, *third_party)

    env_dir = workdir / "fresh-venv"
    venv.EnvBuilder(clear=True, with_pip=True).create(env_dir)
    bin_dir = env_dir / ("Scripts" if sys.platform == "win32" else "bin")
    run(
        bin_dir / "python",
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-index",
        "--find-links",
        wheelhouse,
        "lessons[all,llm,mcp]",
    )

    version = run(bin_dir / "lessons", "--version", capture_output=True).stdout.strip()
    print(version)
    if "0.1.0" not in version:
        print(f"unexpected version output: {version!r}", file=sys.stderr)
        return 1

    listing = run(bin_dir / "lessons", "plugins", "--json", capture_output=True).stdout
    names = json.dumps(listing)
    missing = [a for a in ADAPTERS if f"lessons-{a}" not in names]
    if missing:
        print(f"adapters not found as plugins: {missing}\n{listing}", file=sys.stderr)
        return 1

    if "lessons-llm" not in names:
        print(f"the llm distiller is not listed as a plugin\n{listing}", file=sys.stderr)
        return 1
    # A deep scan imports llm and refuses an unknown model with a clear error: the plugin and
    # its dependencies are installed and importable.
    deep = subprocess.run(
        [str(bin_dir / "lessons"), "scan", "--deep"],
        capture_output=True,
        text=True,
        env={
            "PATH": str(bin_dir),
            "HOME": str(workdir / "home"),
            "LESSONS_HOME": str(workdir / "lessons-home"),
            "LLM_USER_PATH": str(workdir / "llm-user"),
        },
        check=False,
    )
    if deep.returncode != 1 or not deep.stderr.startswith("Error: a deep scan needs a model"):
        print(f"lessons scan --deep misbehaved without a model: {deep!r}", file=sys.stderr)
        return 1

    # The MCP server answers a handshake with its name and instructions.
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "wheelhouse-check", "version": "0"},
        },
    }
    served = subprocess.run(
        [str(bin_dir / "lessons"), "mcp"],
        input=json.dumps(hello) + "\n",
        capture_output=True,
        text=True,
        env={"PATH": str(bin_dir), "HOME": str(workdir / "home")},
        timeout=120,
        check=False,
    )
    first = served.stdout.splitlines()[:1]
    if not first or '"serverInfo"' not in first[0] or '"lessons"' not in first[0]:
        print(f"lessons mcp did not answer the handshake: {served!r}", file=sys.stderr)
        return 1

    if "lessons-postgres" not in names:
        print(f"the team store is not listed as a plugin\n{listing}", file=sys.stderr)
        return 1
    # The team store is installed with its driver: a sync to a server that is not there says
    # "offline", exits 0, and never shows the password of the address.
    home = workdir / "team-home"
    home.mkdir(exist_ok=True)
    (home / "config.json").write_text(json.dumps({"team": {"store": "postgres"}}))
    offline = subprocess.run(
        [str(bin_dir / "lessons"), "sync"],
        capture_output=True,
        text=True,
        env={
            "PATH": str(bin_dir),
            "HOME": str(workdir / "home"),
            "LESSONS_HOME": str(home),
            "LESSONS_DATABASE_URL": "postgresql://team:s3cret@127.0.0.1:9/lessons",
        },
        timeout=120,
        check=False,
    )
    if (
        offline.returncode != 0
        or not offline.stderr.startswith("Offline:")
        or "s3cret" in offline.stdout + offline.stderr
    ):
        print(f"lessons sync misbehaved without a server: {offline!r}", file=sys.stderr)
        return 1

    for agent in ADAPTERS:
        hook = run(bin_dir / f"lessons-{agent}-hook", input="{}", capture_output=True)
        if hook.returncode != 0 or hook.stdout.strip() not in ("", "{}"):
            print(f"{agent} hook misbehaved on an empty payload: {hook!r}", file=sys.stderr)
            return 1
    # The demo needs the package data (starter catalogue, sample transcripts) and every stage.
    demo = run(bin_dir / "lessons", "demo", capture_output=True).stdout
    if "Every step behaved as expected." not in demo:
        print(demo, file=sys.stderr)
        return 1
    print("wheelhouse install of lessons[all,llm,mcp]: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]).resolve()))
