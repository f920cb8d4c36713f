"""The verdicts on delivered lessons as the store keeps them, and the figures made of them.

The outcome loop (:mod:`lessons_core.outcomes`) judges each delivery and writes a verdict;
the manifest build (:mod:`lessons_core.compiler.build`), ``lessons stats`` and ``lessons
doctor`` only read the verdicts back and count them. The loop compiles a lesson's entry to look
for its mistake again, so it sits above the compiler; the build acts on the counts, so what it
reads must sit below. Kept in the loop's package, the counts made the two import each other
round about (with the scanner and the authoring check in between). Here, with nothing of the
loop, the compiler and the loop both import them from below.

The room is named for what it holds, the verdicts, and holds only what reading them needs:

* :mod:`~.state`: the store keys the loop keeps its place and its waiting deliveries under, and
  :func:`~.state.idle`, whether the loop has anything to do (standard library only, so a scan
  asks without importing the loop);
* :mod:`~.records`: a delivery, the verdicts it can get, the queue of those still waiting;
* :mod:`~.stats`: the per-lesson figures and what the build makes of them (confidence,
  priority, a softer type for needless denials, failure-only hints).

Nothing is re-exported here, so importing :mod:`~.state` costs no more than that module; the
outcome loop's package offers these names to its callers as before.
"""
