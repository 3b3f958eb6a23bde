// The balances over a season as an SVG line chart, drawn from the JSON (/chart's points: each
// at its count of hands played); touch or move over it to read every player's balance there.
const NS = "http://www.w3.org/2000/svg";
const COLORS = ["#e8590c", "#1c7ed6", "#2b8a3e", "#ae3ec9", "#f59f00", "#0c8599", "#c2255c", "#5c940d"];
const W = 340, H = 200, PAD = { l: 34, r: 8, t: 8, b: 20 };

const svg = (tag, attrs) => {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
};

export function drawChart(series) {
  const values = series.lines.flatMap((l) => l.values);
  const lo = Math.min(0, ...values), hi = Math.max(0, ...values);
  const span = hi - lo || 1, n = series.hands.length, played = series.hands.at(-1) || 1;
  const x = (i) => PAD.l + (series.hands[i] * (W - PAD.l - PAD.r)) / played;
  const y = (v) => PAD.t + ((hi - v) * (H - PAD.t - PAD.b)) / span;
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img" });
  root.append(svg("line", { x1: PAD.l, x2: W - PAD.r, y1: y(0), y2: y(0), stroke: "currentColor", "stroke-opacity": 0.3 }));
  for (const [v, dy] of [[hi, 10], [lo, -2]]) {
    const label = svg("text", { x: PAD.l - 4, y: y(v) + dy, "text-anchor": "end" });
    label.textContent = String(Math.round(v));
    root.append(label);
  }
  const last = svg("text", { x: W - PAD.r, y: H - 4, "text-anchor": "end" });
  last.textContent = `#${series.hands.at(-1)}`;
  root.append(last);
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
