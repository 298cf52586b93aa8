"""``machiavelli serve``: the games (agents.web.games), the HTTP app (agents.web.app), the CLI, the
layering, 20 concurrent games on a real uvicorn server, and one whole game in headless Chromium.

Needs the ``web`` extra (starlette, uvicorn) and httpx (Starlette's TestClient); skipped without
them. The browser test needs Debian's ``chromium`` (tests/cdp.py); set
``MACHIAVELLI_SCREENSHOTS=DIR`` to keep its screenshots.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from machiavelli_env.agents.arena import replay_states  # noqa: E402
from machiavelli_env.agents.replay import read_records, replay_text  # noqa: E402
from machiavelli_env.agents.web.app import MAX_BODY, create_app  # noqa: E402
from machiavelli_env.agents.web.games import GameStore, explain_illegal  # noqa: E402

# Starlette 1.x warns that its TestClient will move from httpx to httpx2; the client works the same
from starlette.exceptions import StarletteDeprecationWarning  # noqa: E402

from machiavelli_env import game  # noqa: E402
from machiavelli_env.cards import NUM_TYPES, parse_cards  # noqa: E402
from machiavelli_env.cli import main  # noqa: E402
from machiavelli_env.render import last_move  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient
pytestmark = pytest.mark.filterwarnings("ignore::starlette.exceptions.StarletteDeprecationWarning")

ROOT = Path(__file__).resolve().parent.parent


class Clock:
    """A clock the tests move by hand (the store's expiry reads it)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def store(tmp_path) -> GameStore:
    return GameStore(tmp_path / "records", clock=Clock(), ttl=600, max_games=5)


@pytest.fixture
def client(store) -> TestClient:
    return TestClient(create_app(store))


def _new(client, **kw) -> dict:
    body = {"rules": "classic", "players": 2, "opponents": ["random"], "name": "tester", "seed": 8, **kw}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def _pack_size(store: GameStore, gid: str) -> int:
    return int(game.pack_counts(store.games[gid].rules).sum())


def _conserved(view: dict, pack: int) -> bool:
    s = view["step"]
    return sum(s["hand_sizes"]) + sum(map(len, s["melds"])) + s["stock"] + len(s["help"]) == pack


def _play_out(post, get, view: dict) -> dict:
    """Finish a game: the person plays the first hint (most cards), else draws; agents move on advance."""
    gid = view["id"]
    while not view["done"]:
        if view["your_turn"]:
            hints = get(f"/api/games/{gid}/hints?limit=1")["hints"]
            view = post(f"/api/games/{gid}/play", {"cards": hints[0]["cards"]}) if hints else post(
                f"/api/games/{gid}/draw", {})
        else:
            view = post(f"/api/games/{gid}/advance", {})
    return view


def _ok(r) -> dict:
    assert r.status_code == 200, r.text
    return r.json()


# ---------------------------------------------------------------------------------------------- a game
def test_a_whole_game_is_recorded_and_replays(client, store, tmp_path, capsys):
    view = _new(client)
    assert view["seats"] == ["human:tester", "random"] and view["your_turn"] and not view["done"]
    assert view["step"]["hands"][1] == [] and view["step"]["hand_sizes"] == [13, 13]  # the opponent's hand is hidden
    pack = _pack_size(store, view["id"])
    seen = []

    def post(path, body):
        v = _ok(client.post(path, json=body))
        assert _conserved(v, pack)
        seen.append(v["step"]["move"])
        if v["step"]["move"]["player"] == 1:  # an opponent's draw never names its card
            assert v["step"]["move"]["drawn"] == [] and v["step"]["hands"][1] == []
        return v

    final = _play_out(post, lambda path: _ok(client.get(path)), view)
    assert any(m["kind"] == "play" and m["broken"] and m["player"] == 0 for m in seen)  # highlighting data
    assert any(m["kind"] == "draw" and m["player"] == 0 and len(m["drawn"]) == 1 for m in seen)
    res = final["result"]
    assert res["winner"] == 0 and res["outcome"] == "You win!" and res["record"] == {"file": "records.jsonl", "game": 0}
    path = tmp_path / "records" / "records.jsonl"
    rec = read_records(path)[0]
    assert rec["seats"] == ["human:tester", "random"] and rec["seed"] == 8 and rec["game"] == 0
    assert len(rec["moves"]) == final["moves"] and rec["result"]["ranks"] == [0, 1]
    states = replay_states(rec)
    assert states[-1].winner == 0 and (game.total_counts(states[-1]) == game.pack_counts(states[0].rules)).all()
    assert "human:tester" in "\n".join(replay_text(rec))
    assert main(["replay", str(path), "--html", str(tmp_path / "g.html")]) == 0
    assert main(["replay", str(path), "--list"]) == 0
    assert "winner human:tester (player_0)" in capsys.readouterr().out
    # the league's ratings read the records file as it is: the person is rated beside the agents
    ratings = pytest.importorskip("machiavelli_env.training.ratings")
    rated = ratings.compute_ratings(["human:tester", "random"], read_records(path))
    by = {a.name: a for a in rated.agents}
    assert by["human:tester"].wins == 1 and by["human:tester"].mu > by["random"].mu
    # a finished game refuses moves and changes nothing
    r = client.post(f"/api/games/{final['id']}/draw", json={})
    assert r.status_code == 409 and "over" in r.json()["error"]
    assert len(read_records(path)) == 1


def test_the_opponents_move_first_when_the_person_sits_later(client, store):
    view = _new(client, players=3, opponents=["greedy", "patient"], seat=2, seed=4)
    assert not view["your_turn"] and view["current"] == 0 and view["seats"][2] == "human:tester"
    r = client.post(f"/api/games/{view['id']}/play", json={"cards": [0, 1, 2]})
    assert r.status_code == 409 and "not your turn" in r.json()["error"]
    for _ in range(2):
        view = _ok(client.post(f"/api/games/{view['id']}/advance", json={}))
    assert view["your_turn"] and [e["player"] for e in view["log"]] == [0, 1]
    r = client.post(f"/api/games/{view['id']}/advance", json={})
    assert r.status_code == 409 and "your turn" in r.json()["error"]


# ---------------------------------------------------------------------------------------------- refusals
def _hand(view: dict) -> list[int]:
    return view["step"]["hands"][view["seat"]]


def test_illegal_plays_are_refused_with_the_reason_and_change_nothing(client, store):
    view = _new(client)
    gid = view["id"]
    before = store.games[gid].state
    card = _hand(view)[0]
    r = client.post(f"/api/games/{gid}/play", json={"cards": [card]})
    assert r.status_code == 422 and "cannot be arranged on the empty table into valid melds" in r.json()["error"]
    missing = next(c for c in range(52) if c not in _hand(view))
    r = client.post(f"/api/games/{gid}/play", json={"cards": [missing]})
    assert r.status_code == 422 and "you do not hold" in r.json()["error"]
    for bad, msg in (({"cards": []}, "select the cards"), ({"cards": [53]}, "0..52"), ({"cards": ["AS"]}, "0..52"),
                     ({"cards": [1], "x": 1}, "JSON object"), ([1, 2], "JSON object"), ({"cards": [0] * 61}, "60")):
        r = client.post(f"/api/games/{gid}/play", json=bad)
        assert r.status_code == 422 and msg in r.json()["error"], (bad, r.text)
    after = store.games[gid]
    assert after.state is before and after.moves == [] and _ok(client.get(f"/api/games/{gid}")) == view


@pytest.mark.parametrize("preset, need", [("opening_points36", "36 points"), ("opening_group", "a group")])
def test_the_opening_rule_is_explained(preset, need):
    rules = game.Rules.load(preset)
    for seed in range(200):  # a deal whose first hand holds a meld that does not open
        s = game.new_game(rules, seed)
        hand = s.hands[0]
        for start in range(0, 11):
            run = [start, start + 1, start + 2]  # spades
            if all(hand[c] for c in run) and sum(min(10, c + 1) for c in run) < 36:
                play = np.bincount(run, minlength=NUM_TYPES)
                why = explain_illegal(s, 0, play)
                assert why is not None and need in why and "form melds" in why
                single = np.bincount([run[0]], minlength=NUM_TYPES)
                assert "do not form melds" in explain_illegal(s, 0, single)
                return
    pytest.fail("no deal with a small run found")


def test_drawing_where_the_rules_forbid_it_is_refused(client, store):
    for seed in range(50):
        view = _new(client, rules="must_play", seed=seed)
        if not view["draw_allowed"]:
            r = client.post(f"/api/games/{view['id']}/draw", json={})
            assert r.status_code == 409 and "must_play_if_able" in r.json()["error"]
            assert store.games[view["id"]].moves == []
            return
        client.delete(f"/api/games/{view['id']}")
    pytest.fail("no must_play deal where the first player can play")


@pytest.mark.parametrize("body, status, message", [
    ({"rules": "../../etc/passwd"}, 422, "preset name"),
    ({"rules": "classic.yaml"}, 422, "preset name"),
    ({"opponents": ["ppo:/etc/passwd"]}, 422, "unknown opponent"),
    ({"opponents": ["human"]}, 422, "unknown opponent"),
    ({"opponents": []}, 422, "1..5"),
    ({"players": 3}, 422, "3 players need 2 opponents"),
    ({"players": True}, 422, "players"),
    ({"seat": 2}, 422, "seat"),
    ({"seed": -1}, 422, "seed"),
    ({"seed": 1.5}, 422, "seed"),
    ({"name": "<script>"}, 422, "name"),
    ({"name": "x" * 33}, 422, "name"),
    ({"file": "x"}, 422, "unknown field"),
])
def test_bad_new_games_are_refused(client, store, body, status, message):
    r = client.post("/api/games", json={"opponents": ["random"], **body})
    assert r.status_code == status and message in r.json()["error"], r.text
    assert store.games == {}


def test_malformed_oversized_and_unknown_requests(client, store):
    view = _new(client)
    gid = view["id"]
    url = f"/api/games/{gid}/play"
    r = client.post(url, content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]
    big = b'{"cards": [' + b"1," * MAX_BODY + b"1]}"
    r = client.post(url, content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413
    r = client.post(url, content=(b"[" * 40) + (b"]" * 40), headers={"content-type": "application/json"})
    assert r.status_code == 400
    r = client.post(url, content=b'{"cards": [0]}', headers={"content-type": "text/plain"})  # a cross-site form
    assert r.status_code == 415
    chunks = (b"x" * 1024 for _ in range(8))  # no Content-Length: the body is cut off while it streams
    r = client.post(url, content=chunks, headers={"content-type": "application/json"})
    assert r.status_code == 413
    for path in ("/api/games/AAAAAAAAAAAAAAAAAAAAAA", "/api/games/short", "/api/games/%2e%2e%2fetc",
                 "/api/games/AAAAAAAAAAAAAAAAAAAAAA/hints"):
        r = client.get(path)
        assert r.status_code == 404 and "error" in r.json(), path
    assert client.get(f"/api/games/{gid}/hints?limit=99").status_code == 422
    assert client.get(f"/api/games/{gid}/hints?limit=x").status_code == 422
    assert client.put(f"/api/games/{gid}").status_code == 405
    for path in ("/static/../games.py", "/static/play.html", "/static/%2e%2e%2fapp.py", "/etc/passwd", "/static/"):
        assert client.get(path).status_code == 404, path
    assert client.get("/", headers={"host": "evil.example"}).status_code == 400  # DNS rebinding
    assert store.games[gid].moves == [] and _ok(client.get(f"/api/games/{gid}")) == view
    page = client.get("/")
    assert page.status_code == 200 and "default-src 'self'" in page.headers["content-security-policy"]
    assert client.get("/static/cards.js").text == client.get("/static/cards.js").text != ""


def test_idle_games_expire_and_the_store_is_bounded(client, store):
    clock = store.clock
    first = _new(client)
    clock.now += 500
    second = _new(client)
    _ok(client.get(f"/api/games/{second['id']}"))
    clock.now += 200  # first: 700 s idle, second: 200 s
    r = client.get(f"/api/games/{first['id']}")
    assert r.status_code == 404 and "expired" in r.json()["error"]
    _ok(client.get(f"/api/games/{second['id']}"))
    assert store.expired == 1
    for _ in range(4):
        _new(client)
    r = client.post("/api/games", json={"opponents": ["random"]})
    assert r.status_code == 503 and len(store.games) == 5
    clock.now += 601
    _new(client)  # the idle ones went
    assert len(store.games) == 1
    _ok(client.delete(f"/api/games/{next(iter(store.games))}"))
    assert store.games == {}


def test_every_offered_opponent_plays(client, store):
    """Every agent the page offers, ppo and search included, makes its moves through the API."""
    pytest.importorskip("torch")
    for name in _ok(client.get("/api/options"))["opponents"]:
        view = _new(client, opponents=[name], seat=1, seed=5)
        for _ in range(4):
            path = "draw" if view["your_turn"] else "advance"
            view = _ok(client.post(f"/api/games/{view['id']}/{path}", json={}))
        assert [e["player"] for e in view["log"]] == [0, 1, 0, 1] and view["notes"] == [], name
        assert view["log"][0]["text"].startswith(name), name
        client.delete(f"/api/games/{view['id']}")


def test_options_list_every_agent_and_preset(client):
    o = _ok(client.get("/api/options"))
    assert {"random", "greedy", "ppo", "search"} <= set(o["opponents"]) and "human" not in o["opponents"]
    assert "classic" in o["presets"] and o["players"] == [2, 3, 4, 5, 6]


# ---------------------------------------------------------------------------------------------- layers, CLI
def test_layers_and_lazy_imports():
    code = ("import sys; import machiavelli_env.agents.web, machiavelli_env.agents.web.games, "
            "machiavelli_env.agents.web.cli; from machiavelli_env.cli import build_parser; build_parser(); "
            "bad = [m for m in ('starlette', 'uvicorn', 'torch') if m in sys.modules]; print(bad); sys.exit(bool(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    for path in (ROOT / "machiavelli_env").rglob("*.py"):  # the core never imports the web layer
        text = path.read_text(encoding="utf-8")
        assert "agents.web" not in text.replace("machiavelli_env.agents.web.cli:", ""), path


def test_the_page_files_are_package_data():
    tomllib = pytest.importorskip("tomllib")
    import fnmatch

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "machiavelli_env.agents.web" in conf["packages"]
    data = conf["package-data"]
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
    for package, folder in (("machiavelli_env.agents", ROOT / "agents"), ("machiavelli_env.agents.web",
                                                                          ROOT / "agents" / "web")):
        files = [p.relative_to(folder).as_posix() for p in (folder / "static").iterdir()]
        assert files
        for f in files:
            assert any(fnmatch.fnmatch(f, pat) for pat in data[package]), f"{package}: {f} is not package data"
            rel = (folder / f).relative_to(ROOT).parent.as_posix()
            assert f"recursive-include {rel} " in manifest and f"*{Path(f).suffix}" in manifest, f


def test_serve_without_starlette_names_the_extra():
    code = ("import sys; sys.modules['starlette'] = None; sys.modules['uvicorn'] = None; "
            "from machiavelli_env.cli import main; sys.exit(main(['serve', '--port', '0']))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and "pip install -e '.[web]'" in out.stderr, out.stderr


def test_serve_help_and_bad_arguments(capsys):
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    assert "127.0.0.1" in capsys.readouterr().out
    assert main(["serve", "--idle-minutes", "nan"]) == 2
    assert main(["serve", "--opponents", ","]) == 2
    assert main(["serve", "--opponents", "greedy,nonsense"]) == 2
    assert main(["serve", "--opponents", "ppo:/no/such/file.safetensors"]) == 2
    assert "no such checkpoint" in capsys.readouterr().err


def test_the_command_serves_the_page_and_refuses_a_busy_port(tmp_path):
    env = {**os.environ, "NO_PROXY": "*"}
    cmd = [sys.executable, "-m", "machiavelli_env", "serve", "--port", "0", "--records", str(tmp_path / "rec")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert line.startswith("machiavelli serve: http://127.0.0.1:"), line
        url = line.split()[2]
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        with httpx.Client(trust_env=False, timeout=30) as c:
            assert "Machiavelli" in c.get(url).text
            assert c.post(url + "api/games", json={"opponents": ["greedy"]}).status_code == 201
        busy = subprocess.run([*cmd[:4], "--port", str(port)], capture_output=True, text=True, timeout=120)
        assert busy.returncode == 2 and f"cannot listen on 127.0.0.1:{port}" in busy.stderr
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert (tmp_path / "rec").is_dir()


def test_a_broken_agent_makes_the_fallback_move(client, store):
    from machiavelli_env.agents.base import Agent

    class Broken(Agent):
        name = "broken"

        def act(self, turn):
            raise RuntimeError("out of order")

    view = _new(client, seat=1)
    gid = view["id"]
    store.games[gid].agents[0] = Broken()
    view = _ok(client.post(f"/api/games/{gid}/advance", json={}))
    assert view["your_turn"] and view["step"]["move"]["kind"] == "draw"
    assert "out of order" in view["notes"][-1] and "fallback" in view["notes"][-1]


# ---------------------------------------------------------------------------------------------- a live server
class LiveServer:
    """uvicorn serving the app on a free loopback port, in a thread."""

    def __init__(self, store: GameStore) -> None:
        import uvicorn

        self.store = store
        config = uvicorn.Config(create_app(store), host="127.0.0.1", port=0, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        for _ in range(200):
            if self.server.started:
                break
            time.sleep(0.05)
        else:
            raise RuntimeError("uvicorn did not start")
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture
def live(tmp_path):
    server = LiveServer(GameStore(tmp_path / "records"))
    try:
        yield server
    finally:
        server.close()


def test_twenty_concurrent_games_on_a_real_server(live, tmp_path):
    def one(i: int) -> tuple[dict, int]:
        with httpx.Client(base_url=live.url, timeout=60, trust_env=False) as c:
            opponents = [["random"], ["greedy"], ["random", "tempo"], ["patient", "random", "greedy"]][i % 4]
            r = c.post("/api/games", json={"opponents": opponents, "players": len(opponents) + 1, "seed": 100 + i,
                                           "name": f"p{i}", "seat": i % (len(opponents) + 1)})
            assert r.status_code == 201, r.text
            view = r.json()
            pack = int(game.pack_counts(live.store.games[view["id"]].rules).sum())

            def post(path, body):
                v = _ok(c.post(path, json=body))
                assert _conserved(v, pack)
                return v

            return _play_out(post, lambda path: _ok(c.get(path)), view), pack

    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(one, range(20)))
    assert all(v["done"] and v["result"]["record"] is not None for v, _ in results)
    records = read_records(tmp_path / "records" / "records.jsonl")
    assert sorted(r["game"] for r in records) == list(range(20))
    humans = sorted(next(s for s in r["seats"] if s.startswith("human:")) for r in records)
    assert humans == sorted(f"human:p{i}" for i in range(20))
    for rec in records:  # every game replays, its cards conserved to the end
        states = replay_states(rec)
        pack = game.pack_counts(states[0].rules)
        assert all((game.total_counts(s) == pack).all() for s in states[-3:])
        assert states[-1].done


# ---------------------------------------------------------------------------------------------- the browser
PAGE_STATE = """(() => { const v = window.machiavelli.view; return {
  phase: document.body.dataset.phase, turn: document.body.dataset.turn, busy: document.body.dataset.busy,
  moves: v ? v.moves : -1, done: v ? v.done : null,
  hand: [...document.querySelectorAll('#hand .card:not(.left)')].map(c => c.dataset.card),
  selected: [...document.querySelectorAll('#hand .card.selected')].map(c => Number(c.dataset.index)),
  melds: [...document.querySelectorAll('#table .meld')]
    .map(m => [...m.querySelectorAll('.card')].map(c => c.dataset.card)),
  newMelds: document.querySelectorAll('#table .meld.new').length,
  added: document.querySelectorAll('#table .card.added').length,
  broken: document.querySelectorAll('#broken .meld').length,
  drawn: document.querySelectorAll('#hand .card.drawn').length,
  others: [...document.querySelectorAll('#others .other')].map(o => Number(o.dataset.cards)),
  message: document.getElementById('message').textContent,
  messageKind: document.body.dataset.message,
  moveKind: document.getElementById('move').dataset.kind,
  movePlayer: Number(document.getElementById('move').dataset.player),
  log: document.querySelectorAll('#log li').length,
  outcome: document.getElementById('outcome').textContent,
  record: document.getElementById('record-note').textContent,
  playDisabled: document.getElementById('play').disabled,
}; })()"""


def _names(cards: list[int]) -> list[str]:
    from machiavelli_env.cards import card_name

    return [card_name(c, symbols=True) for c in cards]


def test_a_whole_game_in_headless_chromium(live, tmp_path):
    from cdp import Page, require_chromium

    browser = require_chromium()
    shots = Path(os.environ.get("MACHIAVELLI_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    url = live.url + "/?pace=0&rules=classic&players=2&opponents=random&seed=8&name=browser"
    page = Page(browser, url, tmp_path / "profile", ready="document.body.dataset.ready === '1'")
    store = live.store
    try:
        assert page.eval("document.getElementById('setup').offsetParent !== null")
        page.screenshot(shots / "web_setup.png")
        page.click("#start")
        page.wait_for("window.machiavelli.view && document.body.dataset.turn === 'mine' "
                      "&& document.body.dataset.busy === '0'")
        gid = page.eval("window.machiavelli.view.id")
        g = store.games[gid]
        assert g.seats == ["human:browser", "random"] and g.seed == 8

        def settled() -> dict:
            page.wait_for("document.body.dataset.busy === '0' && (document.body.dataset.turn === 'mine' "
                          "|| document.body.dataset.phase === 'over')")
            st = page.eval(PAGE_STATE)
            s = g.state
            assert st["moves"] == len(g.moves)
            assert st["hand"] == _names(g.last["hands"][0]) and len(st["hand"]) == int(s.hands[0].sum())
            assert st["melds"] == [_names(m) for m in g.last["melds"]]
            assert st["others"] == [int(s.hands[1].sum())]
            m = g.last["move"]
            assert st["moveKind"] == m["kind"] and st["movePlayer"] == m["player"]
            assert st["newMelds"] == len(m["new_melds"]) and st["added"] == len(m["added"])
            assert st["broken"] == len(m["broken"])
            assert st["drawn"] == (len(m["drawn"]) if m["player"] == 0 else 0)
            return st

        st = settled()
        # an illegal play: one card on the empty table; the reason is shown and nothing changes
        page.click('#hand .card[data-index="0"]')
        assert page.eval(PAGE_STATE)["selected"] == [0]
        page.click("#play")
        page.wait_for("document.body.dataset.message === 'error'")
        st2 = page.eval(PAGE_STATE)
        assert "cannot go down" in st2["message"] and st2["moves"] == st["moves"] == len(g.moves) == 0
        assert st2["selected"] == [0]
        page.screenshot(shots / "web_illegal.png")
        page.key("Escape", 27)
        assert page.eval(PAGE_STATE)["selected"] == []
        shot_breakup = False
        turns = 0
        while not g.state.done:
            turns += 1
            assert turns < 60
            before = len(g.moves)
            page.key("h", 72, "h")  # the hints, most cards first
            page.wait_for("document.body.dataset.busy === '0' && (document.querySelectorAll('#hints li').length > 0 "
                          "|| document.body.dataset.message === 'info')")
            if page.eval("document.querySelectorAll('#hints li').length"):
                hint = [int(x) for x in page.eval("document.querySelector('#hints li').dataset.cards").split(",")]
                if turns % 2:  # by mouse: the hint selects its cards
                    page.click("#hints li")
                else:  # by keyboard: Home of the hand, arrows and Space on each card
                    hand = g.last["hands"][0]
                    want, used = [], set()
                    for c in hint:
                        i = next(j for j, x in enumerate(hand) if x == c and j not in used)
                        used.add(i)
                        want.append(i)
                    page.eval("document.querySelector('#hand .card').focus()")
                    pos = 0
                    for i in sorted(want):
                        for _ in range(i - pos):
                            page.key("ArrowRight", 39)
                        pos = i
                        page.key(" ", 32, " ")
                sel = page.eval(PAGE_STATE)["selected"]
                assert sorted(g.last["hands"][0][i] for i in sel) == sorted(hint)
                counts = np.bincount(hint, minlength=NUM_TYPES)
                after = game.step(g.state, counts)
                breaks = not shot_breakup and not after.done and last_move(g.state, after, counts).broken
                if breaks:  # hold the opponent back a while: the screenshot shows this play
                    page.eval("document.getElementById('pace').value = '1500'")
                page.key("p", 80, "p")
                page.wait_for(f"window.machiavelli.view.moves > {before} && document.body.dataset.busy === '0'")
                assert g.moves[before].event.startswith("play") and sorted(parse_cards(g.moves[before].action)) == \
                    sorted(hint)
                if breaks:
                    st = page.eval(PAGE_STATE)
                    assert st["movePlayer"] == 0 and st["broken"] >= 1 and st["newMelds"] >= 1 and st["added"] == len(
                        hint) and st["moves"] == before + 1
                    page.eval("window.scrollTo(0, 0)")
                    page.screenshot(shots / "web_breakup.png")
                    page.eval("document.getElementById('pace').value = '0'")
                    shot_breakup = True
            else:
                page.click("#draw")
                page.wait_for(f"window.machiavelli.view.moves > {before}")
                assert g.moves[before].event.startswith("draw")
            settled()
        st = settled()
        assert st["phase"] == "over" and st["done"] and st["outcome"] == "You win!"
        assert "records.jsonl" in st["record"] and "--game 0" in st["record"]
        page.eval("window.scrollTo(0, 0)")
        page.screenshot(shots / "web_over.png")
        assert shot_breakup
    finally:
        page.close()
    rec = read_records(Path(store.writer.path))[0]
    assert rec["seats"] == ["human:browser", "random"] and len(rec["moves"]) == len(g.moves)
    assert replay_states(rec)[-1].winner == 0
    png = (shots / "web_breakup.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000
    json.dumps(rec)  # the record is plain JSON
