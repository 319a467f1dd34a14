// The players' page follows the fight by itself: it polls its JSON twin and reloads when the fight changed.
"use strict";
(function () {
  const root = document.getElementById("players");
  const api = root.dataset.api;
  const seen = root.dataset.revision;
  async function poll() {
    try {
      const response = await fetch(api, { headers: { "Accept": "application/json" } });
      if (response.ok) {
        const state = await response.json();
        if (String(state.revision) !== seen) { window.location.reload(); return; }
      }
    } catch (e) { /* the server may be restarting: try again */ }
    setTimeout(poll, 2000);
  }
  setTimeout(poll, 2000);
})();
