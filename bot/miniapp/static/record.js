// Recording by taps. Every change of a complete form asks the server for a preview: the chat's
// reply from the service's dry run (the same code path as recording, rolled back), shown before
// saving; a report is judged only when complete, never tap by tap. A mahjong tap the rules
// refuse is undone on the spot with the reason. Boxes are built once per form and updated in
// place, so typing keeps focus and value. "Record it" sends the form with an idempotency key,
// kept for retries until the server confirms; the result stays on screen with Undo.
// Whatever the page answers (the preview, a reason, the two-minute rule's question, the result)
// is shown in the dock with the Record button, kept in view at the foot of the screen. A
// preview over the member's budget of previews (`limited`) is asked again once it may be, and
// leaves the Record button as it was: the record is judged anyway.
import { el, t, toast } from "./dom.js";
import { api, postEvent } from "./telegram.js";
import { tileKeyboard } from "./tiles.js";

const HOWS = ["zimo", "dianpao", "gangkai", "gangpao", "qianggang", "quanqiupao", "haidilao", "haidipao", "tianhu", "dihu", "renhu"];
const FROM = new Set(["dianpao", "gangpao", "qianggang", "quanqiupao", "haidipao"]);
const CHAINED = new Set(["gangkai", "gangpao", "qianggang"]);
const PATTERNS = { jihu: "jihu", pph: "pengpenghu", qidui: "qidui0", qidui1: "qidui1", qidui2: "qidui2", qidui3: "qidui3" };
const FLAGS = { qys: "qingyise", mq: "menqing", qqr: "quanqiuren" };
const MODES = { mahjong: ["hu", "gang", "liuju", "pay"], free: ["score", "pay"] };
const LABEL = { hu: "hand", gang: "kong", liuju: "liuju", report: "report", score: "round", pay: "transfer" };
const AMOUNT = /^\d{1,7}(\.\d{1,2})?$/;

const clause = (how = null, from = null) => ({ winner: null, how, from, chain: null, pattern: "jihu", qys: false, mq: false, qqr: false, sealed: null, tiles: null });
const fresh = (kind) => ({
  hu: { kind, clauses: [clause()] },
  gang: { kind, type: null, player: null, from: null },
  liuju: { kind },
  report: { kind, entries: {}, out: [] },
  score: { kind, amounts: {}, signs: {}, balance: null },
  pay: { kind, payer: null, payee: null, amount: "" },
})[kind];

function uuid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 15) | 64; b[8] = (b[8] & 63) | 128;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// An amount box's text as the server takes it ("12.5"), or null; "-" typed is the sign key's.
const amountOf = (text) => { const v = (text || "").trim().replace(",", "."); return AMOUNT.test(v) ? v.replace(/^0+(?=\d)/, "") : null; };
const cents = (v) => Math.round(Number(v) * 100);
const fromCents = (c) => `${c < 0 ? "-" : "+"}${Math.floor(Math.abs(c) / 100)}${Math.abs(c) % 100 ? `.${String(Math.abs(c) % 100).padStart(2, "0").replace(/0$/, "")}` : ""}`;

// The JSON the server reads (bot/miniapp/forms.py); null while the form is incomplete.
function wire(f, seats) {
  if (f.kind === "liuju") return { kind: "liuju" };
  if (f.kind === "gang") {
    if (!f.player || !f.type || (f.type !== "an" && !f.from)) return null;
    return { kind: "gang", player: f.player, type: f.type, from: f.type === "an" ? null : f.from };
  }
  if (f.kind === "hu") {
    if (f.clauses.some((c) => !c.winner || !c.how || (FROM.has(c.how) && !c.from) || (c.tiles !== null && !c.tiles))) return null;
    return { kind: "hu", clauses: f.clauses.map((c) => (c.tiles === null ? { ...c, tiles: null }
      : { ...c, pattern: "jihu", qys: false, mq: false, qqr: false })) };
  }
  if (f.kind === "pay") {
    const amount = amountOf(f.amount);
    if (!f.payer || !f.payee || f.payer === f.payee || !amount) return null;
    return { kind: "pay", payer: f.payer, payee: f.payee, amount };
  }
  if (f.kind === "score") {
    const entries = seats.map((_, i) => i + 1).filter((n) => n !== f.balance && amountOf(f.amounts[n]) !== null)
      .map((n) => ({ player: n, amount: (f.signs[n] === "-" ? "-" : "+") + amountOf(f.amounts[n]) }));
    if (!entries.length) return null;
    return { kind: "score", entries, balance: f.balance };
  }
  const filled = seats.filter((_, i) => f.entries[i + 1]?.table != null);
  if (filled.length !== seats.length || !finished(f.out, seats.length)) return null;
  return {
    kind: "report",
    entries: seats.map((_, i) => ({ player: i + 1, table: f.entries[i + 1].table, held: f.entries[i + 1].held ?? null })),
    out: f.out,
  };
}

// Whether a finishing order ends a hand (then the server judges it): three players, two out;
// four, both of a team (seats 1+3, 2+4) or three out. Never judged while being tapped.
const finished = (out, players) => (players === 3 ? out.length >= 2
  : out.length >= 3 || (out.length === 2 && Math.abs(out[0] - out[1]) === 2));

function linkStyles() {
  const href = new URL("./record.css", import.meta.url).href;
  if (document.querySelector("link[data-record]")) return;
  document.head.append(Object.assign(el("link", { rel: "stylesheet", href, "data-record": "" })));
}

let kept = null;  // the page of the open table, kept across the app's reloads (result, form, focus)
let wanted = null;  // a hand of History to correct (✎ Edit): the form opens filled with it

// ✎ Edit in History: the Record page opens with that hand's form; saving corrects it in place.
export function editHand(hand) { wanted = hand; }

export function recordPage(data, reload) {
  const table = data.table;
  if (!table) { kept = null; return [el("h1", {}, t("record")), el("p", { class: "hint" }, t("no_table"))]; }
  const signature = JSON.stringify([table.game, table.seats, data.lang]);
  if (kept?.signature === signature) { if (wanted) kept.edit(); kept.refresh(); return [kept.box]; }
  linkStyles();
  const seats = table.seats;
  const names = seats.map((name, i) => name || String(i + 1));
  const s = data.strings;
  const modes = MODES[table.game] || ["report", "pay"];
  let form = fresh(modes[0]), key = null, busy = false, asked = 0;
  let answer = null;  // the preview of the current form: {ok, command, html} or {ok: false, error}
  let editing = null;  // ✎ Edit: {event, seen, no}, the hand the form corrects (its version seen)
  let result = null;  // the last recorded (or undone) reply: {html, event}
  let showing = {};  // the answer and the result the dock shows
  const keyboards = new Map();  // a clause's tile keyboard, kept while the form lives

  const box = el("div", { class: "record" });
  const editNote = el("p", { class: "card hint editing", hidden: true });
  const modeRow = el("div", { class: "chips modes" });
  const body = el("div");
  const shown = el("div", { class: "preview", "aria-live": "polite" });
  const saveButton = el("button", { class: "primary", onclick: save });
  const clearButton = el("button", { class: "link", onclick: () => start(form.kind) }, t("clear"));
  const done = el("div", { "aria-live": "polite" });
  const answers = el("div", { class: "answers" }, shown, done);  // scrolls when long
  const dock = el("div", { class: "dock" }, answers, saveButton);
  box.append(el("h1", {}, t("record")), editNote, modeRow, body, clearButton, dock);
  let slots = [], lives = [];  // chips redrawn on a tap; boxes' neighbours updated in place
  let built = 0;  // the clauses the mahjong form was built for

  const slot = (draw) => { const node = el("div"); slots.push(() => node.replaceChildren(...draw().filter((x) => x != null))); return node; };
  const live = (update) => { lives.push(update); };
  const chip = (label, pressed, onclick, disabled = false) =>
    el("button", { class: "chip", "aria-pressed": String(!!pressed), disabled: disabled || busy, onclick }, label);
  const seatChips = (row, value, set, except = null) => el("div", { class: "chips", "data-row": row },
    ...names.map((name, i) => chip(name, value === i + 1, () => set(value === i + 1 ? null : i + 1), except === i + 1)));

  // Everything after a tap: the chips too.
  function refresh() {
    modeRow.replaceChildren(...(modes.length > 1 ? modes.map((m) => chip(t(LABEL[m]), form.kind === m, () => start(m))) : []));
    for (const draw of slots) draw();
    status();
  }

  // After typing or an answer: what depends on the boxes, the preview, the buttons; no chip is
  // redrawn (a chip being pressed would lose the press).
  // The dock holds one answer at a time: the two-minute rule's question, else the preview of a
  // complete form, else the last result.
  function status() {
    for (const update of lives) update();
    const wired = wire(form, seats);
    const ready = wired && (answer?.ok || answer?.limited) && !busy;
    const previewing = wired && answer && !result?.ask;
    shown.replaceChildren(...(!previewing ? [] : answer.ok
      ? [el("h2", {}, t("preview")), el("div", { class: "card hand", html: answer.html.join("\n") }), el("p", { class: "hint" }, el("code", {}, answer.command))]
      : [el("p", { class: answer.limited ? "card hint limited" : "card reason" }, answer.error)]));
    saveButton.disabled = !ready;
    saveButton.textContent = busy === "saving" ? t("saving") : wired && !answer ? t("checking") : t(editing ? "save_edit" : "save");
    editNote.hidden = !editing;
    editNote.textContent = editing ? t("editing", { n: editing.no }) : "";
    done.replaceChildren(...(result?.ask ? [el("div", { class: "card hand result", html: result.html.join("\n") }),
      el("div", { class: "chips" }, el("button", { class: "chip", onclick: again, disabled: !!busy }, t("again")),
        el("button", { class: "chip", onclick: () => { result = null; refresh(); } }, t("not_again")))]
      : result && !(wired && answer) ? [el("h2", {}, t("result")), el("div", { class: "card hand result", html: result.html.join("\n") }),
      result.event ? el("button", { class: "chip undo", onclick: undo }, t("undo")) : null].filter((x) => x != null) : []));
    answers.hidden = !shown.firstChild && !done.firstChild;
    if (showing.answer !== answer || showing.result !== result) answers.scrollTop = 0;  // read from its start
    showing = { answer, result };
  }

  // Asks for the preview of the current form; answers to older forms are dropped, and a
  // preview still waiting to be asked for (typing's) is not asked for any more.
  let timer;
  async function ask() {
    clearTimeout(timer);
    const body = wire(form, seats);
    const mine = ++asked;
    answer = null;
    status();
    if (!body) return null;
    try {
      const got = await api("preview", { form: body, ...corrects() });
      if (mine === asked) {
        answer = got; status();
        if (got.limited) timer = setTimeout(ask, 1000 * (got.retry || 1));  // then it may be
      }
      return got;
    } catch { if (mine === asked) { answer = { ok: false, error: t("offline") }; status(); } return null; }
  }

  // What a preview or a save says of the hand it corrects (✎ Edit), if any.
  const corrects = () => (editing ? { edit: { event: editing.event, seen: editing.seen } } : {});

  // A changed form is another question: the two-minute rule's, about the last one, goes.
  const moved = () => { if (result?.ask) result = null; };
  const later = () => { clearTimeout(timer); moved(); answer = null; asked++; status(); timer = setTimeout(ask, 200); };
  const commit = (next) => {
    form = next; key = null; moved();
    if (form.kind === "hu" && form.clauses.length !== built) build();
    refresh();
  };

  // A chip's change. Mahjong taps (every tap makes a complete form) are checked at once and a
  // refused one is undone with the reason; anything else is previewed, never undone.
  async function tap(change) {
    const next = structuredClone(form);
    change(next);
    const strict = (next.kind === "hu" && next.clauses.every((c) => c.tiles === null)) || next.kind === "gang";
    if (!strict || !wire(next, seats) || busy) { commit(next); later(); return; }
    const before = form;
    busy = true; commit(next);
    const got = await ask();
    busy = false;
    if (form !== next) { refresh(); return; }  // changed meanwhile (another mode): not ours to undo
    if (got && !got.ok && !got.limited) {  // the rules refuse it (not the budget)
      toast(`${t("refused")} ${got.error}`, true);
      postEvent("web_app_trigger_haptic_feedback", { type: "notification", notification_type: "error" });
      commit(before);
      await ask();
      return;
    }
    refresh();
  }

  async function save() {
    const body = wire(form, seats);
    if (!body || busy || !(answer?.ok || answer?.limited)) return;
    key = key || uuid();
    busy = "saving"; refresh();
    try {
      const got = await api("record", { key, form: body, ...corrects() });
      busy = false;
      if (got.limited) { toast(got.error, true); refresh(); return; }  // pressed again later
      if (!got.ok) { answer = { ok: false, error: got.error }; toast(`${t("refused")} ${got.error}`, true); refresh(); return; }
      if (got.ask) { result = { ask: true, html: got.reply, event: got.event, near: got.near }; refresh(); return; }  // the two-minute rule
      postEvent("web_app_trigger_haptic_feedback", { type: "notification", notification_type: "success" });
      toast(t(editing ? "edit_saved" : "saved"));
      result = { html: got.reply, event: got.undone || got.repeated ? null : got.event };
      start(modes[0]);  // after a kong or a drawn hand, the hand; never a form ready to go again
      await reload();
    } catch { busy = false; toast(t("offline"), true); refresh(); }
  }

  // [Record again] under the two-minute rule's question: once per key, however often pressed.
  async function again() {
    if (!result?.ask || busy) return;
    result.key = result.key || uuid();
    busy = true; refresh();
    try {
      const got = await api("again", { key: result.key, event: result.event, near: result.near ?? null });
      busy = false;
      if (!got.ok) { toast(`${t("refused")} ${got.error}`, true); refresh(); return; }
      toast(t("saved"));
      result = { html: got.reply, event: got.event };
      start(modes[0]);
      await reload();
    } catch { busy = false; toast(t("offline"), true); refresh(); }
  }

  async function undo() {
    if (!result?.event || busy) return;
    result.key = result.key || uuid();
    busy = true; refresh();
    try {
      const got = await api("undo", { key: result.key, event: result.event });
      busy = false;
      if (!got.ok) { toast(`${t("refused")} ${got.error}`, true); refresh(); return; }
      result = { html: got.reply, event: null };
      refresh();
      await reload();
    } catch { busy = false; toast(t("offline"), true); refresh(); }
  }

  function huForm() {
    const out = [];
    form.clauses.forEach((c, k) => {
      const at = () => form.clauses[k];
      const set = (field) => (value) => tap((f) => { f.clauses[k][field] = value; });
      out.push(slot(() => {
        const c = at();
        const parts = [el("h2", {}, form.clauses.length > 1 ? `${t("winner")} ${k + 1}` : t("winner")), seatChips("winner", c.winner, set("winner"))];
        parts.push(el("h2", {}, t("how")), el("div", { class: "chips" }, ...HOWS.map((how) =>
          chip(s.win[how] || how, c.how === how, () => tap((f) => {
            const cl = f.clauses[k];
            cl.how = cl.how === how ? null : how;
            if (!FROM.has(cl.how)) cl.from = null;
            if (!CHAINED.has(cl.how)) cl.chain = null;
          }), k > 0))));
        if (FROM.has(c.how)) parts.push(el("h2", {}, t("from")), seatChips("from", c.from, set("from"), c.winner));
        if (CHAINED.has(c.how)) parts.push(el("h2", {}, t("chain")), el("div", { class: "chips" },
          ...[1, 2, 3, 4].map((n) => chip(String(n), c.chain === n, () => set("chain")(c.chain === n ? null : n)))));
        parts.push(el("h2", {}, t("pattern")), el("div", { class: "chips" },
          ...Object.entries(PATTERNS).map(([p, label]) => chip(s.pattern[label] || p, c.tiles === null && c.pattern === p,
            () => tap((f) => { f.clauses[k].pattern = p; f.clauses[k].tiles = null; }))),
          chip(t("by_tiles"), c.tiles !== null, () => tap((f) => { f.clauses[k].tiles = f.clauses[k].tiles === null ? (keyboards.get(k)?.notation ?? "") : null; }))));
        return parts;
      }));
      const keys = el("div", { class: "tiles-box" });
      out.push(keys);
      slots.push(() => {
        const c = at();
        if (!c) return;
        if (c.tiles === null) { keys.hidden = true; return; }
        keys.hidden = false;
        if (!keyboards.has(k)) {
          keyboards.set(k, tileKeyboard({ strings: s.tiles, value: c.tiles, onChange: ({ notation }) => {
            if (form.kind !== "hu" || !form.clauses[k] || form.clauses[k].tiles === null) return;
            form.clauses[k].tiles = notation; key = null; later();
          } }));
        }
        if (keys.firstChild !== keyboards.get(k).element) keys.replaceChildren(keyboards.get(k).element);
      });
      out.push(slot(() => {
        const c = at();
        const parts = [];
        if (c.tiles === null) parts.push(el("h2", {}, t("flags")), el("div", { class: "chips" }, ...Object.entries(FLAGS).map(([flag, label]) =>
          chip(s.flag[label] || flag, c[flag], () => set(flag)(!c[flag])))));
        parts.push(el("h2", {}, t("sealed")), seatChips("sealed", c.sealed, set("sealed"), c.winner));
        return parts;
      }));
    });
    out.push(slot(() => {
      const first = form.clauses[0];
      return FROM.has(first.how) && first.from && form.clauses.length < 3
        ? [el("button", { class: "link", onclick: () => tap((f) => { f.clauses.push(clause(first.how, first.from)); }) }, `+ ${t("add_winner")}`)] : [];
    }));
    return out;
  }

  function kongForm() {
    return [slot(() => [
      el("h2", {}, t("konger")), seatChips("konger", form.player, (v) => tap((f) => { f.player = v; if (f.from === v) f.from = null; })),
      el("h2", {}, t("kind")), el("div", { class: "chips" }, ...["an", "ming", "bu"].map((k) =>
        chip(s.kong[k] || k, form.type === k, () => tap((f) => { f.type = k; if (k === "an") f.from = null; })))),
      form.type && form.type !== "an" ? el("h2", {}, t("from")) : null,
      form.type && form.type !== "an" ? seatChips("from", form.from, (v) => tap((f) => { f.from = v; }), form.player) : null,
    ])];
  }

  // A box typed into: the form changes in place (nothing redrawn), then the preview follows.
  const typed = (change) => (e) => { change(e.target.value); key = null; later(); };

  function reportForm() {
    const number = (seat, field) => el("input", {
      type: "text", inputmode: "numeric", enterkeyhint: "next", autocomplete: "off", "data-seat": seat, "data-field": field,
      value: form.entries[seat]?.[field] ?? null,  // ✎ Edit: the hand's
      "aria-label": `${names[seat - 1]} ${t(field === "table" ? "table_points" : "held")}`,
      oninput: typed((value) => {
        const v = value.trim().replace("−", "-");
        form.entries[seat] = { ...(form.entries[seat] || {}), [field]: /^-?\d{1,5}$/.test(v) ? Number(v) : null };
      }),
    });
    return [
      el("div", { class: "points" }, el("span"), el("span", { class: "hint" }, t("table_points")), el("span", { class: "hint" }, t("held")),
        ...names.flatMap((name, i) => [el("span", {}, name), number(i + 1, "table"), number(i + 1, "held")])),
      el("h2", {}, t("out")),
      slot(() => [el("div", { class: "chips", "data-row": "out" }, ...names.map((name, i) => {
        const at = form.out.indexOf(i + 1);
        return chip(at >= 0 ? `${at + 1}. ${name}` : name, at >= 0, () => tap((f) => {
          f.out = at >= 0 ? f.out.filter((x) => x !== i + 1) : [...f.out, i + 1];
        }));
      }))]),
    ];
  }

  function scoreForm() {
    const rows = names.map((name, i) => {
      const seat = i + 1;
      const sign = el("button", { class: "sign", "data-sign": seat, "aria-label": `${name} ${t("sign")}`,
        onclick: () => { form.signs[seat] = form.signs[seat] === "-" ? "+" : "-"; key = null; later(); } });
      const input = el("input", {
        type: "text", inputmode: "decimal", enterkeyhint: "next", autocomplete: "off", "data-seat": seat, "aria-label": name,
        value: form.amounts[seat] || null,
        oninput: typed((value) => {
          const v = value.trim().replace("−", "-");
          if (/^[-+]/.test(v)) { form.signs[seat] = v[0]; input.value = v.slice(1); }  // a keyboard that has the sign
          form.amounts[seat] = input.value;
        }),
      });
      live(() => {
        const balancing = form.balance === seat;
        sign.textContent = form.signs[seat] === "-" ? "−" : "+";
        sign.className = `sign ${form.signs[seat] === "-" ? "neg" : "pos"}`;
        sign.disabled = balancing;
        input.disabled = balancing;  // the balancing player's box: the server's sum, never typed
        input.placeholder = balancing ? balanceOf() : "0";
        if (balancing) input.value = "";
      });
      return [el("span", {}, name), sign, input];
    });
    const balanceOf = () => {
      const sum = names.reduce((acc, _, i) => {
        const v = amountOf(form.amounts[i + 1]);
        return i + 1 === form.balance || v === null ? acc : acc + (form.signs[i + 1] === "-" ? -1 : 1) * cents(v);
      }, 0);
      return fromCents(-sum);
    };
    return [
      el("div", { class: "points free" }, ...rows.flat()),
      el("h2", {}, t("balance")),
      slot(() => [seatChips("balance", form.balance, (v) => { form.balance = v; if (v) form.amounts[v] = ""; key = null; refresh(); later(); })]),
      el("p", { class: "hint" }, t("balance_hint")),
    ];
  }

  function payForm() {
    return [
      slot(() => [el("h2", {}, t("payer")), seatChips("payer", form.payer, (v) => tap((f) => { f.payer = v; if (f.payee === v) f.payee = null; })),
        el("h2", {}, t("payee")), seatChips("payee", form.payee, (v) => tap((f) => { f.payee = v; }), form.payer)]),
      el("h2", {}, t("amount")),
      el("input", { type: "text", inputmode: "decimal", autocomplete: "off", class: "amount", "aria-label": t("amount"), value: form.amount || null,
        oninput: typed((value) => { form.amount = value; }) }),
    ];
  }

  function build() {
    slots = []; lives = [];
    built = form.kind === "hu" ? form.clauses.length : 0;
    const parts = { hu: huForm, gang: kongForm, liuju: () => [], report: reportForm, score: scoreForm, pay: payForm }[form.kind]();
    body.replaceChildren(...parts);
  }

  function start(kind) {
    form = fresh(kind); key = null; answer = null; asked++; moved(); editing = null;
    keyboards.clear();
    build();
    refresh();
    if (wire(form, seats)) ask();
  }

  // ✎ Edit: the form of the hand History asked for, its preview the correction's.
  function edit() {
    const hand = wanted;
    wanted = null;
    if (!hand?.form) return;
    form = structuredClone(hand.form); key = null; answer = null; result = null; asked++;
    editing = { event: hand.id, seen: hand.version, no: hand.no };
    keyboards.clear();
    build();
    refresh();
    if (wire(form, seats)) ask();
  }

  start(form.kind);
  if (wanted) edit();
  kept = { signature, box, refresh, edit };
  return [box];
}
