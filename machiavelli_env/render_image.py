"""Picture of a game state, drawn with Pillow (``pip install "machiavelli-env[render]"``).

:func:`render_rgb` returns an ``(H, W, 3)`` uint8 array (``render_mode="rgb_array"`` of the AEC
env and of :class:`~machiavelli_env.wrappers.SingleAgentEnv`); :func:`render_image` the same
picture as a ``PIL.Image``. Every frame has the same size (default 1280 x 720), so frames can be
written to a video (``gymnasium.wrappers.RecordVideo``).

The picture: a header (rules, turn, stock size, the result once over); the other players' hands
as card backs with their counts (the cards a failed play revealed face up); the table's melds as
cards; a line describing the last move, with the melds it formed outlined in gold, the cards it
added marked, and the melds it broke up shown small beside it; and the hand of one player face
up (by default the player to move). Card
faces are drawn with Pillow's primitives and its built-in font (``ImageFont.load_default``); no
font or image file is needed.

:func:`show_human` puts the picture in a window (pygame, when installed and a display exists)
and returns False where it cannot, so the caller can fall back to text.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from .cards import JOKER, RANKS, from_counts, rank_of, sort_key, suit_of
from .game import State
from .render import Move, last_move, meld_order, move_text

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image as PILImage

__all__ = ["render_rgb", "render_image", "show_human", "DEFAULT_SIZE"]

DEFAULT_SIZE = (1280, 720)

FELT = (24, 92, 58)
FELT_DARK = (17, 68, 43)
BAR = (18, 38, 30)
FACE = (252, 251, 246)
EDGE = (120, 120, 115)
RED = (200, 28, 40)
BLACK = (28, 28, 32)
GOLD = (255, 196, 37)
WHITE = (240, 244, 240)
MUTED = (170, 200, 180)
BACK = (44, 74, 156)
BACK_LINE = (92, 124, 204)
FAILED = (235, 90, 70)


def _pil() -> tuple[Any, Any, Any]:
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:  # pragma: no cover - depends on the installation
        raise ImportError(
            'render_mode="rgb_array" draws with Pillow: pip install "machiavelli-env[render]" (or pillow)'
        ) from None
    return Image, ImageDraw, ImageFont


@lru_cache(maxsize=32)
def _font(size: int) -> Any:
    _, _, ImageFont = _pil()
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # pragma: no cover - Pillow < 10.1: one bitmap size
        return ImageFont.load_default()


# ---------------------------------------------------------------------------------------------- suits
def _suit(d: Any, cx: float, cy: float, s: float, suit: int, color: tuple[int, int, int]) -> None:
    """Draw suit ``suit`` (0 spades, 1 hearts, 2 diamonds, 3 clubs) centred at (cx, cy), ``s`` high."""
    r = s / 2
    if suit == 2:  # diamond
        d.polygon([(cx, cy - r), (cx + r * 0.72, cy), (cx, cy + r), (cx - r * 0.72, cy)], fill=color)
    elif suit in (0, 1):  # heart, or a spade (an upside-down heart and a stem)
        k = -1 if suit == 0 else 1
        lobe = r * 0.52
        ly = cy - k * r * 0.38
        for dx in (-lobe * 0.92, lobe * 0.92):
            d.ellipse([cx + dx - lobe, ly - lobe, cx + dx + lobe, ly + lobe], fill=color)
        tip = cy + k * r
        d.polygon([(cx - r * 0.98, ly + k * lobe * 0.25), (cx + r * 0.98, ly + k * lobe * 0.25), (cx, tip)],
                  fill=color)
        if suit == 0:
            d.polygon([(cx, cy + r * 0.15), (cx - r * 0.45, cy + r), (cx + r * 0.45, cy + r)], fill=color)
    else:  # club: three leaves and a stem
        leaf = r * 0.44
        for lx, ly in ((cx, cy - r * 0.45), (cx - r * 0.5, cy + r * 0.1), (cx + r * 0.5, cy + r * 0.1)):
            d.ellipse([lx - leaf, ly - leaf, lx + leaf, ly + leaf], fill=color)
        d.polygon([(cx, cy - r * 0.1), (cx - r * 0.42, cy + r), (cx + r * 0.42, cy + r)], fill=color)


def _star(d: Any, cx: float, cy: float, r: float, color: tuple[int, int, int]) -> None:
    pts = []
    for i in range(10):
        a = -math.pi / 2 + i * math.pi / 5
        rr = r if i % 2 == 0 else r * 0.45
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    d.polygon(pts, fill=color)


def _card_color(card: int) -> tuple[int, int, int]:
    if card == JOKER:
        return (120, 40, 150)
    return RED if suit_of(card) in (1, 2) else BLACK


def _card(
    d: Any, x: float, y: float, w: int, h: int, card: int, *, mark: bool = False, dim: bool = False, pip: bool = True
) -> None:
    """One card face at (x, y): the index (rank over suit) top left and, with ``pip`` (a card not
    covered by the next one), a large suit in the middle."""
    rad = max(3, w // 8)
    edge = GOLD if mark else EDGE
    fill = (226, 226, 218) if dim else (255, 243, 196) if mark else FACE
    d.rounded_rectangle([x, y, x + w, y + h], radius=rad, fill=fill, outline=edge, width=3 if mark else 1)
    color = _card_color(card)
    fs = max(9, int(w * 0.42))
    f = _font(fs)
    if card == JOKER:
        d.text((x + w * 0.06, y + h * 0.03), "JK", font=f, fill=color)
        bottom = d.textbbox((x, y + h * 0.03), "JK", font=f)[3]
        _star(d, x + w * 0.26, bottom + 4 + w * 0.14, w * 0.15, color)
        if pip:
            _star(d, x + w * 0.6, y + h * 0.66, w * 0.3, color)
        if mark:
            d.ellipse([x + w - 11, y + 4, x + w - 4, y + 11], fill=GOLD, outline=(150, 110, 0))
        return
    label = RANKS[rank_of(card)]
    tx = x + w * 0.08 if len(label) == 1 else x + w * 0.03
    d.text((tx, y + h * 0.03), label, font=f, fill=color)
    bottom = d.textbbox((tx, y + h * 0.03), "A", font=f)[3]
    small = w * 0.28
    _suit(d, x + w * 0.25, bottom + 3 + small / 2, small, suit_of(card), color)
    if pip:
        _suit(d, x + w * 0.62, y + h * 0.71, w * 0.44, suit_of(card), color)
    if mark:
        d.ellipse([x + w - 11, y + 4, x + w - 4, y + 11], fill=GOLD, outline=(150, 110, 0))


def _back(d: Any, x: float, y: float, w: int, h: int) -> None:
    rad = max(3, w // 8)
    d.rounded_rectangle([x, y, x + w, y + h], radius=rad, fill=BACK, outline=(230, 230, 240), width=2)
    inset = max(3, w // 7)
    d.rounded_rectangle([x + inset, y + inset, x + w - inset, y + h - inset], radius=max(2, rad - 2),
                        outline=BACK_LINE, width=1)
    for i in range(1, 4):
        yy = y + h * i / 4
        d.line([x + inset, yy, x + w - inset, yy], fill=BACK_LINE, width=1)


# ---------------------------------------------------------------------------------------------- layout
def _meld_width(k: int, w: int, step: int) -> int:
    return w + step * (k - 1)


def _layout_table(melds: Sequence[Sequence[int]], width: int, height: int, scale: float):
    """Rows of melds at ``scale``; None when they do not fit in ``height``."""
    w, h = int(44 * scale), int(62 * scale)
    step, gap, row_gap = int(25 * scale), int(16 * scale), int(14 * scale)
    pos, x, y = [], 0, 0
    for m in melds:
        mw = _meld_width(len(m), w, step)
        if x and x + mw > width:
            x, y = 0, y + h + row_gap
        pos.append((x, y))
        x += mw + gap
    if y + h > height:
        return None
    return pos, (w, h, step)


def render_image(
    state: State,
    previous: State | None = None,
    action: Any = None,
    *,
    viewer: int | None = None,
    names: Sequence[str] | None = None,
    size: tuple[int, int] = DEFAULT_SIZE,
) -> PILImage.Image:
    """The picture of ``state`` as a ``PIL.Image`` (RGB).

    ``previous`` and ``action``: the state before the last move and the action taken there, to
    show and highlight that move (see :func:`machiavelli_env.render.last_move`); ``viewer``: the
    seat whose hand is face up (default: the player to move); ``names``: a label per seat.
    """
    Image, ImageDraw, _ = _pil()
    W, H = size
    if W < 640 or H < 400:
        raise ValueError(f"size must be at least 640 x 400, got {W} x {H}")
    r = state.rules
    n = r.players
    if viewer is None:
        viewer = state.current
    if not 0 <= viewer < n:
        raise ValueError(f"viewer must be a seat 0..{n - 1}, got {viewer}")
    label = list(names) if names is not None else [f"player_{i}" for i in range(n)]
    if len(label) != n:
        raise ValueError(f"names must have one entry per seat ({n}), got {len(label)}")
    move: Move = last_move(previous, state, action)
    img = Image.new("RGB", (W, H), FELT)
    d = ImageDraw.Draw(img)
    pad = 20

    # header
    d.rectangle([0, 0, W, 44], fill=BAR)
    head = f"Machiavelli  ·  {r.name}  ·  {n} players  ·  turn {state.turn}"
    if r.match_target > 0:
        head += f"  ·  game {state.game + 1}"
    d.text((pad, 11), head, font=_font(20), fill=WHITE)
    if state.done:
        who = f"{label[state.winner]} wins" if state.winner >= 0 else "no winner"
        status = f"over: {who} ({state.result})"
    else:
        status = f"{label[state.current]} to move"
    sx = W - pad - 150
    _back(d, sx, 8, 20, 28)
    _back(d, sx + 4, 10, 20, 28)
    d.text((sx + 32, 12), f"stock {state.stock.size}", font=_font(18), fill=WHITE)
    sw = d.textlength(status, font=_font(18))
    d.text((sx - 24 - sw, 12), status, font=_font(18), fill=GOLD if state.done else MUTED)

    # the other players: card backs with counts
    others = [q for q in range(n) if q != viewer]
    top = 52
    if others:
        pw = min(420, (W - 2 * pad - 10 * (len(others) - 1)) // len(others))
        for i, q in enumerate(others):
            x0 = pad + i * (pw + 10)
            box = [x0, top, x0 + pw, top + 92]
            mover = q == move.player
            d.rounded_rectangle(box, radius=8, fill=FELT_DARK, outline=GOLD if mover else None,
                                width=3 if mover else 1)
            cnt = int(state.hands[q].sum())
            name = label[q] + ("  (to move)" if q == state.current and not state.done else "")
            d.text((x0 + 10, top + 6), name, font=_font(16), fill=WHITE)
            info = f"{cnt} card{'s' * (cnt != 1)}" + ("  ·  opened" if state.opened[q] else "")
            if r.match_target > 0:
                info += f"  ·  {int(state.scores[q])}/{r.match_target}"
            d.text((x0 + 10, top + 26), info, font=_font(14), fill=MUTED)
            known = sorted(from_counts(np.minimum(state.known[q], state.hands[q])), key=sort_key)[:12]
            bw, bh = 26, 36
            faces_w = (bw + 14 * (len(known) - 1) + 12) if known else 0  # cards revealed by failed plays
            shown = min(cnt - len(known), 24)
            room = pw - 20 - bw - faces_w - 30
            stepx = min(12, room / max(1, shown - 1)) if shown > 1 else 0
            x = x0 + 10
            for k in range(shown):
                _back(d, x + k * stepx, top + 48, bw, bh)
            x += (shown - 1) * stepx + bw + 6 if shown else 0
            if cnt - len(known) > shown:
                d.text((x, top + 58), f"+{cnt - len(known) - shown}", font=_font(14), fill=WHITE)
                x += 30
            for k, c in enumerate(known):
                _card(d, x + 6 + k * 14, top + 48, bw, bh, c, pip=False)
        top += 100

    # the last move and the hand take the bottom; the table gets the rest
    hand_h = 112
    move_h = 64
    table_top, table_bottom = top + 4, H - hand_h - move_h - 8
    melds = [meld_order(m) for m in state.melds]
    ncards = int(state.table.sum())
    tlabel = f"table  ·  {ncards} cards in {len(melds)} meld{'s' * (len(melds) != 1)}" if melds else "table (empty)"
    if state.help.any():
        tlabel += f"  ·  help pile {int(state.help.sum())}"
    d.text((pad, table_top), tlabel, font=_font(15), fill=MUTED)
    area_top = table_top + 24
    scale, laid = 1.3, None
    while laid is None and scale > 0.3:
        laid = _layout_table(melds, W - 2 * pad, table_bottom - area_top, scale)
        if laid is None:
            scale *= 0.9
    if laid is None:  # pragma: no cover - more melds than any rules allow
        laid = _layout_table(melds, W - 2 * pad, 10**6, scale)
    assert laid is not None
    pos, (cw, ch, step) = laid
    added = move.added.copy()
    new = set(move.new_melds)
    for i, (m, (x, y)) in enumerate(zip(melds, pos, strict=True)):
        X, Y = pad + x, area_top + y
        if i in new:
            d.rounded_rectangle([X - 4, Y - 4, X + _meld_width(len(m), cw, step) + 4, Y + ch + 4], radius=7,
                                outline=GOLD, width=3)
        for k, c in enumerate(m):
            mark = i in new and added[c] > 0
            if mark:
                added[c] -= 1
            _card(d, X + k * step, Y, cw, ch, c, mark=mark, pip=k == len(m) - 1)

    # the last move
    my = H - hand_h - move_h
    d.rectangle([0, my, W, my + move_h - 6], fill=FELT_DARK)
    text = move_text(move, label, symbols=False)
    col = FAILED if move.kind == "failed" else (GOLD if move.kind == "play" else WHITE)
    d.text((pad, my + 6), "last move", font=_font(13), fill=MUTED)
    d.text((pad, my + 24), text, font=_font(17), fill=col)
    if move.broken or move.kind == "failed":
        shown_melds = [list(m) for m in move.broken] if move.broken else [list(move.cards)]
        caption = "broken up:" if move.broken else "tried:"
        mw, mh, ms = 24, 34, 14
        total = sum(_meld_width(len(m), mw, ms) + 8 for m in shown_melds)
        x = W - pad - total
        tw = d.textlength(caption, font=_font(13))
        if x - tw - 10 > pad + d.textlength(text, font=_font(17)) + 10:
            d.text((x - tw - 8, my + 8), caption, font=_font(13), fill=MUTED)
            for m in shown_melds:
                for k, c in enumerate(m):
                    _card(d, x + k * ms, my + 8, mw, mh, c, dim=bool(move.broken), pip=k == len(m) - 1)
                x += _meld_width(len(m), mw, ms) + 8

    # the viewer's hand, face up
    hy = H - hand_h
    hand = sorted(from_counts(state.hands[viewer]), key=sort_key)
    title = f"{label[viewer]}'s hand  ·  {len(hand)} card{'s' * (len(hand) != 1)}"
    if state.opened[viewer]:
        title += "  ·  opened"
    if viewer == state.current and not state.done:
        title += "  ·  to move"
    d.text((pad, hy + 2), title, font=_font(15), fill=GOLD if viewer == move.player else WHITE)
    hw, hh = 50, 70
    room = W - 2 * pad - hw
    hstep = min(hw + 6, room / max(1, len(hand) - 1)) if len(hand) > 1 else 0
    for k, c in enumerate(hand):
        _card(d, pad + k * hstep, hy + 28, hw, hh, c, pip=k == len(hand) - 1 or hstep >= hw)
    return img


def render_rgb(
    state: State,
    previous: State | None = None,
    action: Any = None,
    *,
    viewer: int | None = None,
    names: Sequence[str] | None = None,
    size: tuple[int, int] = DEFAULT_SIZE,
) -> np.ndarray:
    """The picture of ``state`` as an ``(H, W, 3)`` uint8 array (arguments of :func:`render_image`)."""
    img = render_image(state, previous, action, viewer=viewer, names=names, size=size)
    return np.asarray(img, dtype=np.uint8).copy()


class _Window:
    """A pygame window showing frames (one per process, created on first use)."""

    def __init__(self) -> None:
        import pygame

        self.pg = pygame
        pygame.init()
        pygame.display.set_caption("Machiavelli")
        self.screen = None

    def show(self, frame: np.ndarray) -> None:
        pg = self.pg
        h, w = frame.shape[:2]
        if self.screen is None or self.screen.get_size() != (w, h):
            self.screen = pg.display.set_mode((w, h))
        surf = pg.surfarray.make_surface(np.swapaxes(frame, 0, 1))
        self.screen.blit(surf, (0, 0))
        pg.event.pump()
        pg.display.flip()

    def close(self) -> None:
        self.pg.display.quit()


_window: _Window | None = None


def display_available() -> bool:
    """Whether a window can be opened: pygame installed and a display (``DISPLAY``/``WAYLAND_DISPLAY``) set."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and os.name != "nt":
        return False
    try:
        import PIL  # noqa: F401
        import pygame  # noqa: F401
    except ImportError:
        return False
    return True


def show_human(state: State, previous: State | None = None, action: Any = None) -> bool:
    """Show the picture in a window; False (nothing shown) when no window can be opened."""
    global _window
    if not display_available():
        return False
    try:
        if _window is None:
            _window = _Window()
        _window.show(render_rgb(state, previous, action))
    except Exception:  # noqa: BLE001 - no usable display after all: the caller falls back to text
        _window = None
        return False
    return True


def close_window() -> None:
    """Close the window of :func:`show_human`, if one is open."""
    global _window
    if _window is not None:
        _window.close()
        _window = None
