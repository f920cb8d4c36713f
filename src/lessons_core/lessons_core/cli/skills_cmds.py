"""``lessons skills``: one agent skill per command-line tool with five or more lessons.

See :mod:`lessons_core.skills` for where the files go and why an edited file is left alone.
"""

from __future__ import annotations

import json

import click


@click.command()
@click.option("--json", "as_json", is_flag=True, help="One JSON object per skill file.")
@click.option("--dry-run", is_flag=True, help="Say what would change; write nothing.")
@click.option(
    "--min-lessons",
    type=click.IntRange(1),
    default=5,
    show_default=True,
    help="Lessons a tool needs before it gets a skill.",
)
def skills(as_json: bool, dry_run: bool, min_lessons: int) -> None:
    """Write an agent skill per tool, where each installed agent reads them, from its lessons."""
    from lessons_core import services
    from lessons_core import skills as skills_mod
    from lessons_core.models import Status

    with services.session() as ctx:
        lessons = ctx.store.list_lessons(status=Status.ACTIVE)
        results = skills_mod.sync(
            lessons,
            ctx.home,
            dry_run=dry_run,
            minimum=min_lessons,
            agents=ctx.plugins.agents(),
        )
    if as_json:
        for result in results:
            click.echo(json.dumps(result.as_dict(), ensure_ascii=False))
        return
    if not results:
        click.echo(f"no tool has {min_lessons} or more active lessons yet: no skill written")
        return
    for result in results:
        note = ""
        if result.status == "edited":
            note = " (changed by hand: left as it is; delete it to have it regenerated)"
        count = f", {len(result.lessons)} lessons" if result.lessons else ""
        click.echo(f"{result.status:>12}  {result.tool}{count}: {result.path}{note}")
