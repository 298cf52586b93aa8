"""Observations: what one player sees, as a fixed-size float32 vector plus an action mask.

The vector has the same length (:data:`OBS_SIZE` = 869) for every rules variant and player count,
seat-relative (opponent ``k`` is the ``k``-th player after the observer; seats beyond the player
count are zero padding), every entry in ``[0, 1]``. It holds only public information and the
observer's own hand.

Card planes (15 planes of 53 entries, index = card type: ``suit * 13 + rank`` with suits
``S H D C``, ranks ``A..K``, joker last; a count divided by the copies in the pack, so 1.0 = all
copies; jokers divided by ``max(jokers, 1)``):

====  =====================================================================================
0     own hand
1     table
2     help cards (face-up side pile)
3     unseen cards: the pack minus own hand, table, help pile and cards known in other hands
4     own last successful play
5-9   opponents 1..5: cards known to be in their hand (revealed by failed plays, until played)
10-14 opponents 1..5: their last successful play
====  =====================================================================================

Scalars (74, from offset 795):

====  ================================================================================
795   hand sizes, own then opponents 1..5 (cards / pack size)
801   seat present, own then opponents 1..5
807   opened (has laid down in this game), own then opponents 1..5
813   last action, own then opponents 1..5, one-hot of (draw, play, failed, pass) each: 24
837   match totals, own then opponents 1..5 (/ match_target, clipped to 1; 0 without a match)
843   stock size / pack size
844   turns without a play on an empty stock / players (blocked-game counter)
845   turn / max_turns
846   drawing allowed (0 only under ``must_play_if_able`` when a play exists)
847   rules (22): players/6, hand_size/60, decks/3, jokers/4, max_jokers_per_meld/4, ace one-hot
      (low, high, low_or_high, both_ends, wrap), opening one-hot (none, group, points),
      opening points/100, failed_play_penalty/10, must_play_if_able, help_cards/12, always_draw,
      points is ace11, match play, match_target/1000 (clipped), reward is points
====  ================================================================================

Action mask: a tuple of 53 int8 arrays, one per card type, of length ``nvec[i] = copies + 1``;
entry ``k`` is 1 when naming ``k`` copies is allowed (``k`` up to the held count, plus the help
pile when usable) -- the form ``gymnasium.spaces.MultiDiscrete.sample(mask)`` accepts. The
arrays are read-only and shared between observations (copy one before changing it).
:func:`flat_action_mask` is the same mask as one int8 vector of length ``sum(nvec)`` (the blocks
concatenated in card-type order), the form TorchRL, RLlib and Tianshou expect.

Numeric infos: :data:`EVENT_NAMES` lists every ``State.event`` string (``"play"``,
``"play:win"``, ``"draw:blocked:next_game"``, ...) and :data:`RESULT_NAMES` every
``State.result``; an event's code is its index (:func:`event_code`, :data:`EVENT_CODES`).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from . import _obs, game  # type: ignore[attr-defined]
from .cards import JOKER, NUM_TYPES
from .rules import ACE_MODES, Rules

MAX_PLAYERS = 6
MAX_OPPONENTS = MAX_PLAYERS - 1
NUM_PLANES = 15
PLANES_SIZE = NUM_PLANES * NUM_TYPES
NUM_SCALARS = 74
OBS_SIZE = PLANES_SIZE + NUM_SCALARS

PLANE_HAND, PLANE_TABLE, PLANE_HELP, PLANE_UNSEEN, PLANE_OWN_LAST = 0, 1, 2, 3, 4
PLANE_OPP_KNOWN, PLANE_OPP_LAST = 5, 10
# offsets of the scalars in the observation vector
OFF_HAND_SIZES = PLANES_SIZE
OFF_SEATS = OFF_HAND_SIZES + 6
OFF_OPENED = OFF_SEATS + 6
OFF_LAST_ACTION = OFF_OPENED + 6
OFF_MATCH = OFF_LAST_ACTION + 24
OFF_STOCK = OFF_MATCH + 6
OFF_PASSES = OFF_STOCK + 1
OFF_TURN = OFF_PASSES + 1
OFF_DRAW_ALLOWED = OFF_TURN + 1
OFF_RULES = OFF_DRAW_ALLOWED + 1


class _ObsInfo:
    """Per-rules constants of the observation (cached by :func:`_obs_info`)."""

    def __init__(self, rules: Rules):
        pack = game.pack_counts(rules)
        self.nvec = pack + 1
        self.nvec.setflags(write=False)
        d = pack.astype(np.float32)
        d[JOKER] = max(rules.jokers, 1)
        self.norm = 1.0 / d  # float32, as in every release: counts * norm, then float32
        self.pack = pack
        self.pack_size = float(rules.pack_size)
        self.rules_features = rules_features(rules)
        self.max_turns = rules.max_turns
        self.match_target = rules.match_target
        n = rules.players
        # read-only mask rows: rows[i][a] allows counts 0..a of card type i (a up to the copies of i
        # plus the help pile, so up to twice the copies)
        self.rows = []
        for i in range(NUM_TYPES):
            k = int(self.nvec[i])
            opts = []
            for a in range(2 * k):
                row = (np.arange(k) <= a).astype(np.int8)
                row.setflags(write=False)
                opts.append(row)
            self.rows.append(opts)
        self.none_mask = tuple(opts[0] for opts in self.rows)
        # flat mask: entry j allows count within[j] of card type block[j]
        self.flat_block = np.repeat(np.arange(NUM_TYPES), self.nvec)
        self.flat_within = np.concatenate([np.arange(int(k)) for k in self.nvec])
        self.flat_none = (self.flat_within == 0).astype(np.int8)
        self.flat_none.setflags(write=False)
        # the scalars that stay fixed within a game (seat present, rules), the same for every observer
        self.template = np.zeros(NUM_SCALARS, dtype=np.float32)
        self.template[6:6 + n] = 1.0
        self.template[52:] = self.rules_features
        self.template.setflags(write=False)


_OBS_INFO: dict[int, tuple[Rules, _ObsInfo]] = {}


def _obs_info(rules: Rules) -> _ObsInfo:
    hit = _OBS_INFO.get(id(rules))
    if hit is None or hit[0] is not rules:
        if len(_OBS_INFO) > 256:
            _OBS_INFO.clear()
        hit = (rules, _ObsInfo(rules))
        _OBS_INFO[id(rules)] = hit
    return hit[1]


def action_nvec(rules: Rules) -> np.ndarray:
    """``nvec`` of the MultiDiscrete action: copies of each card type in the pack, plus one."""
    return game.pack_counts(rules) + 1


def action_space(rules: Rules) -> spaces.MultiDiscrete:
    """The MultiDiscrete action space (counts of each of the 53 card types)."""
    return spaces.MultiDiscrete(action_nvec(rules), dtype=np.int64)


def mask_space(rules: Rules) -> spaces.Tuple:
    """Space of the action mask: one MultiBinary per card type."""
    return spaces.Tuple(tuple(spaces.MultiBinary(int(n)) for n in action_nvec(rules)))


def vector_space() -> spaces.Box:
    """Space of the observation vector."""
    return spaces.Box(0.0, 1.0, (OBS_SIZE,), dtype=np.float32)


def observation_space(rules: Rules) -> spaces.Dict:
    """``Dict(observation=Box(869), action_mask=Tuple(MultiBinary(copies + 1) x 53))``."""
    return spaces.Dict({"observation": vector_space(), "action_mask": mask_space(rules)})


def _norm(rules: Rules) -> np.ndarray:
    return _obs_info(rules).norm


def rules_features(rules: Rules) -> np.ndarray:
    """The 22 rules entries of the observation (see the module docstring)."""
    ace = [float(rules.ace == m) for m in ACE_MODES]
    kind = rules.opening.split(":")[0]
    opening = [float(kind == k) for k in ("none", "group", "points")]
    return np.array(
        [rules.players / 6, rules.hand_size / 60, rules.decks / 3, rules.jokers / 4, rules.max_jokers_per_meld / 4,
         *ace, *opening, min(rules.opening_points / 100, 1.0), rules.failed_play_penalty / 10,
         float(rules.must_play_if_able), rules.help_cards / 12, float(rules.always_draw),
         float(rules.points == "ace11"), float(rules.match_target > 0), min(rules.match_target / 1000, 1.0),
         float(rules.reward == "points")],
        dtype=np.float32,
    )


def seat_order(state: game.State, player: int) -> list[int]:
    """Opponents of ``player`` in seat order after them."""
    n = state.players
    return [(player + k) % n for k in range(1, n)]


def unseen_counts(state: game.State, player: int) -> np.ndarray:
    """Cards whose whereabouts ``player`` does not know (opponents' unknown cards and the stock)."""
    known = state.known.sum(axis=0) - state.known[player]
    return game.pack_counts(state.rules) - state.hands[player] - state.table - state.help - known


def action_mask(state: game.State, player: int) -> tuple[np.ndarray, ...]:
    """The tuple-of-int8 mask of allowed counts per card type (see the module docstring).

    The arrays are read-only and shared between calls (copy one to modify it).
    """
    info = _obs_info(state.rules)
    if np.count_nonzero(state.help):
        allowed = game.allowed_counts(state, player).tolist()
    else:
        allowed = state.hands[player].tolist()
    return tuple(map(list.__getitem__, info.rows, allowed))


def flat_mask_space(rules: Rules) -> spaces.MultiBinary:
    """Space of :func:`flat_action_mask`: ``MultiBinary(sum(nvec))`` (int8)."""
    return spaces.MultiBinary(int(action_nvec(rules).sum()))


def flat_action_mask(state: game.State, player: int) -> np.ndarray:
    """The action mask as one new int8 vector of length ``sum(nvec)`` (the tuple's arrays concatenated)."""
    info = _obs_info(state.rules)
    if np.count_nonzero(state.help):
        allowed = game.allowed_counts(state, player)
    else:
        allowed = state.hands[player]
    return (info.flat_within <= allowed[info.flat_block]).astype(np.int8)


def no_flat_action_mask(rules: Rules) -> np.ndarray:
    """The flat mask of an agent that is not to move (a new array: only count 0 of each type)."""
    return _obs_info(rules).flat_none.copy()


#: Every ``State.event`` string; an event's numeric code is its index here.
EVENT_NAMES: tuple[str, ...] = tuple(
    [*("deal", "draw", "pass", "play", "failed")]
    + [f"{base}:{end}{tail}" for base in ("deal", "draw", "pass", "play", "failed")
       for end in ("win", "blocked", "draw") for tail in ("", ":next_game", ":match_over")]
)
#: ``event name -> code`` (the inverse of :data:`EVENT_NAMES`).
EVENT_CODES: dict[str, int] = {name: i for i, name in enumerate(EVENT_NAMES)}
#: Every ``State.result`` string (how the last game ended); a result's code is its index here.
RESULT_NAMES: tuple[str, ...] = ("", "win", "blocked", "draw", "truncated")
RESULT_CODES: dict[str, int] = {name: i for i, name in enumerate(RESULT_NAMES)}


def event_code(event: str) -> int:
    """The numeric code of an event string (its index in :data:`EVENT_NAMES`); ``ValueError`` if unknown."""
    try:
        return EVENT_CODES[event]
    except KeyError:
        raise ValueError(f"unknown event {event!r} (known: see observation.EVENT_NAMES)") from None


def no_action_mask(rules: Rules) -> tuple[np.ndarray, ...]:
    """The mask of an agent that is not to move: only count 0 of each card type (read-only arrays)."""
    return _obs_info(rules).none_mask


def observation_vector(state: game.State, player: int, *, draw_allowed: bool | None = None) -> np.ndarray:
    """The float32 observation vector of ``player`` (layout in the module docstring).

    Filled by the C encoder :mod:`machiavelli_env._obs` (the values of the numpy expressions in
    the module docstring, bit for bit; ``tests/test_env_observation.py`` checks it against a
    reference written from the layout).
    """
    info = _obs_info(state.rules)
    if draw_allowed is None:
        draw_allowed = state.done or game.draw_allowed(state, player)
    out = np.empty(OBS_SIZE, dtype=np.float32)
    _obs.encode(
        out, state.hands, state.known, state.last_play, state.table, state.help, info.pack, info.norm,
        info.template, state.opened, state.last_action, state.scores, player, info.match_target,
        state.stock.size, info.pack_size, state.passes, state.turn, info.max_turns, draw_allowed,
    )
    return out


def observe(state: game.State, player: int) -> dict[str, object]:
    """``{"observation": float32 (869,), "action_mask": tuple of int8 arrays}`` for ``player``."""
    return {"observation": observation_vector(state, player), "action_mask": action_mask(state, player)}


# ---------------------------------------------------------------------------------------------- global state
STATE_PLANES = 3 * MAX_PLAYERS + 3
STATE_SIZE = STATE_PLANES * NUM_TYPES + NUM_SCALARS


def state_space() -> spaces.Box:
    """Space of :func:`state_vector`."""
    return spaces.Box(0.0, 1.0, (STATE_SIZE,), dtype=np.float32)


def state_vector(state: game.State) -> np.ndarray:
    """The full state as a float32 vector (for centralised critics; holds hidden information).

    Seat-absolute planes (normalised like the observation): hands of players 0..5, their known
    cards, their last plays, then table, help pile and stock composition (21 x 53); then the
    scalars of the observation layout with the current player one-hot in place of "seat present"
    and "game over" in place of "drawing allowed".
    """
    r = state.rules
    norm = _norm(r)
    pack = float(r.pack_size)
    n = r.players
    planes = np.zeros((STATE_PLANES, NUM_TYPES), dtype=np.float32)
    planes[:n] = state.hands * norm
    planes[MAX_PLAYERS:MAX_PLAYERS + n] = state.known * norm
    planes[2 * MAX_PLAYERS:2 * MAX_PLAYERS + n] = state.last_play * norm
    planes[3 * MAX_PLAYERS] = state.table * norm
    planes[3 * MAX_PLAYERS + 1] = state.help * norm
    planes[3 * MAX_PLAYERS + 2] = np.bincount(state.stock, minlength=NUM_TYPES) * norm
    sc = np.zeros(NUM_SCALARS, dtype=np.float32)
    hand_sizes = state.hands.sum(axis=1)
    for q in range(n):
        sc[q] = hand_sizes[q] / pack
        sc[12 + q] = float(state.opened[q])
        code = int(state.last_action[q])
        if code:
            sc[18 + 4 * q + code - 1] = 1.0
        if r.match_target > 0:
            sc[42 + q] = min(float(state.scores[q]) / r.match_target, 1.0)
    if not state.done:
        sc[6 + state.current] = 1.0
    sc[48] = state.stock.size / pack
    sc[49] = min(state.passes / n, 1.0)
    sc[50] = min(state.turn / r.max_turns, 1.0)
    sc[51] = float(state.done)
    sc[52:] = rules_features(r)
    return np.concatenate([planes.reshape(-1), sc])
