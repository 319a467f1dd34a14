// The players' page follows the fight by itself: the server pushes the digest of what the players see
// (follow.js: server-sent events, the JSON twin polled while they are down) and, when it changed, the page
// swaps in the new view without a reload (a swap that fails is tried again until it works). A tracker that
// does not answer gets a banner until it answers again; a stream the server ends (every minute) and the
// browser reopens at once says nothing.
"use strict";
(function () {
  let root = document.getElementById("players");
  const api = root.dataset.api;
  let wanted = null;
  let retry = null;

  function setBanner(on) {
    const box = document.getElementById("banner");
    if (box) box.hidden = !on;
  }

  const answering = () => setBanner(false);
  const notAnswering = () => setBanner(true);

  // Answers may come back out of order (a reveal's page after the hide's): only the latest request's page
  // is shown, and a page that is not of the digest pushed last is fetched again a moment later (digests have
  // no order), so a combatant hidden again never stays on the players' screen.
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
      if (root.dataset.revision !== wanted) retry = setTimeout(() => follow(wanted), 1500);
    } catch (e) {
      if (mine !== asked) return;
      notAnswering();
      retry = setTimeout(() => follow(wanted), 1500); // until it works: the stream says a revision only once
    }
  }

  window.followFight(api + "/stream", {
    message: (data) => follow(data.revision),
    up: answering,
    down: notAnswering,
    poll: async () => { // the stream is down: ask for the digest itself
      const response = await fetch(api, { headers: { "Accept": "application/json" } });
      if (!response.ok) throw new Error("error " + response.status);
      answering();
      await follow((await response.json()).revision);
    },
  });
})();
