// The play page of `machiavelli serve`: a new-game form, then the game. Every rule is the server's
// (the engine's): the page only shows the view it gets back and sends the cards selected.
(function () {
  "use strict";
  const C = window.MachCards;
  const $ = (id) => document.getElementById(id);
  const body = document.body;
  const params = new URLSearchParams(location.search);
  let options = null;
  let view = null;        // the last view of the game from the server
  let selected = [];      // indices into the hand shown (copies of a card are separate indices)
  let focusIdx = 0;
  let busy = false;
  let runToken = 0;       // bumps when a game starts: an old opponent loop stops

  // the pause between opponent moves: the server's default, or ?pace=MS; the select changes it at any time
  const paceStart = /^\d{1,5}$/.test(params.get("pace") || "") ? params.get("pace") : String(body.dataset.pace);
  if (![...$("pace").options].some((o) => o.value === paceStart)) {
    $("pace").appendChild(new Option(paceStart + " ms", paceStart));
  }
  $("pace").value = paceStart;
  function pace() { return Math.max(0, Number($("pace").value) || 0); }
  function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

  async function api(method, path, data) {
    const init = { method: method, headers: {} };
    if (method === "POST") { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(data || {}); }
    const res = await fetch(path, init);
    let out = null;
    try { out = await res.json(); } catch (e) { out = { error: "the server answered " + res.status }; }
    if (!res.ok) { const err = new Error(out.error || ("HTTP " + res.status)); err.status = res.status; throw err; }
    return out;
  }

  function say(text, kind) {
    const m = $("message");
    m.textContent = text || "";
    m.className = text ? (kind || "info") : "";
    body.dataset.message = kind && text ? kind : "";
  }

  function setBusy(b) {
    busy = b;
    body.dataset.busy = b ? "1" : "0";
    updateButtons();
  }

  // ------------------------------------------------------------------ the new-game form
  function seatName(p) { return view.seats[p] + (p === view.seat ? " (you)" : ""); }

  function fillSetup() {
    const rules = $("rules");
    options.presets.forEach((p) => { const o = new Option(p, p); rules.appendChild(o); });
    rules.value = params.get("rules") || localStorage.getItem("mach.rules") || options.default_rules;
    if (!rules.value) { rules.value = options.default_rules; }
    options.players.forEach((n) => $("players").appendChild(new Option(String(n), String(n))));
    $("players").value = params.get("players") || localStorage.getItem("mach.players") || "2";
    $("name").value = params.get("name") || localStorage.getItem("mach.name") || "guest";
    if (params.get("seed")) { $("seed").value = params.get("seed"); }
    $("players").addEventListener("change", buildOpponents);
    buildOpponents();
  }

  function buildOpponents() {
    const n = Number($("players").value);
    const box = $("opponents");
    const before = [...box.querySelectorAll("select")].map((s) => s.value);
    const wanted = (params.get("opponents") || localStorage.getItem("mach.opponents") || "").split(",");
    box.replaceChildren();
    for (let i = 0; i < n - 1; i++) {
      const label = document.createElement("label");
      label.textContent = "Opponent " + (i + 1);
      const sel = document.createElement("select");
      sel.className = "opponent";
      options.opponents.forEach((a) => sel.appendChild(new Option(a, a)));
      const pick = before[i] || wanted[i] || (options.opponents.includes("greedy") ? "greedy" : options.opponents[0]);
      if (options.opponents.includes(pick)) { sel.value = pick; }
      label.appendChild(sel);
      box.appendChild(label);
    }
    const seat = $("seat");
    const old = seat.value;
    seat.replaceChildren();
    for (let p = 0; p < n; p++) { seat.appendChild(new Option(p === 0 ? "first (0)" : String(p), String(p))); }
    const want = old !== "" ? old : (params.get("seat") || "0");
    seat.value = /^\d$/.test(want) && Number(want) < n ? want : "0";
  }

  async function newGame(ev) {
    if (ev) { ev.preventDefault(); }
    const opponents = [...document.querySelectorAll("#opponents select")].map((s) => s.value);
    const req = { rules: $("rules").value, players: Number($("players").value), opponents: opponents,
                  name: $("name").value.trim() || "guest", seat: Number($("seat").value) };
    const seedText = $("seed").value.trim();
    if (seedText) {
      if (!/^\d{1,18}$/.test(seedText)) { say("the seed is a whole number (or empty for a random deal)", "error"); return; }
      req.seed = Number(seedText);
    }
    localStorage.setItem("mach.rules", req.rules);
    localStorage.setItem("mach.players", String(req.players));
    localStorage.setItem("mach.name", req.name);
    localStorage.setItem("mach.opponents", opponents.join(","));
    setBusy(true);
    try {
      const v = await api("POST", "/api/games", req);
      runToken += 1;
      selected = [];
      focusIdx = 0;
      $("hints").replaceChildren();
      say("");
      show(v);
      history.replaceState(null, "", "#" + v.id);
    } catch (e) {
      say(e.message, "error");
    } finally {
      setBusy(false);
    }
    runOpponents();
  }

  function toSetup() {
    runToken += 1;
    view = null;
    body.dataset.phase = "setup";
    body.dataset.turn = "";
    $("game-label").textContent = "";
    history.replaceState(null, "", location.pathname + location.search);
    $("start").focus();
  }

  // ------------------------------------------------------------------ showing a view
  function handCards() { return view ? view.step.hands[view.seat] : []; }

  function show(v) {
    view = v;
    const s = v.step, m = s.move;
    body.dataset.phase = v.done ? "over" : "playing";
    body.dataset.turn = v.your_turn ? "mine" : "theirs";
    body.dataset.moves = String(v.moves);
    $("game-label").textContent = v.rules + " \u00b7 " + v.players + " players \u00b7 seed " + v.seed
      + " \u00b7 you are " + v.seats[v.seat] + " (seat " + v.seat + ")";

    const mv = $("move");
    mv.className = "move " + m.kind;
    mv.dataset.kind = m.kind;
    mv.dataset.player = String(m.player);
    const last = v.log[v.log.length - 1];
    $("move-text").textContent = m.player >= 0 ? (last ? "Turn " + last.turn + ": " : "") + m.text
      : "The deal: " + v.seats.map((x, i) => x + (i === v.seat ? " (you)" : "")).join(", ");
    let status = "stock " + s.stock;
    if (v.done) { status += " \u00b7 game over"; }
    else if (v.your_turn) { status += " \u00b7 your turn: select cards and play them, or draw"; }
    else { status += " \u00b7 " + seatName(v.current) + " to move"; }
    if (v.opening !== "none" && !s.opened[v.seat]) { status += " \u00b7 opening rule: " + v.opening; }
    if (s.scores.some((x) => x)) { status += " \u00b7 match scores " + s.scores.join(" / "); }
    $("status").textContent = status;
    if (v.notes.length) { say(v.notes[v.notes.length - 1], "info"); }

    C.table($("table"), s.melds, m);
    $("table-count").textContent = s.melds.length
      ? "\u00b7 " + s.melds.reduce((a, x) => a + x.length, 0) + " cards in " + s.melds.length + " melds" : "";
    C.broken($("broken"), m);
    $("broken-box").style.display = m.broken.length ? "block" : "none";
    showFinal(s.move_final);
    const help = $("help");
    help.replaceChildren();
    s.help.forEach((c) => help.appendChild(C.card(c, "")));
    $("help-box").style.display = s.help.length ? "block" : "none";

    showOthers();
    showHand();
    showLog();
    showResult();
    updateButtons();
  }

  function showFinal(fin) {
    const box = $("final");
    box.replaceChildren();
    $("final-box").style.display = fin ? "block" : "none";
    if (!fin) { return; }
    $("final-title").textContent = "End of game " + (fin.game + 1) + ": its last table and the hands left";
    fin.melds.forEach((cards) => box.appendChild(C.meld(cards, "", null)));
    fin.hands.forEach((cards, p) => {
      const row = document.createElement("div");
      row.className = "final-hand";
      row.textContent = seatName(p) + ": ";
      cards.forEach((c) => row.appendChild(C.card(c, "")));
      if (!cards.length) { row.appendChild(document.createTextNode("(out)")); }
      box.appendChild(row);
    });
  }

  function showOthers() {
    const s = view.step, m = s.move, box = $("others");
    box.replaceChildren();
    view.seats.forEach((name, p) => {
      if (p === view.seat) { return; }
      const el = document.createElement("div");
      el.className = "other" + (p === view.current && !view.done ? " to-move" : "") + (p === m.player ? " mover" : "");
      el.dataset.player = String(p);
      el.dataset.cards = String(s.hand_sizes[p]);
      el.innerHTML = "<div class='name'></div><div class='sub'></div><div class='backs'></div>";
      el.children[0].textContent = name + " (seat " + p + ")";
      el.children[1].textContent = s.hand_sizes[p] + " card" + (s.hand_sizes[p] === 1 ? "" : "s")
        + (s.opened[p] ? " \u00b7 opened" : "") + (p === view.current && !view.done ? " \u00b7 to move" : "");
      for (let i = 0; i < Math.min(s.hand_sizes[p], 30); i++) {
        const b = document.createElement("span");
        b.className = "card back";
        el.children[2].appendChild(b);
      }
      box.appendChild(el);
    });
  }

  function showHand() {
    const cards = handCards(), m = view.step.move, box = $("hand");
    selected = selected.filter((i) => i < cards.length);
    focusIdx = Math.min(focusIdx, Math.max(0, cards.length - 1));
    const hadFocus = box.contains(document.activeElement);
    box.replaceChildren();
    const drawn = m.player === view.seat ? C.bagOf(m.drawn) : null;
    const tried = m.player === view.seat && m.kind === "failed" ? C.bagOf(m.cards) : null;
    cards.forEach((c, i) => {
      let cls = "";
      if (drawn && C.take(drawn, c)) { cls = "drawn"; } else if (tried && C.take(tried, c)) { cls = "tried"; }
      const el = C.card(c, cls + (selected.includes(i) ? " selected" : ""));
      el.dataset.index = String(i);
      el.tabIndex = i === focusIdx ? 0 : -1;
      el.setAttribute("role", "option");
      el.setAttribute("aria-selected", selected.includes(i) ? "true" : "false");
      el.addEventListener("click", () => { focusIdx = i; toggle(i); });
      box.appendChild(el);
    });
    if (m.player === view.seat && m.kind === "play") { m.left.forEach((c) => box.appendChild(C.card(c, "left"))); }
    $("hand-count").textContent = "\u00b7 " + cards.length + " card" + (cards.length === 1 ? "" : "s")
      + (view.step.opened[view.seat] ? " \u00b7 opened" : "");
    if (hadFocus) { focusCard(focusIdx); }
  }

  function showLog() {
    const list = $("log");
    list.replaceChildren();
    view.log.forEach((e) => {
      const li = document.createElement("li");
      li.className = e.kind + (e.player === view.seat ? " mine" : "");
      li.innerHTML = "<span class='k'></span><span class='t'></span>";
      li.firstChild.textContent = "t" + e.turn;
      li.lastChild.textContent = e.text;
      list.appendChild(li);
    });
    list.scrollTop = list.scrollHeight;
  }

  function showResult() {
    if (!view.done) { return; }
    const r = view.result, s = view.step;
    $("outcome").textContent = r.outcome;
    const tbody = $("scores").querySelector("tbody");
    tbody.replaceChildren();
    view.seats.forEach((name, p) => {
      const tr = document.createElement("tr");
      if (p === r.winner) { tr.className = "winner"; }
      [String(p), name + (p === view.seat ? " (you)" : ""), String(s.hand_sizes[p]), String(r.penalty_points[p])]
        .forEach((t) => { const td = document.createElement("td"); td.textContent = t; tr.appendChild(td); });
      tbody.appendChild(tr);
    });
    $("record-note").textContent = r.record
      ? "Saved as game " + r.record.game + " of " + r.record.file + " on the server: machiavelli replay "
        + r.record.file + " --game " + r.record.game + " (or --html) shows it again."
      : "The server keeps no records.";
    $("hints").replaceChildren();
  }

  function updateButtons() {
    const mine = !!(view && view.your_turn) && !busy;
    $("play").disabled = !mine || selected.length === 0;
    $("draw").disabled = !mine || !view.draw_allowed;
    $("clear").disabled = selected.length === 0;
    $("hint").disabled = !mine;
    $("start").disabled = busy;
    $("draw").textContent = view && view.step.stock === 0 ? "Pass (D)" : "Draw (D)";
  }

  // ------------------------------------------------------------------ selecting and acting
  function focusCard(i) {
    const el = $("hand").querySelector('.card[data-index="' + i + '"]');
    if (el) {
      $("hand").querySelectorAll(".card").forEach((c) => { c.tabIndex = -1; });
      el.tabIndex = 0;
      el.focus();
    }
  }

  function toggle(i) {
    if (!view || view.done) { return; }
    const k = selected.indexOf(i);
    if (k >= 0) { selected.splice(k, 1); } else { selected.push(i); }
    showHand();
    focusCard(i);
    updateButtons();
  }

  function clearSelection() { selected = []; if (view) { showHand(); } updateButtons(); }

  async function act(kind, data) {
    if (busy || !view) { return; }
    setBusy(true);
    try {
      const v = await api("POST", "/api/games/" + view.id + "/" + kind, data);
      selected = [];
      $("hints").replaceChildren();
      say("");
      show(v);
    } catch (e) {
      say(e.message, "error");
      if (e.status === 404) { view = null; body.dataset.phase = "setup"; }
    } finally {
      setBusy(false);
    }
    runOpponents();
  }

  function playSelected() {
    if (!selected.length) { say("select the cards to play first (click them, or Space/Enter)", "error"); return; }
    const cards = handCards();
    act("play", { cards: selected.map((i) => cards[i]) });
  }

  async function showHints() {
    if (busy || !view || !view.your_turn) { return; }
    setBusy(true);
    try {
      const h = await api("GET", "/api/games/" + view.id + "/hints?limit=8");
      const list = $("hints");
      list.replaceChildren();
      if (!h.hints.length) { say("no legal play: draw a card", "info"); }
      h.hints.forEach((hint) => {
        const li = document.createElement("li");
        hint.cards.forEach((c) => li.appendChild(C.card(c, "")));
        li.appendChild(document.createTextNode(hint.count + " card" + (hint.count === 1 ? "" : "s") + ", "
          + hint.points + " points"));
        li.dataset.cards = hint.cards.join(",");
        li.addEventListener("click", () => selectCards(hint.cards));
        list.appendChild(li);
      });
    } catch (e) {
      say(e.message, "error");
    } finally {
      setBusy(false);
    }
  }

  // select a multiset of cards in the hand (a hint); copies take distinct indices
  function selectCards(cards) {
    const hand = handCards(), used = new Set();
    selected = [];
    cards.forEach((c) => {
      const i = hand.findIndex((x, j) => x === c && !used.has(j));
      if (i >= 0) { used.add(i); selected.push(i); }
    });
    showHand();
    updateButtons();
  }

  async function runOpponents() {
    const token = runToken;
    while (view && !view.done && !view.your_turn && token === runToken) {
      await sleep(pace());
      if (token !== runToken || busy) { return; }
      setBusy(true);
      try {
        show(await api("POST", "/api/games/" + view.id + "/advance", {}));
      } catch (e) {
        say(e.message, "error");
        return;
      } finally {
        setBusy(false);
      }
    }
    if (view && view.your_turn && !$("hand").contains(document.activeElement)) { focusCard(focusIdx); }
  }

  // ------------------------------------------------------------------ events
  $("hand").addEventListener("focusin", (e) => {  // a card focused by mouse or Tab: the arrows go on from it
    if (e.target.classList.contains("card") && e.target.dataset.index !== undefined) {
      focusIdx = Number(e.target.dataset.index);
    }
  });
  $("setup-form").addEventListener("submit", newGame);
  $("new-top").addEventListener("click", toSetup);
  $("again").addEventListener("click", toSetup);
  $("play").addEventListener("click", playSelected);
  $("draw").addEventListener("click", () => act("draw", {}));
  $("clear").addEventListener("click", clearSelection);
  $("hint").addEventListener("click", showHints);
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    const tag = (e.target && e.target.tagName) || "";
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") { return; }
    if (!view) { return; }
    const n = handCards().length;
    const k = e.key;
    if (k === "ArrowRight" || k === "ArrowLeft" || k === "Home" || k === "End") {
      if (!n) { return; }
      if (k === "Home") { focusIdx = 0; } else if (k === "End") { focusIdx = n - 1; }
      else { focusIdx = (focusIdx + (k === "ArrowRight" ? 1 : n - 1)) % n; }
      focusCard(focusIdx);
      e.preventDefault();
    } else if ((k === " " || k === "Enter") && e.target.classList && e.target.classList.contains("card")) {
      toggle(Number(e.target.dataset.index));
      e.preventDefault();
    } else if (k === "p" || k === "P") { playSelected(); }
    else if (k === "d" || k === "D") { if (!$("draw").disabled) { act("draw", {}); } }
    else if (k === "Escape") { clearSelection(); }
    else if (k === "h" || k === "H") { showHints(); }
    else if ((k === "n" || k === "N") && view.done) { toSetup(); }
  });

  // for tests and the curious: the page's state
  window.machiavelli = {
    get view() { return view; }, get selected() { return selected.slice(); }, get busy() { return busy; },
  };

  api("GET", "/api/options").then((o) => {
    options = o;
    fillSetup();
    body.dataset.ready = "1";
    const gid = location.hash.slice(1);
    if (/^[A-Za-z0-9_-]{22}$/.test(gid)) {  // a reload: pick the game up again
      api("GET", "/api/games/" + gid).then((v) => { show(v); runOpponents(); }).catch(() => toSetup());
    }
  }).catch((e) => say("cannot reach the server: " + e.message, "error"));
})();
