"""A throwaway PostgreSQL server for tests and benchmarks (Debian's ``postgresql`` binaries).

:class:`TempServer` makes a data directory in a temporary folder, starts ``postgres`` on
127.0.0.1 with a free port (and its unix socket in that folder, not in ``/var/run``), and stops
it and removes the folder on :meth:`stop`. ``initdb`` and ``postgres`` refuse to run as root,
so when this process is root both run as the ``postgres`` system user (``runuser``), with the
folder handed to that user.

The server is for tests only: durability is switched off (``fsync``, full page writes,
synchronous commit), which makes it several times faster and loses nothing a test needs.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

#: The superuser made by initdb, and the database the tests' own databases are made from.
USER = "lessons"
SYSTEM_USER = "postgres"


def find_bindir() -> Path | None:
    """The directory holding ``initdb`` and ``pg_ctl``: ``PG_BINDIR``, Debian's versioned
    folders (newest first), or ``PATH``."""
    given = os.environ.get("PG_BINDIR")
    candidates = [Path(given)] if given else []
    debian = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: [int(x) if x.isdigit() else 0 for x in p.parent.name.split(".")],
        reverse=True,
    )
    candidates += debian
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).parent)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class TempServer:
    """One PostgreSQL server in a temporary folder; :meth:`start`, then :meth:`stop`."""

    def __init__(self, bindir: Path):
        self.bindir = bindir
        self.password = secrets.token_urlsafe(12)
        self.port = 0
        self.root = Path(tempfile.mkdtemp(prefix="lessons-pg-"))
        self.data = self.root / "data"
        self.socket_dir = self.root / "sock"
        self.log = self.root / "server.log"
        self._as_root = hasattr(os, "geteuid") and os.geteuid() == 0

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [*args]
        if self._as_root:
            command = ["runuser", "-u", SYSTEM_USER, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)

    def _check(self, result: subprocess.CompletedProcess[str], what: str) -> None:
        if result.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            msg = f"{what} failed ({result.returncode}): {result.stderr.strip()}\n{log}"
            raise RuntimeError(msg)

    def start(self) -> TempServer:
        self.socket_dir.mkdir()
        pwfile = self.root / "pw"
        pwfile.write_text(self.password + "\n")
        if self._as_root:
            entry = pwd.getpwnam(SYSTEM_USER)
            for path in (self.root, self.socket_dir, pwfile):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        self._check(
            self._run(
                str(self.bindir / "initdb"),
                "-D",
                str(self.data),
                "-U",
                USER,
                f"--pwfile={pwfile}",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            ),
            "initdb",
        )
        pwfile.unlink()
        self.port = _free_port()
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.socket_dir} "
            "-c fsync=off -c full_page_writes=off -c synchronous_commit=off "
            "-c max_connections=200 -c shared_buffers=32MB"
        )
        self._check(
            self._run(
                str(self.bindir / "pg_ctl"),
                "-D",
                str(self.data),
                "-l",
                str(self.log),
                "-o",
                options,
                "-w",
                "-t",
                "60",
                "start",
            ),
            "pg_ctl start",
        )
        return self

    def stop(self) -> None:
        if self.data.is_dir():
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop")
        with contextlib.suppress(OSError):
            shutil.rmtree(self.root)

    def url(self, database: str = "postgres") -> str:
        """A connection URL over TCP with the password in it (as a user would write one)."""
        return f"postgresql://{USER}:{self.password}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str | None = None) -> str:
        """A new empty database; returns its URL."""
        import psycopg
        from psycopg import sql

        name = name or f"t_{secrets.token_hex(6)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.url(name)

    def __enter__(self) -> TempServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
