"""Names of ways to win, patterns, flags, kongs and games (Chinese terms kept in English too)."""

from __future__ import annotations

from bot.i18n import N_
from scoring import Game, KongKind, Unit, WinType

WIN: dict[str, str] = {
    WinType.ZIMO: N_("自摸 self-draw"),
    WinType.DIANPAO: N_("点炮 on a discard"),
    WinType.GANGKAI: N_("杠上花 on a kong's replacement tile"),
    WinType.GANGPAO: N_("杠上炮 discard after a kong"),
    WinType.QIANGGANG: N_("抢杠 robbing a kong"),
    WinType.QUANQIUPAO: N_("全求炮 discard by an all-melds player"),
    WinType.HAIDILAO: N_("海底捞月 last-tile self-draw"),
    WinType.HAIDIPAO: N_("海底炮 last-tile discard"),
    WinType.TIANHU: N_("天胡 heavenly hand"),
    WinType.DIHU: N_("地胡 earthly hand"),
    WinType.RENHU: N_("人胡 human hand"),
}

PATTERN = {
    "jihu": N_("鸡胡 plain hand"),
    "pengpenghu": N_("碰碰胡 all pungs"),
    "qidui0": N_("七小对 seven pairs"),
    "qidui1": N_("七大对 seven pairs, one set of four"),
    "qidui2": N_("豪华大七对 seven pairs, two sets of four"),
    "qidui3": N_("超级豪华大七对 seven pairs, three sets of four"),
}

FLAG = {
    "qingyise": N_("清一色 one suit"),
    "menqing": N_("门清 concealed"),
    "quanqiuren": N_("全求人 four melds exposed"),
}

KONG: dict[str, str] = {
    KongKind.AN: N_("暗杠 concealed kong"),
    KongKind.MING: N_("明杠 exposed kong"),
    KongKind.BU: N_("补杠 added kong"),
}

GAME: dict[str, str] = {
    Game.MAHJONG: N_("mahjong 麻将"),
    Game.K510: N_("510K, four players (seats 1+3 vs 2+4)"),
    Game.K510_3: N_("510K, three players"),
    Game.FREE: N_("free scoring (any game)"),
}

UNIT: dict[str, str] = {
    Unit.MAHJONG: N_("Mahjong points"),
    Unit.K510: N_("510K scores"),
    Unit.FREE: N_("Free points"),
    Unit.MONEY: N_("Fees"),
}

SETTING = {
    "stake": N_("stake per point"),
    "lang": N_("language"),
    "sisuang": N_("死双 sealed liability doubled"),
    "zerosum": N_("zero-sum 510K scores"),
    "tz": N_("time zone"),
    "rating": N_("skill rating (/rating)"),
    "idle": N_("a table with no record closes itself after"),
}
