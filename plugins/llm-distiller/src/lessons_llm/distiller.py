"""The deep detector: Tier 2 finds the event, a model writes its lesson.

For every Tier 2 finding in the events it is given, the distiller builds a short redacted
excerpt (see :mod:`lessons_llm.excerpt`), looks its answer up in the cache, and otherwise asks
the model, within the scan's budget. A reusable answer becomes a Tier 4 candidate (pending,
like every heuristic candidate); a "not reusable" answer drops the finding. When the model
cannot be asked — the budget is spent, the call fails, the answer is no JSON object — the
heuristic candidate is kept, so a deep scan never finds less than a plain one.

It replaces the built-in Tier 2 detector in deep scans (it runs Tier 2 itself).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lessons_core.api import Candidate, Config, Finding, get_logger, heuristic_findings, redact_head
from lessons_core.api import events as ev

if TYPE_CHECKING:  # imported by a deep scan only: a plain scan registers, and never runs, this
    from lessons_llm.budget import Budget
    from lessons_llm.cache import Cache

NAME = "llm"
TIER = 4

log = get_logger()


class _Scan:
    """What one deep scan shares: the model, its budget, the cache."""

    def __init__(self, model: Any, budget: Budget, cache: Cache) -> None:
        self.model = model
        self.model_id = str(getattr(model, "model_id", model))
        self.budget = budget
        self.cache = cache


class Distiller:
    def __init__(self) -> None:
        self.scan: _Scan | None = None

    def prepare(self, *, config: Config, home: Path | None = None, **_: Any) -> None:
        """Find the model (or refuse the scan with what to do) and start a fresh budget."""
        from lessons_core.api import lessons_home
        from lessons_llm import model as models
        from lessons_llm.budget import Budget
        from lessons_llm.cache import Cache

        found = models.resolve(config.deep.model)
        budget = Budget(config.deep.max_calls, config.deep.max_tokens)
        self.scan = _Scan(found, budget, Cache(home or lessons_home()))

    def figures(self) -> dict[str, int]:
        """Calls, tokens, cache hits and findings over budget in this scan so far."""
        return self.scan.budget.figures() if self.scan is not None else {}

    def summary(self) -> str:
        """The scan report's line: what the model was asked and what the budget left out."""
        if self.scan is None:
            return ""
        f = self.figures()
        line = (
            f"Deep scan ({self.scan.model_id}): {f['calls']} model call(s), "
            f"{f['tokens']} token(s), {f['cached']} answer(s) from the cache"
        )
        if f["failed"]:
            line += f", {f['failed']} without a usable answer"
        if f["skipped"]:
            line += (
                f"; {f['skipped']} finding(s) over budget kept their heuristic lesson "
                "(deep.maxCalls, deep.maxTokens)"
            )
        return line + "."

    def detect(
        self, events: Sequence[ev.Event], *, config: Config, **_: Any
    ) -> Iterator[Candidate]:
        if self.scan is None:  # not prepared: no deep scan is running, nothing to ask
            return
        from lessons_llm import answer

        scan = self.scan
        for finding, heuristic in heuristic_findings(events, config=config):
            reply = self._answer(scan, finding)
            if reply is None:
                yield heuristic  # not asked or no usable reply: the heuristic stands
            elif answer.reusable(reply):
                made = answer.candidate(reply, finding, heuristic, config)
                yield made if made is not None else heuristic
            # else: the model judged it a one-off; nothing is proposed

    def _answer(self, scan: _Scan, finding: Finding) -> dict[str, Any] | None:
        from lessons_llm import answer, excerpt
        from lessons_llm import budget as budgets
        from lessons_llm import cache as caches
        from lessons_llm import model as models

        text = excerpt.build(finding)
        digest = caches.key(scan.model_id, answer.INSTRUCTIONS, text)
        cached = scan.cache.get(digest)
        if cached is not None:
            scan.budget.note(budgets.CACHED)
            return cached
        estimate = models.estimate(answer.INSTRUCTIONS, text)
        if not scan.budget.reserve(estimate):
            log.info("llm.over_budget", model=scan.model_id)
            return None
        try:
            reply, spent = models.ask(scan.model, text, answer.INSTRUCTIONS, answer.SCHEMA)
        except Exception as exc:  # a model error costs this finding its lesson, not the scan
            scan.budget.settle(estimate, estimate)
            scan.budget.note(budgets.FAILED)
            log.warning(
                "llm.call_failed", model=scan.model_id, error=redact_head(str(exc), 300)[:300]
            )
            return None
        scan.budget.settle(estimate, spent if spent is not None else models.estimate(text, reply))
        parsed = answer.parse(reply)
        if parsed is None:
            scan.budget.note(budgets.FAILED)
            log.warning("llm.bad_answer", model=scan.model_id, answer=redact_head(reply, 200)[:200])
            return None
        scan.cache.put(digest, parsed)
        return parsed
