// jifen's tile keyboard: a self-contained ES module (no library, no import, nothing from another
// host). The 34 tiles are drawn here as SVG. Tap a tile to add it to the hand, tap a tile of the
// hand to take it out; to bracket a group, choose it first ([ ] exposed pung, [ ] exposed kong,
// ( ) concealed kong) and tap its tile. The hand is written in jifen's notation, as /hu takes it
// ("[777p] (9999m) 123m456m789s55s"), and handed to `onChange` at every change. Its stylesheet,
// tiles.css beside this file, is linked on first use.
//
//   const kb = tileKeyboard({ strings, onChange: ({ notation, count, needed, complete }) => … });
//   parent.append(kb.element);  kb.set("11122233344455m");  kb.clear();  kb.notation
//   drawHand("[777p] 123m 456m 789s 55s")  // a hand's groups drawn small (history, previews)

const SUITS = ["m", "p", "s", "z"];
export const TILES = SUITS.flatMap((suit) =>
  Array.from({ length: suit === "z" ? 7 : 9 }, (_, i) => `${i + 1}${suit}`));
const SIZE = { pung: 3, kong: 4, concealed: 4 };
const NUMERALS = "一二三四五六七八九";
const HONOURS = "東南西北中發白";
const NAMES = { m: "万", p: "筒", s: "条" };
const WIND = "东南西北中发白";
const BLUE = "#1d4e9e", RED = "#c0282d", GREEN = "#17803d", INK = "#1b2a4a";
const NS = "http://www.w3.org/2000/svg";
const WORDS = {
  hand: "Tiles",
  pung: "[ ] exposed pung",
  kong: "[ ] exposed kong",
  concealed: "( ) concealed kong",
  clear: "Clear",
  count: "{n} of {needed} tiles",
  pick: "Tap the tiles of the hand, the winning tile too; tap a tile of the hand to take it out.",
  meld: "Now tap the tile of the group.",
  full: "All four are in the hand.",
};

function linkStyles() {
  const href = new URL("./tiles.css", import.meta.url).href;
  if ([...document.styleSheets].some((s) => s.href === href) || document.querySelector("link[data-tiles]")) return;
  const link = document.createElement("link");
  Object.assign(link, { rel: "stylesheet", href });
  link.dataset.tiles = "";
  document.head.append(link);
}

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  node.append(...children);
  return node;
}

const text = (x, y, size, fill, glyph) => svg("text", {
  x, y, "font-size": size, fill, "text-anchor": "middle", "dominant-baseline": "central",
  "font-family": '"Noto Serif CJK SC", "Noto Sans CJK SC", "Songti SC", "PingFang SC", "Microsoft YaHei", serif',
  "font-weight": "700",
}, glyph);

// 筒: the circles of each number (x, y, colour), r by number.
const DOTS = {
  2: [[15, 12, GREEN], [15, 28, BLUE]],
  3: [[8, 10, BLUE], [15, 20, RED], [22, 30, GREEN]],
  4: [[9, 12, BLUE], [21, 12, GREEN], [9, 28, GREEN], [21, 28, BLUE]],
  5: [[9, 11, BLUE], [21, 11, GREEN], [15, 20, RED], [9, 29, GREEN], [21, 29, BLUE]],
  6: [[9, 9, GREEN], [21, 9, GREEN], [9, 21, RED], [21, 21, RED], [9, 31, RED], [21, 31, RED]],
  7: [[7, 7, GREEN], [15, 11, GREEN], [23, 15, GREEN], [9, 24, RED], [21, 24, RED], [9, 33, RED], [21, 33, RED]],
  8: [9, 21].flatMap((x) => [7, 15, 23, 31].map((y) => [x, y, BLUE])),
  9: [BLUE, RED, GREEN].flatMap((c, row) => [7, 15, 23].map((x) => [x, 10 + 10 * row, c])),
};
const DOT_R = { 2: 5, 3: 4.4, 4: 4.4, 5: 4, 6: 3.9, 7: 3.5, 8: 3.5, 9: 3.5 };

// 条: the sticks of each number (x, y, colour), height by number.
const STICKS = {
  2: [[15, 12, GREEN], [15, 28, GREEN]],
  3: [[15, 11, GREEN], [9, 29, GREEN], [21, 29, GREEN]],
  4: [[9, 12, GREEN], [21, 12, GREEN], [9, 28, GREEN], [21, 28, GREEN]],
  5: [[8, 11, GREEN], [22, 11, GREEN], [15, 20, RED], [8, 29, GREEN], [22, 29, GREEN]],
  6: [7, 15, 23].flatMap((x) => [[x, 12, GREEN], [x, 28, GREEN]]),
  7: [[15, 7, RED], ...[7, 15, 23].flatMap((x) => [[x, 20, GREEN], [x, 32, GREEN]])],
  8: [6, 12, 18, 24].flatMap((x) => [[x, 12, GREEN], [x, 28, GREEN]]),
  9: [7, 15, 23].flatMap((x) => [8, 20, 32].map((y) => [x, y, x === 15 ? RED : GREEN])),
};

function face(suit, n) {
  if (suit === "m") return [text(15, 13, 12, INK, NUMERALS[n - 1]), text(15, 29, 14, RED, "萬")];
  if (suit === "z") {
    if (n === 7) return [svg("rect", { x: 7, y: 8, width: 16, height: 24, rx: 2, fill: "none", stroke: BLUE, "stroke-width": 2.2 })];
    return [text(15, 20, 19, n === 5 ? RED : n === 6 ? GREEN : INK, HONOURS[n - 1])];
  }
  if (suit === "p") {
    if (n === 1) {
      return [svg("circle", { cx: 15, cy: 20, r: 10, fill: "none", stroke: GREEN, "stroke-width": 2 }),
        svg("circle", { cx: 15, cy: 20, r: 6.5, fill: "none", stroke: BLUE, "stroke-width": 2 }),
        svg("circle", { cx: 15, cy: 20, r: 3, fill: RED })];
    }
    return DOTS[n].flatMap(([cx, cy, c]) => [
      svg("circle", { cx, cy, r: DOT_R[n], fill: "none", stroke: c, "stroke-width": 1.6 }),
      svg("circle", { cx, cy, r: DOT_R[n] / 2.6, fill: c })]);
  }
  if (n === 1) {  // 一条: the bird
    return [svg("ellipse", { cx: 15, cy: 23, rx: 6, ry: 9, fill: GREEN }),
      svg("path", { d: "M15 30 L8 37 M15 30 L15 37 M15 30 L22 37", stroke: GREEN, "stroke-width": 1.6, fill: "none" }),
      svg("circle", { cx: 15, cy: 11, r: 3.6, fill: RED }),
      svg("path", { d: "M18 10 L22 11 L18 12 Z", fill: RED })];
  }
  const h = n >= 7 ? 8 : 10;
  return STICKS[n].flatMap(([x, y, c]) => [
    svg("rect", { x: x - 1.7, y: y - h / 2, width: 3.4, height: h, rx: 1.7, fill: c }),
    svg("line", { x1: x - 1.7, y1: y, x2: x + 1.7, y2: y, stroke: "#fff", "stroke-width": 0.7 })]);
}

const label = (code) => {
  const n = Number(code[0]), suit = code[1];
  return suit === "z" ? `${WIND[n - 1]} ${code}` : `${NUMERALS[n - 1]}${NAMES[suit]} ${code}`;
};

/** One tile drawn as SVG (30 × 40), e.g. drawTile("5p"); `down`: face down (a concealed kong's
outer tiles, as the table shows them). */
export function drawTile(code, down = false) {
  const n = Number(code[0]), suit = code[1];
  return svg("svg", { viewBox: "0 0 30 40", class: "tile-face", role: "img", "aria-label": label(code) },
    svg("rect", { x: 0.75, y: 1.75, width: 28.5, height: 37.5, rx: 4, class: "tile-back" }),
    svg("rect", { x: 0.75, y: 0.75, width: 28.5, height: 36.5, rx: 4, class: down ? "tile-down" : "tile-front" }),
    svg("title", {}, label(code)),
    ...(down ? [] : face(suit, n)));
}

/** A group's tiles drawn: a concealed kong with its outer two face down. */
const drawGroup = (kind, tiles) => tiles.map((code, i) => drawTile(code, kind === "concealed" && (i === 0 || i === 3)));

const order = (code) => SUITS.indexOf(code[1]) * 9 + Number(code[0]);
const byTile = (a, b) => order(a) - order(b);

/** Tiles in the compact notation, sorted: ["5m", "1m", "5p"] → "15m5p". */
export function compact(codes) {
  let out = "", suit = "";
  for (const code of [...codes].sort(byTile)) {
    if (suit && code[1] !== suit) out += suit;
    out += code[0];
    suit = code[1];
  }
  return out + suit;
}

/** The groups of a notation: [{ kind: "pung" | "kong" | "concealed" | null, tiles: [...] }]. */
export function parse(notation) {
  const groups = [];
  for (const [, open, body, close, loose] of String(notation).matchAll(/([[(])([^\])]*)([\])])|([^[(\s]+)/g)) {
    const tiles = [...(body ?? loose).matchAll(/(\d+)([mpsz])/g)].flatMap(([, digits, suit]) => [...digits].map((d) => d + suit));
    if (!tiles.length) continue;
    if (loose) groups.push({ kind: null, tiles });
    else groups.push({ kind: open === "(" && close === ")" ? "concealed" : tiles.length === 4 ? "kong" : "pung", tiles });
  }
  return groups;
}

/** A hand's groups drawn small, as the notation or a reading writes them. */
export function drawHand(notation) {
  linkStyles();
  const box = document.createElement("div");
  box.className = "tiles-row";
  for (const group of parse(notation)) {
    const span = document.createElement("span");
    span.className = `tiles-group${group.kind ? ` tiles-${group.kind}` : ""}`;
    span.append(...drawGroup(group.kind, group.tiles));
    box.append(span);
  }
  return box;
}

/** The keyboard: see the top of this file. `value`: a hand to start from. */
export function tileKeyboard({ strings = {}, onChange = () => {}, value = "" } = {}) {
  linkStyles();
  const words = { ...WORDS, ...strings };
  const say = (key, params = {}) => words[key].replace(/\{(\w+)\}/g, (_, k) => params[k] ?? "");
  const state = { melds: [], loose: [], mode: null, note: "" };
  const element = document.createElement("div");
  element.className = "tiles-kb";

  const count = (code) => state.loose.filter((c) => c === code).length
    + state.melds.filter((m) => m.tile === code).reduce((sum, m) => sum + SIZE[m.kind], 0);
  const kongs = () => state.melds.filter((m) => m.kind !== "pung").length;
  const total = () => state.loose.length + state.melds.reduce((sum, m) => sum + SIZE[m.kind], 0);
  const needed = () => 14 + kongs();
  const fits = (code, kind) => {
    const size = kind ? SIZE[kind] : 1;
    const room = needed() + (kind && kind !== "pung" ? 1 : 0) - total();
    return count(code) + size <= 4 && size <= room && (!kind || state.melds.length < 4);
  };
  const notation = () => [
    ...state.melds.map((m) => (m.kind === "concealed" ? `(${compact(Array(4).fill(m.tile))})` : `[${compact(Array(SIZE[m.kind]).fill(m.tile))}]`)),
    ...(state.loose.length ? [compact(state.loose)] : []),
  ].join(" ");

  function button(attrs, onclick, ...children) {
    const node = document.createElement("button");
    node.type = "button";
    for (const [key, v] of Object.entries(attrs)) if (v !== false && v != null) node.setAttribute(key, v === true ? "" : v);
    node.addEventListener("click", onclick);
    node.append(...children);
    return node;
  }

  function changed() {
    draw();
    onChange({ notation: notation(), count: total(), needed: needed(), complete: total() === needed() });
  }

  function tap(code) {
    const kind = state.mode;
    if (!fits(code, kind)) { state.note = say("full"); draw(); return; }
    if (kind) state.melds.push({ kind, tile: code });
    else state.loose.push(code);
    state.mode = null;
    state.note = "";
    changed();
  }

  function draw() {
    const hand = document.createElement("div");
    hand.className = "tiles-hand";
    hand.setAttribute("aria-label", say("hand"));
    state.melds.forEach((m, i) => {
      hand.append(button({ class: `tiles-group tiles-${m.kind}`, "data-meld": i, "aria-label": `${m.kind} ${m.tile}` },
        () => { state.melds.splice(i, 1); changed(); }, ...drawGroup(m.kind, Array(SIZE[m.kind]).fill(m.tile))));
    });
    const loose = document.createElement("span");
    loose.className = "tiles-group";
    [...state.loose].sort(byTile).forEach((code) => loose.append(button({ class: "tile", "data-held": code },
      () => { state.loose.splice(state.loose.indexOf(code), 1); changed(); }, drawTile(code))));
    hand.append(loose);

    const status = document.createElement("p");
    status.className = "tiles-status";
    status.setAttribute("aria-live", "polite");
    status.textContent = `${say("count", { n: total(), needed: needed() })} · ${state.note || say(state.mode ? "meld" : "pick")}`;

    const modes = document.createElement("div");
    modes.className = "tiles-modes";
    for (const kind of ["pung", "kong", "concealed"]) {
      modes.append(button({ class: "chip", "data-mode": kind, "aria-pressed": String(state.mode === kind) },
        () => { state.mode = state.mode === kind ? null : kind; state.note = ""; draw(); }, say(kind)));
    }
    modes.append(button({ class: "chip", "data-clear": "" }, () => { state.melds = []; state.loose = []; state.mode = null; changed(); }, say("clear")));

    const keys = document.createElement("div");
    keys.className = "tiles-keys";
    for (const suit of SUITS) {
      const row = document.createElement("div");
      row.className = "tiles-keyrow";
      for (const code of TILES.filter((c) => c[1] === suit)) {
        row.append(button({ class: "tile", "data-tile": code, disabled: !fits(code, state.mode) }, () => tap(code), drawTile(code)));
      }
      keys.append(row);
    }
    element.replaceChildren(hand, status, modes, keys);
  }

  function set(text) {
    state.melds = [];
    state.loose = [];
    state.mode = null;
    for (const group of parse(text)) {
      if (group.kind) state.melds.push({ kind: group.kind, tile: group.tiles[0] });
      else state.loose.push(...group.tiles);
    }
    changed();
  }

  if (value) set(value); else draw();
  return { element, set, clear: () => set(""), get notation() { return notation(); } };
}
