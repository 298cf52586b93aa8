"""The picture renderer (render_mode="rgb_array"), the last-move analysis it shows, and video recording."""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest
from pettingzoo.test import render_test

import machiavelli_env
from machiavelli_env import game
from machiavelli_env.cards import to_counts
from machiavelli_env.render import last_move, move_text
from machiavelli_env.render_image import DEFAULT_SIZE, GOLD, render_image, render_rgb
from machiavelli_env.rules import Rules
from machiavelli_env.wrappers import SingleAgentEnv

W, H = DEFAULT_SIZE


def _greedy_until(state: game.State, pred, limit: int = 400):
    """Step greedily (first legal play, else draw) until ``pred(before, after)``; return both and the action."""
    for _ in range(limit):
        plays = game.legal_plays(state, state.current, 16)
        action = plays[0] if plays else np.zeros(53, dtype=np.int64)
        after = game.step(state, action)
        if pred(state, after):
            return state, after, action
        if after.done:
            state = game.new_game(state.rules, state.seed + 1)
        else:
            state = after
    raise AssertionError("no such move found")


def _gold_pixels(frame: np.ndarray, box: tuple[int, int, int, int]) -> int:
    x0, y0, x1, y1 = box
    return int(np.all(frame[y0:y1, x0:x1] == np.array(GOLD, dtype=np.uint8), axis=-1).sum())


def test_env_rgb_array_frames_have_one_shape():
    e = machiavelli_env.env(render_mode="rgb_array", players=3)
    assert "rgb_array" in e.metadata["render_modes"]
    assert e.unwrapped.render() is None  # before reset
    e.reset(seed=3)
    frames = [e.render()]
    for agent in e.agent_iter(max_iter=30):
        _, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        plays = e.unwrapped.legal_plays(agent, 8)
        e.step(plays[0] if plays else np.zeros(53, dtype=np.int64))
        frames.append(e.render())
    for f in frames:
        assert isinstance(f, np.ndarray) and f.dtype == np.uint8 and f.shape == (H, W, 3)
    assert len({f.tobytes() for f in frames}) > len(frames) // 2  # the picture follows the game


def test_pettingzoo_render_test():
    render_test(lambda render_mode=None: machiavelli_env.env(render_mode=render_mode))


def test_human_mode_without_display_prints_the_text(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    e = machiavelli_env.env(render_mode="human")
    e.reset(seed=0)
    assert e.render() is None
    assert "player_0" in capsys.readouterr().out
    e.close()


def test_last_move_of_a_play_names_cards_and_rebuilt_melds():
    s = game.new_game(Rules.load("classic", players=3), 11)
    before, after, action = _greedy_until(
        s, lambda b, a: a.event == "play" and b.melds and last_move(b, a).broken)
    move = last_move(before, after, action)
    assert move.kind == "play" and move.player == before.current
    np.testing.assert_array_equal(move.added, after.table - before.table)
    np.testing.assert_array_equal(to_counts(list(move.cards)), action)
    assert move.new_melds  # a rebuilt table has melds that were not there before
    before_melds = sorted(tuple(sorted(m)) for m in before.melds)
    for m in move.broken:
        assert tuple(sorted(m)) in before_melds
        assert tuple(sorted(m)) not in [tuple(sorted(x)) for x in after.melds]
    kept = [tuple(sorted(m)) for i, m in enumerate(after.melds) if i not in move.new_melds]
    assert set(move.extended) <= set(move.new_melds)
    gone = Counter(before_melds) - Counter(kept)
    for i in move.extended:  # a meld of before with added cards
        assert any(not Counter(m) - Counter(after.melds[i]) for m in gone)
    assert len(kept) + len(move.broken) + len(move.extended) == len(before.melds)
    assert "breaks up" in move_text(move)


def test_last_move_of_an_extension():
    s = game.new_game(Rules.load("classic", players=2), 3)
    before, after, action = _greedy_until(s, lambda b, a: a.event == "play" and last_move(b, a).extended
                                          and not last_move(b, a).broken)
    move = last_move(before, after, action)
    assert move.extended and not move.broken
    assert "extends" in move_text(move) and "breaks up" not in move_text(move)


def test_last_move_of_draw_and_failed_play():
    s = game.new_game(Rules.load("classic"), 5)
    drawn = game.step(s, np.zeros(53, dtype=np.int64))
    m = last_move(s, drawn)
    assert (m.kind, m.player, m.drawn, m.cards, m.new_melds, m.broken) == ("draw", 0, 1, (), (), ())
    assert move_text(m) == "player_0 draws 1 card"
    # a failed play: one card that forms no meld with an empty table
    card = int(np.flatnonzero(drawn.hands[1])[0])
    action = np.zeros(53, dtype=np.int64)
    action[card] = 1
    failed = game.step(drawn, action)
    assert failed.event == "failed"
    for act in (action, None):  # with the action, or read from the revealed cards
        m = last_move(drawn, failed, act)
        assert m.kind == "failed" and m.player == 1 and m.cards == (card,) and m.drawn == 1
    assert last_move(None, s).kind == "deal"


def test_the_last_play_is_outlined_in_gold():
    s = game.new_game(Rules.load("classic", players=2), 21)
    before, after, action = _greedy_until(s, lambda b, a: a.event == "play" and a.turn > 6)
    with_move = render_rgb(after, before, action)
    without = render_rgb(after)
    table_box = (0, 150, W, H - 190)
    assert _gold_pixels(with_move, table_box) > 200
    assert _gold_pixels(without, table_box) == 0
    # a draw outlines nothing on the table
    b2, a2, act2 = _greedy_until(after, lambda b, a: a.event == "draw")
    assert _gold_pixels(render_rgb(a2, b2, act2), table_box) == 0


def test_render_image_arguments():
    s = game.new_game(Rules.load("classic", players=4), 0)
    img = render_image(s, viewer=2, names=["a", "b", "c", "d"], size=(800, 600))
    assert img.size == (800, 600) and img.mode == "RGB"
    with pytest.raises(ValueError, match="viewer"):
        render_image(s, viewer=4)
    with pytest.raises(ValueError, match="names"):
        render_image(s, names=["a"])
    with pytest.raises(ValueError, match="size"):
        render_image(s, size=(100, 100))


def test_crowded_three_deck_table_fits():
    rules = Rules.load("six_players_three_decks")
    s = game.new_game(rules, 2)
    before, after, action = _greedy_until(s, lambda b, a: int(a.table.sum()) >= 70, limit=2000)
    f = render_rgb(after, before, action)
    assert f.shape == (H, W, 3)


def test_single_agent_env_records_a_video(tmp_path):
    from gymnasium.wrappers import RecordVideo

    env = SingleAgentEnv(rules="classic", candidates=8, render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"]
    env = RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda i: i == 0, disable_logger=True)
    obs, _ = env.reset(seed=0)
    steps = 0
    for steps in range(1, 16):  # noqa: B007 - a short episode is enough
        mask = obs["action_mask"]
        obs, _, term, trunc, _ = env.step(int(np.flatnonzero(mask)[-1]))
        if term or trunc:
            break
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
    from moviepy import VideoFileClip  # RecordVideo's own dependency (dev extra)

    with VideoFileClip(str(videos[0])) as clip:
        assert tuple(clip.size) == (W, H)
        n = sum(1 for _ in clip.iter_frames())
    assert n == steps + 1  # the reset frame and one per step


class _FakeSurface:
    def __init__(self, size):
        self.size = size
        self.blits = []

    def get_size(self):
        return self.size

    def blit(self, surf, pos):
        self.blits.append((surf, pos))


class _FakePygame:
    """The few pygame calls of render_image's window, recorded (no display needed)."""

    def __init__(self, fail: bool = False):
        self.fail, self.frames, self.flips, self.closed = fail, [], 0, False
        self.display = self
        self.surfarray = self
        self.event = self

    def init(self):
        pass

    def set_caption(self, title):
        self.title = title

    def set_mode(self, size):
        if self.fail:
            raise RuntimeError("no video device")
        self.screen = _FakeSurface(size)
        return self.screen

    def make_surface(self, arr):
        self.frames.append(arr)
        return arr

    def pump(self):
        pass

    def flip(self):
        self.flips += 1

    def quit(self):  # display.quit
        self.closed = True


def test_human_mode_draws_in_a_window_when_there_is_a_display(monkeypatch, capsys):
    import sys

    import machiavelli_env.render_image as ri

    fake = _FakePygame()
    monkeypatch.setitem(sys.modules, "pygame", fake)
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setattr(ri, "_window", None)
    e = machiavelli_env.env(render_mode="human")
    e.reset(seed=0)
    plays = e.unwrapped.legal_plays(e.agent_selection, 4)
    e.step(plays[0] if plays else np.zeros(53, dtype=np.int64))  # human mode renders every step
    assert e.render() is None
    assert fake.flips == 2 and fake.title == "Machiavelli"
    assert fake.frames[-1].shape == (W, H, 3)  # pygame surfaces are (width, height)
    assert capsys.readouterr().out == ""  # nothing printed: the picture went to the window
    e.close()
    assert ri._window is None and fake.closed

    broken = _FakePygame(fail=True)  # a display that cannot open a window: the text instead
    monkeypatch.setitem(sys.modules, "pygame", broken)
    e = machiavelli_env.env(render_mode="human")
    e.reset(seed=0)
    e.render()
    assert "player_0" in capsys.readouterr().out


def test_cards_revealed_by_a_failed_play_are_drawn_face_up():
    s = game.new_game(Rules.load("classic", players=3), 9)
    action = np.zeros(53, dtype=np.int64)
    action[np.flatnonzero(s.hands[0])[0]] = 1
    failed = game.step(s, action)
    assert failed.event == "failed" and failed.known[0].sum() == 1
    later = game.step(failed, np.zeros(53, dtype=np.int64))
    hidden = dataclasses.replace(later, known=np.zeros_like(later.known))
    panel = (20, 52, 440, 144)  # player_0's panel, seen by player_2
    a, b = render_rgb(later, viewer=2), render_rgb(hidden, viewer=2)
    x0, y0, x1, y1 = panel
    face = np.all(a[y0:y1, x0:x1] == np.array((252, 251, 246), dtype=np.uint8), axis=-1).sum()
    assert face > 200 and np.all(b[y0:y1, x0:x1] == np.array((252, 251, 246), dtype=np.uint8), axis=-1).sum() == 0
