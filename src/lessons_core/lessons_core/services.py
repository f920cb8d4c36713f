"""What CLI commands call: open the configured store, rebuild the manifest.

Every command needs the same preamble (find ``LESSONS_HOME``, load ``config.json``, load the
plugins, tell them the configuration, let them choose the store); doing it here keeps the
commands short and the order of those steps the same everywhere.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lessons_core.errors import LessonsError
from lessons_core.hot import homecheck
from lessons_core.hot.paths import lessons_home
from lessons_core.logs import get_logger
from lessons_core.models import Config
from lessons_core.plugins.manager import Plugins
from lessons_core.store.base import Store

log = get_logger()


def home_dir(environ: Mapping[str, str] | None = None, *, create: bool = True) -> Path:
    """``LESSONS_HOME`` as a path, created private (0700) when missing.

    A home, or a file in it that steers what commands do, that belongs to another user or that
    others may write is refused (:mod:`lessons_core.hot.homecheck`): its store, configuration
    and plugin cache could be someone else's.
    """
    home = Path(lessons_home(environ))
    if create and not home.is_dir():
        try:
            home.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise LessonsError(f"cannot create LESSONS_HOME {home}: {exc.strerror}") from exc
    check_home(home)
    return home


def check_home(home: Path) -> None:
    """Raise :class:`UntrustedHome` unless ``home`` and its steering files are the user's own."""
    found = homecheck.problem(str(home))
    if found is not None:
        raise UntrustedHome(found)


class UntrustedHome(LessonsError):
    """``LESSONS_HOME`` or a file in it that someone other than the user owns or may write."""


def load_config(home: Path) -> Config:
    """``config.json`` through the config module, or the defaults while it is not installed."""
    try:
        config_module = importlib.import_module("lessons_core.config")
    except ModuleNotFoundError as exc:
        if exc.name != "lessons_core.config":
            raise
        log.debug("config.module_missing")
        return Config()
    loaded: Config = config_module.load_config(home)
    return loaded


def load_plugins(environ: Mapping[str, str] | None = None) -> Plugins:
    """A fresh plugin manager (honouring the ``LESSONS_*PLUGIN*`` switches) behind its facade.

    The list of installed entry points is cached in ``LESSONS_HOME`` (rescanned whenever the
    installation changes): reading every distribution's metadata on each command is a large
    part of a short command's start-up. Loading plugins creates no home: ``lessons --help`` on
    a new machine leaves nothing behind, and the cache is first written once a command has
    made the home for what it keeps.
    """
    from lessons_core.plugins.cache import CACHE_NAME

    cache = home_dir(environ, create=False) / CACHE_NAME
    return Plugins.load(os.environ if environ is None else environ, entry_point_cache=cache)


@contextmanager
def open_store(environ: Mapping[str, str] | None = None) -> Iterator[Store]:
    """Open the configured store for the length of a ``with`` block, and close it after."""
    home = home_dir(environ)
    config = load_config(home)
    plugins = load_plugins(environ)
    plugins.configure(config)
    store = plugins.select_store(config, home)
    try:
        yield store
    finally:
        store.close()


@contextmanager
def session(environ: Mapping[str, str] | None = None) -> Iterator[Session]:
    """Like :func:`open_store`, but also hands over the config and plugins it loaded."""
    home = home_dir(environ)
    config = load_config(home)
    plugins = load_plugins(environ)
    plugins.configure(config)
    store = plugins.select_store(config, home)
    try:
        yield Session(store=store, config=config, plugins=plugins, home=home, environ=environ)
    finally:
        store.close()


class Session:
    """Everything one command works with: store, config, plugins, home."""

    def __init__(
        self,
        *,
        store: Store,
        config: Config,
        plugins: Plugins,
        home: Path,
        environ: Mapping[str, str] | None,
    ):
        self.store = store
        self.config = config
        self.plugins = plugins
        self.home = home
        self.environ = environ

    def rebuild_manifest(self) -> Path | None:
        return _build(self.store, self.config, self.home, self.plugins)


def rebuild_manifest(store: Store, environ: Mapping[str, str] | None = None) -> Path | None:
    """Recompile ``lesson-manifest.json`` from ``store``; ``None`` when no compiler is installed.

    Called after every change to lessons, so the hooks see it on their next call.
    """
    home = home_dir(environ)
    config = load_config(home)
    plugins = load_plugins(environ)
    plugins.configure(config)
    return _build(store, config, home, plugins)


def _build(store: Store, config: Config, home: Path, plugins: Plugins) -> Path | None:
    try:
        build_manifest = importlib.import_module("lessons_core.compiler.build").build_manifest
    except ModuleNotFoundError as exc:
        if exc.name not in ("lessons_core.compiler", "lessons_core.compiler.build"):
            raise
        log.warning("manifest.compiler_missing", error=str(exc))
        return None
    result: Any = build_manifest(store, config, home, plugins)
    return Path(result) if result is not None else None
