#!/bin/sh
# Hand the hook payload to the installed lessons-codex-hook (pip/pipx install 'lessons[codex]').
# Without it, read the payload and answer nothing: Codex then carries on as if no hook ran.
if command -v lessons-codex-hook >/dev/null 2>&1; then
    exec lessons-codex-hook
fi
cat >/dev/null
exit 0
