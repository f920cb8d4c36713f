#!/bin/sh
# Hand the hook payload to the installed lessons-gemini-hook (pip/pipx install 'lessons[gemini]').
# Without it, read the payload and answer nothing: Gemini then carries on as if no hook ran.
if command -v lessons-gemini-hook >/dev/null 2>&1; then
    exec lessons-gemini-hook
fi
cat >/dev/null
exit 0
