// What the app's pages draw with: elements, the toast, and the page's words (sent with the
// data in the chat's language: `useWords`).
export const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "html") node.innerHTML = value;  // the server's rendered, escaped HTML
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== false && value != null) node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.filter((c) => c != null));
  return node;
};

let toastTimer;
export function toast(text, bad = false) {
  const node = document.getElementById("toast");
  node.textContent = text;
  node.className = bad ? "bad" : "";
  node.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { node.hidden = true; }, bad ? 5000 : 2500);
}

let words = {};
export function useWords(page) { words = page || {}; }
export const t = (key, params = {}) =>
  (words[key] || key).replace(/\{(\w+)\}/g, (_, k) => params[k] ?? "");
