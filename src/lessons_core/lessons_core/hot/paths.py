"""Where lessons keeps its files. Standard library only: the hook process imports this.

``LESSONS_HOME`` holds the store, ``config.json``, the manifest and the scan state; it defaults to
the platform's user data directory (the same place ``platformdirs.user_data_dir("lessons")``
names, computed here without importing it). ``LESSONS_STATE_DIR`` holds per-session runtime
state (dedup claims); it defaults to a private per-user directory under ``XDG_RUNTIME_DIR`` or the
temporary directory.
"""

# pathlib costs the hook process an import; os.path is already loaded.
# ruff: noqa: PTH100, PTH111, PTH112, PTH118

import os
import sys

MANIFEST_NAME = "lesson-manifest.json"
CONFIG_NAME = "config.json"
STORE_NAME = "lessons.db"


def lessons_home(environ=None):
    """Return the data directory (not created here)."""
    env = os.environ if environ is None else environ
    explicit = env.get("LESSONS_HOME")
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    home = env.get("HOME") or os.path.expanduser("~")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Application Support", "lessons")
    if sys.platform == "win32":
        base = env.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        return os.path.join(base, "lessons")
    base = env.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share")
    return os.path.join(base, "lessons")


def state_dir(environ=None):
    """Return the per-user runtime state directory (not created here)."""
    env = os.environ if environ is None else environ
    explicit = env.get("LESSONS_STATE_DIR")
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return os.path.join(runtime, "lessons")
    import tempfile  # only here: importing it costs the hook several milliseconds

    uid = os.getuid() if hasattr(os, "getuid") else env.get("USERNAME", "user")
    return os.path.join(tempfile.gettempdir(), f"lessons-{uid}")


def manifest_path(environ=None):
    return os.path.join(lessons_home(environ), MANIFEST_NAME)


def config_path(environ=None):
    return os.path.join(lessons_home(environ), CONFIG_NAME)


def store_path(environ=None):
    return os.path.join(lessons_home(environ), STORE_NAME)
