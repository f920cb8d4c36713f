"""``lessons config``: every key of ``config.json``, its value and where it came from; set one.

Writing goes through :mod:`lessons_core.config`, which checks the whole file as the commands
will read it before replacing ``config.json`` atomically: a bad value is refused with the same
message a hand-edited file would get, and the old file stays.
"""

from __future__ import annotations

import json
import os
from typing import Any

import click

from lessons_core.cli.common import json_line, user_errors
from lessons_core.errors import LessonsError


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@click.command("config", context_settings={"ignore_unknown_options": True})
@click.argument("key", required=False)
@click.argument("value", required=False)
@click.option(
    "--unset", "unset", metavar="KEY", help="Remove KEY from config.json (its default applies)."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@user_errors
def config(key: str | None, value: str | None, unset: str | None, as_json: bool) -> None:
    """Show every setting with its source, show one KEY, or set KEY to VALUE in config.json.

    VALUE is read as JSON when it parses (5, 0.7, true, ["~/logs"]) and as text otherwise;
    nested keys are dotted (scoring.base, deep.maxCalls). Sources: default, config.json, or an
    environment variable (LESSONS_AUTO_SCAN=0 turns autoScan off).
    """
    from lessons_core import config as cfg
    from lessons_core import services

    home = services.home_dir(create=False)
    if unset is not None:
        if key is not None:
            raise LessonsError("--unset takes the key alone: `lessons config --unset KEY`")
        path = cfg.set_key(home, unset, None)
        _echo_one(cfg, home, unset, as_json, f"Removed {unset} from {path}; ")
        return
    if key is not None and value is not None:
        path = cfg.set_key(home, key, cfg.parse_value(key, value))
        _echo_one(cfg, home, key, as_json, f"Set in {path}: ")
        return
    rows = cfg.settings(home, os.environ)
    if key is not None:
        _echo_one(cfg, home, key, as_json, "")
        return
    if as_json:
        click.echo(
            json_line(
                {
                    "file": str(cfg.config_file(home)),
                    "settings": {
                        r.key: {"value": r.value, "default": r.default, "source": r.source}
                        for r in rows
                    },
                }
            )
        )
        return
    click.echo(f"# {cfg.config_file(home)}")
    width = max(len(r.key) for r in rows)
    for r in rows:
        click.echo(f"{r.key:<{width}}  {_shown(r.value)}  ({r.source})")


def _echo_one(cfg: Any, home: Any, key: str, as_json: bool, lead: str) -> None:
    cfg.check_key(key)
    (row,) = [r for r in cfg.settings(home, os.environ) if r.key == key]
    if as_json:
        shown = {"key": key, "value": row.value, "default": row.default, "source": row.source}
        click.echo(json_line(shown))
    else:
        click.echo(f"{lead}{key} = {_shown(row.value)}  ({row.source})")
