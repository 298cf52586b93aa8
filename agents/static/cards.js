// Cards and melds as DOM elements, shared by the replay viewer (agents/replay_html.py) and the play
// page (agents/web). Card types are 0..52: suit * 13 + rank (ranks A..K, suits S H D C), 52 the joker.
(function () {
  "use strict";
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const SUITS = ["\u2660", "\u2665", "\u2666", "\u2663"];

  function name(c) { return c === 52 ? "JK" : RANKS[c % 13] + SUITS[Math.floor(c / 13)]; }

  // one card: a span with data-card (its name with the suit symbol) and the given extra classes
  function card(c, cls) {
    const el = document.createElement("span");
    const suit = Math.floor(c / 13);
    el.className = "card" + (c === 52 ? " joker" : (suit === 1 || suit === 2 ? " red" : "")) + (cls ? " " + cls : "");
    el.dataset.card = name(c);
    if (c === 52) { el.innerHTML = "JK<span class='s'>\u2605</span>"; }
    else { el.innerHTML = RANKS[c % 13] + "<span class='s'>" + SUITS[suit] + "</span>"; }
    return el;
  }

  // take one copy of c out of a multiset (array of counts by card); true if it was there
  function take(bag, c) { if (bag && bag[c] > 0) { bag[c] -= 1; return true; } return false; }
  function bagOf(cards) { const b = new Array(53).fill(0); (cards || []).forEach((c) => { b[c] += 1; }); return b; }

  // one meld; the cards of `added` (a bag, consumed) are marked as added by the move
  function meld(cards, cls, added) {
    const el = document.createElement("div");
    el.className = "meld" + (cls ? " " + cls : "");
    cards.forEach((c) => el.appendChild(card(c, added && take(added, c) ? "added" : "")));
    return el;
  }

  // the table after a move into `box`: the melds it formed outlined, the cards it added marked
  function table(box, melds, move) {
    box.replaceChildren();
    const added = bagOf(move ? move.added : []);
    const fresh = new Set(move ? move.new_melds : []);
    melds.forEach((cards, i) => { box.appendChild(meld(cards, fresh.has(i) ? "new" : "", fresh.has(i) ? added : null)); });
    if (!melds.length) { box.textContent = "(empty)"; }
  }

  // the melds a move broke up, struck through
  function broken(box, move) {
    box.replaceChildren();
    (move ? move.broken : []).forEach((cards) => box.appendChild(meld(cards, "gone", null)));
  }

  window.MachCards = { RANKS: RANKS, SUITS: SUITS, name: name, card: card, take: take, bagOf: bagOf, meld: meld,
                       table: table, broken: broken };
})();
