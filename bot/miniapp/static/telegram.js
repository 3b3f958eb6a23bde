// The app's ties to Telegram and to the bot's server: the launch data from the URL's hash as
// Telegram passes it (#tgWebAppData=…&tgWebAppThemeParams=…), events to the Telegram client
// (TelegramWebviewProxy.postEvent on mobile, the parent frame on the web, nothing in a
// browser), and the requests to /app/api/ that carry the launch data and the chat's token.
export const hash = new URLSearchParams(location.hash.slice(1));
export const initData = hash.get("tgWebAppData") || "";
const launch = new URLSearchParams(initData);
export const chatToken =
  launch.get("start_param") || hash.get("tgWebAppStartParam") ||
  new URLSearchParams(location.search).get("startapp") || "";

export function postEvent(type, data = {}) {
  const proxy = window.TelegramWebviewProxy;
  if (proxy && proxy.postEvent) proxy.postEvent(type, JSON.stringify(data));
  else if (window.parent !== window) {
    window.parent.postMessage(JSON.stringify({ eventType: type, eventData: data }), "*");
  }
}

export async function api(path, body) {
  const response = await fetch(`/app/api/${path}`, {
    method: body ? "POST" : "GET",
    headers: { "X-Telegram-Init-Data": initData, "X-Jifen-Chat": chatToken, "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw Object.assign(new Error(String(response.status)), { response });
  return response.json();
}
