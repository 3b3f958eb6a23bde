// The tile keyboard's page of its own (/app/tiles.html, opened like the app, with Telegram's
// launch data in the hash): choose the winner and how, tap the tiles, and see the hand as the
// chat would record it — pattern, reading, payments — from /app/api/tiles, a dry run that
// records nothing. Without launch data it shows the keyboard and the notation only.
import { tileKeyboard } from "./tiles.js";

const hash = new URLSearchParams(location.hash.slice(1));
const initData = hash.get("tgWebAppData") || "";
const chat = new URLSearchParams(initData).get("start_param") || hash.get("tgWebAppStartParam") || "";
const FROM = new Set(["dianpao", "gangpao", "qianggang", "quanqiupao", "haidipao"]);
const HOWS = ["zimo", "dianpao", "gangkai", "gangpao", "qianggang", "quanqiupao", "haidilao", "haidipao", "tianhu", "dihu", "renhu"];
const form = { winner: 1, how: "zimo", from: null, tiles: "" };
let asked = 0, seats = [], wins = {};

async function api(body) {
  const response = await fetch("/app/api/tiles", {
    method: body ? "POST" : "GET",
    headers: { "X-Telegram-Init-Data": initData, "X-Jifen-Chat": chat, "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(String(response.status));
  return response.json();
}

function chips(values, label, current, set) {
  const row = document.createElement("div");
  row.className = "chips";
  for (const value of values) {
    const chip = document.createElement("button");
    chip.className = "chip";
    chip.textContent = label(value);
    chip.setAttribute("aria-pressed", String(current() === value));
    chip.addEventListener("click", () => { set(value); who(); preview(); });
    row.append(chip);
  }
  return row;
}

function who() {
  const seatNo = seats.map((_, i) => i + 1);
  const name = (n) => `${n}. ${seats[n - 1] ?? n}`;
  const parts = [chips(seatNo, name, () => form.winner, (n) => { form.winner = n; if (form.from === n) form.from = null; }),
    chips(HOWS, (h) => wins[h] || h, () => form.how, (h) => { form.how = h; })];
  if (FROM.has(form.how)) parts.push(chips(seatNo.filter((n) => n !== form.winner), name, () => form.from, (n) => { form.from = n; }));
  document.getElementById("who").replaceChildren(...parts);
}

async function preview() {
  const box = document.getElementById("preview");
  const ask = ++asked;  // answers to older taps are dropped
  if (!initData || !form.tiles || (FROM.has(form.how) && !form.from)) { box.replaceChildren(); return; }
  const clause = { winner: form.winner, how: form.how, tiles: form.tiles, ...(FROM.has(form.how) ? { from: form.from } : {}) };
  try {
    const answer = await api({ form: { kind: "hu", clauses: [clause] } });
    if (ask !== asked) return;
    box.innerHTML = answer.ok ? answer.html.join("\n") : answer.error;  // the server's escaped HTML
    box.dataset.ok = String(answer.ok);
    document.getElementById("command").textContent = answer.command || "";
  } catch (error) {
    if (ask === asked) box.textContent = `⚠️ ${error.message}`;
  }
}

async function main() {
  let words = {};
  if (initData && chat) {
    const start = await api();
    words = start.words;
    seats = start.seats;
    wins = start.wins;
    document.documentElement.lang = start.lang === "zh" ? "zh-Hans" : "en";
    who();
  }
  const keyboard = tileKeyboard({ strings: words, onChange: ({ notation }) => {
    form.tiles = notation;
    if (!initData) document.getElementById("command").textContent = notation;
    preview();
  } });
  document.getElementById("keyboard").replaceChildren(keyboard.element);
  window.jifenTiles = keyboard;  // for tests and the console: set(), clear(), notation
}

main();
