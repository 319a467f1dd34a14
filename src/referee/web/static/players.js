// The players' page follows the fight by itself: it polls its JSON twin and, when what the players see has
// changed, swaps in the new page without a reload; a tracker that does not answer gets a banner.
"use strict";
(function () {
  let root = document.getElementById("players");
  const api = root.dataset.api;
  async function poll() {
    try {
      const response = await fetch(api, { headers: { "Accept": "application/json" } });
      setBanner(false);
      if (response.ok) {
        const state = await response.json();
        if (String(state.revision) !== root.dataset.revision) {
          const page = await fetch(window.location.pathname, { headers: { "Accept": "text/html" } });
          const fresh = new DOMParser().parseFromString(await page.text(), "text/html").getElementById("players");
          if (fresh) { root.replaceWith(fresh); root = fresh; }
        }
      }
    } catch (e) {
      setBanner(true); // the server stopped or is restarting: keep trying
    }
    setTimeout(poll, 2000);
  }
  function setBanner(down) {
    const box = document.getElementById("banner");
    if (box) box.hidden = !down;
  }
  setTimeout(poll, 2000);
})();
