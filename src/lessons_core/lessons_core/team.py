"""A team store: one shared store several machines sync with (``lessons sync``).

The core knows no particular server. A store plugin that can serve as a team store registers a
``sync`` callable on its :class:`~lessons_core.plugins.specs.StoreSpec`; ``team.store`` in
``config.json`` names it. Sync runs in the cold path only (the command, and after each
background scan): the hook keeps reading the local manifest and never waits on a network.

A team store that cannot be reached is not an error: the report says ``offline`` and why, the
local store and manifest stay as they are, and the next sync catches up.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import attrs

from lessons_core.errors import LessonsError

if TYPE_CHECKING:
    from lessons_core.plugins.specs import StoreSpec
    from lessons_core.services import Session

_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][\w+.-]*://[^/@:\s]*:)(?P<secret>[^@/\s]*)(?=@)")
_KV_PASSWORD = re.compile(r"(?P<head>\bpassword\s*=\s*)(?P<secret>'(?:[^'\\]|\\.)*'|\S+)", re.I)


def mask_url(text: str) -> str:
    """``text`` with the password of any URL (``scheme://user:secret@host``) or key-value
    connection string (``password=secret``) replaced by ``***``: safe to print or log."""
    text = _URL_PASSWORD.sub(lambda m: m["head"] + "***", text)
    return _KV_PASSWORD.sub(lambda m: m["head"] + "***", text)


@attrs.frozen
class SyncReport:
    """What one sync did (counts only; the lessons themselves are in the stores)."""

    store: str
    #: The team store's address, password masked.
    where: str = ""
    #: Why the team store could not be reached; empty when the sync ran.
    offline: str = ""
    #: Team lessons new on this machine, local lessons changed or removed by the team.
    pulled: int = 0
    updated: int = 0
    removed: int = 0
    #: What this machine sent: lessons (new or edited), candidates, delivery records.
    pushed_lessons: int = 0
    pushed_candidates: int = 0
    pushed_deliveries: int = 0
    #: One line per conflict (the same lesson edited here and on the team), and where the
    #: version that lost was kept.
    conflicts: tuple[str, ...] = ()
    #: Team rows this machine could not use (why), left on the team; their neighbours applied.
    quarantined: tuple[str, ...] = ()
    #: Team lessons that act on their own (guards, nudges, directives, protocols), stored as
    #: candidates until the user enables them.
    waiting: tuple[str, ...] = ()
    #: What the team changed or removed of this user's own lessons: not applied, only told.
    suggestions: tuple[str, ...] = ()
    seconds: float = 0.0

    @property
    def changed_local(self) -> bool:
        return bool(self.pulled or self.updated or self.removed or self.conflicts or self.waiting)

    def as_json(self) -> dict[str, Any]:
        """The report with the contract's camelCase keys (``lessons sync --json``)."""
        out: dict[str, Any] = {}
        for field in attrs.fields(type(self)):
            head, *rest = field.name.split("_")
            out[head + "".join(p.title() for p in rest)] = getattr(self, field.name)
        out["conflicts"] = list(self.conflicts)
        out["quarantined"] = list(self.quarantined)
        out["waiting"] = list(self.waiting)
        out["suggestions"] = list(self.suggestions)
        out["seconds"] = round(self.seconds, 3)
        return out


def team_spec(sess: Session) -> StoreSpec | None:
    """The configured team store's spec, ``None`` when no team store is configured."""
    name = sess.config.team.store.strip()
    if not name:
        return None
    spec = sess.plugins.stores().get(name)
    if spec is None:
        known = ", ".join(sorted(sess.plugins.stores())) or "none"
        raise LessonsError(
            f"team.store is {name!r}, which no installed plugin provides (available: {known}); "
            f"install its plugin (for postgres: pip install 'lessons[postgres]')"
        )
    if spec.sync is None:
        raise LessonsError(f"the store {name!r} cannot serve as a team store (it has no sync)")
    return spec


def run_sync(sess: Session) -> SyncReport | None:
    """Sync the session's local store with the team store; ``None`` when none is configured.

    The manifest is rebuilt when the sync changed local lessons, so the hooks see the team's
    lessons on their next call.
    """
    spec = team_spec(sess)
    if spec is None or spec.sync is None:
        return None
    try:
        report = spec.sync(sess.store, config=sess.config, home=sess.home, environ=sess.environ)
    except LessonsError:
        raise
    except Exception as exc:  # a store plugin's bug is reported, never a traceback
        raise LessonsError(
            f"the team store {spec.name!r} failed: {type(exc).__name__}: "
            f"{mask_url(str(exc))[:300]}; what was done so far is kept, the next sync goes on "
            "from there (report this to the plugin's authors)"
        ) from exc
    if not isinstance(report, SyncReport):
        raise LessonsError(f"the team store {spec.name!r} returned no sync report")
    if report.changed_local:
        sess.rebuild_manifest()
    return report
