// How an open page follows its chat. First a stream: /app/api/events (server-sent events) says
// the chat's mark at once and whenever it moves; a stream that ends (its worker stopping, its
// time up) is opened again by the browser, maybe on another worker. Where the stream cannot be
// opened (refused, too many, no EventSource), is told it gave way (`evicted`) or stays down,
// the page asks /app/api/live every POLL ms instead (204: nothing new; 429 or no answer: offline,
// and asked again later and later) and tries the stream again after STREAM_AGAIN ms. Nothing
// while the page is hidden. `moved()` fetches the data again (it updates `mark()`).
const POLL = 1500, POLL_MAX = 30000, STREAM_AGAIN = 60000, DOWN_MAX = 10000;

export function follow({ initData, chatToken, mark, moved, offline }) {
  const live = { timer: null, delay: POLL, polling: false, busy: false, wanted: "", source: null, down: null, streamAt: 0 };

  // A new mark from the stream or a poll: the data fetched again, once at a time.
  async function heard(v) {
    live.wanted = v;
    if (live.busy) return;
    live.busy = true;
    try {
      while (live.wanted && live.wanted !== mark()) {
        const asked = live.wanted;
        await moved();
        if (live.wanted === asked) break;  // the data came with the newest mark there is
      }
    } finally {
      live.busy = false;
    }
  }

  function open() {
    const query = new URLSearchParams({ chat: chatToken, init: initData });
    const source = live.source = new EventSource(`/app/api/events?${query}`);
    source.addEventListener("open", () => { clearTimeout(live.down); live.down = null; offline(false); });
    source.addEventListener("mark", (event) => { heard(event.data).catch(fallBack); });  // polls say why
    source.addEventListener("evicted", () => fallBack());  // the member's newer pages stream
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED) fallBack();  // refused
      else if (live.down === null) live.down = setTimeout(fallBack, DOWN_MAX);  // coming back
    });
  }

  function close() {
    clearTimeout(live.down);
    live.down = null;
    if (live.source) live.source.close();
    live.source = null;
  }

  function fallBack() {
    close();
    live.streamAt = Date.now() + STREAM_AGAIN;
    schedule(0);
  }

  async function poll() {
    live.timer = null;
    if (document.hidden || live.source || live.polling) return;  // hidden: again when shown
    if (window.EventSource && Date.now() >= live.streamAt) { open(); return; }
    live.polling = true;
    try {
      const response = await fetch(`/app/api/live?v=${encodeURIComponent(mark() || "")}`, {
        headers: { "X-Telegram-Init-Data": initData, "X-Jifen-Chat": chatToken },
      });
      if (response.status === 200) await heard((await response.json()).v);
      else if (response.status !== 204) throw Object.assign(new Error(String(response.status)), { response });
      offline(false);
      live.delay = POLL;
    } catch (error) {
      offline(true);
      const after = Number(error.response?.headers.get("Retry-After")) * 1000 || 0;
      live.delay = Math.min(POLL_MAX, Math.max(after, live.delay * 2));
    }
    live.polling = false;
    schedule();
  }

  function schedule(delay = live.delay) {
    clearTimeout(live.timer);
    live.timer = setTimeout(poll, delay);
  }

  document.addEventListener("visibilitychange", () => {
    if (document.hidden) close();
    else schedule(0);
  });
  schedule(0);
}
