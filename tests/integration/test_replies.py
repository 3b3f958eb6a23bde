"""What a player reads during an evening, through the console: every payment line says who pays
whom and why, every record shows each player's net, /help lists every command and keyword, and
the words are the table's (连打, 开/关, no formula letters in Chinese)."""

from __future__ import annotations

import re

import pytest

from bot.commands import catalog
from bot.commands import words as keywords
from tests.integration.test_console import console

ZH_EVENING = """\
老王: /help
老王: /new mahjong
老王: /seats 老王 小李 阿张 陈
老王: /hu 老王 自摸 封胡 小李
小李: /gang 小李 暗
小李: /hu 小李 杠上花 封胡 阿张
陈: /gang 陈 明 老王
陈: /hu 陈 杠上花
阿张: /hu 小李 点炮 阿张 七大对; 陈 点炮 阿张 碰碰胡
阿张: /gang 阿张 补 陈
老王: /liuju
老王: /set sisuang on
阿张: /hu 阿张 自摸 碰碰胡 封胡 陈
小李: /hu 小李 点炮 老王 封胡 陈
老王: /undo
老王: /set stake 0.5
老王: /settle
老王: /new 510k marathon
老王: /seats 老王 小李 阿张 陈
老王: /r 老王=60 小李=0 阿张=40 陈=0 出 老王 阿张
老王: /new 510k
老王: [确认]
老王: /r 老王=25 小李=35 阿张=20 陈=0/20 出 小李 老王 阿张
老王: /undo
老王: /rules
老王: /set 死双
"""
EN_EVENING = """\
Wang: /help
Wang: /new mahjong
Wang: /seats Wang Li Zhang Chen
Wang: /hu Wang zimo feng Li
Li: /gang Li an
Li: /hu Li gangkai feng Zhang
Zhang: /hu Li pao Zhang qidui1; Chen pao Zhang pph
Wang: /set sisuang on
Wang: /hu Li pao Wang feng Chen
Wang: /set stake 0.5
Wang: /settle
Wang: /new 510k
Wang: /seats Wang Li Zhang Chen
Wang: /r Wang=25 Li=35 Zhang=20 Chen=0/20 out Li Wang Zhang
Wang: /undo
Wang: /set lang zh
Wang: /set lang en
"""


@pytest.fixture(scope="module")
def zh(tmp_path_factory: pytest.TempPathFactory) -> str:
    return console(tmp_path_factory.mktemp("zh") / "j.sqlite3", ZH_EVENING, "老王")


@pytest.fixture(scope="module")
def en(tmp_path_factory: pytest.TempPathFactory) -> str:
    return console(tmp_path_factory.mktemp("en") / "j.sqlite3", EN_EVENING, "Wang")


def reply(output: str, first: str) -> list[str]:
    """The lines of the first reply whose first line starts with `first`."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    end = lines.index("", start)
    return lines[start:end]


def test_a_sealed_self_draw_names_the_sealed_payer_and_the_nets(zh: str, en: str) -> None:
    assert reply(zh, "🀄 第 1 局") == [
        "🀄 第 1 局 — /hu 老王 自摸 封胡 小李",
        "• 老王 胡：自摸 · 鸡胡 · 基数 3 × 1 倍 = 3",
        "  小李 → 老王 9 · 封胡：三家的全由他付：3 × 3",
        "本局积分：老王 +9 · 小李 -9 · 阿张 0 · 陈 0",
        "下一局庄家：老王",
        "[撤销]",
    ]
    assert reply(en, "🀄 Hand #1")[1:4] == [
        "• Wang wins: 自摸 self-draw · 鸡胡 plain hand · base 3 × 1 = 3",
        "  Li → Wang 9 · 封胡 sealed: pays for all three, 3 × 3",
        "Net this hand: Wang +9 · Li -9 · Zhang 0 · Chen 0",
    ]


def test_kongs_and_gangkai_say_who_pays(zh: str, en: str) -> None:
    assert reply(zh, "🀄 已记杠：暗杠") == [
        "🀄 已记杠：暗杠 — /gang 小李 暗",
        "现在各家积分不变：杠分在本局结束时结算。",
        "[撤销]",
    ]
    # 杠上花 on a concealed kong (its kong point is the "+ 1"), 封胡: the sealed player pays all
    # three shares of 3 × 2 + 1.
    assert reply(zh, "🀄 第 2 局")[1:4] == [
        "• 小李 胡：杠上花 · 鸡胡 · 基数 3 × 1 倍 = 3",
        "  阿张 → 小李 21 · 封胡：三家的全由他付：3 × 7",
        "本局积分：老王 0 · 小李 +21 · 阿张 -21 · 陈 0",
    ]
    assert reply(zh, "🀄 第 3 局")[1:4] == [
        "• 陈 胡：杠上花 · 鸡胡 · 基数 3 × 1 倍 = 3",
        "  老王 → 陈 19 · 第一个被杠的包三家：3 × 3 × 2 + 1",
        "本局积分：老王 -19 · 小李 0 · 阿张 0 · 陈 +19",
    ]
    assert reply(en, "🀄 Hand #2")[1:3] == [
        "• Li wins: 杠上花 on a kong's replacement tile · 鸡胡 plain hand · base 3 × 1 = 3",
        "  Zhang → Li 21 · 封胡 sealed: pays for all three, 3 × 7",
    ]


def test_several_winners_each_with_their_payments(zh: str, en: str) -> None:
    assert reply(zh, "🀄 第 4 局")[1:6] == [
        "• 小李 胡：点炮 · 七大对 · 门清 · 基数 4 × 4 倍 = 16",
        "  阿张 → 小李 24 · 大胡点炮：16 的一倍半",
        "• 陈 胡：点炮 · 碰碰胡 · 非门清 · 基数 3 × 2 倍 = 6",
        "  阿张 → 陈 9 · 大胡点炮：6 的一倍半",
        "本局积分：老王 0 · 小李 +24 · 阿张 -33 · 陈 +9",
    ]
    assert reply(en, "🀄 Hand #3")[1:5] == [
        "• Li wins: 点炮 on a discard · 七大对 seven pairs, one set of four · 门清 concealed"
        " · base 4 × 4 = 16",
        "  Zhang → Li 24 · big hand on a discard: 16 × 1.5",
        "• Chen wins: 点炮 on a discard · 碰碰胡 all pungs · not 门清 · base 3 × 2 = 6",
        "  Zhang → Chen 9 · big hand on a discard: 6 × 1.5",
    ]


def test_a_drawn_hand_settles_its_kongs_and_shows_the_nets(zh: str) -> None:
    assert reply(zh, "🀄 第 5 局") == [
        "🀄 第 5 局 · 流局 — /liuju",
        "  陈 → 阿张 1 · 补杠",
        "本局积分：老王 0 · 小李 0 · 阿张 +1 · 陈 -1",
        "下一局庄家：陈",
        "[撤销]",
    ]


def test_sisuang_doubles_the_sealed_line_only(zh: str, en: str) -> None:
    assert "已设置死双：开。" in zh.splitlines()
    assert reply(zh, "🀄 第 6 局")[1:4] == [
        "• 阿张 胡：自摸 · 碰碰胡 · 基数 3 × 2 倍 = 6",
        "  陈 → 阿张 36 · 封胡死双：三家的全由他付，再翻倍：3 × 6 × 2",
        "本局积分：老王 0 · 小李 0 · 阿张 +36 · 陈 -36",
    ]
    assert reply(zh, "🀄 第 7 局")[1:5] == [
        "• 小李 胡：点炮 · 鸡胡",
        "  老王 → 小李 2 · 小胡点炮",
        "  陈 → 小李 4 · 封胡死双：再付两份：2 × 2",
        "本局积分：老王 -2 · 小李 +6 · 阿张 0 · 陈 -4",
    ]
    assert "Set 死双 sealed liability doubled: on." in en.splitlines()
    assert reply(en, "🀄 Hand #4")[2:5] == [
        "  Wang → Li 2 · small hand on a discard",
        "  Chen → Li 4 · 封胡 sealed, 死双: pays it twice again: 2 × 2",
        "Net this hand: Wang -2 · Li +6 · Zhang 0 · Chen -4",
    ]


def test_a_language_is_set_by_its_name(en: str) -> None:
    assert en.splitlines()[-4:] == ["已设置语言：中文。", "", "Set language: English.", ""]


def test_undo_shows_the_nets_taken_back(zh: str, en: str) -> None:
    assert reply(zh, "↩️ 已撤销：第 7 局") == [
        "↩️ 已撤销：第 7 局 — /hu 小李 点炮 老王 封胡 陈",
        "积分变化：老王 +2 · 小李 -6 · 阿张 0 · 陈 +4",
        "庄家：老王",
    ]
    assert reply(en, "↩️ Undone: hand #1") == [
        "↩️ Undone: hand #1 — /r Wang=25 Li=35 Zhang=20 Chen=0/20 out Li Wang Zhang",
        "Balances change by: Wang -22.5 · Li -7.5 · Zhang -22.5 · Chen -7.5",
    ]


def test_settle_with_a_stake_says_the_money(zh: str, en: str) -> None:
    assert reply(zh, "第 1 赛季结账：") == [
        "第 1 赛季结账：",
        "麻将积分：",
        "老王 → 小李 10 · 合 5 块",
        "阿张 → 小李 17 · 合 8.50 块",
        "陈 → 小李 9 · 合 4.50 块",
        "每分金额：0.5。",
        "[📋 老王 → 小李 5 (copies)]",  # a button per payment copies it, in money
        "[📋 阿张 → 小李 8.50 (copies)]",
        "[📋 陈 → 小李 4.50 (copies)]",
        "[✅ 已结清，归档第 1 赛季]",  # 老王 is the console's admin
        "[🖼 本场战报图]",
    ]
    assert reply(en, "To square season 1:") == [
        "To square season 1:",
        "Mahjong points:",
        "Zhang → Chen 5 · 2.50 in money",
        "Zhang → Li 42 · 21 in money",
        "Zhang → Wang 7 · 3.50 in money",
        "Stake: 0.5 per point.",
        "[📋 Zhang → Chen 2.50 (copies)]",
        "[📋 Zhang → Li 21 (copies)]",
        "[📋 Zhang → Wang 3.50 (copies)]",
        "[✅ Settled — archive season 1]",
        "[🖼 The night's card]",
    ]


def test_510k_replies_show_the_nets_and_say_lianda(zh: str, en: str) -> None:
    assert (
        reply(zh, "新开一桌：510K")[0] == "新开一桌：510K 四人（1+3 对 2+4） · 连打（打到 500）。"
    )
    assert reply(zh, "🃏 510K 第 1 局") == [
        "🃏 510K 第 1 局 — /r 老王=60 小李=0 阿张=40 陈=0 出 老王 阿张",
        "本局牌分：老王 +80 · 小李 -20 · 阿张 +40 · 陈 -20",
        "连打结束时才算积分。",
        "本局积分：老王 0 · 小李 0 · 阿张 0 · 陈 0",
        "🏃 连打 1 局后：老王+阿张 120/500（还差 380） · 小李+陈 -40/500（还差 540）",
        "[撤销]",
    ]
    assert reply(en, "🃏 510K hand #1")[1:] == [
        "Card points: Wang +25 · Li +55 · Zhang +20 · Chen -40",
        "Teams: Wang+Zhang +45 · Li+Chen +15 → Wang+Zhang win",
        "Net this hand: Wang +22.5 · Li +7.5 · Zhang +22.5 · Chen +7.5",
        "[Undo]",
    ]
    assert "马拉松" not in zh


def test_chinese_usage_is_written_with_chinese_keywords(zh: str) -> None:
    assert reply(zh, "⚠️")[1:] == [
        "请这样写：",
        "/set 底分 0.5 · /set 底分 麻将 1 · /set 语言 中文|英文 · /set 死双 开|关 · "
        "/set 零和 开|关 · /set 时区 Asia/Shanghai",
    ]


def test_chinese_replies_have_no_formula_letters(zh: str) -> None:
    assert "一份 = 基数 × 倍数" in zh  # /rules too
    for line in zh.splitlines():
        if "/" not in line:  # not a command echoed or /help
            assert not re.search(r"(?<![A-Za-z])[kuV](?![A-Za-z])|\^|\(=", line), line


# --- /help against the parser's tables -----------------------------------------------------

_SEPARATORS = re.compile(r"[\s·—()（）：:;；,，\[\]|<>=/]+")


def help_of(output: str) -> str:
    return "\n".join(reply(output, "jifen 积分"))


@pytest.mark.parametrize("name", sorted(catalog.BY_NAME))
def test_help_lists_every_command(zh: str, en: str, name: str) -> None:
    for text in (help_of(zh), help_of(en)):
        assert re.search(rf"/{name}(?![\w])", text), f"/{name} is missing from /help"


@pytest.mark.parametrize(
    "table", ["HOW", "PATTERNS", "FLAGS", "KONGS", "GAMES", "NEW_OPTIONS", "SETTINGS"]
)
def test_help_names_every_keyword_meaning(zh: str, en: str, table: str) -> None:
    words_by_meaning: dict[object, set[str]] = {}
    for word, meaning in getattr(keywords, table).items():
        key = meaning[0] if table == "NEW_OPTIONS" else meaning  # the option, on or off
        words_by_meaning.setdefault(key, set()).add(word)
    for text in (help_of(zh), help_of(en)):
        tokens = set(_SEPARATORS.split(text.lower()))
        for meaning, words in words_by_meaning.items():
            assert tokens & words, f"/help names none of {sorted(words)} ({meaning})"
