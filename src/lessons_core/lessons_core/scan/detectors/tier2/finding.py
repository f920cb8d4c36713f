"""One finding of Tier 2, and the detector's name and bounds every stage shares.

A :class:`Finding` is filled in as it goes down the pipeline: the pairing sets its fix and
what happened in between, the judging its class, and the lesson is written from it.
"""

from __future__ import annotations

from lessons_core.scan import events as ev
from lessons_core.scan.detectors.failures import MistakeClass

NAME = "tier2"
#: How many events after a failure are searched for its correction.
WINDOW = 40
RETRY_THRESHOLD = 3


class Finding:
    """One detection: ``call`` and its ``result`` (the mistake), the ``fix`` call, the user's
    words and the agent's own diagnosis when there were any, and the scoring ``signals``."""

    __slots__ = (
        "call",
        "cleared",
        "cls",
        "diagnosis",
        "diagnosis_at",
        "drift_dir",
        "edit_cause",
        "edited",
        "fix",
        "fix_failure",
        "generic",
        "guessed",
        "later",
        "option",
        "other_target",
        "read_between",
        "rejected",
        "renamed",
        "rerun",
        "result",
        "retries",
        "signals",
        "ssh_host",
        "stand_in",
        "step",
        "user_at",
        "user_text",
        "wrapper",
    )

    def __init__(self, call: ev.Event, result: ev.Event) -> None:
        self.call = call
        self.result = result
        self.fix: ev.Event | None = None
        #: The fix's own result when it got past the mistake and then failed for another
        #: reason (the tests it finally ran): the fix text must not say it worked.
        self.fix_failure: ev.Event | None = None
        self.signals: set[str] = set()
        self.user_text: str | None = None
        self.diagnosis: str | None = None
        self.user_at = -1
        self.diagnosis_at = -1
        #: The failing results of the same call repeated before the fix (the first included).
        self.retries: list[ev.Event] = [result]
        #: Those of the repeats that came after a file was edited: the same command run again
        #: on changed code, a new attempt rather than the failure once more.
        self.rerun: set[int] = set()
        self.cls: MistakeClass | None = None
        self.drift_dir: str | None = None
        self.edited = False  # a file was edited between the failure and the fix
        self.read_between = False
        self.rejected = False
        #: ``(how, wrapper, executable)`` when the fix added or dropped a wrapper, or put the
        #: wrapper's runner subcommand in (``("inserted", "rtk test", "bun")``).
        self.wrapper: tuple[str, str, str] | None = None
        #: A failure no class knows, kept for what its fix changed (see :func:`.judging._judge`).
        self.generic = False
        #: The path the call guessed and the one the file was found at (:mod:`.paths`).
        self.guessed: tuple[str, str] | None = None
        #: What a fix of another program worked on that the failed command named too
        #: (:func:`.remedies.same_target`): the job done another way.
        self.other_target: str | None = None
        #: For a step that had to run again with an option more (``git stash`` → ``git stash
        #: -u``): the later call that failed for want of it, whose result is :attr:`result`.
        self.later: ev.Event | None = None
        #: The word the call gave and the one the fix gave in its place: a package name the
        #: registry did not know and the one it publishes, or an argument in a form the
        #: command does not take and the form it does (``x.py:88``, ``x.py::test_refund``).
        self.renamed: tuple[str, str] | None = None
        #: The program that did the job of one the machine lacks, in the same place of the line
        #: (or of an option it lacks: :attr:`option`).
        self.stand_in: str | None = None
        #: The option the mistake was about: one the program lacks here, whose job
        #: :attr:`stand_in` did, one that takes an argument here (``-i`` of BSD ``sed``), or a
        #: variable given on the wrong side of its program (``VERSION`` of ``VERSION=v2 make``).
        self.option: str | None = None
        #: The host whose repository's SSH address failed where its HTTPS one then worked.
        self.ssh_host: str | None = None
        #: The step the error named that ran between the failure and the same command working.
        self.step: str | None = None
        #: The generated folder deleted before the command worked (:func:`.remedies._cleared`).
        self.cleared: str | None = None
        #: Why an edit's text was not found, when its fix shows it (:mod:`..edit_causes`).
        self.edit_cause: str | None = None
