"""Player names as people see them: normalised, never empty, and told apart at a table.

``clean`` is what is stored and shown: NFKC (full-width letters become ordinary ones), without
control and format characters (Unicode Cc/Cf: right-to-left overrides, isolates, zero-width
joiners, soft hyphens — they reorder or hide text), spaces collapsed, at most ``MAX_NAME``
characters; ``clean_title`` the same for a group's title (up to Telegram's 128). ``skeleton``
is what two names are compared by: the clean name, casefolded, with Cyrillic and Greek letters
that look like Latin ones mapped to those, and no spaces; two names with the same skeleton look
alike on screen.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import lru_cache

MAX_NAME = 32
MAX_TITLE = 128  # Telegram's limit on a group's title

# Cyrillic and Greek letters drawn like Latin ones (after casefolding), mapped to them.
_LOOKALIKES = str.maketrans(
    {
        "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "і": "i", "ј": "j",
        "к": "k", "ӏ": "l", "м": "m", "н": "h", "о": "o", "р": "p", "ԛ": "q", "ѕ": "s",
        "т": "t", "и": "n", "у": "y", "х": "x", "ԝ": "w", "ь": "b", "ѵ": "v", "ё": "e",
        "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
        "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ϲ": "c",
    }
)  # fmt: skip


@lru_cache(maxsize=4096)  # a chat's few names come again with every command
def clean(name: str) -> str:
    """The name as stored and shown ("" when nothing visible is left)."""
    return _cleaned(name, MAX_NAME)


def clean_title(title: str | None) -> str | None:
    """A group's title as stored and shown, cleaned as a name is (None: nothing visible)."""
    return (_cleaned(title, MAX_TITLE) or None) if title else None


def _cleaned(text: str, limit: int) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = "".join(" " if ch.isspace() else ch for ch in text if ch.isspace() or not _hidden(ch))
    return " ".join(text.split())[:limit].strip()


def _hidden(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cc", "Cf")


def visible(text: str) -> str:
    """Text a member typed, as a reply shows it back: each control or format character
    (those `clean` takes out of names: an override would reorder what follows) as �, so the
    member sees where one was; line breaks and tabs as spaces."""
    return "".join(" " if ch.isspace() else "\ufffd" if _hidden(ch) else ch for ch in text)


@lru_cache(maxsize=4096)
def skeleton(name: str) -> str:
    """What a name looks like: equal skeletons cannot be told apart at a glance."""
    folded = unicodedata.normalize("NFKC", clean(name).casefold())
    return "".join(folded.translate(_LOOKALIKES).split())


def member_name(first_name: str, username: str | None, user_id: int) -> str:
    """A member's shown name: the clean first name, else the @username, else a number."""
    return clean(first_name) or (f"@{username}" if username else f"#{user_id % 10000:04d}")


def numbered(name: str, n: int) -> str:
    """The `n`-th player of one name: `David`, `David (2)`, `David (3)`."""
    return name if n < 2 else f"{name[: MAX_NAME - 5].rstrip()} ({n})"


def unused(name: str, taken: Iterable[str]) -> str:
    """`name`, or `name (2)`, `name (3)`… the first that no name in `taken` equals (case
    ignored): a Telegram name equal to another player's is not taken as is."""
    seen = {t.casefold() for t in taken}
    n = 1
    while numbered(name, n).casefold() in seen:
        n += 1
    return numbered(name, n)


def told_apart(people: Iterable[tuple[int, str]]) -> dict[int, str]:
    """Names by player id, two players of one name told apart: the older (smaller id) keeps
    it, the next is `David (2)`, then `David (3)` (a name some other player has is skipped)."""
    ordered = sorted(people)
    out = {pid: name for pid, name in ordered}
    counts: dict[str, int] = {}
    for _pid, name in ordered:
        counts[name.casefold()] = counts.get(name.casefold(), 0) + 1
    if all(n == 1 for n in counts.values()):
        return out
    shown = {name.casefold() for name in out.values()}
    first: set[str] = set()
    for pid, name in ordered:
        key = name.casefold()
        if counts[key] == 1:
            continue
        if key not in first:
            first.add(key)
            continue
        out[pid] = unused(name, shown)
        shown.add(out[pid].casefold())
    return out
