"""Names of ways to win, patterns, flags, kongs and games (Chinese terms kept in English too)."""

from __future__ import annotations

from bot.i18n import N_

WIN = {
    "zimo": N_("自摸 self-draw"),
    "dianpao": N_("点炮 on a discard"),
    "gangkai": N_("杠上花 on a kong's replacement tile"),
    "gangpao": N_("杠上炮 discard after a kong"),
    "qianggang": N_("抢杠 robbing a kong"),
    "quanqiupao": N_("全求炮 discard by an all-melds player"),
    "haidilao": N_("海底捞月 last-tile self-draw"),
    "haidipao": N_("海底炮 last-tile discard"),
    "tianhu": N_("天胡 heavenly hand"),
    "dihu": N_("地胡 earthly hand"),
    "renhu": N_("人胡 human hand"),
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

KONG = {
    "an": N_("暗杠 concealed kong"),
    "ming": N_("明杠 exposed kong"),
    "bu": N_("补杠 added kong"),
}

GAME = {
    "mahjong": N_("mahjong 麻将"),
    "510k": N_("510K, four players (seats 1+3 vs 2+4)"),
    "510k3": N_("510K, three players"),
}

UNIT = {
    "mahjong": N_("Mahjong points"),
    "510k": N_("510K scores"),
}

SETTING = {
    "stake": N_("stake per point"),
    "lang": N_("language"),
    "sisuang": N_("死双 sealed liability doubled"),
    "zerosum": N_("zero-sum 510K scores"),
}
