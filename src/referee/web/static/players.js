// The players' page follows the fight by itself: the server pushes the digest of what the players see
// (server-sent events; without them the page polls its JSON twin) and, when it changed, the page swaps in the
// new view without a reload (a swap that fails is tried again until it works). A tracker that does not answer
// gets a banner until it answers again; a stream the server ends (every minute) and the browser reopens at
// once says nothing.
"use strict";
(function () {
  let root = document.getElementById("players");
  const api = root.dataset.api;
  const QUIET_MS = 2500; // a stream down this long (not a reconnection) shows the banner
  let wanted = null;
  let retry = null;
  let down = null;

  function setBanner(on) {
    const box = document.getElementById("banner");
    if (box) box.hidden = !on;
  }

  function answering() {
    clearTimeout(down);
    down = null;
    setBanner(false);
  }

  function notAnswering(now) {
    if (now) { setBanner(true); return; }
    if (down === null) down = setTimeout(() => setBanner(true), QUIET_MS);
  }

  // Answers may come back out of order (a reveal's page after the hide's): only the latest request's page
  // is shown, and a page older than the revision pushed last is fetched again, so a combatant hidden again
  // never stays on the players' screen.
  let asked = 0;
  async function follow(revision) {
    wanted = String(revision);
    if (wanted === root.dataset.revision) return;
    clearTimeout(retry);
    const mine = ++asked;
    try {
      const page = await fetch(window.location.pathname, { headers: { "Accept": "text/html" } });
      if (!page.ok) throw new Error("error " + page.status);
      const fresh = new DOMParser().parseFromString(await page.text(), "text/html").getElementById("players");
      if (!fresh) throw new Error("not the players' page");
      if (mine !== asked) return; // a later request's page is the one to show
      root.replaceWith(fresh);
      root = fresh;
      answering();
      if (Number(root.dataset.revision) < Number(wanted)) follow(wanted);
    } catch (e) {
      if (mine !== asked) return;
      notAnswering(true);
      retry = setTimeout(() => follow(wanted), 1500); // until it works: the stream says a revision only once
    }
  }

  async function poll() {
    try {
      const response = await fetch(api, { headers: { "Accept": "application/json" } });
      answering();
      if (response.ok) await follow((await response.json()).revision);
    } catch (e) {
      notAnswering(true); // the server stopped or is restarting: keep trying
    }
    setTimeout(poll, 2000);
  }

  if (window.EventSource) {
    const stream = new EventSource(api + "/stream");
    stream.onopen = answering;
    stream.onmessage = (ev) => { answering(); follow(JSON.parse(ev.data).revision); };
    stream.onerror = () => { if (stream.readyState !== EventSource.OPEN) notAnswering(false); };
  } else {
    setTimeout(poll, 2000);
  }
})();
