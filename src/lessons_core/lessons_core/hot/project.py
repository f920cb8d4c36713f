"""The project id a lesson's ``scope`` is compared with. Standard library only (hook process).

Two checkouts of the same repository should share scoped lessons, so a repository with an
``origin`` remote is named by its remote: ``github.com/acme/widgets`` whether it was cloned over
https or ssh, with or without ``.git``, with or without credentials. A repository without one
(or a directory outside any repository) is named by its basename plus a short hash of its
absolute path, e.g. ``widgets-1a2b3c4d``: stable on this machine, distinct across machines.

Nothing is cached on disk; finding the root costs one ``stat`` per directory level and reading
one small config file. The repository's files are anybody's: they are read only when they are
regular files (a FIFO named ``.git`` must not stall the hook) and only their first
:data:`MAX_GIT_FILE_BYTES` bytes.
"""

# os.path, not pathlib: importing pathlib costs the hook process more than this whole module.
# ruff: noqa: PTH100, PTH112, PTH118, PTH119, PTH120

import os

from lessons_core.hot import safefile

#: What is read of ``.git``, ``commondir`` or ``config`` at most.
MAX_GIT_FILE_BYTES = 256 * 1024
#: Characters of a URL scheme after its first letter (RFC 3986).
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")


def find_git_root(start: str) -> str | None:
    """The nearest directory at or above ``start`` holding a ``.git`` entry, or ``None``."""
    current = os.path.abspath(start)
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _git_dir(root: str) -> str | None:
    """The repository's own git dir; a ``.git`` *file* (worktree, submodule) points elsewhere."""
    dot_git = os.path.join(root, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    try:
        first = _first_line(dot_git)
    except (OSError, UnicodeDecodeError):
        return None
    if not first.startswith("gitdir:"):
        return None
    target = first[len("gitdir:") :].strip()
    git_dir = os.path.normpath(os.path.join(root, target))
    # A linked worktree keeps its config in the main repository ("commondir").
    try:
        common = _first_line(os.path.join(git_dir, "commondir"))
    except (OSError, UnicodeDecodeError):
        return git_dir
    return os.path.normpath(os.path.join(git_dir, common))


def _first_line(path: str) -> str:
    data: bytes = safefile.read(path, MAX_GIT_FILE_BYTES, trusted=False, follow=True)
    return data.decode("utf-8").split("\n", 1)[0].strip()


def origin_url(root: str) -> str | None:
    """The ``url`` of ``[remote "origin"]`` in the repository's config, or ``None``."""
    git_dir = _git_dir(root)
    if git_dir is None:
        return None
    try:
        data = safefile.read(
            os.path.join(git_dir, "config"), MAX_GIT_FILE_BYTES, trusted=False, follow=True
        )
    except OSError:
        return None
    lines = data.decode("utf-8", "replace").splitlines()
    in_origin = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("["):
            in_origin = " ".join(stripped.split()) in ('[remote "origin"]', "[remote origin]")
            continue
        if in_origin:
            key, sep, value = stripped.partition("=")
            if sep and key.strip() == "url":
                value = value.strip()
                if len(value) >= 2 and value[0] == value[-1] == '"':
                    value = value[1:-1]
                return value or None
    return None


def normalize_remote(url: str) -> str | None:
    """``git@GitHub.com:acme/widgets.git`` → ``github.com/acme/widgets``; ``None`` if no host.

    Credentials, ports, the scheme, a trailing slash and ``.git`` are dropped and the host is
    lower-cased; the path keeps its case (not every host ignores it).
    """
    url = url.strip()
    scheme, sep, rest = url.partition("://")
    if sep and scheme[:1].isalpha() and all(c in _SCHEME_CHARS for c in scheme):
        if scheme.lower() == "file":
            return None
        authority, _, path = rest.partition("/")
        host = authority.rpartition("@")[2]
        # Drop the port; an IPv6 literal keeps its colons.
        host = host.partition("]")[0] + "]" if host.startswith("[") else host.partition(":")[0]
    else:
        # scp-like "[user@]host:path"; a local path ("/srv/x.git", "C:/x", "../x") is not one.
        head, sep, path = url.partition(":")
        host = head.rpartition("@")[2]
        if (
            not sep
            or "/" in head
            or "\\" in head
            or path.startswith("//")
            or (len(host) == 1 and path[:1] in ("/", "\\"))
        ):
            return None
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[: -len(".git")]
    path = path.rstrip("/")
    if not host or not path:
        return None
    return host.lower() + "/" + path


def path_id(directory: str) -> str:
    """``<basename>-<first 8 hex of sha1(absolute path)>``."""
    # Imported here: hashlib loads OpenSSL (~3 ms), and repositories with a remote never need it.
    import hashlib

    absolute = os.path.abspath(directory)
    digest = hashlib.sha1(
        absolute.encode("utf-8", "surrogateescape"), usedforsecurity=False
    ).hexdigest()[:8]
    name = os.path.basename(absolute.rstrip(os.sep)) or "root"
    return name + "-" + digest


def project_id(cwd: str | None) -> str | None:
    """The project id of ``cwd``, or ``None`` when there is no usable directory."""
    if not cwd:
        return None
    try:
        root = find_git_root(cwd)
        if root is None:
            return path_id(cwd) if os.path.isdir(cwd) else None
        url = origin_url(root)
        if url:
            remote = normalize_remote(url)
            if remote:
                return remote
        return path_id(root)
    except (OSError, ValueError):
        return None
