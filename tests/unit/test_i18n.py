"""The Chinese catalog: complete, well-formed, compiled, and used by the renderer.

After changing messages in the code run `scripts/i18n.sh`, translate the new entries of
bot/locale/zh/LC_MESSAGES/jifen.po, and run the script again to compile the .mo.
"""

from __future__ import annotations

import re
import string
from functools import cache
from pathlib import Path

import pytest
from babel.messages import frontend
from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from bot.i18n import DOMAIN, LOCALE_DIR, N_, translator
from bot.presentation.render import Renderer
from service import replies as r

ROOT = Path(__file__).resolve().parents[2]
SOURCE_DIRS = ("bot", "service", "scoring", "storage")  # as in scripts/i18n.sh
KEYWORDS = {**DEFAULT_KEYWORDS, **frontend.parse_keywords(["N_", "_"])}
PO = LOCALE_DIR / "zh" / "LC_MESSAGES" / f"{DOMAIN}.po"
MO = PO.with_suffix(".mo")
CJK = re.compile(r"[\u4e00-\u9fff]")
FIX = "run scripts/i18n.sh, translate in bot/locale/zh/LC_MESSAGES/jifen.po, run it again"


@cache
def extracted() -> dict[str, list[str]]:
    """Every message of the code → where it occurs, extracted as scripts/i18n.sh does."""
    parse_cfg = getattr(frontend, "parse_mapping_cfg", None) or frontend.parse_mapping
    with open(ROOT / "babel.cfg", encoding="utf-8") as cfg:
        method_map, options_map = parse_cfg(cfg)
    found: dict[str, list[str]] = {}
    for name in SOURCE_DIRS:
        for filename, lineno, message, _comments, _context in extract_from_dir(
            ROOT / name, method_map, options_map, keywords=KEYWORDS
        ):
            msgid = message[0] if isinstance(message, tuple) else message
            if msgid:
                found.setdefault(msgid, []).append(f"{name}/{filename}:{lineno}")
    return found


@cache
def zh_catalog() -> Catalog:
    with open(PO, "rb") as f:
        return read_po(f, locale="zh")


def zh_messages() -> list:
    return [m for m in zh_catalog() if m.id]


def fields(template: str) -> set[str]:
    """The str.format replacement fields of `template`: "{name}", "{n!r:>3}"…"""
    out = set()
    for _literal, name, spec, conversion in string.Formatter().parse(template):
        if name is not None:
            conversion = f"!{conversion}" if conversion else ""
            spec = f":{spec}" if spec else ""
            out.add(f"{{{name}{conversion}{spec}}}")
    return out


def test_extraction_finds_the_marked_messages() -> None:
    found = extracted()
    assert "Undo" in found and "自摸 self-draw" in found and "Next dealer: {name}" in found
    assert len(found) > 200


def test_every_message_of_the_code_is_in_the_zh_catalog() -> None:
    in_po = {m.id for m in zh_messages()}
    missing = {msgid: where for msgid, where in extracted().items() if msgid not in in_po}
    listing = "\n".join(f"  {msgid!r}  ({', '.join(where)})" for msgid, where in missing.items())
    assert not missing, f"{len(missing)} message(s) missing from {PO.name} ({FIX}):\n{listing}"


def test_every_zh_translation_is_done_and_keeps_the_placeholders() -> None:
    problems = []
    for m in zh_messages():
        if not m.string:
            problems.append(f"untranslated: {m.id!r}")
        elif m.fuzzy:
            problems.append(f"fuzzy (check it, then remove the flag): {m.id!r}")
        else:
            try:
                want, got = fields(m.id), fields(m.string)
            except ValueError as err:  # a lone { or } in the translation
                problems.append(f"{m.id!r}: bad template {m.string!r}: {err}")
                continue
            if want != got:
                problems.append(f"{m.id!r}: placeholders {sorted(got)} instead of {sorted(want)}")
            else:
                parsed = string.Formatter().parse(m.id)
                dummy = {name: "x" for _literal, name, _spec, _conv in parsed if name}
                try:
                    m.string.format(**dummy)
                except (KeyError, IndexError, ValueError) as err:
                    problems.append(f"{m.id!r}: {m.string!r} does not format: {err!r}")
    assert not problems, "\n".join(problems)


def test_the_committed_mo_is_the_compiled_po() -> None:
    with open(MO, "rb") as f:
        compiled = read_mo(f)
    want = {m.id: m.string for m in zh_messages() if m.string and not m.fuzzy}
    got = {m.id: m.string for m in compiled if m.id}
    stale = sorted(set(want.items()) ^ set(got.items()))
    assert not stale, f"{MO.name} differs from {PO.name} (run scripts/i18n.sh): {stale[:10]}"
    assert compiled.locale is not None and str(compiled.locale) == "zh"


def test_the_zh_translator_loads_the_catalog() -> None:
    zh = translator("zh")
    assert CJK.search(zh.gettext("Undo"))
    assert zh.gettext("Next dealer: {name}").format(name="A") == "下一局庄家：A"
    assert translator("en").gettext("Undo") == "Undo"


@pytest.mark.parametrize(
    "reply",
    [
        r.HelpView(),
        r.Info(N_("Nothing to undo.")),
        r.Info(
            N_("This season has no hand #{n}; /history lists the hands with their numbers."),
            {"n": 7},
        ),
        r.Info(N_("No table is open here. Open one first:"), {"usage": "/new mahjong"}),
        r.RulesView(game=None, sisuang=True, zerosum=False, stake=None),
    ],
    ids=lambda reply: type(reply).__name__,
)
def test_rendering_in_zh(reply: r.Reply) -> None:
    out = Renderer("zh").render(reply)
    assert CJK.search(out.text), out.text
    assert out.text != Renderer("en").render(reply).text


def test_an_error_in_zh_translates_the_message_its_problem_and_its_usage() -> None:
    out = Renderer("zh").error(
        N_("This hand cannot be scored: {problem}"),
        {
            "problem": N_(
                "天胡 is the dealer's win, and {dealer} deals (a non-dealer's win on the first"
                " draw is 地胡 dihu)"
            ),
            "dealer": "老王",
        },
        N_("/hu <winner> <how> [pattern] [flags]"),
    )
    assert "这一局没法计分：天胡只能是庄家胡，现在的庄家是 老王" in out.text
    assert "/hu &lt;赢家&gt; &lt;胡法&gt; [牌型] [加番]" in out.text


#: Four Latin words in a row: an English sentence (names, commands and units are shorter).
ENGLISH = re.compile(r"[A-Za-z]{2,}(?:[ ,;:'’]+[A-Za-z]{2,}){3,}")
#: What a Chinese text may carry in Latin letters: placeholders, markup, and commands with
#: their arguments as typed (`/set stake mahjong 1`).
WRITTEN_AS_TYPED = re.compile(r"\{[^}]*\}|<[^>]*>|/[a-z_]+(?: [^\s，。；：（）、]+)*")


def english_in(text: str) -> list[str]:
    return ENGLISH.findall(WRITTEN_AS_TYPED.sub("", text))


def test_the_english_check_finds_a_sentence_and_lets_commands_be() -> None:
    corrupted = "{n} 局{n} games have a stake of their own already: take one off first"
    assert english_in(corrupted) == ["stake of their own already: take one off first"]
    assert english_in("用 /set stake mahjong 1 设定，或 /set 底分 关。") == []
    assert english_in("{name} 胡：<b>qys pph</b>") == []


def test_no_chinese_message_carries_an_english_sentence() -> None:
    """Issue 37: two entries had English sentences glued to them (the card's header, /me)."""
    problems = []
    for m in zh_messages():
        for text in [m.string] if isinstance(m.string, str) else m.string:
            if found := english_in(text):
                problems.append(f"{m.id!r}: {found}")
    assert not problems, "\n".join(problems)
