"""``machiavelli replay FILE --game N --html OUT.html``: one recorded game as a self-contained web page.

The page needs no network and no server: its CSS and JavaScript are inline and the game is
embedded as JSON. It steps through the game with buttons, the arrow keys (Home / End for the
ends) or a click in the move list. Each step shows the table drawn as cards and what the move
really was: the cards that left the player's hand, the melds it broke up (shown struck through)
and the ones it formed (outlined, the cards it added marked), a failed play's cards and its
penalty draw, a draw's card; every player's hand is visible, since a replay comes after the fact.

Cards, melds and the move highlighting are drawn by the script and stylesheet shared with the play
page of ``machiavelli serve`` (:mod:`agents.tableview`). The game is re-simulated from its record
(rules, seed and actions; :func:`agents.arena.replay_states`), so the page shows the engine's own
states; a record that does not replay raises ``ValueError``.
"""

from __future__ import annotations

import html
import json
import os
from typing import Any

from .arena import replay_states
from .gamerecords import RecordError
from .tableview import card_css, card_js, step_view

__all__ = ["html_command", "replay_data", "replay_html", "write_replay_html"]


def replay_data(record: dict[str, Any]) -> dict[str, Any]:
    """The data the page embeds: the game's header and one entry per state (the deal, then each move).

    Raises ``ValueError`` when the record does not replay.
    """
    states = replay_states(record)
    seats = [str(s) for s in record["seats"]]
    rules = states[0].rules
    moves = record["moves"]
    steps = [step_view(None, states[0], None, seats)]
    for move, before, after in zip(moves, states[:-1], states[1:], strict=True):
        steps.append(step_view(before, after, move.get("action") or None, seats))
    last = states[-1]
    if last.winner >= 0:
        outcome = f"{seats[last.winner]} (player_{last.winner}) wins ({last.result})"
    elif last.done:
        outcome = f"no winner ({last.result})"
    else:
        outcome = "unfinished"
    return {
        "game": record.get("game"),
        "env": record.get("env"),
        "rules": rules.name,
        "players": rules.players,
        "seed": str(record.get("seed")),  # a string: JavaScript numbers hold 53 bits
        "seats": seats,
        "outcome": outcome,
        "penalty_points": (record.get("result") or {}).get("penalty_points"),
        "steps": steps,
    }


def replay_html(record: dict[str, Any], title: str | None = None) -> str:
    """The page for one game record (a complete HTML document, no external resources)."""
    data = replay_data(record)
    if title is None:
        title = f"Machiavelli replay: game {data['game']} ({data['rules']}, {data['players']} players)"
    blob = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")  # nothing can close the script
    return (_TEMPLATE.replace("%%TITLE%%", html.escape(title)).replace("%%DATA%%", blob)
            .replace("%%CSS%%", card_css() + _CSS).replace("%%JS%%", card_js() + _JS))


def write_replay_html(record: dict[str, Any], path: str | os.PathLike[str], title: str | None = None) -> None:
    """Write :func:`replay_html` of ``record`` to ``path`` (UTF-8)."""
    page = replay_html(record, title)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)


_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%%TITLE%%</title>
<style>%%CSS%%</style>
</head>
<body>
<header>
  <h1 id="title"></h1>
  <div id="controls">
    <button id="first" title="first (Home)">&#xAB; first</button>
    <button id="prev" title="back (&#x2190;)">&#x25C0; back</button>
    <span id="step-label"></span>
    <button id="next" title="forward (&#x2192;)">forward &#x25B6;</button>
    <button id="last" title="last (End)">last &#xBB;</button>
  </div>
</header>
<main>
  <section id="board">
    <div id="move" class="move"><span id="move-who"></span><span id="move-text"></span></div>
    <div id="status"></div>
    <h2>Table <span id="table-count"></span></h2>
    <div id="table"></div>
    <div id="broken-box"><h2>Broken up by this move</h2><div id="broken"></div></div>
    <div id="final-box"><h2 id="final-title"></h2><div id="final"></div></div>
    <div id="help-box"><h2>Help pile</h2><div id="help"></div></div>
    <h2>Hands</h2>
    <div id="hands"></div>
    <p id="legend"><span class="card mini added-demo">&#x2605;</span> added to the table
      <span class="card mini left-demo"></span> left the hand
      <span class="card mini drawn-demo"></span> drawn
      <span class="card mini tried-demo"></span> tried (failed play)
      &nbsp; Keys: &#x2190; &#x2192; Home End</p>
  </section>
  <nav id="moves-box"><h2>Moves</h2><ol id="moves"></ol></nav>
</main>
<script type="application/json" id="replay-data">%%DATA%%</script>
<script>%%JS%%</script>
</body>
</html>
"""

_CSS = """
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.35 system-ui, -apple-system, "Segoe UI", sans-serif; background: var(--felt);
       color: #eef3ee; }
header { display: flex; align-items: center; justify-content: space-between; gap: 12px; padding: 8px 16px;
         background: #10261d; position: sticky; top: 0; z-index: 2; }
h1 { font-size: 17px; margin: 0; font-weight: 600; }
h2 { font-size: 13px; font-weight: 600; color: #a9c8b4; margin: 14px 0 6px; text-transform: uppercase;
     letter-spacing: .04em; }
#controls { display: flex; align-items: center; gap: 6px; }
button { background: #2d6b49; color: #fff; border: 1px solid #4f8d69; border-radius: 6px; padding: 5px 10px;
         font-size: 14px; cursor: pointer; }
button:hover { background: #38805a; }
button:disabled { opacity: .4; cursor: default; }
#step-label { min-width: 150px; text-align: center; font-variant-numeric: tabular-nums; }
main { display: grid; grid-template-columns: minmax(0, 1fr) 330px; gap: 16px; padding: 10px 16px 24px; }
.move { background: var(--felt-dark); border-radius: 8px; padding: 10px 12px; font-size: 16px;
        border-left: 6px solid #8aa; }
.move.play { border-left-color: var(--gold); }
.move.failed { border-left-color: #ff5a46; }
.move.draw, .move.pass { border-left-color: #7fb0ff; }
#move-who { font-weight: 700; margin-right: .4em; }
#status { color: #a9c8b4; margin-top: 6px; }
#table, #broken, #help { display: flex; flex-wrap: wrap; gap: 10px 14px; min-height: 62px; }
#hands .hand { display: grid; grid-template-columns: 230px 1fr; gap: 8px; align-items: center;
               padding: 6px 8px; border-radius: 8px; margin-bottom: 6px; background: rgba(0,0,0,.12); }
#hands .hand.mover { outline: 2px solid var(--gold); }
#hands .hand.to-move .name::after { content: "  \\2190 to move"; color: var(--gold); font-weight: 400; }
#hands .cards { display: flex; flex-wrap: wrap; gap: 3px 0; }
#hands .cards .card { width: 34px; height: 48px; font-size: 14px; }
.name { font-weight: 700; }
.sub { color: #a9c8b4; font-size: 12px; }
#moves-box { position: sticky; top: 56px; align-self: start; max-height: calc(100vh - 70px);
             display: flex; flex-direction: column; }
#moves { list-style: none; margin: 0; padding: 0; overflow-y: auto; background: rgba(0,0,0,.18);
         border-radius: 8px; }
#moves li { padding: 4px 8px; cursor: pointer; border-bottom: 1px solid rgba(255,255,255,.05); font-size: 13px; }
#moves li:hover { background: rgba(255,255,255,.08); }
#moves li.current { background: #2d6b49; }
#moves li .k { display: inline-block; width: 52px; color: #a9c8b4; font-variant-numeric: tabular-nums; }
#moves li.play .t { color: #ffe08a; }
#moves li.failed .t { color: #ff9a8a; }
#legend { color: #a9c8b4; font-size: 12px; margin-top: 14px; }
#broken-box, #help-box, #final-box { display: none; }
#final { display: flex; flex-wrap: wrap; gap: 10px 14px; }
.final-hand { width: 100%; display: flex; align-items: center; flex-wrap: wrap; gap: 2px; color: #a9c8b4; }
.final-hand .card { width: 30px; height: 42px; font-size: 13px; }
"""

_JS = r"""
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const C = window.MachCards, card = C.card, take = C.take, bagOf = C.bagOf, meld = C.meld;
  const steps = data.steps;
  const $ = (id) => document.getElementById(id);
  let cur = 0;

  function seat(p) { return data.seats[p] + " (player_" + p + ")"; }

  function render() {
    const s = steps[cur], m = s.move;
    document.body.dataset.step = String(cur);
    $("title").textContent = "Game " + data.game + " \u00b7 " + data.rules + " \u00b7 " + data.players
      + " players \u00b7 seed " + data.seed;
    $("step-label").textContent = cur === 0 ? "deal (0 / " + (steps.length - 1) + ")"
      : "move " + cur + " / " + (steps.length - 1);
    $("first").disabled = $("prev").disabled = cur === 0;
    $("next").disabled = $("last").disabled = cur === steps.length - 1;

    const mv = $("move");
    mv.className = "move " + m.kind;
    mv.dataset.kind = m.kind;
    $("move-who").textContent = m.player >= 0 ? "Turn " + s.turn + ":" : "";
    $("move-text").textContent = m.player >= 0 ? m.text : "The deal: " + data.seats.map((x, i) => seat(i)).join(", ");
    let status = "stock " + s.stock;
    if (s.done) { status += " \u00b7 game over: " + data.outcome; }
    else { status += " \u00b7 " + seat(s.current) + " to move"; }
    $("status").textContent = status;

    // the table: melds formed by this move outlined, the cards it added marked
    C.table($("table"), s.melds, m);
    $("table-count").textContent = s.melds.length
      ? "\u00b7 " + s.melds.reduce((a, x) => a + x.length, 0) + " cards in " + s.melds.length + " melds" : "";

    C.broken($("broken"), m);
    $("broken-box").style.display = m.broken.length ? "block" : "none";

    const fin = s.move_final, finBox = $("final");
    finBox.replaceChildren();
    $("final-box").style.display = fin ? "block" : "none";
    if (fin) {
      $("final-title").textContent = "End of game " + (fin.game + 1) + ": its last table and the hands left";
      fin.melds.forEach((cards) => finBox.appendChild(meld(cards, "", null)));
      fin.hands.forEach((cards, p) => {
        const row = document.createElement("div");
        row.className = "final-hand";
        row.textContent = seat(p) + ": ";
        cards.forEach((c) => row.appendChild(card(c, "")));
        if (!cards.length) { row.appendChild(document.createTextNode("(out)")); }
        finBox.appendChild(row);
      });
    }

    const help = $("help");
    help.replaceChildren();
    s.help.forEach((c) => help.appendChild(card(c, "")));
    $("help-box").style.display = s.help.length ? "block" : "none";

    // every hand; the mover's shows the cards that left it (ghosts), the cards drawn and a failed play's cards
    const hands = $("hands");
    hands.replaceChildren();
    s.hands.forEach((cards, p) => {
      const row = document.createElement("div");
      row.className = "hand" + (p === m.player ? " mover" : "") + (p === s.current && !s.done ? " to-move" : "");
      row.dataset.player = String(p);
      const label = document.createElement("div");
      const sub = cards.length + " card" + (cards.length === 1 ? "" : "s") + (s.opened[p] ? " \u00b7 opened" : "")
        + (s.scores.some((x) => x) ? " \u00b7 " + s.scores[p] + " pts" : "");
      label.innerHTML = "<div class='name'></div><div class='sub'></div>";
      label.firstChild.textContent = seat(p);
      label.lastChild.textContent = sub;
      row.appendChild(label);
      const box = document.createElement("div");
      box.className = "cards";
      const drawn = p === m.player ? bagOf(m.drawn) : null;
      const tried = p === m.player && m.kind === "failed" ? bagOf(m.cards) : null;
      cards.forEach((c) => {
        let cls = "";
        if (drawn && take(drawn, c)) { cls = "drawn"; }
        else if (tried && take(tried, c)) { cls = "tried"; }
        box.appendChild(card(c, cls));
      });
      if (p === m.player) { m.left.forEach((c) => box.appendChild(card(c, "left"))); }
      row.appendChild(box);
      hands.appendChild(row);
    });

    document.querySelectorAll("#moves li").forEach((el) => {
      el.classList.toggle("current", Number(el.dataset.step) === cur);
    });
    const li = document.querySelector("#moves li.current");
    if (li && li.scrollIntoView) { li.scrollIntoView({ block: "nearest" }); }
  }

  function go(i) { cur = Math.max(0, Math.min(steps.length - 1, i)); render(); }

  const list = $("moves");
  steps.forEach((s, i) => {
    const li = document.createElement("li");
    li.dataset.step = String(i);
    li.className = s.move.kind;
    li.innerHTML = "<span class='k'></span><span class='t'></span>";
    li.firstChild.textContent = i === 0 ? "" : "t" + s.turn;
    li.lastChild.textContent = s.move.text;
    li.addEventListener("click", () => go(i));
    list.appendChild(li);
  });
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(cur - 1));
  $("next").addEventListener("click", () => go(cur + 1));
  $("last").addEventListener("click", () => go(steps.length - 1));
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    const to = { ArrowRight: cur + 1, ArrowDown: cur + 1, ArrowLeft: cur - 1, ArrowUp: cur - 1,
                 Home: 0, End: steps.length - 1 }[e.key];
    if (to !== undefined) { e.preventDefault(); go(to); }
  });
  window.replay = { go: go, get step() { return cur; }, steps: steps.length, data: data };
  const start = Number((location.hash.match(/^#(\d+)$/) || [])[1] || 0);
  go(start);
})();
"""


def html_command(record: dict[str, Any], path: str | os.PathLike[str]) -> str:
    """``machiavelli replay --html``: write the page; return the line to print.

    Raises :class:`agents.replay.RecordError` naming the problem (a record that does not replay,
    a path that cannot be written); nothing is written then.
    """
    where = f"game {record.get('game')} (line {record.get('_line', '?')})"
    target = os.fspath(path)
    if not target or os.path.isdir(target):
        raise RecordError(f"--html needs a file path, got {target!r}" + (" (a folder)" if target else ""))
    parent = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(parent):
        raise RecordError(f"cannot write {target}: folder {parent} does not exist")
    try:
        page = replay_html(record)
    except (ValueError, KeyError, TypeError) as exc:
        raise RecordError(f"{where} does not replay: {exc}") from None
    try:
        with open(target, "w", encoding="utf-8") as f:
            f.write(page)
    except OSError as exc:
        raise RecordError(f"cannot write {target}: {exc.strerror or exc}") from None
    moves = len(record["moves"])
    return f"wrote {target}: game {record.get('game')}, {moves} moves ({len(page) // 1024} KiB; open it in a browser)"
