"""What ``kamisado play`` says: titles, whose turn, news of a move, results.

Pure functions of a match and its players (``players[side]`` is ``None`` for
a person, else the computer :class:`~kamisado.engine.levels.Player`), so the app
and its screens only show them.

>>> from kamisado.rules.match import Match
>>> from kamisado.engine.levels import Player
>>> m, players = Match(3), (None, Player("casual", 1))
>>> title_text(m, players)
'Standard match, 3 points to win · Black: you · Gold: computer (casual)'
>>> turn_text(m, players)
'Your move (Black): any tower (first move of the round): pick a tower, then its destination.'
>>> score_text(m)
'Round 1 · Black 0 – Gold 0 · Standard (to 3)'
"""

from __future__ import annotations

from collections.abc import Sequence

from kamisado.engine.levels import Player
from kamisado.rules.board import COLOUR_NAMES, GOAL, SIDE_NAMES, Move
from kamisado.rules.match import FILL, MATCH_NAMES, OVER, Match
from kamisado.rules.notation import Entry

__all__ = [
    "move_news",
    "player_name",
    "result_text",
    "round_over_text",
    "score_text",
    "side_word",
    "thinking_text",
    "title_text",
    "turn_text",
]

Players = Sequence[Player | None]


def side_word(side: int) -> str:
    """``'Black'`` or ``'Gold'``."""
    return SIDE_NAMES[side]


def player_name(players: Players, side: int) -> str:
    """``'you'`` (against the computer), ``'person'`` (hotseat) or ``'computer (level)'``."""
    pl = players[side]
    if pl is not None:
        return f"computer ({pl.level})"
    return "you" if any(players) else "person"


def title_text(match: Match, players: Players, width: int | None = None) -> str:
    """The app's subtitle: the kind of match and who plays which side.

    With ``width``, the longest of ever shorter forms that fits in it: the
    match type shortened, then the computer named by its level only, then
    the match type left out; never a part cut in the middle or a ``·`` left
    dangling.

    >>> from kamisado.engine.levels import Player
    >>> m, players = Match(3), (None, Player("beginner", 1))
    >>> title_text(m, players, 60)
    'Standard to 3 · Black: you · Gold: computer (beginner)'
    >>> title_text(m, players, 51)
    'Standard to 3 · Black: you · Gold: beginner'
    >>> title_text(m, players, 30)
    'Black: you · Gold: beginner'
    >>> title_text(Match(15), (None, None), 12)
    'Marathon'
    """
    if match.series or match.target == 1:
        what = short = match.name  # 'Series to 3', 'Single Round'
    else:
        what = f"{MATCH_NAMES[match.target]} match, {match.target} points to win"
        short = f"{MATCH_NAMES[match.target]} to {match.target}"
    names = [player_name(players, side) for side in (0, 1)]
    levels = [names[side] if p is None else p.level for side, p in enumerate(players)]
    sides = f"Black: {names[0]} · Gold: {names[1]}"
    brief = f"Black: {levels[0]} · Gold: {levels[1]}"
    forms = [f"{what} · {sides}", f"{short} · {sides}", f"{short} · {brief}", brief]
    if width is None:
        return forms[0]
    for form in forms:
        if len(form) <= width:
            return form
    return short if len(short) <= width else short.split()[0][:width]


def score_text(match: Match) -> str:
    """The round, the score and the match type."""
    m = match
    return (
        f"Round {len(m.rounds)} · Black {m.points[0]} – Gold {m.points[1]}"
        f" · {m.name}{'' if m.series else f' (to {m.target})'}"
    )


def turn_text(match: Match, players: Players) -> str:
    """Whose turn it is and which tower must move (or what the match waits for)."""
    m = match
    pos = m.position
    if m.state == OVER:
        assert m.winner is not None
        return f"The match is over: {side_word(m.winner)} wins."
    if m.state == FILL:
        return f"Round over: {side_word(m.current_winner())} chooses the fill."
    side = side_word(pos.turn)
    if not any(players):
        who = side
    elif players[pos.turn] is None:
        who = f"Your move ({side})"
    else:
        who = f"{side} (computer)"
    if pos.must_move < 0:
        what = "any tower (first move of the round): pick a tower, then its destination"
    else:
        what = f"the {COLOUR_NAMES[pos.must_move]} tower must move"
    return f"{who} to move: {what}." if who == side else f"{who}: {what}."


def round_over_text(match: Match, number: int) -> str:
    """How round ``number`` ended, in one line.

    >>> m = Match(3, start="2b3n1/4U3/5u1B/3o4/1pN2Or1/4y1P1/g7/1G1R3Y g u 3 0 0")
    >>> _ = m.push_move("f6-a1")
    >>> round_over_text(m, 1)
    "Round 1: Gold's purple tower reached the home row, Gold +1 point."
    """
    rnd = match.rounds[number - 1]
    o = rnd.outcome
    assert o is not None
    side = side_word(o.winner)
    if o.reason == GOAL:
        how = f"{side}'s {COLOUR_NAMES[o.colour]} tower reached the home row"
    else:
        how = (
            f"deadlock: {side_word(o.winner ^ 1)}'s move blocked every tower and loses;"
            f" the ring goes on {side}'s {COLOUR_NAMES[o.colour]} tower"
        )
    gained = 1 if match.series else o.points
    unit = "point" if gained == 1 else "points"
    return f"Round {number}: {how}, {side} +{gained} {unit}."


def move_news(entries: list[Entry], move: Move) -> list[str]:
    """The move in words, then each push and pass the rules made after it.

    >>> from kamisado.rules.position import Position
    >>> from kamisado.rules.notation import move_entries
    >>> move = Position().parse_move("c1-c5")
    >>> move_news(move_entries(Position(), move), move)
    ['Black: Red Forward 4 Blue (c1-c5).']
    """
    news = [f"{side_word(entries[0].side)}: {entries[0].long()} ({move})."]
    for e in entries[1:]:
        if e.is_back:
            news.append(
                f"Sumo push: {side_word(e.side)}'s {COLOUR_NAMES[e.colour]} tower is"
                f" pushed back; {side_word(e.side ^ 1)} moves again."
            )
        else:
            news.append(
                f"{side_word(e.side)}'s {COLOUR_NAMES[e.colour]} tower is blocked on a"
                f" {COLOUR_NAMES[e.finish]} square: {side_word(e.side)} passes."
            )
    return news


def result_text(match: Match, players: Players) -> str:
    """The result window's text: who won what, every round, and who of you two."""
    m = match
    assert m.winner is not None
    if m.series:
        what = f"series (first to {m.target} rounds)"
    elif m.target == 1:
        what = "Single Round"
    else:
        what = f"{MATCH_NAMES[m.target]} match"
    lines = [
        f"{side_word(m.winner)} wins the {what}: Black {m.points[0]}, Gold {m.points[1]}.",
        "",
    ]
    lines += [
        round_over_text(m, i + 1) for i in range(len(m.rounds)) if m.rounds[i].outcome
    ]
    if any(players):
        human = 0 if players[0] is None else 1
        lines += ["", "You win!" if m.winner == human else "The computer wins."]
    return "\n".join(lines)


def thinking_text(match: Match, players: Players, what: str, took: float) -> str:
    """The status line while the computer thinks about its ``what`` (``'move'``
    or ``'fill'``) for ``took`` seconds, its spinner turning five times a second.

    >>> m = Match(3)
    >>> thinking_text(m, (Player("casual", 1), None), "move", 0.0)
    '| Black (casual) is thinking about its move… 0.0 s'
    """
    side = match.position.turn if what == "move" else match.current_winner()
    pl = players[side]
    level = pl.level if pl else "?"
    spinner = "|/-\\"[int(took * 5) % 4]
    doing = "thinking about its move" if what == "move" else "choosing the fill"
    return f"{spinner} {side_word(side)} ({level}) is {doing}… {took:.1f} s"
