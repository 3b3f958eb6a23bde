// The balances over a season as an SVG line chart, drawn from the JSON (/chart's points: each
// at its count of hands played); touch or move over it to read every player's balance there.
const NS = "http://www.w3.org/2000/svg";
const COLORS = ["#e8590c", "#1c7ed6", "#2b8a3e", "#ae3ec9", "#f59f00", "#0c8599", "#c2255c", "#5c940d"];
const W = 340, H = 200, PAD = { l: 40, r: 12, t: 8, b: 22 };

// A "nice" step (1, 2 or 5 times a power of ten) for about `count` intervals over `span`.
export function niceStep(span, count) {
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= raw) || raw;
}

// The y axis' ticks: multiples of a nice step from below the lowest value to above the highest,
// 0 among them; the x axis': hand numbers (whole, a nice step apart, the last one labeled).
export function yTicks(lo, hi, count = 4) {
  const step = niceStep(hi - lo || 1, count);
  const ticks = [];
  for (let v = Math.floor(lo / step) * step; v <= Math.ceil(hi / step) * step + step / 2; v += step) ticks.push(+v.toPrecision(12));
  return ticks;
}

export function xTicks(played, count = 5) {
  const step = Math.max(1, Math.round(niceStep(played || 1, count)));
  const ticks = [];
  for (let n = step; n < played; n += step) if (played - n >= step * 0.4) ticks.push(n);
  return [...ticks, played];
}

const label = (v) => (Math.abs(v) >= 10000 ? `${+(v / 1000).toFixed(1)}k` : String(+v.toFixed(2)));

const svg = (tag, attrs) => {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
};

export function drawChart(series) {
  const values = series.lines.flatMap((l) => l.values);
  const ticks = yTicks(Math.min(0, ...values), Math.max(0, ...values));
  const lo = ticks[0], hi = ticks.at(-1);
  const span = hi - lo || 1, n = series.hands.length, played = series.hands.at(-1) || 1;
  const x = (i) => PAD.l + (series.hands[i] * (W - PAD.l - PAD.r)) / played;
  const y = (v) => PAD.t + ((hi - v) * (H - PAD.t - PAD.b)) / span;
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img" });
  for (const v of ticks) {
    root.append(svg("line", { x1: PAD.l, x2: W - PAD.r, y1: y(v), y2: y(v), stroke: "currentColor", "stroke-opacity": v === 0 ? 0.45 : 0.12 }));
    const text = svg("text", { x: PAD.l - 5, y: y(v) + 4, "text-anchor": "end", class: "y" });
    text.textContent = label(v);
    root.append(text);
  }
  for (const hand of xTicks(series.hands.at(-1) || 0)) {
    const at = PAD.l + (hand * (W - PAD.l - PAD.r)) / played;
    root.append(svg("line", { x1: at, x2: at, y1: H - PAD.b, y2: H - PAD.b + 3, stroke: "currentColor", "stroke-opacity": 0.4 }));
    const text = svg("text", { x: at, y: H - 6, "text-anchor": hand === played ? "end" : "middle", class: "x" });
    text.textContent = `#${hand}`;
    root.append(text);
  }
  series.lines.forEach((line, k) => {
    const d = line.values.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join("");
    root.append(svg("path", { d, fill: "none", stroke: COLORS[k % COLORS.length], "stroke-width": 2, "stroke-linejoin": "round" }));
  });
  const cursor = svg("line", { y1: PAD.t, y2: H - PAD.b, stroke: "currentColor", "stroke-opacity": 0.5, visibility: "hidden" });
  root.append(cursor);
  const legend = document.createElement("div");
  legend.className = "legend";
  const showAt = (i) => {
    legend.replaceChildren(...series.lines.map((line, k) => {
      const item = document.createElement("span");
      const dot = document.createElement("i");
      dot.style.background = COLORS[k % COLORS.length];
      const v = i == null ? line.values.at(-1) : line.values[i];
      item.append(dot, `${line.name} ${v > 0 ? "+" : ""}${+v.toFixed(2)}`);
      return item;
    }));
    if (i != null) legend.prepend(`#${series.hands[i]} `);
  };
  const move = (event) => {
    const box = root.getBoundingClientRect();
    const px = ((event.clientX - box.left) / box.width) * W;
    const at = ((px - PAD.l) / (W - PAD.l - PAD.r)) * played;
    let i = 0;  // the point nearest to the pointer
    for (let k = 1; k < n; k++) if (Math.abs(series.hands[k] - at) < Math.abs(series.hands[i] - at)) i = k;
    cursor.setAttribute("x1", x(i));
    cursor.setAttribute("x2", x(i));
    cursor.setAttribute("visibility", "visible");
    showAt(i);
  };
  root.addEventListener("pointermove", move);
  root.addEventListener("pointerdown", move);
  root.addEventListener("pointerleave", () => { cursor.setAttribute("visibility", "hidden"); showAt(null); });
  showAt(null);
  const box = document.createElement("div");
  box.append(root, legend);
  return box;
}
