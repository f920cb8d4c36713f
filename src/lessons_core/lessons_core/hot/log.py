"""The hook's opt-in log: one JSON line per hook call (standard library only).

Nothing is written unless ``LESSONS_HOOK_LOG`` names a file. stdout belongs to the agent
protocol and stderr may be shown to the user, so this file is the only place a hook reports
what it did, what it dropped and why it failed open. Logging itself never raises.
"""

import os
import time

FIELDS = (
    "event",
    "agent",
    "hook_event",
    "duration_ms",
    "candidates",
    "injected",
    "dropped",
    "error",
)


def write(environ, record):
    """Append ``record`` as one JSON line to ``$LESSONS_HOOK_LOG`` (if set)."""
    try:
        path = (environ if environ is not None else os.environ).get("LESSONS_HOOK_LOG")
        if not path:
            return
        import json  # only when logging is switched on

        line = {"ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        for key in FIELDS:
            line[key] = record.get(key)
        for key, value in record.items():
            if key not in line:
                line[key] = value
        data = (json.dumps(line, default=str, ensure_ascii=False) + "\n").encode("utf-8")
        from lessons_core.hot import safefile  # a link, FIFO or shared file there is refused

        safefile.append(path, data)
    except Exception:  # noqa: S110 - logging must never break the hook
        pass
