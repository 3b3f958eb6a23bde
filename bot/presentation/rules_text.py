"""The /rules and /help texts (the rules in force, the house options and the interpretations),
and the reply to a /set."""

from __future__ import annotations

from html import escape

from bot.commands import labels
from bot.commands.parsing import synonyms
from bot.commands.timezones import zone_label
from bot.i18n import N_, Gettext
from bot.presentation.numbers import fmt_stake
from bot.presentation.out import Out
from bot.presentation.render_money import game_name
from service.replies import HelpView, RulesView, SettingChanged

MAHJONG_RULES = (
    N_(
        "Mahjong, 1-2-3-4 base (一二三四基数): no chow, no flowers; kong 1 · plain win 2 · "
        "self-draw 3 · concealed 4."
    ),
    N_(
        "Multiplier k: 鸡胡 1 · 碰碰胡 2 · 七小对 2 · 七大对 4 · 豪华 8 · 超级豪华 16; "
        "清一色 ×2; 全求人 ×2 (not when self-drawn). Unit u = b × k, b = 4 if 门清 else 3."
    ),
    N_(
        "自摸: each pays u · 点炮: k = 1 pays 2 (4 if 门清), k ≥ 2 pays 3u/2 · "
        "杠上炮, 抢杠, 全求炮, 海底炮, 人胡: 3u · 海底捞月, 天胡, 地胡: each pays 2u."
    ),
    N_(
        "Kong chains of n: 杠上炮 and 抢杠 ×2^(n−1); 杠上花 all concealed: each pays 2^n·u + n, "
        "otherwise the first konged player pays 2^n·3u + n. A concealed kong cannot be robbed."
    ),
    N_(
        "Kong points: exposed and added kongs 1 from the discarder, concealed 1 from each; "
        "a robbed kong scores nothing."
    ),
    N_(
        "封胡: a player who gave the winner three melds is sealed and pays the winner's amount "
        "again (双飞); on a self-draw or 杠上花 he pays it all."
    ),
)

TILES_INTERPRETATIONS = (
    N_(
        "Interpretation: a /hu may give the winner's tiles instead of pattern words (/hu A zimo "
        "11122233344455m): the tiles decide the pattern, 清一色, 门清 and 全求人; of all their "
        "readings the highest-scoring is scored, and the reply shows it. Words typed beside the "
        "tiles are checked, not obeyed: a word no reading has is refused with the reason; a "
        "七对 word without a number of sets of four (qidui, 七对) takes the tiles' count; a "
        "pattern word naming a lower reading is noted and the higher one scored."
    ),
    N_(
        "Interpretation: the kongs in the tiles — (9999m) concealed, [2222s] exposed or added — "
        "must be the winner's kongs recorded in this hand with /gang. When none was recorded, "
        "the tiles' concealed kongs are recorded with the hand (1 from each other player, or "
        "the 杠上花's chain); an exposed one needs /gang first, since the tiles do not say whose "
        "tile was konged."
    ),
)

INTERPRETATIONS = (
    N_(
        "Interpretation: kong points settle at the end of the hand, whatever its outcome "
        "(also in a drawn hand)."
    ),
    N_(
        "Interpretation: several winners on one discard are each settled against the discarder "
        "as if alone."
    ),
    N_(
        "Interpretation: the dealer keeps the deal after winning or a drawn hand; otherwise the "
        "deal passes to the next seat. No points for keeping the deal."
    ),
    N_(
        "Interpretation: with 死双 the sealed player's liability is doubled: another player deals "
        "in → he pays 2V; he deals in → 3V; self-draw → twice the whole self-draw total."
    ),
    N_(
        "Interpretation: a hand is checked against the kongs recorded in it (/gang). Refused: 门清 "
        "when the winner made an exposed or added kong; 七对 when he made any kong (four equal "
        "tiles in 七对 are a group, not a kong); 天胡, 地胡, 人胡 when he made any kong; 全求人 "
        "with 门清 or with a concealed kong of his."
    ),
    N_(
        "Interpretation: 门清 is said, not guessed (mq): without it a hand is scored as not "
        "concealed (3 instead of 4), and the reply says so when 门清 was possible. 七对, 天胡, "
        "地胡 and 人胡 are always 门清."
    ),
    N_(
        "Notes the reply adds: a self-drawn 全求人 (qqr with zimo, gangkai…) is scored as 碰碰胡 "
        "自摸 without 全求人's ×2, and the reply says so; a 杠上炮 or 抢杠 chain of n whose kongs "
        "were not recorded with /gang is scored as written, and the reply says how many kongs "
        "(a 抢杠's robbed kong aside) are then unpaid; 天胡 by anyone but the dealer is refused "
        "naming the dealer (a non-dealer's win on the first draw is 地胡)."
    ),
    *TILES_INTERPRETATIONS,
)

K510_RULES = (
    N_(
        "510K: 5 = 5 points, 10 and K = 10 points. First out +20; each player still "
        "holding cards −20 and minus the point cards held."
    ),
    N_(
        "Four players: seats 1+3 vs 2+4; a team's score is its card points, shared equally; "
        "equal totals: the team of the first player out wins; doubled when the losers took no "
        "table points and none of them went out first."
    ),
    N_(
        "Three players: each scores his card points; doubled when the 2nd and 3rd took no table "
        "points."
    ),
    N_(
        "Marathon: card points accumulate until a side reaches 500; then the same rules apply to "
        "the totals and the winners get 10% more."
    ),
)

TABLE_RULES = (
    N_(
        "Table: a kong belongs to the people it names. While a kong of the hand being played is "
        "unpaid, /seats may reorder them but not seat them out: finish the hand (/hu, /liuju) or "
        "/undo the kong first. With /sub they may leave: their kongs of this hand stay theirs "
        "and are paid by and to them when the hand ends, the newcomer standing in at their "
        "seat; /leave waits until the hand is over."
    ),
    N_(
        "A seat change is not a hand: the dealer deals on while seated, wherever /seats puts "
        "him; if the dealer leaves, whoever takes that seat deals. Only a table seated for the "
        "first time starts with seat 1 dealing."
    ),
    N_(
        "People: /sub A B puts B in A's seat; /leave frees the sender's seat and nothing is "
        "recorded until /join or /sub 2 <name> fills it (a free table just plays on with one "
        "player fewer). /iam 小李: a member is the guest 小李 from then on (a guest nobody is "
        "linked to; admins change links with /link, /unlink); /seats and /sub offer the same "
        "as a button per unclaimed guest they seat. A likely typo of a known player's name "
        "asks which was meant before anyone is seated: Latin names one letter apart (Daev for "
        "Dave), the same name with other spacing (ZoeQ for Zoe Q), a Chinese name read the "
        "same in pinyin, tones aside (小舟 for 小周); among players not seated by the same "
        "command. Chinese names one character apart that sound different (小红, 小周) are two "
        "people: no question. Every new guest is announced as new. /join at a full table "
        "shows /sub <player> <name>. A 510K order out that does not end the hand names who "
        "may have gone out next."
    ),
    N_(
        "/rename A B (admins, or A themself): the same player under a new name, also over the "
        "Telegram name; the records follow. /merge A B (admins): A and B were one person — A's "
        "hands, kongs, transfers, balances, statistics and marathon totals become B's, A is "
        "gone, /undo still works. Refused when A and B took part in one same record or sit at "
        "one table (that is two people), or are two Telegram accounts."
    ),
    N_(
        "Table: /new keeps the players seated in order, as many as the new game has (mahjong "
        "after mahjong keeps the dealer too). When someone finds no seat, or the hand being "
        "played has unpaid kongs, or a marathon is running (those are dropped), it asks first: "
        "a button, or /new … confirm."
    ),
    N_(
        "Marathon totals follow a player who stays to another seat; who takes the seat of "
        "someone who left (/sub, or /join after /leave) plays on with that seat's totals, so a "
        "loser cannot walk away from them. Three players: the seat keeps its progress, and its "
        "final score is shared among everyone who sat in it, by the hands each played there. "
        "Four players: the team keeps its progress (a side is the two partners' sum), and its "
        "final score is shared among everyone who played for it, by the hands each played for "
        "it (partners who played every hand: half each)."
    ),
    N_(
        "Undo: /undo reverts the table's last record; /undo 7, or /undo as a reply to a hand's "
        "message, reverts that hand. Both stay in the ledger: the undo names its target. The "
        "last hand's undo brings back its dealer and its kongs (record it again); an older "
        "hand's undo takes its kongs along and keeps the dealer (the rotation is not replayed). "
        "In a marathon only the last hand can be undone. A bare /undo right after another "
        "member's undo asks first."
    ),
    N_(
        "Correct: /edit 7 and the corrected command (or the command as a reply to the "
        "record's message) corrects #7 in place: it keeps its number, the correction keeps the "
        "version before (/undo brings it back), /history 7 lists the versions. An older hand "
        "changes its payments only; in a marathon only the last hand."
    ),
    N_("Hands are numbered per table and season, from 1."),
)

RECORD_RULES = (
    N_(
        "Repeats: a record with the same content as its table's last record (the same hand with "
        "its kongs and flags, 510K report, free round or transfer; players however they "
        "are named, a report's entries in any order, a round by its scores), sent again within "
        "two minutes of that record's time by anyone (typed, by buttons or in the Mini App), is "
        "not recorded: the bot asks. Record again records it once, however often and by "
        "whomever it is pressed; No drops it. There is no question after two minutes, when the "
        "last record was undone or is a kong (two like kongs in a row are two kongs), or at "
        "another table."
    ),
    N_(
        "Near repeats: within the same two minutes and at the same seating, a hand with the "
        "same winner(s), way and payer as the table's last record but other flags, pattern or "
        "tiles, or a 510K report "
        "of the same finishing order with other points, is not recorded either: the bot shows "
        "both as typed and the words that differ, and asks. Replace #N corrects #N in place to "
        "the new one (as /edit does: it keeps its number, the version before is kept); Record "
        "both records the new one as well; No drops it. The "
        "first answer counts, whoever gives it; any later press records nothing. A draw, a "
        "kong, a free round or a transfer is never a near repeat."
    ),
    N_(
        "Undo by number: /undo 7 takes the number /history shows (numbers count per table); "
        "where several tables of the season have a live #7, the bot asks which. Another "
        "table's record needs an admin. /undo confirm only answers the question after another "
        "member's undo; with nothing waiting it is refused."
    ),
    N_(
        "Kongs: a player has at most four kongs in a hand (four sets and a pair); a fifth /gang "
        "is refused."
    ),
    N_(
        "门清: a win written without mq, though nothing rules it out, is scored as not concealed "
        'and its line says "not 门清"; the longer reminder comes once per player and season.'
    ),
    N_(
        "Language: a chat's replies are in its language, set by its first command (the "
        "sender's Telegram language then: Chinese for zh, else English) and kept whoever writes "
        "later; /set lang zh|en changes it."
    ),
)

FREE_RULES = N_(
    "Free scoring (/new free, /s, /pay): the bot checks only the arithmetic — a round's scores "
    "add up to 0 (one player written without a number takes the balance, players not named "
    "score 0), amounts are exact with at most two decimals and at most 1000000, a transfer is "
    "positive and between two different seated players. It cannot check the game itself: who "
    "won, or whether the scores follow its rules, is the table's word. Each free game name is "
    "its own unit in /standings and /settle; /pay moves the points of the table it is typed at."
)


BEYOND_RULES = (
    N_(
        "Sitting: a table's hands until the next table opens or play pauses for six hours. "
        "The night's card (/summary, or the button under /settle) shows the chat's hands and "
        "transfers since play last paused for six hours, every table together: each player's "
        "net per game and in money (510K scores squared around each hand's average), the "
        "biggest hand, the most wins, who pays whom. /reset sends the season's card."
    ),
    N_(
        "Rating (/set rating on; off by default): OpenSkill's Plackett–Luce model with its "
        "default parameters, per game, updated once per sitting from the places of the "
        "players by their net for it (equal nets share a place; a sitting's size or margin "
        "does not count). Shown is its conservative estimate μ − 3σ: everyone starts at 0 and "
        "it rises as results agree. It is a view of the ledger: an undo recomputes it from "
        "that sitting on. It is not money, not the standings, not a prize, and after a few "
        "sittings it says little; luck is part of every night."
    ),
    N_(
        "Mini App (/app): an open page follows the table by itself within about two seconds "
        "of any hand, undo or change of the table, in the chat or from another phone; it says "
        "when it is offline and tries again. Its Table page shows this sitting's totals (each "
        "seated player's net since play last paused for six hours, as /summary counts it) and "
        "the table's link as a QR code for friends at the table."
    ),
    N_(
        "Private answers: /me (your record in every group you play in) and /mine (your balance, "
        "last hands and what you pay or get here) are shown to you alone, also in a group, "
        "and so is the [👤 My account] button under /standings: nobody else sees them. Where "
        "Telegram cannot (an older app), you get a button into our private chat instead, "
        "never the answer in public. Everything else the bot says in a group, everyone sees."
    ),
)
SETTLE_RULES = (
    N_(
        "Settle-up: /settle squares each game's balances with the fewest transfers. 510K "
        "scores that are not zero-sum are squared hand by hand: each hand's score minus that "
        "hand's average over the players at it, which is what zerosum would have recorded, so "
        "nobody pays for hands played without him. A finished marathon is one such hand, of the "
        "players at its last hand; with four players each team carries half of its average, "
        "shared among the team's players as its score is."
    ),
    N_(
        "Money: a game's own stake (/set stake mahjong 1 · /set stake 510k 0.2, both 510K "
        "tables · /set stake 斗地主 0.1) comes before the chat's (/set stake 0.5: every game "
        "without its own). /set stake mahjong off goes back to the chat's; /set stake mahjong 0 "
        "plays mahjong for nothing. /settle money: each game's points times its stake, added up "
        "per player and rounded to the cent so that it still adds up, then the fewest "
        "transfers; a game without a stake is left out, and the reply says so. An admin's "
        "settle-up carries a button that archives the season, as /reset does."
    ),
)


EXACT_RULES = (
    N_(
        "Names: two players never share a name. A member whose Telegram name is another "
        "player's here gets it with a number (David (2)); where two players of one name meet "
        "anyway (from before), the older shows as David and the other as David (2). Balances, "
        "settle-up and every view go by player, never by name."
    ),
    N_(
        "Numbers: points and money show at most two decimals, rounded half away from zero "
        "(85.390625 → 85.39, 0.125 → 0.13); the exact values are kept, added up and settled, "
        "and /export writes them exactly. Where a list shown rounded does not add up, a short "
        "note says so. Stakes show as set (up to four decimals)."
    ),
    N_(
        "The night's card counts money as /settle money does: each game's points (510K squared "
        "hand by hand) times its own stake, else the chat's, added up per player and rounded to "
        "the cent so that it adds up, with the same notes; its caption lists who pays whom as "
        "text to copy. Without any stake, who pays whom is in points, per game. The card's file "
        "is named by its last hand's day in the chat's time zone."
    ),
    N_(
        "A hand, wherever hands are counted (/summary, /chart, /export, /seasons): each hand or "
        "round recorded and not undone, every hand of a marathon and a drawn hand included; "
        "kongs, transfers and undone hands are not hands. /export's table column numbers the "
        "season's tables 1, 2, … in the order they first recorded."
    ),
)


def rules_text(_: Gettext, v: RulesView) -> str:
    on, off = _("on"), _("off")
    lines = [
        _(t)
        for t in (
            *MAHJONG_RULES,
            *INTERPRETATIONS,
            *K510_RULES,
            FREE_RULES,
            *TABLE_RULES,
            *RECORD_RULES,
            *BEYOND_RULES,
            *SETTLE_RULES,
            *EXACT_RULES,
        )
    ]
    stake = fmt_stake(v.stake) if v.stake else off
    if v.stakes:
        own = " · ".join(f"{game_name(_, unit)} {fmt_stake(amount)}" for unit, amount in v.stakes)
        stake = _("{stake}; a game's own: {games}", stake=stake, games=own)
    lines.append(
        _(
            "Options here: 死双 {sisuang} · zero-sum 510K {zerosum} · stake {stake}",
            sisuang=on if v.sisuang else off,
            zerosum=on if v.zerosum else off,
            stake=stake,
        )
    )
    lines.append(_(SYNONYMS, words=synonyms()))
    return "\n\n".join(lines)


SYNONYMS = N_(
    "Words for the same thing: {words}. 豪七 is refused (one set of four in some places, two in "
    "others): say 七大对 or 双豪七."
)

HELP = N_(
    "jifen 积分 keeps score for mahjong and 510K. A player is a name, a seat 1–4, @username or "
    "me.\n"
    "Tables: /new mahjong [sisuang] · /new 510k [marathon] [zerosum] · /new 510k3 [marathon] · "
    "/join [guest] · /seats A B C D · /dealer A · /players\n"
    "Kongs: /gang A an · /gang A ming C · /gang A bu C (C: whose tile)\n"
    "Wins: /hu A <how> [pattern] [flags] · two winners: /hu A pao C; B pao C · drawn: /liuju\n"
    "How: zimo · pao C · gangkai [n] · gangpao C [n] · qianggang C [n] · quanqiupao C · haidi · "
    "haidipao C · tianhu · dihu · renhu\n"
    "Patterns: jihu · pph · qidui · qidui1 · qidui2 · qidui3 — flags: qys · mq · qqr · feng B "
    "(B is sealed)\n"
    "510K: /r A=30 B=20 C=40 D=10/5 out A C (table points, /points held; out: in order)\n"
    "Everyone: /undo [hand] · /standings · /history · /settle [money] · /stats · /chart · "
    "/export · /rules · /help · /app (the Mini App) · /summary (the night's card) · /rating · "
    "/me (your record, only you see it) · /mine (your account here, only you see it)\n"
    "Admins: /reset · /seasons · /link 小李 @user · /unlink 小李 · /set stake [game] 0.5 · "
    "/set lang zh|en · /set sisuang on|off · /set zerosum on|off · /set tz Asia/Shanghai · "
    "/set rating on|off · /set idle 6h|off\n"
    "Only commands a member types count: forwards and messages via other bots are ignored. "
    "Posting as a channel you can record hands and read, but not take a seat."
)


EDIT_HELP = N_(
    "Corrections: /edit 7 /hu A pao C (hand #7 corrected in place; or /edit and the command as "
    "a reply to its message; /undo brings the version before back) · /history 7 (its versions) "
    "· /export all (every version)"
)
FREE_HELP = N_(
    "Any game: /new free [name] · /s A+30 B-10 C (C takes the balance) · /pay A B 5 (at any table)"
)


YUE_HELP = N_(
    "The next game: /yue 周五 20:00 麻将 (a poll; those who come are reminded 30 minutes "
    "before) · /yue (what is arranged) · /yue cancel"
)


FEE_HELP = N_(
    "Fees beside the score, in money: /fee 120 台费 (the table's players share it) · "
    "/fee 120 台费 paid 老王 (老王 paid for everyone) · /fee 30 茶水 小李 阿张 · /fee 120 台费 all"
)


TILES_HELP = N_(
    "Tiles instead of pattern words: /hu A zimo 11122233344455m · /hu A pao C [777p] "
    "123m456m789s55s (m 万 p 筒 s 条 z 字; [777p] exposed, (9999m) concealed kong)"
)


PEOPLE_HELP = N_(
    "People: /iam 小李 (you are the guest 小李) · /sub A B (B takes A's seat) · /leave · "
    "/rename A B · /merge A B (admins: one person)"
)


def help_text(_: Gettext) -> str:
    return (
        _(HELP)
        + "\n"
        + _(EDIT_HELP)
        + "\n"
        + _(PEOPLE_HELP)
        + "\n"
        + _(TILES_HELP)
        + "\n"
        + _(FREE_HELP)
        + "\n"
        + _(FEE_HELP)
        + "\n"
        + _(YUE_HELP)
    )


def rules(_: Gettext, v: RulesView) -> Out:
    return Out(rules_text(_, v))


def help_view(_: Gettext, v: HelpView) -> Out:
    return Out(help_text(_))


#: Setting values as a player says them: a switch translated, a language by its own name (a
#: stake stays as typed).
SWITCH = {"on": N_("on"), "off": N_("off")}
LANGUAGE_NAMES = {"zh": "中文", "en": "English"}


def duration(_: Gettext, minutes: int) -> str:
    """`6 h`, `90 min`: the gap of /set idle."""
    if minutes % 60:
        return _("{n} min", n=minutes)
    return _("{n} h", n=minutes // 60)


def setting_changed(_: Gettext, v: SettingChanged) -> Out:
    if v.value in SWITCH:
        value = _(SWITCH[v.value])
    elif v.key == "tz":
        value = escape(zone_label(v.value))
    elif v.key == "idle":
        value = duration(_, int(v.value)) if v.value != "0" else _("never (off)")
    else:
        value = escape(LANGUAGE_NAMES.get(v.value, v.value))
    return Out(_("Set {key}: {value}.", key=_(labels.SETTING[v.key]), value=value))
