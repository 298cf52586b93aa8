"""The HTML replay viewer: the data it embeds, the CLI, and the page driven in headless Chromium.

The browser test drives headless Chromium over the DevTools protocol (tests/cdp.py): it presses
keys, clicks, reads the page's state and takes screenshots. It needs Debian's ``chromium``
(``apt-get install chromium``), which ``.ci/run`` installs; under CI a missing browser is a
failure, elsewhere the test is skipped.
Set ``MACHIAVELLI_SCREENSHOTS=DIR`` to keep the screenshots.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from cdp import Page, require_chromium
from machiavelli_env.agents.arena import evaluate
from machiavelli_env.agents.registry import make_agent
from machiavelli_env.agents.replay import read_records
from machiavelli_env.agents.replay_html import html_command, replay_data, replay_html

from machiavelli_env.cards import parse_cards, sort_key
from machiavelli_env.cli import main
from machiavelli_env.rules import Rules


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "games.jsonl"
    rules = Rules.load("classic", players=3)
    agents = [make_agent(n, rules) for n in ("greedy", "patient", "random")]
    with open(path, "w") as f:
        evaluate(agents, rules, games=3, seed=5, records=f)
    return path


def _game_with_breakup(records: Path) -> dict:
    for rec in read_records(records):
        data = replay_data(rec)
        if any(s["move"]["broken"] for s in data["steps"]) and any(s["move"]["kind"] == "draw" for s in data["steps"]):
            return rec
    raise AssertionError("no recorded game breaks up a meld")


def _embedded(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert m
    return json.loads(m.group(1))


def test_page_is_self_contained(records):
    page = replay_html(read_records(records)[0])
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert not re.search(r"https?://|<link\b|<script[^>]*\bsrc=|<img\b|@import|url\(", page)


def test_embedded_steps_follow_the_record(records):
    rec = _game_with_breakup(records)
    data = _embedded(replay_html(rec))
    steps = data["steps"]
    assert len(steps) == len(rec["moves"]) + 1 and steps[0]["move"]["kind"] == "deal"
    assert data["seats"] == rec["seats"] and data["seed"] == str(rec["seed"])  # exact, beyond 2**53
    for move, step, before in zip(rec["moves"], steps[1:], steps[:-1], strict=True):
        m = step["move"]
        assert m["player"] == move["player"] and m["kind"] == move["event"].split(":")[0]
        p = m["player"]
        if m["kind"] == "play":
            played = sorted(parse_cards(move["action"]), key=sort_key)
            assert m["cards"] == played == m["left"]  # no help pile in these rules: every card from the hand
            assert sorted(m["added"], key=sort_key) == played
            assert sum(map(len, step["melds"])) == sum(map(len, before["melds"])) + len(played)
            assert len(step["hands"][p]) == len(before["hands"][p]) - len(played)
        elif m["kind"] == "draw":
            assert len(m["drawn"]) == 1 and step["stock"] == before["stock"] - 1
            assert len(step["hands"][p]) == len(before["hands"][p]) + 1
        elif m["kind"] == "failed":
            assert m["cards"] == sorted(parse_cards(move["action"]), key=sort_key) and not m["left"]
    assert any(s["move"]["broken"] for s in steps)


def test_cli_writes_the_page(records, tmp_path, capsys):
    out = tmp_path / "game.html"
    assert main(["replay", str(records), "--game", "1", "--html", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert _embedded(out.read_text(encoding="utf-8"))["game"] == 1


@pytest.mark.parametrize("target, message", [("missing/dir/out.html", "does not exist"), (".", "folder")])
def test_cli_html_bad_path(records, tmp_path, target, message, capsys):
    rc = main(["replay", str(records), "--html", str(tmp_path / target)])
    assert rc != 0
    assert message in capsys.readouterr().err


def test_html_command_names_a_record_that_does_not_replay(records, tmp_path):
    from machiavelli_env.agents.replay import RecordError

    rec = dict(read_records(records)[0])
    rec["moves"] = [dict(rec["moves"][0], player=1)] + rec["moves"][1:]
    out = tmp_path / "x.html"
    with pytest.raises(RecordError, match="does not replay"):
        html_command(rec, out)
    assert not out.exists()


# ---------------------------------------------------------------------------------------------- the browser
STATE = """(() => ({
  step: Number(document.body.dataset.step),
  label: document.getElementById('step-label').textContent,
  kind: document.getElementById('move').dataset.kind,
  text: document.getElementById('move-text').textContent,
  melds: [...document.querySelectorAll('#table .meld')]
    .map(m => [...m.querySelectorAll('.card')].map(c => c.dataset.card)),
  newMelds: document.querySelectorAll('#table .meld.new').length,
  added: document.querySelectorAll('#table .card.added').length,
  broken: document.querySelectorAll('#broken .meld').length,
  brokenShown: getComputedStyle(document.getElementById('broken-box')).display !== 'none',
  hands: [...document.querySelectorAll('#hands .hand')].map(h => h.querySelectorAll('.card:not(.left)').length),
  left: document.querySelectorAll('#hands .hand.mover .card.left').length,
  drawn: document.querySelectorAll('#hands .hand.mover .card.drawn').length,
  mover: [...document.querySelectorAll('#hands .hand.mover')].map(h => Number(h.dataset.player)),
  current: document.querySelectorAll('#moves li.current').length,
  currentStep: Number((document.querySelector('#moves li.current') || {dataset: {step: -1}}).dataset.step),
  prevDisabled: document.getElementById('prev').disabled,
}))()"""


def _name(c: int) -> str:
    from machiavelli_env.cards import card_name

    return card_name(c, symbols=True)


def test_the_page_works_in_headless_chromium(records, tmp_path):
    browser = require_chromium()
    rec = _game_with_breakup(records)
    out = tmp_path / "replay.html"
    html_command(rec, out)
    data = _embedded(out.read_text(encoding="utf-8"))
    steps = data["steps"]
    shots = Path(os.environ.get("MACHIAVELLI_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    page = Page(browser, out.as_uri(), tmp_path / "profile")
    try:
        def expect(i: int) -> dict:
            st = page.eval(STATE)
            s, m = steps[i], steps[i]["move"]
            assert st["step"] == i and st["currentStep"] == i and st["current"] == 1
            assert st["kind"] == m["kind"] and st["text"] == (m["text"] if i else st["text"])
            assert st["melds"] == [[_name(c) for c in meld] for meld in s["melds"]]
            assert st["hands"] == [len(h) for h in s["hands"]]
            assert st["newMelds"] == len(m["new_melds"]) and st["added"] == len(m["added"])
            assert st["broken"] == len(m["broken"]) and st["brokenShown"] == bool(m["broken"])
            assert st["left"] == len(m["left"]) and st["drawn"] == len(m["drawn"])
            assert st["mover"] == ([m["player"]] if m["player"] >= 0 else [])
            return st

        st = expect(0)
        assert st["prevDisabled"] and st["label"].startswith("deal")
        assert page.eval("document.getElementById('title').textContent").endswith(f"seed {rec['seed']}")
        page.screenshot(shots / "replay_deal.png")
        page.key("ArrowRight", 39)
        page.key("ArrowRight", 39)
        expect(2)
        page.key("ArrowLeft", 37)
        expect(1)
        page.click("#next")
        expect(2)
        # jump through the move list to the first move that breaks up melds, then to a draw after it
        target = next(i for i, s in enumerate(steps) if s["move"]["broken"])
        page.click(f'#moves li[data-step="{target}"]')
        st = expect(target)
        assert st["kind"] == "play" and st["broken"] >= 1 and st["newMelds"] >= 1 and st["left"] >= 1
        page.eval("window.scrollTo(0, 0)")
        page.screenshot(shots / "replay_breakup.png")
        draw = next(i for i in range(target + 1, len(steps)) if steps[i]["move"]["kind"] == "draw")
        page.click(f'#moves li[data-step="{draw}"]')
        st = expect(draw)
        assert st["drawn"] == 1 and st["broken"] == 0 and st["newMelds"] == 0
        page.key("End", 35)
        expect(len(steps) - 1)
        page.key("Home", 36)
        expect(0)
    finally:
        page.close()
    png = (shots / "replay_breakup.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000

    # a failed play (the bots never make one): the cards tried stay in the hand, marked, with the penalty card
    failed = _record_with_failed_play()
    html_command(failed, out)
    page = Page(browser, out.as_uri() + "#1", tmp_path / "profile2")
    try:
        st = page.eval(STATE)
        assert st["step"] == 1 and st["kind"] == "failed"
        assert page.eval("document.querySelectorAll('#hands .hand.mover .card.tried').length") == 1
        assert st["drawn"] == 1 and st["left"] == 0 and st["newMelds"] == 0
        assert "penalty" in st["text"]
        page.screenshot(shots / "replay_failed.png")
    finally:
        page.close()


def _record_with_failed_play() -> dict:
    import numpy as np
    from machiavelli_env.agents.arena import ENV_ID

    from machiavelli_env import game
    from machiavelli_env.cards import card_name

    rules = Rules.load("classic")
    s = game.new_game(rules, 9)
    card = int(np.flatnonzero(s.hands[0])[0])  # one card alone on an empty table: a failed play
    moves = []
    for action in (card_name(card), "", ""):
        after = game.step(s, action)
        moves.append({"turn": s.turn, "player": s.current, "action": action, "event": after.event})
        s = after
    assert moves[0]["event"] == "failed"
    return {"game": 0, "env": ENV_ID, "rules": rules.to_dict(), "seed": 9, "seats": ["human", "greedy"],
            "moves": moves}


def test_a_match_shows_how_each_finished_game_ended(tmp_path):
    rules = Rules.load("match100")
    path = tmp_path / "match.jsonl"
    with open(path, "w") as f:
        evaluate([make_agent("greedy", rules), make_agent("patient", rules)], rules, games=1, seed=3, records=f)
    rec = read_records(path)[0]
    steps = replay_data(rec)["steps"]
    ends = [i for i, s in enumerate(steps) if "move_final" in s]
    assert ends, "the match has more than one game"
    for i in ends:
        fin, before, m = steps[i]["move_final"], steps[i - 1], steps[i]["move"]
        assert m["ended"] and "next game" in m["text"] and fin["game"] == before["game"]
        assert steps[i]["game"] == before["game"] + 1
        winner = m["player"]
        assert fin["hands"][winner] == [] and m["kind"] == "play"
        assert sum(map(len, fin["melds"])) == sum(map(len, before["melds"])) + len(m["cards"])
        others = [p for p in range(len(fin["hands"])) if p != winner]
        assert all(fin["hands"][p] == before["hands"][p] for p in others)
