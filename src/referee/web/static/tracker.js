// The referee's fight page. Every change posts JSON to the API with the version and revision the page shows
// (the server refuses a change made on anything else with 409, even the same event count reached by another
// history). On success the page swaps in the new state without a reload (focus and scroll stay); it also
// follows changes made elsewhere (another tab, a bot) by itself, and says so when the tracker stops answering.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  let meta = JSON.parse($("meta").textContent);
  const api = "/api/encounters/" + meta.id;
  let busy = false;
  let keptDice = null; // the dice a refused try rolled: the retry uses them (no re-roll fishing)

  function showMessage(text) {
    const box = $("message");
    box.textContent = text;
    box.hidden = false;
  }

  function showNotice(text) {
    const box = $("notice");
    if (!box) return;
    box.textContent = text || "";
    box.hidden = !text;
  }

  function banner(down) {
    const box = $("banner");
    if (box) box.hidden = !down;
  }

  // after a change or a swap the tracker did not answer: ask it every 1.5 s until it does (then the banner
  // goes, and a change made meanwhile elsewhere is followed)
  let probing = null;
  function probe() {
    if (probing !== null) return;
    probing = setTimeout(async () => {
      probing = null;
      try {
        const response = await fetch(api + "/version", { headers: { "Accept": "application/json" } });
        if (!response.ok) throw new Error("error " + response.status);
        banner(false);
        follow(await response.json());
      } catch (e) {
        banner(true);
        probe();
      }
    }, 1500);
  }

  async function post(path, body) {
    let response;
    try {
      response = await fetch(api + path, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": meta.csrf || "" },
        credentials: "same-origin",
        body: JSON.stringify(body),
      });
    } catch (e) {
      banner(true);
      probe();
      throw new Error("The tracker is not answering (is `referee serve` still running?); nothing was stored.");
    }
    banner(false);
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    if (!response.ok) {
      const error = new Error((data && data.error) || ("error " + response.status));
      error.kept = data && data.kept_dice;
      error.status = response.status;
      throw error;
    }
    return data;
  }

  // --- swapping in the new state: the server renders the page, the script keeps focus and scroll ----------
  // What had the focus, found again in the new page: by id, or by its row and class (the hit points being
  // typed come back to that row's hit points button)
  function focusKey(el) {
    if (!el || el === document.body) return null;
    if (el.id) return { id: el.id };
    const row = el.closest && el.closest("#combatants tr[data-name]");
    if (!row) return null;
    const cls = el.classList.contains("hp-input") ? "hp-edit" : el.classList[0];
    return cls ? { row: row.dataset.name, cls: cls } : null;
  }

  function findFocus(key) {
    if (!key) return null;
    if (key.id) return $(key.id);
    return document.querySelector(`#combatants tr[data-name="${CSS.escape(key.row)}"] .${CSS.escape(key.cls)}`);
  }

  // opts.keepDice: the dice typed so far stay (a change made elsewhere, a refused stale try);
  // opts.message(): said after the swap (it may read the new meta); opts.close: the row whose menu the change came from closes
  let refreshes = 0; // requests for the page made so far: only the latest one's answer is swapped in
  async function refresh(notice, opts) {
    opts = opts || {};
    const focus = focusKey(document.activeElement);
    const folds = Array.from(document.querySelectorAll("#fight details[id]")).map((d) => [d.id, d.open]);
    const openMenus = Array.from(document.querySelectorAll("#combatants details.row-menu[open]"))
      .map((d) => d.closest("tr").dataset.name).filter((name) => name !== opts.close);
    const typed = $("dice") ? $("dice").value : "";
    const diceValue = keptDice !== null ? keptDice : (opts.keepDice ? typed : "");
    let html;
    const mine = ++refreshes;
    try {
      const response = await fetch(window.location.pathname, { credentials: "same-origin", headers: { "Accept": "text/html" } });
      if (!response.ok) throw new Error("error " + response.status);
      html = await response.text();
    } catch (e) {
      if (mine !== refreshes) return true; // a later refresh answers for this one
      banner(true);
      probe();
      return false;
    }
    if (mine !== refreshes) return true; // answers out of order: the later request's page is the one shown
    banner(false);
    const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("fight");
    if (!fresh) return false;
    const scroll = window.scrollY;
    // (the new page comes with the dice its preselected action asks for, and the odds box keeps its height
    // until the odds come: nothing jumps in between)
    $("fight").replaceWith(fresh);
    meta = JSON.parse($("meta").textContent);
    bind();
    for (const [id, open] of folds) if ($(id)) $(id).open = open;  // the log, the tools, the options
    for (const name of openMenus) {
      const row = document.querySelector(`#combatants tr[data-name="${CSS.escape(name)}"] details.row-menu`);
      if (row) row.open = true;
    }
    if ($("dice")) $("dice").value = diceValue;
    showNotice(notice);
    if (opts.message) showMessage(opts.message());
    window.scrollTo(0, scroll);
    const again = findFocus(focus);
    if (again) again.focus({ preventScroll: true });
    return true;
  }

  // a change: posted with the version and revision this page shows; `from`: the row whose menu it came from;
  // `keepDice`: the dice field keeps what was typed (a change that took no dice from it)
  async function step(path, body, from, keepDice) {
    if (busy) return;
    busy = true;
    document.body.classList.add("busy");
    try {
      const state = await post(path, Object.assign({ version: meta.version, revision: meta.revision }, body));
      keptDice = null;
      await refresh(state && state.notice, { close: from, keepDice: keepDice });
    } catch (err) {
      if (err.status === 409 && /this page shows version/.test(err.message)) {
        // another tab (or a bot) acted first: nothing of this try was stored; show the fight as it is now and
        // keep the dice typed for the retry
        await refresh(null, {
          keepDice: true,
          message: () => "Another tab changed the fight first, so this try was not stored. The page now shows " +
            "the fight as it is (version " + meta.version + "); check it and try again. (" + err.message + ")",
        });
      } else if (err.status === 403 && /expired/.test(err.message)) {
        // the referee's link was opened again in this browser: a new session, so this page's form token is
        // old. Nothing was stored; the page fetched again carries the new one
        await refresh(null, {
          keepDice: true,
          message: () => "This browser's session was renewed (the referee's link was opened again), so this " +
            "try was not stored. The page is up to date now; try again.",
        });
      } else if (err.kept) {
        keptDice = err.kept;
        if ($("dice")) $("dice").value = err.kept;
        showMessage(err.message + " — the dice rolled for this try are kept in the field (clear them to roll anew).");
      } else {
        showMessage(err.message);
      }
    } finally {
      busy = false;
      document.body.classList.remove("busy");
      if (pushed && pushed.revision > meta.revision) follow(pushed); // a change elsewhere came meanwhile
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
    if (!box) return;
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
      ? "This action asks for: " + asked.map((d, i) => "d" + d.sides + " " + d.purpose + (i > 0 && /damage/.test(d.purpose) ? " if it hits" : "")).join(" · ")
      : "";
  }

  function refreshOdds() {
    clearTimeout(oddsTimer);
    oddsTimer = setTimeout(async () => {
      const box = $("odds");
      if (!box) return;
      let action;
      // (the dice asked of the page before are dropped when this action asks for none that can be said)
      try { action = buildAction(); } catch (err) { box.textContent = "odds: " + err.message; renderDice([]); return; }
      if (!kindFields(action.kind).includes("target")) { box.textContent = "odds: only for attacks"; renderDice([]); return; }
      if (!action.target) { box.textContent = "odds: choose a target"; renderDice([]); return; }
      try {
        const result = await post("/odds", { action: action });
        renderOdds(result);
        renderDice(result.dice_asked);
      }
      catch (err) { box.textContent = "odds: " + err.message; renderDice([]); }
    }, 150);
  }

  function resolveMain() {
    if ($("act")) return actNow();
    for (const id of ["begin", "round", "end-round"]) if ($(id)) return $(id).click();
  }

  function actNow() {
    let action;
    try { action = buildAction(); } catch (err) { showMessage(err.message); return; }
    step("/actions", { action: action, dice: dice() });
  }

  // a table action; `el`: the button it came from (its row's menu closes once the change is stored). Only a
  // latecomer's hit dice and a free roll take the dice field; any other table action leaves the dice typed
  // for the next step where they are
  const TABLE_DICE = ["add_combatant", "roll"];
  function table(action, el) {
    const row = el && el.closest("#combatants tr[data-name]");
    const body = { action: action };
    const usesDice = TABLE_DICE.includes(action.kind);
    if (usesDice) body.dice = dice();
    step("/actions", body, row ? row.dataset.name : undefined, !usesDice);
  }

  // --- binding the page (again after every swap) ----------------------------------------------------
  function bind() {
    const form = $("action-form");
    if (form) {
      fillWeapons();
      $("actor").addEventListener("change", fillWeapons);
      form.addEventListener("change", refreshOdds);
      form.addEventListener("input", refreshOdds);
      // the preselected target and weapon are the engine's own choice (the default tactics)
      const pick = meta.suggested;
      if (pick && pick.actor === $("actor").value) {
        if (pick.target) $("target").value = pick.target;
        if (pick.weapon && Array.from($("weapon").options).some((o) => o.value === pick.weapon)) $("weapon").value = pick.weapon;
      }
      refreshOdds();
    }
    on("begin", () => {
      const sides = Array.from(document.querySelectorAll(".surprise-side:checked")).map((b) => b.value);
      const body = { step: "begin", dice: dice() };
      if (sides.length) body.surprise = { sides: sides, check: $("surprise-check").value };
      step("/steps", body);
    });
    on("round", () => step("/steps", { step: "round", dice: dice() }));
    on("end-round", () => {
      // ending a round before everyone acted is the referee's call, never a slip of the key
      if (meta.needs === "action" && !window.confirm("Not everyone has acted: " + meta.current + " is to act. End the round now?")) return;
      step("/steps", { step: "end_round", dice: dice() });
    });
    on("act", actNow);
    on("engine", () => step("/engine", { until: "actor", dice: dice() }));
    on("run-foes", () => step("/engine", { until: "players", dice: dice() }));
    on("undo", () => step("/undo", {}));
    on("redo", () => step("/redo", {}));
    on("clear-dice", () => { keptDice = null; if ($("dice")) { $("dice").value = ""; $("dice").focus(); } });
    const field = $("dice");
    if (field) field.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") { ev.preventDefault(); resolveMain(); }
    });
    for (const button of document.querySelectorAll("button.back")) {
      button.addEventListener("click", () => {
        if (window.confirm("Undo line " + button.dataset.keep + " and everything after it?")) {
          step("/undo", { keep: parseInt(button.dataset.keep, 10) });
        }
      });
    }
    // hit points by hand: click them, type -3 or +5, Enter
    for (const button of document.querySelectorAll("button.hp-edit")) {
      button.addEventListener("click", () => {
        const input = document.createElement("input");
        input.className = "hp-input";
        input.placeholder = "-3 or +5";
        input.size = 7;
        input.setAttribute("aria-label", "change " + button.dataset.name + "'s hit points");
        input.addEventListener("keydown", (ev) => {
          if (ev.key === "Escape") { input.replaceWith(button); return; }
          if (ev.key !== "Enter") return;
          ev.preventDefault();
          const text = input.value.trim();
          if (!/^[+-]\d+$/.test(text)) { showMessage("type -3 to harm or +5 to heal"); return; }
          table({ kind: "adjust_hp", target: button.dataset.name, amount: parseInt(text, 10), reason: "referee" });
        });
        button.replaceWith(input);
        input.focus();
      });
    }
    for (const button of document.querySelectorAll("button.leave")) {
      button.addEventListener("click", () => table({ kind: "remove_combatant", target: button.dataset.name, status: button.dataset.status }, button));
    }
    for (const button of document.querySelectorAll("button.visibility")) {
      button.addEventListener("click", () => table({ kind: button.dataset.kind, target: button.dataset.name }, button));
    }
    for (const button of document.querySelectorAll("button.uncond")) {
      button.addEventListener("click", () => table(button.dataset.own === "1"
        ? { kind: "unmark", target: button.dataset.name, name: button.dataset.condition }
        : { kind: "remove_condition", actor: button.dataset.name, condition: button.dataset.condition }));
    }
    for (const button of document.querySelectorAll("button.cond-apply")) {
      button.addEventListener("click", () => {
        const box = button.closest(".cond-pick");
        const chosen = box.querySelector(".cond-name").value;
        const own = box.querySelector(".cond-own").value.trim();
        const roundsText = box.querySelector(".cond-rounds").value;
        const rounds = roundsText ? parseInt(roundsText, 10) : null;
        const by = box.querySelector(".cond-by");
        const partner = by && !by.hidden ? by.value : "";
        if (by && !by.hidden && !partner) { showMessage("choose who " + button.dataset.name + " is " + chosen + " with"); return; }
        const put = { kind: "apply_condition", actor: button.dataset.name, condition: chosen, rounds: rounds };
        if (partner) put.by = partner;
        if (chosen) table(put, button);
        else if (own) table({ kind: "mark", target: button.dataset.name, name: own, rounds: rounds }, button);
        else showMessage("name your own condition");
      });
    }
    for (const button of document.querySelectorAll("button.note-add")) {
      button.addEventListener("click", () => {
        const text = button.parentElement.querySelector(".note-text").value;
        table({ kind: "note", target: button.dataset.name, text: text }, button);
      });
    }
    // one row menu open at a time (on a phone it covers the rows below it)
    for (const menu of document.querySelectorAll("details.row-menu")) {
      menu.addEventListener("toggle", () => {
        if (!menu.open) return;
        for (const other of document.querySelectorAll("details.row-menu[open]")) if (other !== menu) other.open = false;
      });
    }
    // the picker says what the chosen condition means, its rule, and how long it lasts
    for (const select of document.querySelectorAll("select.cond-name")) {
      const box = select.closest(".cond-pick");
      const say = () => {
        const option = select.selectedOptions[0];
        const rule = option && option.dataset.rule && !option.dataset.meaning.includes(option.dataset.rule)
          ? " [" + option.dataset.rule + "]" : "";
        box.querySelector(".cond-meaning").textContent = option
          ? option.dataset.meaning + rule + "; lasts the rounds given (blank: until taken off)" : "";
        box.querySelector(".cond-own").hidden = Boolean(select.value);
        // a grapple ties two: the other grappler is asked for (MOD-COND-GRAPPLED-2)
        box.querySelector(".cond-by").hidden = !(option && option.dataset.partner === "by");
      };
      select.addEventListener("change", say);
      say();
    }
    // Enter in a small field presses its own button (a note, a free roll, a condition)
    for (const input of document.querySelectorAll(".note-text, #fight-note, #roll-expr, #roll-reason, .cond-own, .cond-rounds")) {
      input.addEventListener("keydown", (ev) => {
        if (ev.key !== "Enter") return;
        ev.preventDefault();
        const button = input.parentElement.querySelector("button");
        if (button) button.click();
      });
    }
    on("note-fight", () => table({ kind: "note", text: $("fight-note").value }));
    on("roll", () => table({ kind: "roll", dice: $("roll-expr").value.trim() || "d20", reason: $("roll-reason").value.trim() }));
    // a monster picked from the bestiary: its stat line, and its fields in the form's empty fields' places
    // (what it brings unless typed over)
    const picked = $("add-monster");
    if (picked && $("bestiary-data")) {
      const bestiary = JSON.parse($("bestiary-data").textContent);
      const places = { "add-name": "name", "add-hd": "hit_dice", "add-ac": "ac", "add-weapons": "weapons" };
      const plain = {};
      for (const id of Object.keys(places)) plain[id] = $(id).placeholder;
      const show = () => {
        const monster = bestiary[picked.value.trim().toLowerCase()];
        $("add-monster-stat").textContent = monster ? monster.name + ": " + monster.stat : "";
        for (const [id, key] of Object.entries(places)) $(id).placeholder = monster ? monster[key] : plain[id];
      };
      picked.addEventListener("input", show);
      show();
    }
    on("add-combatant", () => {
      const combatant = {};
      if ($("add-name").value.trim() || !$("add-monster").value.trim()) combatant.name = $("add-name").value.trim();
      if ($("add-monster").value.trim()) combatant.monster = $("add-monster").value.trim();  // its fields, the form's override
      if ($("add-stat").value.trim()) combatant.stat_block = $("add-stat").value.trim();  // as a module prints it
      if ($("add-hd").value.trim()) combatant.hit_dice = $("add-hd").value.trim();
      if ($("add-hp").value) combatant.hp = parseInt($("add-hp").value, 10);
      if ($("add-ac").value) combatant.ac = parseInt($("add-ac").value, 10);
      const weapons = $("add-weapons").value.split(",").map((w) => w.trim()).filter(Boolean);
      if (weapons.length) combatant.weapons = weapons;
      const extra = $("add-extra").value.trim();
      if (extra) {
        try { Object.assign(combatant, JSON.parse(extra)); } catch (e) { showMessage("the extra fields are not valid JSON"); return; }
      }
      const action = { kind: "add_combatant", side: $("add-side").value, combatant: combatant };
      if ($("add-init").value) action.initiative = parseInt($("add-init").value, 10);
      table(action);
    });
  }

  // a click outside an open row menu closes it (it floats over the rows below)
  document.addEventListener("click", (ev) => {
    const inside = ev.target && ev.target.closest && ev.target.closest("details.row-menu");
    for (const menu of document.querySelectorAll("details.row-menu[open]")) if (menu !== inside) menu.open = false;
  });

  // --- keys: shown on the page and in docs/tracker.md -----------------------------------------------------
  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === "Escape") {  // closes an open row menu (and the hit points being typed: their own handler)
      for (const menu of document.querySelectorAll("details.row-menu[open]")) menu.open = false;
    }
    const tag = (ev.target && ev.target.tagName) || "";
    if (["INPUT", "TEXTAREA", "SELECT"].includes(tag) || (ev.target && ev.target.isContentEditable)) return;
    const key = ev.key.toLowerCase();
    const press = (id) => { if ($(id) && !$(id).disabled) { ev.preventDefault(); $(id).click(); return true; } return false; };
    if (key === "r") { ev.preventDefault(); resolveMain(); }
    else if (key === "u") press("undo");
    else if (key === "y") press("redo");
    else if (key === "n") { if (!press("round")) press("end-round"); }
    else if (key === "e") press("engine");
    else if (key === "f") press("run-foes");
    else if (key === "d" && $("dice")) { ev.preventDefault(); $("dice").focus(); }
  });

  // --- changes made elsewhere (another tab, a bot): the server pushes them (server-sent events) and the page
  // follows (follow.js); a tracker that does not answer gets a banner until it answers again -----------------
  let pushed = null; // the last {version, revision} the server pushed
  let followAgain = null;
  async function follow(now) {
    pushed = now;
    if (!(now.revision > meta.revision) || busy) return; // nothing new, or a step of this page is under way
    clearTimeout(followAgain);
    const swapped = await refresh("The fight changed in another tab (now version " + now.version + "); this page follows it.", { keepDice: true });
    if (!swapped) followAgain = setTimeout(() => follow(pushed), 1500); // the stream says a revision only once
    else if (pushed.revision > meta.revision) follow(pushed); // a change landed while the page was fetched
  }

  window.followFight(api + "/stream", {
    message: follow,
    up: () => banner(false),
    down: () => banner(true),
    poll: async () => { // the stream is down: ask for the version itself
      const response = await fetch(api + "/version", { headers: { "Accept": "application/json" } });
      if (!response.ok) throw new Error("error " + response.status);
      banner(false);
      await follow(await response.json());
    },
  });

  // on a phone the log starts folded away (the next step comes first)
  if (window.matchMedia && window.matchMedia("(max-width: 600px)").matches && $("log-fold")) $("log-fold").open = false;
  bind();
})();
