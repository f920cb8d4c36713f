"""The one module that talks to ``llm``: find the configured model, ask it, count tokens.

``llm`` is imported here only, when a deep scan starts: a plain scan, or ``lessons plugins``,
never pays for it.
"""

from __future__ import annotations

from typing import Any

from lessons_core.api import LessonsError

#: Tokens a call is assumed to spend beyond its prompt, until the model says.
ANSWER_TOKENS = 400


def resolve(name: str) -> Any:
    """The ``llm`` model named ``name`` (empty: ``llm``'s default model), ready to be asked.

    Raises :class:`LessonsError` with what to do when there is no such model or it has no key.
    """
    try:
        import llm
    except ImportError as exc:
        raise LessonsError(
            f"a deep scan needs the llm package ({exc}): pip install 'lessons[llm]'"
        ) from None
    try:
        model = llm.get_model(name or None)
    except llm.UnknownModelError:
        shown = name or llm.get_default_model()  # type: ignore[no-untyped-call]
        where = "deep.model in config.json" if name else "llm's default model"
        raise LessonsError(
            f"a deep scan needs a model, and {where} ({shown!r}) is not one llm knows: "
            "see `llm models`, then set deep.model in config.json or run `llm models default NAME`"
        ) from None
    if getattr(model, "needs_key", None):
        try:
            model.get_key()
        except llm.NeedsKeyException:
            raise LessonsError(
                f"a deep scan needs a model, and {model.model_id!r} has no key: "
                f"run `llm keys set {model.needs_key}`"
                + (f" or set {model.key_env_var}" if getattr(model, "key_env_var", None) else "")
                + ", or choose another model (deep.model in config.json, `llm models default`)"
            ) from None
    return model


def estimate(*texts: str) -> int:
    """A rough token count (four characters a token), plus room for the answer."""
    return sum(len(t) for t in texts) // 4 + ANSWER_TOKENS


def ask(model: Any, prompt: str, system: str, schema: dict[str, Any]) -> tuple[str, int | None]:
    """The model's answer to ``prompt`` and the tokens it reports having spent (if it does).

    The schema goes along when the model supports structured output; otherwise the
    instructions alone ask for JSON and the answer is parsed leniently.
    """
    kwargs: dict[str, Any] = {"system": system, "stream": False}
    if getattr(model, "supports_schema", False):
        kwargs["schema"] = schema
    response = model.prompt(prompt, **kwargs)
    text = str(response.text())
    usage = response.usage()
    spent = None
    if usage.input is not None or usage.output is not None:
        spent = int(usage.input or 0) + int(usage.output or 0)
    return text, spent
