// jifen's Mini App: plain ES modules, no library. Its ties to Telegram and the server are in
// telegram.js, what it draws with in dom.js; each tab is a page of `pages` (record.js: Record).
import { drawChart } from "./chart.js";
import { el, t, useWords } from "./dom.js";
import { follow } from "./live.js";
import { editHand, recordPage } from "./record.js";
import { api, chatToken, hash, initData, postEvent } from "./telegram.js";
import { drawHand } from "./tiles.js";

function launchTheme() {
  try { return JSON.parse(hash.get("tgWebAppThemeParams") || "{}"); } catch { return {}; }
}

// The client's events: the mobile apps call Telegram.WebView.receiveEvent (older ones
// TelegramGameProxy.receiveEvent), the web client posts messages to the frame.
function listen() {
  const receive = (type, data) => {
    if (type === "theme_changed" && data?.theme_params) applyTheme(data.theme_params);
    if (type === "viewport_changed" && Number(data?.height) > 0) {
      document.documentElement.style.setProperty("--tg-viewport-stable-height", `${Number(data.height)}px`);
    }
  };
  window.Telegram = { WebView: { receiveEvent: receive } };
  window.TelegramGameProxy = { receiveEvent: receive };
  window.addEventListener("message", (event) => {
    try { const m = JSON.parse(event.data); receive(m.eventType, m.eventData); } catch { /* not ours */ }
  });
}

function applyTheme(theme) {
  const root = document.documentElement;
  for (const [key, value] of Object.entries(theme)) {
    if (/^#[0-9a-f]{3,8}$/i.test(value)) root.style.setProperty(`--tg-theme-${key.replaceAll("_", "-")}`, value);
  }
  if (Object.keys(theme).length) root.classList.add("themed");
}

function setOffline(offline) {
  const badge = document.getElementById("live");
  badge.hidden = !offline;
  badge.textContent = t("offline_live");
}

const state = { data: null, tab: "standings", season: null, player: "", shown: 0, qr: null };
const amountClass = (text) => (text.startsWith("-") ? "neg" : text === "0" ? "" : "pos");

function seasonTitle(s) {
  const n = s?.season ?? state.data.seasons.at(-1)?.number;
  return n ? t("season", { n }) + (s?.archived ? ` · ${t("archived")}` : "") : "";
}

const pages = {
  standings() {
    const s = state.data.standings;
    const out = [el("h1", {}, seasonTitle(s))];
    if (!s || !s.sections.length) return [...out, el("p", { class: "hint" }, t("nothing"))];
    for (const section of s.sections) {
      out.push(el("h2", {}, state.data.strings.unit[section.unit] || section.unit));
      out.push(el("ul", { class: "rows card" }, ...section.rows.map((row, i) =>
        el("li", {}, el("span", {}, `${i + 1}. ${row.name}`), el("b", { class: amountClass(row.amount) }, row.amount)))));
      const series = state.data.chart.find((c) => c.unit === section.unit);
      if (series) out.push(el("div", { class: "card" }, drawChart(series)));
    }
    if (s.progress) out.push(el("p", { class: "card", html: s.progress }));
    return out;
  },
  history() {
    const hands = state.data.history;
    const names = [...new Set(hands.flatMap((h) => h.names))].sort();
    const chips = el("div", { class: "chips" }, ...["", ...names].map((name) =>
      el("button", { class: "chip", "aria-pressed": String(state.player === name),
        onclick: () => { state.player = name; show(); } }, name || t("all_players"))));
    const shown = hands.filter((h) => !state.player || h.names.includes(state.player));
    const when = (h) => new Date(h.at).toLocaleString(state.data.lang === "zh" ? "zh-CN" : "en", { dateStyle: "short", timeStyle: "short" });
    const edit = (h) => { editHand(h); state.tab = "record"; show(); };  // ✎ Edit: the form, filled
    const versions = (h, box) => async () => {  // a corrected hand's versions, as /history N lists them
      const got = await api(`history?versions=${h.no}${state.season ? `&season=${state.season}` : ""}`);
      box.innerHTML = got.versions.join("\n");
    };
    const list = shown.map((h) => {
      const trail = el("div", { class: "hand versions" });
      return el("div", { class: "card" }, el("div", { class: "hint" }, when(h) + (h.edited ? " ✎" : "")),
        el("div", { class: `hand${h.undone ? " undone" : ""}`, html: h.html.join("\n") }),
        ...(h.tiles || []).map((w) => drawHand(w.reading)),
        h.edited ? el("button", { class: "link", "data-versions": h.no, onclick: versions(h, trail) }, t("versions")) : null, trail,
        h.form && !state.season ? el("button", { class: "chip edit", "data-edit": h.no, onclick: () => edit(h) }, t("edit")) : null);
    });
    const more = el("button", { class: "link", onclick: loadMore }, t("more"));
    return [el("h1", {}, t("history")), chips, ...(list.length ? list : [el("p", { class: "hint" }, t("nothing"))]),
      hands.length >= state.shown ? more : null];
  },
  settle() {
    const html = state.data.settle;
    return [el("h1", {}, t("settle")), html ? el("div", { class: "card hand", html }) : el("p", { class: "hint" }, t("nothing"))];
  },
  seasons() {
    return [el("h1", {}, t("seasons")), el("ul", { class: "rows card" }, ...[...state.data.seasons].reverse().map((s) =>
      el("li", {}, el("button", { class: "link season", onclick: () => openSeason(s), html: s.html }))))];
  },
  table() {
    const table = state.data.table;
    if (!table) return [el("h1", {}, t("table")), el("p", { class: "hint" }, t("no_table"))];
    const out = [el("h1", {}, t("table")), el("div", { class: "card hand", html: table.html })];
    if (table.kongs.length) out.push(el("h2", {}, t("pending_kongs")), el("div", { class: "card hand", html: table.kongs.join("\n") }));
    const sitting = table.sitting;  // the night's card (/summary): every table and game
    if (sitting) {
      out.push(el("h2", {}, t("sitting", { n: sitting.hands })));
      if (sitting.games.length > 1) out.push(el("p", { class: "hint" }, sitting.games.map((g) => `${g.title} ${g.hands}`).join(" · ")));
      const heads = [...sitting.columns, ...(sitting.money ? [t("money")] : [])];
      const cells = (row) => [...row.amounts, ...(sitting.money ? [row.money] : [])];
      out.push(el("ul", { class: "rows card sitting", style: `--cols: ${heads.length}` },
        el("li", { class: "head" }, el("span", {}, ""), ...heads.map((h) => el("span", {}, h))),
        ...sitting.rows.map((row) => el("li", { class: row.seated ? "seated" : "" }, el("span", {}, row.name),
          ...cells(row).map((v) => (v == null ? el("span", { class: "none" }, "–") : el("b", { class: amountClass(v) }, v)))))));
    }
    if (state.data.standings?.progress) out.push(el("p", { class: "card", html: state.data.standings.progress }));
    out.push(qrCard());
    return out;
  },
  record() {
    return recordPage(state.data, async () => { await load(); });
  },
};

// The table's link as a QR code, drawn by the server (an <img> cannot send the launch data:
// the SVG is fetched and shown from a data: URL). Hidden when the app has no link (404).
function qrCard() {
  const card = el("div", { class: "card qr", hidden: state.qr === false });
  const show = (svg) => card.replaceChildren(el("h2", {}, t("join")),
    el("img", { src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`, alt: t("join"), width: 220, height: 220 }),
    el("p", { class: "hint" }, t("join_hint")));
  if (state.qr) show(state.qr);
  else if (state.qr === null) {
    fetch("/app/api/qr", { headers: { "X-Telegram-Init-Data": initData, "X-Jifen-Chat": chatToken } })
      .then(async (response) => {
        if (response.status === 404) { state.qr = false; card.hidden = true; return; }
        if (!response.ok) return;  // asked again next time the page is drawn
        state.qr = await response.text();
        show(state.qr);
      }).catch(() => {});
  }
  return card;
}

async function openSeason(s) {
  state.season = s.archived ? s.number : null;
  state.tab = "standings";
  await load();
}

async function loadMore() {
  const n = state.shown + 30;
  const season = state.season ? `&season=${state.season}` : "";
  const more = await api(`history?n=${n}${season}`);
  state.data.history = more.hands;
  state.shown = n;
  show();
}

function show() {
  const tabs = document.getElementById("tabs");
  const names = ["standings", "history", "settle", "seasons", "table", "record"];
  tabs.replaceChildren(...names.map((name) => el("button", {
    "aria-current": state.tab === name ? "page" : false, "data-tab": name,
    onclick: () => { state.tab = name; show(); postEvent("web_app_trigger_haptic_feedback", { type: "selection_change" }); },
  }, t(name))));
  document.getElementById("page").replaceChildren(...pages[state.tab]().filter((node) => node != null));
}

// The data of every page; `live`: fetched because the chat changed, so the page the user is on
// is drawn again in place (the history as long as it was), but a form being filled in is not.
async function load({ live: following = false } = {}) {
  const season = state.season ? `?season=${state.season}` : "";
  const data = await api(`view${season}`);
  if (following && state.shown > 30) {
    data.history = (await api(`history?n=${state.shown}${season ? `&season=${state.season}` : ""}`)).hands;
  } else state.shown = 30;
  state.data = data;
  useWords(data.strings.page);
  document.documentElement.lang = state.data.lang === "zh" ? "zh-Hans" : "en";
  if (following && state.tab === "record") return;
  show();
}

async function main() {
  listen();
  applyTheme(launchTheme());
  postEvent("web_app_ready");
  postEvent("web_app_expand");
  postEvent("web_app_request_theme");
  postEvent("web_app_request_viewport");
  const page = document.getElementById("page");
  if (!initData || !chatToken) {
    page.replaceChildren(el("p", { class: "hint" }, "Send /app in your group to open its table here. · 在群里发送 /app 打开本群的牌桌。"));
    return;
  }
  try {
    await load();
  } catch (error) {
    page.replaceChildren(el("p", { class: "hint" }, `⚠️ ${error.message}`));
    return;
  }
  follow({ initData, chatToken, mark: () => state.data?.live, moved: () => load({ live: true }), offline: setOffline });
}

main();
