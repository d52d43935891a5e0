"""Writing the output files without writing through a link.

With ``--force`` the output folder may already hold files. A symbolic link there (``index.html`` pointing
at a file elsewhere, or ``figures/`` at another folder) would have the report overwrite whatever it points
at: such a link is refused with a clear error. An existing file is removed and created anew rather than
truncated, so that a hard link to a file elsewhere is not written through either.
"""

from __future__ import annotations

import os
from pathlib import Path

from lm_eval_cog.reports.errors import ReportInputError

#: Create-only: with O_EXCL the open fails on any existing name, a link planted after the check included.
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)


def links_on_the_way(path: Path, root: Path) -> list[Path]:
    """The symbolic links among ``path`` and its folders below ``root`` (the output folder, which the user
    chose and may well be a link itself: it is never one of them)."""
    if path == root:
        return []
    chain = [path] + [p for p in path.parents if root in p.parents]
    return [p for p in chain if p.is_symlink()]


def refuse_links(path: Path, root: Path) -> None:
    links = links_on_the_way(Path(path), Path(root))
    if links:
        link = links[0]
        raise ReportInputError(
            f"refusing to write {path}: {link} is a symbolic link (to {os.readlink(link)}), which would be "
            "written through; remove it or choose a new output folder"
        )


def write_bytes(path: Path, data: bytes, root: Path | None = None) -> None:
    """Write ``data`` to a new file at ``path`` (an old one is replaced), never through a link: neither
    ``path`` nor a folder between ``root`` (default: its own folder) and it may be one."""
    path = Path(path)
    root = path.parent if root is None else Path(root)
    refuse_links(path, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()  # a fresh inode: a hard link to a file elsewhere keeps that file's contents
    fd = os.open(path, _FLAGS, 0o666)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


def write_text(path: Path, text: str, root: Path | None = None) -> None:
    """:func:`write_bytes` of ``text`` in UTF-8, line endings as given. A lone surrogate (JSON's
    ``"\\udcff"`` in a task name) has no UTF-8 form: it is written as its ``\\udcff`` escape."""
    write_bytes(path, text.encode("utf-8", "backslashreplace"), root)
