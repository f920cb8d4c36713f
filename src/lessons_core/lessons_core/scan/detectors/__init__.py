"""The built-in detectors: what turns a session's events into candidate lessons.

The scan engine around this package (``scan/``: discovery, planning, reading, intake,
committing) knows nothing of what a mistake looks like; it hands the events of each transcript
to every registered detector and checks what comes back. The detectors here are registered the
way a third-party one is (``lessons_core.builtin.detectors``), so they can be turned off by name:

* :mod:`.tier1` keeps the ``#lesson … #/lesson`` blocks an agent wrote when the protocol asked it;
* :mod:`.tier2` pairs a failing call with the call that fixed it, and finds retry loops and
  working-directory drift; :mod:`.failures` names the class of a failure, and :mod:`.triggers`
  turns the difference between the failing call and its fix into a trigger;
* :mod:`.corrections` keeps what a user said to set the agent right.
"""
