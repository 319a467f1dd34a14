// The referee's fight page: every button posts JSON to the API with the version and revision the page shows
// (the server refuses a change on anything else with 409, even the same event count reached by another
// history, e.g. another tab undid a step and took a new one); on success the page reloads (the server renders the new state), on error the one-line message is shown.
"use strict";
(function () {
  const meta = JSON.parse(document.getElementById("meta").textContent);
  const api = "/api/encounters/" + meta.id;
  const $ = (id) => document.getElementById(id);

  function showMessage(text) {
    const box = $("message");
    box.textContent = text;
    box.hidden = false;
  }

  async function post(path, body) {
    const response = await fetch(api + path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": meta.csrf || "" },
      credentials: "same-origin",
      body: JSON.stringify(body),
    });
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    if (!response.ok) {
      throw new Error((data && data.error) || ("error " + response.status));
    }
    return data;
  }

  async function step(path, body) {
    document.body.classList.add("busy");
    try {
      await post(path, Object.assign({ version: meta.version, revision: meta.revision }, body));
      window.location.reload();
    } catch (err) {
      showMessage(err.message);
      document.body.classList.remove("busy");
    }
  }

  function dice() {
    const field = $("dice");
    return field ? field.value : "";
  }

  function on(id, handler) {
    const el = $(id);
    if (el) el.addEventListener("click", handler);
  }

  // --- the action form ------------------------------------------------------------------------------
  function kindFields(kind) {
    const found = meta.action_kinds.find((k) => k.kind === kind);
    return found ? found.fields.map((f) => f.name) : [];
  }

  function fillWeapons() {
    const actor = $("actor"), weapon = $("weapon");
    if (!actor || !weapon) return;
    const who = meta.combatants.find((c) => c.name === actor.value);
    weapon.innerHTML = "";
    for (const name of (who ? who.weapons : []).concat(["unarmed"])) {
      const option = document.createElement("option");
      option.textContent = name;
      weapon.appendChild(option);
    }
  }

  function modifier(valueId, reasonId, what) {
    const value = $(valueId).value.trim();
    if (!value || Number(value) === 0) return [];
    const reason = $(reasonId).value.trim();
    if (!reason) throw new Error("give a reason for the " + what + " modifier");
    return [{ value: parseInt(value, 10), reason: reason }];
  }

  function buildAction() {
    const kind = $("kind").value;
    const allowed = kindFields(kind);
    const candidates = {
      actor: $("actor").value,
      target: $("target").value || undefined,
      weapon: $("weapon").value || undefined,
      form: $("form").value || undefined,
      charge: $("charge").checked || undefined,
      distance: $("distance").value ? parseInt($("distance").value, 10) : undefined,
      situation: {
        cover: $("cover").value,
        concealment: $("concealment").value,
        modifiers: modifier("mod-value", "mod-reason", "to-hit"),
        ac_modifiers: modifier("acmod-value", "acmod-reason", "AC"),
        rulings: $("ruling") && $("ruling").value ? [$("ruling").value] : undefined,
      },
    };
    const action = { kind: kind };
    for (const [key, value] of Object.entries(candidates)) {
      if (value !== undefined && allowed.includes(key)) action[key] = value;
    }
    const extra = $("extra").value.trim();
    if (extra) {
      let more;
      try { more = JSON.parse(extra); } catch (e) { throw new Error("the extra fields are not valid JSON"); }
      Object.assign(action, more);
    }
    return action;
  }

  let oddsTimer = null;
  function percent(p) { return (100 * p).toFixed(1) + "%"; }

  function renderOdds(result) {
    const box = $("odds");
    if (!result.available) { box.textContent = "odds: not available in this installation"; return; }
    const o = result.odds || {};
    const parts = [];
    if (o.hit !== undefined) parts.push("hit " + percent(o.hit));
    if (o.needed !== undefined && o.needed !== null) parts.push("needs " + o.needed + "+ on the die");
    if (o.crit) parts.push("critical " + percent(o.crit));
    const damage = o.damage_on_hit || o.damage;
    if (damage && typeof damage === "object") {
      const values = Object.keys(damage).map(Number);
      if (values.length) parts.push("damage " + Math.min(...values) + "–" + Math.max(...values));
    }
    if (o.expected_damage !== undefined) parts.push("expected " + Number(o.expected_damage).toFixed(2));
    if (o.drop !== undefined) parts.push("drops the target " + percent(o.drop));
    box.textContent = "odds: " + (parts.join(" · ") || JSON.stringify(o));
  }

  function renderDice(asked) {
    const box = $("dice-asked");
    if (!box) return;
    box.textContent = asked && asked.length
      ? "This action asks for: " + asked.map((d) => "d" + d.sides + " " + d.purpose).join(" · ") + " (damage only if it hits)"
      : "";
  }

  function refreshOdds() {
    clearTimeout(oddsTimer);
    oddsTimer = setTimeout(async () => {
      const box = $("odds");
      let action;
      try { action = buildAction(); } catch (err) { box.textContent = "odds: " + err.message; return; }
      if (!kindFields(action.kind).includes("target")) { box.textContent = "odds: only for attacks"; return; }
      if (!action.target) { box.textContent = "odds: choose a target"; return; }
      try {
        const result = await post("/odds", { action: action });
        renderOdds(result);
        renderDice(result.dice_asked);
      }
      catch (err) { box.textContent = "odds: " + err.message; }
    }, 150);
  }

  const form = $("action-form");
  if (form) {
    fillWeapons();
    $("actor").addEventListener("change", fillWeapons);
    form.addEventListener("change", refreshOdds);
    form.addEventListener("input", refreshOdds);
    const current = meta.combatants.find((c) => c.name === meta.current);
    const enemy = current && meta.combatants.find((c) => c.side !== current.side && c.status === "active");
    if (enemy) $("target").value = enemy.name;
    refreshOdds();
  }

  // --- another tab (or a bot) changed the fight: say so, so nobody acts on a stale page ----------------
  async function watch() {
    try {
      const response = await fetch(api + "/version", { headers: { "Accept": "application/json" } });
      if (response.ok) {
        const now = await response.json();
        if (now.revision !== meta.revision) {
          showMessage("The fight changed in another tab (version " + now.version + "): reload the page.");
          return;
        }
      }
    } catch (e) { /* the server may be restarting: try again */ }
    setTimeout(watch, 3000);
  }
  setTimeout(watch, 3000);

  // --- buttons --------------------------------------------------------------------------------------
  on("begin", () => {
    const sides = Array.from(document.querySelectorAll(".surprise-side:checked")).map((b) => b.value);
    const body = { step: "begin", dice: dice() };
    if (sides.length) body.surprise = { sides: sides, check: $("surprise-check").value };
    step("/steps", body);
  });
  on("round", () => step("/steps", { step: "round", dice: dice() }));
  on("end-round", () => step("/steps", { step: "end_round", dice: dice() }));
  on("act", () => {
    let action;
    try { action = buildAction(); } catch (err) { showMessage(err.message); return; }
    step("/actions", { action: action, dice: dice() });
  });
  on("undo", () => step("/undo", {}));
  on("redo", () => step("/redo", {}));
  for (const button of document.querySelectorAll("button.back")) {
    button.addEventListener("click", () => {
      if (window.confirm("Undo line " + button.dataset.keep + " and everything after it?")) {
        step("/undo", { keep: parseInt(button.dataset.keep, 10) });
      }
    });
  }
})();
