// The players' page follows the fight by itself: the server pushes the digest of what the players see
// (server-sent events; without them the page polls its JSON twin) and, when it changed, the page swaps in the
// new view without a reload. A tracker that does not answer gets a banner until it answers again.
"use strict";
(function () {
  let root = document.getElementById("players");
  const api = root.dataset.api;

  async function follow(revision) {
    if (String(revision) === root.dataset.revision) return;
    const page = await fetch(window.location.pathname, { headers: { "Accept": "text/html" } });
    const fresh = new DOMParser().parseFromString(await page.text(), "text/html").getElementById("players");
    if (fresh) { root.replaceWith(fresh); root = fresh; }
  }

  function setBanner(down) {
    const box = document.getElementById("banner");
    if (box) box.hidden = !down;
  }

  async function poll() {
    try {
      const response = await fetch(api, { headers: { "Accept": "application/json" } });
      setBanner(false);
      if (response.ok) await follow((await response.json()).revision);
    } catch (e) {
      setBanner(true); // the server stopped or is restarting: keep trying
    }
    setTimeout(poll, 2000);
  }

  if (window.EventSource) {
    const stream = new EventSource(api + "/stream");
    stream.onopen = () => setBanner(false);
    stream.onmessage = (ev) => { setBanner(false); follow(JSON.parse(ev.data).revision).catch(() => setBanner(true)); };
    stream.onerror = () => { if (stream.readyState !== EventSource.OPEN) setBanner(true); };
  } else {
    setTimeout(poll, 2000);
  }
})();
