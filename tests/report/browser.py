"""A headless Chromium driven over the DevTools protocol on a pipe (stdlib only).

``--remote-debugging-pipe`` makes the browser read protocol messages from file descriptor 3 and
write its answers and events to descriptor 4, each message a JSON object ended by a NUL byte: no
port, no websocket library, nothing listening on the network.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

#: Names Debian and others give the binary, most likely first.
NAMES = ("chromium", "chromium-headless-shell", "chromium-browser", "google-chrome")


def find_chromium() -> str | None:
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def flags(profile: Path) -> list[str]:
    """What a test run needs: headless, no sandbox (CI runs as root), nothing phoning home."""
    return [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-sync",
        "--disable-component-update",
        "--mute-audio",
        f"--user-data-dir={profile}",
    ]


class Browser:
    """One browser process; :meth:`call` sends a command and returns its result."""

    def __init__(self, binary: str, profile: Path, log: Path):
        to_child, self._write = os.pipe()
        self._read, from_child = os.pipe()

        def plumb() -> None:  # in the child, before exec: the pipes become fds 3 and 4
            # Copied out of the way first: either end may itself be fd 3 or 4 (dup2 onto
            # itself would leave it close-on-exec).
            reading, writing = os.dup(to_child), os.dup(from_child)
            os.dup2(reading, 3)
            os.dup2(writing, 4)

        self._log = log.open("wb")
        self.proc = subprocess.Popen(
            [binary, *flags(profile), "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            preexec_fn=plumb,
            close_fds=False,  # keep 3 and 4; our own descriptors are close-on-exec anyway
        )
        os.close(to_child)
        os.close(from_child)
        self.events: list[dict[str, Any]] = []
        self._answers: dict[int, dict[str, Any]] = {}
        self._cond = threading.Condition()
        self._next = 0
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()

    def _pump(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self._read, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                with self._cond:
                    self._cond.notify_all()
                return
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            with self._cond:
                for raw in messages:
                    message = json.loads(raw)
                    if "id" in message:
                        self._answers[message["id"]] = message
                    else:
                        self.events.append(message)
                self._cond.notify_all()

    def call(
        self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None
    ) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + 60
        with self._cond:
            while self._next not in self._answers:
                left = deadline - time.monotonic()
                if left <= 0 or not self._reader.is_alive():
                    raise TimeoutError(f"no answer to {method}")
                self._cond.wait(left)
            answer = self._answers.pop(self._next)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        result: dict[str, Any] = answer.get("result", {})
        return result

    def wait_for(self, method: str, session: str, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for event in self.events:
                    if event.get("method") == method and event.get("sessionId") == session:
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no {method}")
                self._cond.wait(left)

    def close(self) -> None:
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):
            self.call("Browser.close")
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=20)
        os.close(self._write)
        self._reader.join(timeout=5)
        os.close(self._read)
        self._log.close()


def dump_dom(binary: str, url: str, profile: Path) -> str:
    """The DOM after load, as ``--dump-dom`` prints it."""
    proc = subprocess.run(
        [binary, *flags(profile), "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return proc.stdout
