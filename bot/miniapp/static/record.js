// Recording by taps. Each tap that completes or changes a complete form is checked by the server
// (the same parser and service as a typed command, run and rolled back); a refused tap is undone
// on the spot with the reason. "Record it" sends the form with an idempotency key, kept for
// retries until the server confirms, so a double tap or a retry records once.
import { api, el, postEvent, t, toast } from "./app.js";

const HOWS = ["zimo", "dianpao", "gangkai", "gangpao", "qianggang", "quanqiupao", "haidilao", "haidipao", "tianhu", "dihu", "renhu"];
const FROM = new Set(["dianpao", "gangpao", "qianggang", "quanqiupao", "haidipao"]);
const CHAINED = new Set(["gangkai", "gangpao", "qianggang"]);
const PATTERNS = { jihu: "jihu", pph: "pengpenghu", qidui: "qidui0", qidui1: "qidui1", qidui2: "qidui2", qidui3: "qidui3" };
const FLAGS = { qys: "qingyise", mq: "menqing", qqr: "quanqiuren" };

const clause = (how = null, from = null) => ({ winner: null, how, from, chain: null, pattern: "jihu", qys: false, mq: false, qqr: false, sealed: null });
const fresh = (game) => game === "mahjong"
  ? { kind: "hu", clauses: [clause()], type: null, player: null, from: null }
  : { kind: "report", entries: {}, out: [] };

function uuid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 15) | 64; b[8] = (b[8] & 63) | 128;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// The JSON the server reads (bot/miniapp/forms.py); null while the form is incomplete.
function wire(f, seats) {
  if (f.kind === "liuju") return { kind: "liuju" };
  if (f.kind === "gang") {
    if (!f.player || !f.type || (f.type !== "an" && !f.from)) return null;
    return { kind: "gang", player: f.player, type: f.type, from: f.type === "an" ? null : f.from };
  }
  if (f.kind === "hu") {
    if (f.clauses.some((c) => !c.winner || !c.how || (FROM.has(c.how) && !c.from))) return null;
    return { kind: "hu", clauses: f.clauses };
  }
  const filled = seats.filter((_, i) => f.entries[i + 1]?.table != null);
  if (filled.length !== seats.length || f.out.length < 2) return null;
  return {
    kind: "report",
    entries: seats.map((_, i) => ({ player: i + 1, table: f.entries[i + 1].table, held: f.entries[i + 1].held ?? null })),
    out: f.out,
  };
}

export function recordPage(data, reload) {
  const table = data.table;
  const box = el("div");
  if (!table) return [el("h1", {}, t("record")), el("p", { class: "hint" }, t("no_table"))];
  const seats = table.seats;
  const names = seats.map((name, i) => name || String(i + 1));
  const s = data.strings;
  let form = fresh(table.game), key = null, busy = false, command = "";

  const chip = (label, pressed, onclick, disabled = false) =>
    el("button", { class: "chip", "aria-pressed": String(!!pressed), disabled: disabled || busy, onclick }, label);
  const seatChips = (value, set, except = null) => el("div", { class: "chips" },
    ...names.map((name, i) => chip(name, value === i + 1, () => set(value === i + 1 ? null : i + 1), except === i + 1)));

  async function tap(change) {
    const next = structuredClone(form);
    change(next);
    const body = wire(next, seats);
    if (body) {
      busy = true; render();
      try {
        const answer = await api("check", { form: body });
        if (!answer.ok) { busy = false; toast(`${t("refused")} ${answer.error}`, true); postEvent("web_app_trigger_haptic_feedback", { type: "notification", notification_type: "error" }); render(); return; }
        command = answer.command;
      } catch { busy = false; toast(t("offline"), true); render(); return; }
      busy = false;
    } else command = "";
    form = next; key = null;
    render();
  }

  async function save() {
    const body = wire(form, seats);
    if (!body || busy) return;
    key = key || uuid();
    busy = true; render();
    try {
      const answer = await api("record", { key, form: body });
      busy = false;
      if (!answer.ok) { toast(`${t("refused")} ${answer.error}`, true); render(); return; }
      postEvent("web_app_trigger_haptic_feedback", { type: "notification", notification_type: "success" });
      toast(t("saved"));
      form = fresh(table.game); key = null; command = "";
      await reload();
    } catch { busy = false; toast(t("offline"), true); render(); }
  }

  function huForm() {
    const out = [];
    form.clauses.forEach((c, k) => {
      const set = (field) => (value) => tap((f) => { f.clauses[k][field] = value; });
      if (form.clauses.length > 1) out.push(el("h2", {}, `${t("winner")} ${k + 1}`));
      else out.push(el("h2", {}, t("winner")));
      out.push(seatChips(c.winner, set("winner")));
      out.push(el("h2", {}, t("how")), el("div", { class: "chips" }, ...HOWS.map((how) =>
        chip(s.win[how] || how, c.how === how, () => tap((f) => {
          const cl = f.clauses[k];
          cl.how = cl.how === how ? null : how;
          if (!FROM.has(cl.how)) cl.from = null;
          if (!CHAINED.has(cl.how)) cl.chain = null;
        }), k > 0))));
      if (FROM.has(c.how)) out.push(el("h2", {}, t("from")), seatChips(c.from, set("from"), c.winner));
      if (CHAINED.has(c.how)) out.push(el("h2", {}, t("chain")), el("div", { class: "chips" },
        ...[1, 2, 3, 4].map((n) => chip(String(n), c.chain === n, () => set("chain")(c.chain === n ? null : n)))));
      out.push(el("h2", {}, t("pattern")), el("div", { class: "chips" }, ...Object.entries(PATTERNS).map(([p, label]) =>
        chip(s.pattern[label] || p, c.pattern === p, () => set("pattern")(p)))));
      out.push(el("h2", {}, t("flags")), el("div", { class: "chips" }, ...Object.entries(FLAGS).map(([flag, label]) =>
        chip(s.flag[label] || flag, c[flag], () => set(flag)(!c[flag])))));
      out.push(el("h2", {}, t("sealed")), seatChips(c.sealed, set("sealed"), c.winner));
    });
    const first = form.clauses[0];
    if (FROM.has(first.how) && first.from && form.clauses.length < 3) {
      out.push(el("button", { class: "link", onclick: () => tap((f) => { f.clauses.push(clause(first.how, first.from)); }) }, `+ ${t("add_winner")}`));
    }
    return out;
  }

  function kongForm() {
    return [
      el("h2", {}, t("konger")), seatChips(form.player, (v) => tap((f) => { f.player = v; })),
      el("h2", {}, t("kind")), el("div", { class: "chips" }, ...["an", "ming", "bu"].map((k) =>
        chip(s.kong[k] || k, form.type === k, () => tap((f) => { f.type = k; if (k === "an") f.from = null; })))),
      form.type && form.type !== "an" ? el("h2", {}, t("from")) : null,
      form.type && form.type !== "an" ? seatChips(form.from, (v) => tap((f) => { f.from = v; }), form.player) : null,
    ];
  }

  function reportForm() {
    const number = (seat, field) => el("input", {
      type: "number", inputmode: "numeric", step: "5", value: form.entries[seat]?.[field] ?? "", "aria-label": `${names[seat - 1]} ${t(field === "table" ? "table_points" : "held")}`,
      onchange: (e) => tap((f) => {
        const v = e.target.value.trim() === "" ? null : Math.trunc(Number(e.target.value));
        f.entries[seat] = { ...(f.entries[seat] || {}), [field]: v };
      }),
    });
    return [
      el("div", { class: "points" }, el("span"), el("span", { class: "hint" }, t("table_points")), el("span", { class: "hint" }, t("held")),
        ...names.flatMap((name, i) => [el("span", {}, name), number(i + 1, "table"), number(i + 1, "held")])),
      el("h2", {}, t("out")), el("div", { class: "chips" }, ...names.map((name, i) => {
        const at = form.out.indexOf(i + 1);
        return chip(at >= 0 ? `${at + 1}. ${name}` : name, at >= 0, () => tap((f) => {
          f.out = at >= 0 ? f.out.filter((x) => x !== i + 1) : [...f.out, i + 1];
        }));
      })),
    ];
  }

  function render() {
    const modes = table.game === "mahjong" ? ["hu", "gang", "liuju"] : ["report"];
    const label = { hu: t("hand"), gang: t("kong"), liuju: t("liuju"), report: t("report") };
    const body = { hu: huForm, gang: kongForm, liuju: () => [], report: reportForm }[form.kind]();
    box.replaceChildren(...[
      el("h1", {}, t("record")),
      modes.length > 1 ? el("div", { class: "chips" }, ...modes.map((m) =>
        chip(label[m], form.kind === m, () => { form = { ...fresh(table.game), kind: m }; key = null; command = m === "liuju" ? "/liuju" : ""; render(); }))) : null,
      ...body,
      command ? el("p", { class: "hint" }, el("code", {}, command)) : null,
      el("button", { class: "primary sticky", disabled: busy || !wire(form, seats), onclick: save }, busy ? t("saving") : t("save")),
      el("button", { class: "link", onclick: () => { form = fresh(table.game); key = null; command = ""; render(); } }, t("clear")),
    ].filter((node) => node != null));
  }

  render();
  return [box];
}
