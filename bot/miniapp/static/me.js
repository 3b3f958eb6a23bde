// /me in the Mini App: the member's own record in every group, as the private chat shows it.
// Opened from the private chat with the bot (a web_app button): only the launch data is sent.
const hash = new URLSearchParams(location.hash.slice(1));
const initData = hash.get("tgWebAppData") || "";

function postEvent(type, data = {}) {
  const proxy = window.TelegramWebviewProxy;
  if (proxy && proxy.postEvent) proxy.postEvent(type, JSON.stringify(data));
  else if (window.parent !== window) {
    window.parent.postMessage(JSON.stringify({ eventType: type, eventData: data }), "*");
  }
}

function applyTheme() {
  let theme = {};
  try { theme = JSON.parse(hash.get("tgWebAppThemeParams") || "{}"); } catch { /* none */ }
  const root = document.documentElement;
  for (const [key, value] of Object.entries(theme)) {
    if (/^#[0-9a-f]{3,8}$/i.test(value)) root.style.setProperty(`--tg-theme-${key.replaceAll("_", "-")}`, value);
  }
  if (Object.keys(theme).length) root.classList.add("themed");
}

async function main() {
  applyTheme();
  postEvent("web_app_ready");
  postEvent("web_app_expand");
  const page = document.getElementById("page");
  if (!initData) {
    page.textContent = "Send /me to the bot in a private chat. · 在和机器人的私聊里发送 /me。";
    return;
  }
  try {
    const response = await fetch("/app/api/me", { headers: { "X-Telegram-Init-Data": initData } });
    if (!response.ok) throw new Error(String(response.status));
    const data = await response.json();
    document.documentElement.lang = data.lang === "zh" ? "zh-Hans" : "en";
    const card = document.createElement("div");
    card.className = "card hand me";
    card.innerHTML = data.html;  // the server's rendered, escaped HTML
    page.replaceChildren(card);
  } catch (error) {
    page.textContent = `⚠️ ${error.message}`;
  }
}

main();
