"""A chat-bot-style referee over the public face of `referee` (nothing else is imported).

Commands, one a line on stdin or one an argument after the encounter file:

    begin                               hit points and surprise
    roll [rolling 8 3]                  the next step that needs no choice (begin, a round, its end)
    attack Goblin [with battle axe] [as pummel] [rolling 12 6]
    Angthar attacks Goblin ...          the same, naming who attacks (default: whoever's turn it is)
    wait                                the current combatant waits
    end                                 end the round
    undo                                take back the last step
    odds Goblin [with battle axe]       exact odds of that attack now
    dice Goblin [with battle axe]       the dice that attack would ask for
    legal [Angthar]                     the attacks and other actions legal now
    status                              everyone's hit points; whose turn it is

"rolling" gives the dice in the engine's order (`?` for one to roll); without it the bot rolls.

    python examples/bot.py examples/duel.yaml --seed 3 begin "roll rolling 8 3" "attack Goblin rolling 12 6"
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable

import referee


class Bot:
    """Turns one line of chat into one call on a :class:`referee.Fight` and answers in text."""

    def __init__(self, fight: referee.Fight, markdown: bool = False) -> None:
        self.fight = fight
        self.markdown = markdown

    def answer(self, line: str) -> str:
        try:
            return self.reply(*split_dice(line.strip()))
        except referee.RefereeError as exc:
            return f"error: {exc}"

    def reply(self, line: str, dice: list[int | None] | None) -> str:
        word, _, rest = line.partition(" ")
        word = word.lower()
        if not word:
            return ""
        if word in {"begin", "end", "roll"}:
            step = {"begin": "begin", "end": "end_round"}.get(word, self.fight.needs)
            if step in {"action", "over"}:
                return f"nothing to roll: the fight needs {self.next_need()}"
            return self.account(self.fight.take(step, dice))
        if word == "undo":
            return "took back:\n" + self.account(self.fight.undo())
        if word == "wait":
            return self.account(self.fight.act(referee.Wait(self.actor(None)), dice))
        if word == "status":
            return self.status()
        if word == "legal":
            legal = self.fight.legal_actions(rest.strip() or None)
            return "\n".join(referee.describe(a) for a in legal) or "nothing now"
        if word in {"odds", "dice"}:
            attack = self.attack(None, rest)
            return self.odds(attack) if word == "odds" else self.dice(attack)
        if word == "attack":
            return self.account(self.fight.act(self.attack(None, rest), dice))
        who, verb, rest = line.partition(" attacks ")
        if verb:
            return self.account(self.fight.act(self.attack(who.strip(), rest), dice))
        return (
            f"unknown command {word!r}; try: begin, roll, attack, wait, end, undo, odds, dice, legal, status"
        )

    # --- pieces ----------------------------------------------------------------------------------

    def actor(self, name: str | None) -> str:
        actor = name or self.fight.current
        if actor is None:
            raise referee.IllegalActionError(f"no one's turn: the fight needs {self.next_need()}")
        return actor

    def attack(self, name: str | None, text: str) -> referee.Attack:
        """``Goblin with battle axe as pummel`` → an attack by `name` (default: whoever's turn it is)."""
        text, _, form = text.partition(" as ")
        target, _, weapon = text.partition(" with ")
        return referee.Attack(
            self.actor(name),
            target=target.strip(),
            weapon=weapon.strip() or None,
            form=attack_form(form.strip()),
        )

    def account(self, step: referee.Step) -> str:
        text = step.markdown() if self.markdown else step.text()
        need = self.next_need()
        return f"{text}\n(next: {need})" if text else f"(next: {need})"

    def next_need(self) -> str:
        need = self.fight.needs
        return f"{self.fight.current}'s action" if need == "action" else need

    def odds(self, attack: referee.Attack) -> str:
        odds = self.fight.odds(attack)
        if odds is None:
            return "no odds for that"
        return (
            f"{attack.actor} → {attack.target}: hit {float(odds.hit):.0%}, critical {float(odds.critical):.0%},"
            f" expected damage {float(odds.expected_damage):.2f}, drops it {float(odds.drop):.0%}"
        )

    def dice(self, attack: referee.Attack) -> str:
        asked = self.fight.dice_needed(attack)
        return ", ".join(f"d{r.sides} {r.purpose}" + ("" if r.always else " (maybe)") for r in asked)

    def status(self) -> str:
        lines = []
        for name in self.fight.names:
            c = self.fight.combatant(name)
            conditions = f", {', '.join(c.conditions)}" if c.conditions else ""
            lines.append(f"{c.name} ({c.side}): {c.hp}/{c.max_hp} hp, {c.status}{conditions}")
        lines.append(f"round {self.fight.round}; next: {self.next_need()}")
        return "\n".join(lines)


def attack_form(name: str) -> referee.AttackForm | None:
    """``pummel`` → the attack form; nothing → the weapon's own (melee, or ranged for a missile weapon)."""
    if not name:
        return None
    forms = [form.value for form in referee.AttackForm]
    if name not in forms:
        raise referee.IllegalActionError(f"unknown attack form {name!r}; forms: {', '.join(forms)}")
    return referee.AttackForm(name)


def split_dice(line: str) -> tuple[str, list[int | None] | None]:
    """``attack Goblin rolling 12 6`` → (``attack Goblin``, [12, 6]); ``?`` is a die to roll."""
    command, found, faces = line.partition(" rolling ")
    if not found and line.startswith("rolling "):
        command, found, faces = "", "rolling", line[len("rolling ") :]
    if not found:
        return line, None
    dice: list[int | None] = []
    for item in faces.replace(",", " ").split():
        if item != "?" and not item.isdigit():
            raise referee.DiceError(f"{item!r} is not a die's face (a whole number, or ? to roll)")
        dice.append(None if item == "?" else int(item))
    return command.strip(), dice


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="a chat-bot referee over the referee library")
    parser.add_argument("encounter", help="an encounter file (examples/duel.yaml)")
    parser.add_argument("commands", nargs="*", help="commands to run (default: read lines from stdin)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random dice")
    parser.add_argument("--markdown", action="store_true", help="answer in Markdown")
    args = parser.parse_intermixed_args(list(argv) if argv is not None else None)
    try:
        bot = Bot(referee.Fight.from_file(args.encounter, seed=args.seed), markdown=args.markdown)
    except referee.RefereeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for line in args.commands or sys.stdin:
        reply = bot.answer(line)
        if reply:
            print(reply)
    return 0


if __name__ == "__main__":
    sys.exit(main())
