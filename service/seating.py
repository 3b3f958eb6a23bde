"""Names given to seat people (`/seats`, `/sub`, `/join <guest>`): who each one is, and the
question asked before a likely typo of a known player's name makes a new guest ("Dave?")."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from service import names
from service import players as who
from service.errors import N_, ServiceError
from service.replies import NameAsk
from service.requests import PlayerRef, RefKind, Request
from service.unit import Tx
from storage.gateway import players
from storage.models import PlayerRow


@dataclass(frozen=True)
class NewGuest:
    """A name no player of the chat has: a guest made when the command goes through."""

    name: str
    sure: bool  # confirmed by the "new player" button: no question asked


Resolved = PlayerRow | NewGuest


def resolve(tx: Tx, ref: PlayerRef, known: Sequence[PlayerRow]) -> Resolved:
    """The player a seating reference names, or the new guest it would make."""
    if ref.kind is RefKind.ID:
        found = next((p for p in known if str(p.id) == ref.value), None)
        if found is None:
            raise ServiceError(
                N_("That player is not in this chat any more; type the command again.")
            )
        return found
    if ref.kind is RefKind.NEW:
        name = who.guest_name(ref.value)
        same = next((p for p in known if p.name.casefold() == name.casefold()), None)
        return same if same is not None else NewGuest(name, sure=True)
    if ref.kind is RefKind.NAME:
        name = who.guest_name(ref.value)
        same = next((p for p in known if p.name.casefold() == name.casefold()), None)
        actor = tx.ctx.actor
        mine = actor.user_id is not None and names.clean(actor.name).casefold() == name.casefold()
        if same is None and mine:
            return who.sender(tx)  # the sender's own name, not taken by anyone
        return same if same is not None else NewGuest(name, sure=False)
    return who.find_or_add(tx, ref)  # me, @username (a seat number is refused there)


def made(tx: Tx, resolved: Resolved) -> PlayerRow:
    """The player of a resolved name: a new guest is added now."""
    if isinstance(resolved, NewGuest):
        return players.add_player(tx.db, tx.chat.id, resolved.name)
    return resolved


def one_letter(a: str, b: str) -> bool:
    """Whether two names are one edit apart (a letter added, dropped, changed, or two
    neighbours swapped), case ignored; equal names are not."""
    a, b = a.casefold(), b.casefold()
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        if len(diff) == 1:
            return True
        i = diff[0]
        return len(diff) == 2 and diff[1] == i + 1 and a[i] == b[i + 1] and a[i + 1] == b[i]
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def squashed(name: str) -> str:
    """A name without its spaces, case ignored: "Li Na" and "lina" are one."""
    return "".join(name.split()).casefold()


def is_latin(name: str) -> bool:
    return name.isascii() and any(c.isalpha() for c in name)


def sounds(name: str) -> list[set[str]] | None:
    """Each character's readings in pinyin without tones (every reading of a character read
    several ways); None when a character is not Chinese."""
    if not name or not all("\u4e00" <= c <= "\u9fff" for c in name):
        return None
    from pypinyin import Style, pinyin  # imported when first asked: its dictionary is large

    return [set(readings) for readings in pinyin(name, style=Style.NORMAL, heteronym=True)]


def likely_typo(typed: str, known: str) -> bool:
    """Whether `typed` is likely a typo of a known player's name (issue 37): the same name
    with spacing or case changed; Latin names one letter apart (Daev, Dave); a Chinese name
    read the same in pinyin (小舟, 小周). Chinese names one character apart (小红, 小周) are two
    people; equal names are one (no question)."""
    if typed.casefold() == known.casefold():
        return False
    if squashed(typed) == squashed(known):
        return True
    if is_latin(typed) and is_latin(known):
        return len(typed) >= 2 and one_letter(typed, known)
    a, b = sounds(typed), sounds(known)
    if a is None or b is None or len(a) != len(b):
        return False
    return all(x & y for x, y in zip(a, b, strict=True))


def near(name: str, known: Sequence[PlayerRow], taken: Collection[int]) -> PlayerRow | None:
    """A known player (not among `taken`) whose name `name` likely misspells."""
    return next((p for p in known if p.id not in taken and likely_typo(name, p.name)), None)


def ask_first(
    refs: Sequence[PlayerRef],
    resolved: Sequence[Resolved],
    known: Sequence[PlayerRow],
    taken: Collection[int],
    again: Callable[[tuple[PlayerRef, ...]], Request],
    user_id: int | None = None,
) -> NameAsk | None:
    """The question for the first new name one letter from a known player, or None. `again`
    makes the command with the references given (each answer's command)."""
    chosen = {r.id for r in resolved if isinstance(r, PlayerRow)} | set(taken)
    for i, found in enumerate(resolved):
        if not isinstance(found, NewGuest) or found.sure:
            continue
        guess = near(found.name, known, chosen)
        if guess is None:
            continue
        answers = [list(refs), list(refs)]
        answers[0][i] = PlayerRef(RefKind.ID, str(guess.id))
        answers[1][i] = PlayerRef(RefKind.NEW, found.name)
        return NameAsk(
            typed=found.name,
            guess=guess.name,
            known=again(tuple(answers[0])),
            new=again(tuple(answers[1])),
            user_id=user_id or 0,
        )
    return None


def new_names(resolved: Sequence[Resolved]) -> tuple[str, ...]:
    """The names of the new guests among `resolved`, to announce."""
    return tuple(r.name for r in resolved if isinstance(r, NewGuest))
