"""Where the team store is and who this machine is: read from ``config.json`` and the environment.

The connection string comes from ``LESSONS_DATABASE_URL`` when it is set (so the password can
stay out of ``config.json``), else from ``team.url``. It is handed to the driver and nowhere
else: what the user sees is :func:`lessons_core.team.mask_url` of it.
"""

from __future__ import annotations

import getpass
import os
import secrets
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lessons_core.api import LessonsError

ENV_URL = "LESSONS_DATABASE_URL"
#: Kept in LESSONS_HOME: tells two machines with the same host name (or two homes) apart.
MACHINE_ID_NAME = "team-machine-id"

MISSING_URL = (
    "the team store has no address: set LESSONS_DATABASE_URL or `lessons config team.url "
    "postgresql://user@host/db` (the password is best kept in ~/.pgpass or the environment)"
)


def database_url(config: Any, environ: Mapping[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    url = (env.get(ENV_URL) or "").strip() or str(config.team.url or "").strip()
    if not url:
        raise LessonsError(MISSING_URL)
    return url


def author(config: Any) -> str:
    if config.team.author:
        return str(config.team.author)
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return ""


def machine(config: Any, home: Path) -> str:
    """``team.machine``, else the host name plus an id made once and kept in ``home``."""
    if config.team.machine:
        return str(config.team.machine)
    path = home / MACHINE_ID_NAME
    try:
        ident = path.read_text(encoding="utf-8").strip()
    except OSError:
        ident = ""
    if not ident:
        ident = secrets.token_hex(4)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # made meanwhile by another process of this home
            ident = path.read_text(encoding="utf-8").strip() or ident
        except OSError:
            pass  # a read-only home: this run's id only
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(ident + "\n")
    return f"{socket.gethostname()}-{ident}"
