/*
 * Exact table-repacking oracle for Machiavelli: a dynamic programme over rank positions.
 *
 * Question: choose per card type lo[c] <= x[c] <= hi[c] maximising sum w[c]*(x[c]-lo[c]) such
 * that the multiset x partitions into valid melds (groups and runs), optionally with at least
 * one group and with at least N opening points.
 *
 * Method (van Rijn, Takes & Vis 2015, staged as in design/ORACLE.md). Sweep rank positions. At a
 * position boundary only the open runs of each suit matter: a multiset of small "tokens" (length
 * capped at 3, jokers held, has-a-real-card, and flags), interned as a per-suit state id. Suits
 * are coupled only by the groups of the current rank, so the four suits of a position are
 * processed one after another, carrying (cards sent to groups, most from one suit), and the group
 * condition is checked when the rank is complete. Per-suit transitions are enumerated once and
 * cached across queries.
 *
 * Aces: low (A..K) and high (2..K, A) are plain sweeps. wrap is cyclic, cut before the rank
 * holding the fewest cards: a run crossing the cut is split into a "head" starting at the first
 * position and a "tail" ending at the last; a head that closes leaves a "demand" that a tail must
 * consume when it starts (later), which keeps the joined run at most 13 long. low_or_high and
 * both_ends sweep A, 2..K, A: each ace copy is used at one end, and the number used low is carried
 * per suit (runs started at A low are flagged: under low_or_high they may not reach A high).
 *
 * Jokers are placed at positions (a joker in a run stands at a rank position). Exact symmetry
 * reduction ("normalisation", off when opening points are asked for, since it moves what a joker
 * stands for): a run never starts with a joker unless it reaches the last position, because the
 * leading joker can move to the position after the run's end. So joker-started runs carry a
 * "must reach the end" flag (none under wrap, where the joker can always move), tails (the first
 * part of a crossing run) never start with a joker, and a joker-started head may not close as an
 * ordinary run.
 *
 * Group capacity: a rank whose cards (and jokers, at most max_jokers_per_meld a group) can make at
 * most g groups lets each suit send at most g cards to them (one per group). Every search and the
 * relaxation skip transitions over that cap; without it a card that fits nowhere (say a second KD
 * with no QD and kings for one group only) is found out only at its rank, after everything below.
 *
 * Searches (all exact):
 *  - forward: breadth-first over the stages with a hash table per stage; stages that change
 *    nothing are skipped, states whose open short runs cannot be continued are never created,
 *    and at position boundaries states dominated by one differing in a single suit are dropped;
 *  - backward: with the forward graph kept (no dominance pruning), the best completion of every
 *    state, giving in one pass the best play containing each card (by_card);
 *  - depth-first branch and bound with a memo of exact values and upper bounds (fail-soft,
 *    asking for the bound, then for each smaller bound proven), bounded by a per-suit relaxation
 *    (each suit alone, groups allowed wherever the rank could form one; with jokers the jokers
 *    still free are shared out among the suits by a small knapsack, and a card sent to a group
 *    costs its least share of that group's jokers, (3 - n) / n where the rank has n suits)
 *    and by whether the rank's groups can still be completed; children with the most cards sent
 *    to groups go first, which on crowded tables finds a play matching the bound at once.
 *  - whole-hand probe: when every card that may be added has a positive weight, playing all of
 *    them is optimal whenever it is feasible, so no bound is needed to prove it. With jokers among
 *    the cards (where the bounds, not the nodes, cost most) or a crowded table, a depth-first
 *    search without bounds (children in the order above, dead states remembered, at most 300
 *    expansions) looks for such an arrangement first; it is skipped at once when some hand card
 *    has neither a group partner nor run neighbours (card_can_meld). When it finds one, the
 *    bounded search is not needed; otherwise the searches run as before, so every answer that is
 *    not the whole hand is unchanged.
 *    (On small tables without jokers the forward pass is cheap, and in play a failed probe, the
 *    usual outcome, would cost more than it saves.)
 *  - repack probe: a repack (lo = hi) is the probe's question itself, so on the same tables the
 *    depth-first search without bounds runs first (at most 3000 expansions) and its answer is
 *    final when it finishes, found or not; a card that fits no meld at all (card_can_meld) rules
 *    the repack out before any search. Only a probe over budget leaves the question to the
 *    bounded searches, whose bounds cannot help a question with nothing to choose.
 * solve() runs the whole-hand probe when there are jokers or a crowded table (40 cards or more),
 * then alternates a forward pass and a depth-first probe with budgets growing tenfold (crowded
 * tables start with the depth-first probe, with jokers as without: on smaller joker tables the
 * budgeted forward pass was about 4x faster at the median; the memo is kept between probes)
 * until one finishes; set_params() exposes the budgets and switches for tests.
 * The sweep runs from the ace up, so a conflict among the top ranks is found only after every
 * combination below them was tried. When the first level of that schedule runs out (and the query
 * has no opening points), the rank-reversed query (2 <-> K, 3 <-> Q, ..., which maps melds to
 * melds) takes turns with the original, level by level, each from a fresh memo; the first to
 * finish answers, mapped back (set_params(race=0) turns this off). On crowded classic tables this
 * turned searches of 100-350 ms into 3-5 ms; queries answered within the first level are searched
 * exactly as before.
 *
 * Layout: the source is split by concern under csrc/ (each file's header says what it owns) and
 * compiled as this one translation unit, the parts included below in dependency order, so the
 * compiler still sees and inlines the whole search at once.
 */
#include "csrc/common.h"
#include "csrc/states.c"
#include "csrc/query.c"
#include "csrc/forward.c"
#include "csrc/bounds.c"
#include "csrc/rebuild.c"
#include "csrc/probes.c"
#include "csrc/solve.c"
#include "csrc/bindings.c"
#include "csrc/lp.c"
#include "csrc/bycard.c"
#include "csrc/plays.c"
#include "csrc/module.c"
