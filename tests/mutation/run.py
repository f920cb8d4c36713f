"""Mutation testing of the modules where a silent bug costs users most, one module at a time.

A passing suite says the code ran, not that a test would notice it breaking. cosmic-ray changes
one operator at a time in a module (``<`` to ``<=``, ``and`` to ``or``, a condition negated, a
loop that never runs...) and runs the few test files that exercise that module
(``modules.toml``); a mutant the tests still pass on is a change of behaviour nobody would see.

    python tests/mutation/run.py                 # every module, in the file's order
    python tests/mutation/run.py hot.match       # one module
    python tests/mutation/run.py --resume hot.match   # finish an interrupted run
    python tests/mutation/run.py --survivors hot.match    # after new tests: the survivors again
    python tests/mutation/run.py --sample 40 hot.claims   # a seeded sample of 40 mutants

cosmic-ray mutates the module's file in place and puts it back after each mutant, so the
distributions must be installed editable (``tox -e mutation`` does) and the module should not be
edited while its run goes on. Sessions and summaries go to ``.mutation/<module>/``.

Operators that only produce a crash on the first line they touch (``is`` to ``<``, ``+`` to
``<<``, ``~`` on a string) are left out: any test reaching the line kills them, so they measure
coverage, not assertions, and cost a test run each. What stays: every comparison flipped to its
negation and its boundary, ``and``/``or``, ``not`` added and removed, ``True``/``False``, numbers,
``+``/``-``, ``break``/``continue``, emptied loops, swallowed exceptions and removed decorators.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "lessons_core" / "lessons_core"
CONFIG = Path(__file__).with_name("modules.toml")
WORK = ROOT / ".mutation"

#: Regular expressions (matched at the start of cosmic-ray's operator names) left out.
EXCLUDED_OPERATORS = [
    # comparisons across kinds (identity vs order): a TypeError, or `is` on interned values
    r"core/ReplaceComparisonOperator_(Is|IsNot)_(Eq|NotEq|Lt|LtE|Gt|GtE)$",
    r"core/ReplaceComparisonOperator_(Eq|NotEq|Lt|LtE|Gt|GtE)_(Is|IsNot)$",
    # equality to order and back: kept are == <-> != and the boundary and negation of an order
    r"core/ReplaceComparisonOperator_(Eq|NotEq)_(Lt|LtE|Gt|GtE)$",
    r"core/ReplaceComparisonOperator_(Lt|LtE|Gt|GtE)_(Eq|NotEq)$",
    r"core/ReplaceComparisonOperator_(Lt_Gt|Gt_Lt|LtE_GtE|GtE_LtE)$",
    # arithmetic: only the slips a person makes (+ and -, * and /, | and &)
    r"core/ReplaceBinaryOperator_(?!(Add_Sub|Sub_Add|Mul_Div|Div_Mul|FloorDiv_Div|BitOr_BitAnd"
    r"|BitAnd_BitOr)$)",
    # unary operators on numbers or strings that raise at once
    r"core/ReplaceUnaryOperator_.*Invert",
    r"core/ReplaceUnaryOperator_(UAdd|USub)_Not$",
    r"core/ReplaceUnaryOperator_Delete_USub$",
    # renaming or inventing variables: NameErrors, or noise on unrelated names
    r"core/Variable(Replacer|Inserter)$",
]

#: Seconds a mutant's test run may take before it counts as killed (an endless loop).
TIMEOUT = 120.0


def load_modules() -> dict[str, dict[str, object]]:
    """The modules and their test files, in the order of ``modules.toml``."""
    with CONFIG.open("rb") as handle:
        modules: dict[str, dict[str, object]] = tomllib.load(handle)["modules"]
    return modules


def module_file(name: str, spec: dict[str, object] | None = None) -> Path:
    """``hot.match`` -> the path of ``lessons_core/hot/match.py``; a package's name -> its
    ``__init__.py`` (``scan.detectors.tier2``, the entry of a detector split by stage).

    A module of another distribution (an adapter's reader) is named by its entry's ``path``,
    the file relative to the checkout: the core's names stay short, and no search of the
    checkout guesses which ``src`` folder a name lives in.
    """
    if spec is not None and "path" in spec:
        path = ROOT / str(spec["path"])
        if not path.is_file():
            raise SystemExit(f"{name}: no module file {spec['path']}; fix modules.toml")
        return path
    path = PACKAGE.joinpath(*name.split(".")).with_suffix(".py")
    if not path.is_file() and PACKAGE.joinpath(*name.split(".")).is_dir():
        path = PACKAGE.joinpath(*name.split("."), "__init__.py")
    if not path.is_file():
        raise SystemExit(f"no module file {path.relative_to(ROOT)} for {name!r}; fix modules.toml")
    return path


def write_config(name: str, spec: dict[str, object], tests: list[str], folder: Path) -> Path:
    """A cosmic-ray config running ``tests`` on every mutant of module ``name``."""
    for test in tests:
        if not (ROOT / test).exists():
            raise SystemExit(f"{name}: no test path {test}; fix modules.toml")
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    lines = [
        "[cosmic-ray]",
        f"module-path = {json.dumps(str(module_file(name, spec).relative_to(ROOT)))}",
        f"timeout = {TIMEOUT}",
        "excluded-modules = []",
        f"test-command = {json.dumps(' '.join(command))}",
        "",
        "[cosmic-ray.distributor]",
        'name = "local"',
        "",
        "[cosmic-ray.filters.operators-filter]",
        f"exclude-operators = {json.dumps(EXCLUDED_OPERATORS)}",
        "",
    ]
    config = folder / "config.toml"
    config.write_text("\n".join(lines), encoding="utf-8")
    return config


def tool(name: str) -> str:
    """A console script installed beside this interpreter (cosmic-ray's commands)."""
    return str(Path(sys.executable).with_name(name))


def cosmic_ray(*args: str | Path) -> None:
    """Run one of cosmic-ray's commands in the checkout; a failure stops the run."""
    subprocess.run([tool(str(args[0])), *map(str, args[1:])], cwd=ROOT, check=True)


def forget_survivors(session: Path) -> int:
    """Drop the results of the surviving mutants, so the next ``exec`` runs only those again."""
    with sqlite3.connect(session) as db:
        cursor = db.execute("DELETE FROM work_results WHERE test_outcome = 'SURVIVED'")
        return cursor.rowcount


def annotation_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where ``source``'s annotations sit, as ``((row, col), (end_row, end_col))``."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.arg | ast.AnnAssign):
            a = node.annotation
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.returns
        else:
            continue
        if a is not None and a.end_lineno is not None and a.end_col_offset is not None:
            spans.append(((a.lineno, a.col_offset), (a.end_lineno, a.end_col_offset)))
    return spans


def skip_annotations(session: Path, file: Path) -> int:
    """Mark the mutants inside an annotation skipped: with postponed annotations nothing
    evaluates them, so no test can tell (``str | None`` to ``str & None``); without, the
    import fails, which measures nothing either. Returns how many."""
    spans = annotation_spans(file.read_text(encoding="utf-8"))
    with sqlite3.connect(session) as db:
        rows = db.execute(
            "SELECT s.job_id, s.start_pos_row, s.start_pos_col FROM mutation_specs s"
            " LEFT JOIN work_results r USING (job_id) WHERE r.job_id IS NULL"
        ).fetchall()
        inside = [job for job, row, col in rows if any(a <= (row, col) < b for a, b in spans)]
        db.executemany(
            "INSERT INTO work_results (worker_outcome, output, job_id) VALUES ('SKIPPED', ?, ?)",
            [("in an annotation", job) for job in inside],
        )
    return len(inside)


def keep_sample(session: Path, size: int, seed: int) -> tuple[int, int]:
    """Mark all but a seeded sample of ``size`` pending mutants skipped; return (kept, pending).

    The pending mutants are ordered by where they sit and what they do before sampling, not by
    cosmic-ray's random job ids, so one seed picks the same mutants of the same file every time.
    """
    with sqlite3.connect(session) as db:
        rows = db.execute(
            "SELECT s.job_id FROM mutation_specs s LEFT JOIN work_results r USING (job_id)"
            " WHERE r.job_id IS NULL ORDER BY s.start_pos_row, s.start_pos_col,"
            " s.operator_name, s.occurrence"
        ).fetchall()
        pending = [job for (job,) in rows]
        kept = set(random.Random(seed).sample(pending, min(size, len(pending))))
        db.executemany(
            "INSERT INTO work_results (worker_outcome, output, job_id) VALUES ('SKIPPED', ?, ?)",
            [(f"not in the sample of {size} (seed {seed})", j) for j in pending if j not in kept],
        )
    return len(kept), len(pending)


def run_module(
    name: str, spec: dict[str, object], mode: str, sample: tuple[int, int] | None = None
) -> dict[str, object]:
    """Mutate module ``name``, run its tests on every mutant, and return the summary.

    ``mode``: ``fresh`` starts over, ``resume`` finishes an interrupted session, ``survivors``
    runs again only the mutants that survived the last run (after new tests were written).
    ``sample``: ``(size, seed)`` to run a fresh session on only that many mutants, picked by seed.
    """
    folder = WORK / name
    folder.mkdir(parents=True, exist_ok=True)
    tests = [str(t) for t in spec["tests"]]  # type: ignore[attr-defined]
    config = write_config(name, spec, tests, folder)
    session = folder / "session.sqlite"
    if mode != "fresh" and not session.exists():
        raise SystemExit(f"{name}: no session to {mode}; run it without --{mode} first")
    if mode == "survivors":
        print(f"{name}: running {forget_survivors(session)} surviving mutants again")
    elif mode == "fresh":
        session.unlink(missing_ok=True)
        # The tests must pass on the untouched module, or every mutant would look killed.
        cosmic_ray("cosmic-ray", "baseline", config)
        cosmic_ray("cosmic-ray", "init", config, session)
        cosmic_ray("cr-filter-operators", session, config)
        skip_annotations(session, module_file(name, spec))
        if sample is not None:
            kept, pending = keep_sample(session, *sample)
            print(f"{name}: a sample of {kept} of its {pending} mutants (seed {sample[1]})")
    cosmic_ray("cosmic-ray", "exec", config, session)
    equivalent: list[dict[str, str]] = spec.get("equivalent", [])  # type: ignore[assignment]
    summary = summarise(name, module_file(name, spec), session, equivalent)
    (folder / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def summarise(
    name: str, file: Path, session: Path, equivalent: list[dict[str, str]]
) -> dict[str, object]:
    """Counts of a finished session of ``file``, and the survivors not explained as equivalent."""
    source = file.read_text(encoding="utf-8").splitlines()
    known = {(e["operator"], e["line"].strip(), e.get("mutated", "").strip()) for e in equivalent}
    dump = subprocess.run(
        [tool("cosmic-ray"), "dump", str(session)], cwd=ROOT, check=True, capture_output=True
    ).stdout.decode()
    counts = {"mutants": 0, "killed": 0, "equivalent": 0, "survived": 0, "incompetent": 0}
    survivors = []
    for row in dump.splitlines():
        item, result = json.loads(row)
        if result is None or result["worker_outcome"] == "skipped":
            continue
        mutation = item["mutations"][0]
        outcome = result["test_outcome"]
        if outcome == "incompetent":  # the mutant cannot run at all: no test's merit
            counts["incompetent"] += 1
            continue
        counts["mutants"] += 1
        if outcome == "killed":
            counts["killed"] += 1
            continue
        row_no = mutation["start_pos"][0]
        line = source[row_no - 1].strip() if row_no <= len(source) else ""
        named = (mutation["operator_name"], line)
        if (*named, "") in known or (*named, mutated_line(result["diff"] or "")) in known:
            counts["equivalent"] += 1
            continue
        counts["survived"] += 1
        survivors.append(
            {
                "operator": mutation["operator_name"],
                "line_number": row_no,
                "line": line,
                "diff": result["diff"],
            }
        )
    counted = counts["mutants"] - counts["equivalent"]
    rate = counts["killed"] / counted if counted else 1.0
    return {"module": name, **counts, "kill_rate": round(rate, 3), "survivors": survivors}


def mutated_line(diff: str) -> str:
    """The line a mutant's diff puts in, stripped: an ``equivalent`` entry names it
    (``mutated``) when its source line holds other mutants of the operator that are not."""
    for row in diff.splitlines():
        if row.startswith("+") and not row.startswith("+++"):
            return row[1:].strip()
    return ""


def report(summary: dict[str, object]) -> None:
    """Print a module's figures and the diff of each unexplained survivor."""
    for survivor in summary["survivors"]:  # type: ignore[attr-defined]
        print(f"\nsurvived: {survivor['operator']} at line {survivor['line_number']}")
        print(survivor["diff"])
    print(
        f"{summary['module']}: {summary['killed']} of {summary['mutants']} mutants killed, "
        f"{summary['equivalent']} equivalent, {summary['survived']} survived "
        f"(kill rate {summary['kill_rate']:.1%} of the non-equivalent)"
    )


def main(argv: list[str] | None = None) -> int:
    modules = load_modules()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("modules", nargs="*", help=f"modules to run (default all): {list(modules)}")
    again = parser.add_mutually_exclusive_group()
    again.add_argument("--resume", action="store_true", help="finish an interrupted session")
    again.add_argument(
        "--survivors", action="store_true", help="run only the last run's survivors again"
    )
    parser.add_argument(
        "--sample",
        type=int,
        metavar="N",
        help="fresh runs only: N mutants of each module picked at random by --seed",
    )
    parser.add_argument("--seed", type=int, default=0, help="the seed of --sample (default 0)")
    parser.add_argument(
        "--fail-under", type=float, default=0.0, help="exit 1 when a kill rate is below this"
    )
    args = parser.parse_args(argv)
    if args.sample is not None and (args.resume or args.survivors):
        parser.error("--sample picks the mutants of a fresh run; --resume and --survivors keep it")
    unknown = [m for m in args.modules if m not in modules]
    if unknown:
        parser.error(f"unknown module(s) {unknown}; known: {list(modules)}")
    failed = False
    for name in args.modules or list(modules):
        mode = "resume" if args.resume else "survivors" if args.survivors else "fresh"
        sample = None if args.sample is None else (args.sample, args.seed)
        summary = run_module(name, modules[name], mode, sample)
        report(summary)
        failed = failed or float(summary["kill_rate"]) < args.fail_under  # type: ignore[arg-type]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
