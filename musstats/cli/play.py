"""``musstats play``: whole games against the equilibrium bots in the terminal, with a review of
every decision; ``--autoplay`` plays your seat with a strategy set and prints the review."""

from __future__ import annotations

import sys
import time

import click

from musstats.cli.common import Command, finish, number, progress_bar

__all__ = ["play"]

_SETS = "equilibrium|paso|heuristic|random (or individual)"
_PLACE = ("you", "right", "partner", "left")


@click.command(cls=Command, epilog="Hand histories and the review: docs/practice.md. The rules: musstats rules.")
@click.option("--target", type=click.Choice(["40", "30"]), default="40", show_default=True,
              help="Stones to win the game.")
@click.option("--match", type=click.Choice(["single", "best-of-3", "first-to-3"]), default="single",
              show_default=True, help="One game, or a match of games.")
@click.option("--seed", type=str, default=None, help="Seed of the deals and the bots' draws [default: a fresh one, "
                                                      "printed and saved; autoplay: 1].")
@click.option("--save", "save", type=str, default=None,
              help="Save the game's hand history here (.json) [default: musstats-game-SEED.json; autoplay: only "
                   "when given].")
@click.option("--pace", type=str, default="0.6", show_default=True,
              help="Seconds between the bots' actions on a terminal (0: at once).")
@click.option("--no-review", is_flag=True, help="No review after each hand (the game's review still closes it).")
@click.option("--autoplay", type=str, default=None, help=f"Play your seat with a strategy set: {_SETS}.")
@click.option("--hands", type=str, default=None, help="Autoplay: hands played (games follow one another) "
                                                      "[default: 20].")
@click.option("--quiet", is_flag=True, help="Autoplay: no progress bar.")
@click.option("--format", "fmt", default="table", show_default=True,
              type=click.Choice(["table", "json", "csv"], case_sensitive=False), help="Autoplay: output format.")
def play(target, match, seed, save, pace, no_review, autoplay, hands, quiet, fmt) -> None:
    """Play whole games of Mus against the equilibrium bots: your partner and both rivals play
    the shipped equilibrium betting, cut by the shipped cut flags and throw by the shipped
    discard table.  At your turn type an action (or its number), h for a hint (the
    equilibrium's figures), q to stop; in the discard, the cards to throw.  After each hand:
    every seat's cards, the count and the review of your decisions.  Ctrl-C saves the game
    so far.

    --autoplay plays your seat with a strategy set (equilibrium, paso, heuristic, random) and
    prints the review: what each style of play costs, in stones per decision.

    Examples: musstats play --match best-of-3;
    musstats play --autoplay paso --hands 40 --seed 1 --format json
    """
    from musstats.base.errors import MusError
    from musstats.base.files import check_output

    sd = None if seed is None else number(seed, "--seed", 0, 2 ** 63 - 1)
    tgt = int(target)
    if save is not None:
        check_output(save, (".json",), "history")
    if autoplay is not None:
        _autoplay(autoplay, hands, sd, tgt, save, quiet, fmt.lower())
        return
    if hands is not None:
        raise MusError("--hands is for --autoplay (a game you play lasts until somebody wins)")
    try:
        wait = float(pace)
    except ValueError:
        raise MusError(f"--pace must be a number of seconds, got {pace!r}") from None
    if not 0 <= wait <= 10:
        raise MusError(f"--pace must be between 0 and 10 seconds, got {pace}")
    _interactive(tgt, match, sd, save, wait, not no_review)


def _autoplay(strategy, hands, seed, target, save, quiet, fmt) -> None:
    from musstats.analysis.practice import autoplay as run
    from musstats.base.files import atomic_write_text
    from musstats.output.practice import emit_autoplay

    n = 20 if hands is None else number(hands, "--hands", 1, 100_000)
    with progress_bar(quiet, "autoplay: hands played, then reviewed") as bar:
        res = run(strategy, hands=n, seed=1 if seed is None else seed, target=target, progress=bar)
    if save is not None:
        atomic_write_text(save, res.game.record.to_json())
        click.echo(f"saved the {len(res.game.record.hands())} hands to {save}", err=True)
    finish(emit_autoplay(res.to_dict(), fmt), partial=res.partial)


# ---------------------------------------------------------------------------- the interactive table


def _interactive(target, match, seed, save, pace, per_hand_review) -> None:
    from musstats.analysis.practice import PracticeGame
    from musstats.base.errors import MusError

    game = PracticeGame(seed=seed, target=target, match=match)
    path = save or f"musstats-game-{game.seed}.json"
    from musstats.base.files import check_output

    check_output(path, (".json",), "history")
    tty = sys.stdout.isatty()
    seen = 0
    try:
        click.echo(f"musstats play · 8-reyes · game to {target} · {match} · seed {game.seed} · saved to {path}")
        click.echo("You sit with your partner opposite; the rivals are on your right and left. "
                   "Actions: type one (or its number); h: the equilibrium's figures; q: stop.")
        while True:
            st = game.state(seen)
            for e in st["events"]:
                line = _event(e, st)
                if line:
                    click.echo(line)
                    if tty and pace and e.get("place") not in (None, 0) and e["kind"] in ("mus", "bet", "throw"):
                        time.sleep(pace)
            seen = st["events_total"]
            if st["hand_over"]:
                _after_hand(game, st, per_hand_review)
                if st["match_over"] or (st["game_over"] and match == "single"):
                    _save(game, path, final=True)
                    _game_review(game)
                    return
                if st["game_over"]:
                    _game_review(game)
                if not _ask("Enter: next hand · q: stop", allow_empty=True, quit_ok=True):
                    _save(game, path)
                    return
                game.next_hand()
                continue
            if not st["your_turn"]:  # pragma: no cover - the bots always hand the turn back
                raise MusError("internal: not your turn and the hand is not over")
            if not _your_turn(game, st):
                _save(game, path)
                return
    except (KeyboardInterrupt, click.exceptions.Abort):
        _save(game, path)
        raise KeyboardInterrupt from None  # exit status 130
    except EOFError:
        _save(game, path)
        return


def _save(game, path: str, final: bool = False) -> None:
    import json

    from musstats.base.files import atomic_write_text

    atomic_write_text(path, json.dumps(game.history(), ensure_ascii=False, indent=1) + "\n")
    click.echo(f"saved the game to {path}" + ("" if final else " (musstats review " + path + ")"), err=True)


def _ask(prompt: str, allow_empty: bool = False, quit_ok: bool = False) -> str | None:
    """One line from the player (None for q)."""
    from musstats.base.errors import MusError

    try:
        text = click.prompt(prompt, default="" if allow_empty else None, show_default=False, prompt_suffix=" > ")
    except OSError:
        raise MusError("musstats play reads your actions from the standard input, which cannot be read here; "
                       "--autoplay STRATEGY plays without it") from None
    text = text.strip()
    if quit_ok and text.lower() in ("q", "quit", "salir"):
        return None
    return text or "next"


def _cards_line(cards: list[dict]) -> str:
    return "  ".join(f"[{i + 1}] {c['label']}" for i, c in enumerate(cards))


def _event(e: dict, st: dict) -> str | None:
    from musstats.output.practice import event_text

    return event_text({**e, "_mano": st["mano"]})


def _your_turn(game, st: dict) -> bool:
    """Prompt until the player's action is taken; False when he stops (q)."""
    from musstats.base.errors import MusError
    from musstats.output.practice import render_hint

    turn = st["turn"]
    cards = st["cards"]
    seat = st["seats"]["0"]
    score = st["score"]
    click.echo(f"\nYou are {seat} · score us {score['us']}, them {score['them']} · your cards: {_cards_line(cards)}")
    if turn["phase"] == "discard":
        prompt = "Cards to throw (e.g. '7 A' or their numbers '2 4'), h: hint, q: stop"
    else:
        where = {"mus": "Mus", "betting": turn["lance"]}[turn["phase"]]
        said = f" after {','.join(turn['history'])}" if turn["history"] else ""
        opts = " | ".join(f"{i + 1} {a}" for i, a in enumerate(turn["actions"]))
        prompt = f"{where}{said}: {opts} (h: hint, q: stop)"
    while True:
        text = _ask(prompt, quit_ok=True)
        if text is None:
            return False
        if text.lower() in ("h", "?", "hint", "pista"):
            try:
                click.echo(render_hint(game.hint()), nl=False)
            except MusError as e:
                click.echo(f"no hint: {e}")
            continue
        try:
            if turn["phase"] == "discard":
                game.act("throw", _thrown(text, cards))
            else:
                action = turn["actions"][int(text) - 1] if text.isdigit() and 1 <= int(text) <= len(
                    turn["actions"]) else text
                game.act(action)
            return True
        except MusError as e:
            click.echo(f"not taken: {e}")


def _thrown(text: str, cards: list[dict]) -> str:
    """The cards to throw from their numbers (1-4) or their names."""
    toks = text.replace(",", " ").split()
    if toks and all(t.isdigit() and 1 <= int(t) <= 4 for t in toks):
        if len(set(toks)) != len(toks):
            from musstats.base.errors import MusError

            raise MusError("a card number is given twice")
        return " ".join(cards[int(t) - 1]["label"] for t in toks)
    return text


def _after_hand(game, st: dict, per_hand_review: bool) -> None:
    from musstats.analysis.practice.review import review_hand
    from musstats.output.practice import render_hand_review

    shown = st["shown"]
    click.echo("Cards shown:")
    for p in range(4):
        s = shown[str(p)]
        fin = " ".join(c["label"] for c in s["final"])
        dealt = " ".join(c["label"] for c in s["dealt"])
        click.echo(f"  {_PLACE[p]:<8} {st['seats'][str(p)]:<7} {fin}" + (f"  (dealt {dealt})" if dealt != fin else ""))
    if per_hand_review:
        click.echo(render_hand_review(review_hand(game.hand_record()).to_dict()))


def _game_review(game) -> None:
    from musstats.analysis.practice.review import review_hand, summarise
    from musstats.output.practice import summary_table

    hands = [hr for hr in game.record.hands() if hr.game == len(game.record.games)]
    rows = [d for hr in hands for d in review_hand(hr).decisions]
    click.echo(summary_table(summarise(rows), f"Game {len(game.record.games)}: stones lost against the best action"))
