"""The marker plugins decorate their hook implementations with.

Kept apart from the specs so that a plugin module imports one small name::

    from lessons_core.plugin import hookimpl
"""

import pluggy

PROJECT = "lessons"

hookimpl = pluggy.HookimplMarker(PROJECT)
