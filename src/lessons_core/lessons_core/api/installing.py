"""Helpers for an agent adapter's installer: reading, merging and writing the agent's settings
with a backup, and the hook command to register.

Used as a namespace (``from lessons_core.api import installing``). An installer that keeps its
hooks in a JSON settings file subclasses :class:`SettingsInstaller`; one with another format
uses the pieces (``read_settings``, ``settings_diff``, ``write_atomic``, ``backup_once``).
"""

from __future__ import annotations

from lessons_core.installing import (
    DEFAULT_STYLE,
    HookGroup,
    InstallResult,
    InstallStatus,
    SettingsInstaller,
    backup_once,
    backup_path,
    dump_settings,
    extend_status,
    hook_command,
    pinned_env,
    read_settings,
    settings_diff,
    write_atomic,
)

__all__ = [
    "DEFAULT_STYLE",
    "HookGroup",
    "InstallResult",
    "InstallStatus",
    "SettingsInstaller",
    "backup_once",
    "backup_path",
    "dump_settings",
    "extend_status",
    "hook_command",
    "pinned_env",
    "read_settings",
    "settings_diff",
    "write_atomic",
]
