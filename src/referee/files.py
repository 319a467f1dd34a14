"""Encounter and ruleset files: safe YAML loading, schema validation, one-line errors.

Only PyYAML's safe loader is used (strictly, :mod:`referee.yaml_safe`; libyaml's scanner where PyYAML
has it, and a file it refuses is read again by PyYAML's own, whose words the error is in): nothing in a
file can run code or read other files. Files are capped in size and in YAML aliases (an "alias bomb" is refused before it
expands); only regular files are read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import yaml

from referee import catalog
from referee.bestiary import ac_warnings, expand_shorthands, has_shorthands
from referee.catalog import Catalog
from referee.checks import Modifier
from referee.classes import class_named
from referee.errors import EncounterFileError, OptionError
from referee.model import (
    ArmourSpec,
    Combatant,
    CombatantSpec,
    DefenceSpec,
    EncounterSpec,
    ModifierSpec,
    RulingSpec,
    ShieldSpec,
    Weapon,
    WeaponKind,
    WeaponSpec,
    expand_names,
    hit_dice_count,
    hit_dice_expression,
)
from referee.names import did_you_mean, split_enhancement, with_field_synonyms
from referee.rules.context import Situation
from referee.rules.options import ArmourClass
from referee.rules.ruleset import PRESET_ALIASES, PRESETS, Ruleset, preset_or_options
from referee.setup import Setup as Setup
from referee.structs import Spec, SpecError
from referee.yaml_safe import (
    FAST_LOADER,
    LIBYAML_READS_OTHERWISE,
    StrictLoader,
    check_flow_nesting,
    load_strict,
    read_regular_file,
)

if TYPE_CHECKING:  # a referee's own catalog is read only when an encounter or the command line names one
    from referee.catalog.own import OwnCatalog

_M = TypeVar("_M", bound=Spec)

MAX_FILE_BYTES = 1_000_000
MAX_ALIASES = 100
MAX_COMBATANTS = 200
MAX_YAML_NODES = 100_000  # values in a file once its aliases are expanded (an alias bomb stays small)


def read_yaml(path: Path) -> Any:
    """Read a YAML file safely, with size and alias limits and a one-line error naming the file."""
    raw = read_regular_file(path, MAX_FILE_BYTES)  # a FIFO or a device is refused, never waited on
    return parse_yaml_bytes(raw, str(path))


def parse_yaml_bytes(raw: bytes, where: str) -> Any:
    if len(raw) > MAX_FILE_BYTES:
        raise EncounterFileError(
            f"{where}: file is more than {MAX_FILE_BYTES} bytes; the limit is {MAX_FILE_BYTES}"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EncounterFileError(f"{where}: not UTF-8 text (byte {exc.start})") from None
    check_flow_nesting(text, where)  # before the scanner, which is slow on deep brackets
    if FAST_LOADER is not None and LIBYAML_READS_OTHERWISE.isdisjoint(text):
        try:
            return checked_yaml(text, where, FAST_LOADER)  # libyaml: the same data, several times sooner
        except Exception:  # refused: read again below, so that the reason given is PyYAML's own
            pass
    try:
        return checked_yaml(text, where, StrictLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        place = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "somewhere"
        raise EncounterFileError(f"{where}: bad YAML at {place}: {exc.problem}") from None
    except yaml.reader.ReaderError as exc:
        raise EncounterFileError(
            f"{where}: character {chr(exc.character)!r} at position {exc.position} is not allowed in YAML"
        ) from None
    except yaml.YAMLError as exc:
        raise EncounterFileError(f"{where}: bad YAML: {' '.join(str(exc).split())}") from None
    except RecursionError:
        raise EncounterFileError(f"{where}: YAML nests too deeply") from None


def checked_yaml(text: str, where: str, loader: Any) -> Any:
    """The file's one document, its aliases counted before they expand."""
    aliases = sum(isinstance(t, yaml.AliasToken) for t in yaml.scan(text, Loader=loader))
    if aliases > MAX_ALIASES:
        raise EncounterFileError(f"{where}: {aliases} YAML aliases; the limit is {MAX_ALIASES}")
    data = load_strict(text, loader)  # safe_load, refusing duplicate keys and base-60 numbers
    check_expanded_size(data, where)
    return data


def check_expanded_size(data: Any, where: str) -> None:
    """Refuse data that refers to itself (a YAML alias inside its own anchor) or that expands, through
    shared aliases, to more than :data:`MAX_YAML_NODES` values. Shared nodes are counted once per use
    but measured once (memoised by identity), so the check itself stays cheap."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()

    def size(node: Any) -> int:
        if not isinstance(node, dict | list):
            return 1
        key = id(node)
        if key in open_nodes:
            raise EncounterFileError(
                f"{where}: the data refers to itself (a YAML alias inside its own anchor)"
            )
        if key not in sizes:
            open_nodes.add(key)
            children = [*node.keys(), *node.values()] if isinstance(node, dict) else node
            total = 1 + sum(size(child) for child in children)
            open_nodes.discard(key)
            if total > MAX_YAML_NODES:
                raise EncounterFileError(f"{where}: the data expands to more than {MAX_YAML_NODES} values")
            sizes[key] = total
        return sizes[key]

    try:
        size(data)
    except RecursionError:
        raise EncounterFileError(f"{where}: the data nests too deeply") from None


def is_preset_name(name: str) -> bool:
    return PRESET_ALIASES.get(name, name) in PRESETS


def load_encounter(path: str | Path, catalog: str | Path | None = None) -> Setup:
    """Read an encounter file and resolve it into a :class:`Setup`; `catalog` is a referee's own
    catalog file (`--catalog FILE`) over the one the encounter names (issue 15)."""
    path = Path(path)
    data = read_yaml(path)
    own = read_own_catalog(Path(catalog)) if catalog is not None else None
    return setup_from_data(data, str(path), base_dir=path.parent, catalog=own)


RULESET_KEYS = frozenset({"preset", "options", "name", "description"})


def setup_from_data(
    data: Any, where: str = "encounter", base_dir: Path | None = None, catalog: OwnCatalog | None = None
) -> Setup:
    """Validate encounter data (as read from YAML or JSON) and resolve it against the catalog (the
    built-in one, the encounter's `catalog:` over it, then `catalog`)."""
    if not isinstance(data, dict):
        raise EncounterFileError(f"{where}: expected a mapping with `sides`, got {type(data).__name__}")
    if "sides" not in data and set(data) & {"preset", "options"} and set(data) <= RULESET_KEYS:
        raise EncounterFileError(
            f"{where}: this is a ruleset file (preset and options), not an encounter: name it in an"
            f" encounter as `ruleset: {Path(where).name}`, or pass it with `--ruleset {where}`"
            f" (`referee balance`); `referee rules {where}` shows its options"
        )
    check_expanded_size(data, where)  # data from a program (JSON API, library) may also be cyclic
    data = with_field_synonyms(data)  # `armor`, `hd` (docs/encounter-file.md, "Forgiving names")
    own = _own_catalog(data, where, base_dir)
    own = catalog if own is None else own.over(catalog)
    if own is not None:  # the stored encounter carries the catalog, never the file's name (the tracker)
        data = {k: v for k, v in data.items() if k != "catalog"}
        data.update({"catalog": dict(own.content)} if own.content else {})
    book = own.catalog() if own is not None else None
    fields = data
    failed: dict[str, str] = {}  # the combatants whose `monster:` or `stat_block:` cannot be read
    if has_shorthands(data):  # `monster:` and `stat_block:` become fields, AC in the ruleset's convention
        monsters = own.monsters if own is not None else None
        fields = expand_shorthands(data, where, _reads_descending(data, base_dir), monsters, failed)
    try:
        spec = EncounterSpec.model_validate(fields)
    except SpecError as exc:
        lines = exc.placed(where)
        lines += _resolution_problems(fields, where, book)  # the combatants that validate, resolved too
        _refuse(lines, failed)
    if failed:
        _refuse(_resolution_problems(fields, where, book), failed)
    if base_dir is None and not is_preset_name(spec.ruleset):
        # Data not read from a file (the web tracker's API, a program) names a preset, never a file:
        # nothing sent to a server may make it open a path (docs/errors.md, "Files").
        raise EncounterFileError(
            f"{where}: ruleset {spec.ruleset!r} is neither a preset ({', '.join(PRESETS)}) nor a file"
            " (encounter data not read from a file may only name a preset)"
        )
    try:
        ruleset = load_ruleset(spec.ruleset, spec.options, base_dir)
    except OptionError as exc:
        raise EncounterFileError(f"{where}: {exc}") from None
    combatants: list[Combatant] = []
    problems: list[str] = []
    for s, side in enumerate(spec.sides):
        for c, cspec in enumerate(side.combatants):
            place = f"{where}: sides.{s}.combatants.{c}"
            try:
                combatants.extend(resolve_combatant(cspec, side.name, place, book))
            except EncounterFileError as exc:
                problems.extend(str(exc).splitlines())
    if problems:
        raise EncounterFileError("\n".join(problems))
    if len(combatants) > MAX_COMBATANTS:
        raise EncounterFileError(f"{where}: {len(combatants)} combatants; the limit is {MAX_COMBATANTS}")
    source = json.loads(json.dumps(data, default=str))
    return Setup(
        name=spec.name,
        ruleset=ruleset,
        combatants=tuple(combatants),
        sides=tuple(side.name for side in spec.sides),
        surprise=spec.surprise,
        max_rounds=spec.max_rounds,
        distance=spec.distance,
        environment=dict(spec.environment),
        rulings={name: ruling_situation(name, r) for name, r in spec.rulings.items()},
        source=source,
        warnings=tuple(ac_warnings(data, where, ruleset.armour_class is ArmourClass.DESCENDING)),
    )


def _refuse(lines: list[str], failed: dict[str, str]) -> NoReturn:
    """Every problem of the file, in file order; a combatant whose shorthand failed shows only that."""
    kept = [line for line in lines if not any(line.startswith((p + ".", p + ":")) for p in failed)]
    kept += [line for problem in failed.values() for line in problem.splitlines()]
    raise EncounterFileError("\n".join(sorted(dict.fromkeys(kept), key=_in_file_order)))


def _in_file_order(line: str) -> list[tuple[int, int, str]]:
    """Sort key: a problem's place with its numbers as numbers (`sides.2` before `sides.10`)."""
    place = line.split(": ")[1] if line.count(": ") > 1 else ""
    return [(0, int(p), "") if p.isdecimal() else (1, 0, p) for p in place.split(".")]


def _resolution_problems(fields: Any, where: str, book: Catalog | None) -> list[str]:
    """The catalog problems (unknown weapon, armour) of each combatant that validates on its own, so
    that a file's schema problems and its catalog problems are shown together (issue 15)."""
    problems: list[str] = []
    sides = fields.get("sides") if isinstance(fields, dict) else None
    for s, side in enumerate(sides if isinstance(sides, list) else []):
        members = side.get("combatants") if isinstance(side, dict) else None
        for c, item in enumerate(members if isinstance(members, list) else []):
            place = f"{where}: sides.{s}.combatants.{c}"
            try:
                cspec = CombatantSpec.model_validate(item)
                resolve_combatant(cspec, str(side.get("name", "")), place, book)
            except SpecError:  # named by the whole file's validation; its items looked up still
                problems += _item_problems(item, place, book or catalog.built_in())
            except EncounterFileError as exc:
                problems.extend(str(exc).splitlines())
    return problems


def _item_problems(item: Any, place: str, book: Catalog) -> list[str]:
    """The unknown weapons, armour and shields of a combatant that does not validate (`armr: chain`
    beside `weapons: [long swrod]`): each item that validates on its own, looked up (issue 15)."""
    if not isinstance(item, dict):
        return []
    # field → (is a list, how it is looked up, its model)
    kinds: dict[str, tuple[bool, Any, type[Spec]]] = {
        "weapons": (True, resolve_weapon, WeaponSpec),
        "armour_layers": (True, _resolve_armour, ArmourSpec),
        "armour": (False, _resolve_armour, ArmourSpec),
        "shield": (False, _resolve_shield, ShieldSpec),
        "off_hand_shield": (False, _resolve_shield, ShieldSpec),
    }
    problems: list[str] = []
    for key, (listed, look_up, model) in kinds.items():
        value = item.get(key)
        values = list(enumerate(value)) if listed and isinstance(value, list) else [(None, value)]
        for i, one in values:
            if one is None or (i is None and listed):
                continue
            with _noted(problems):
                try:
                    given = one if isinstance(one, str) else model.model_validate(one)
                except SpecError:
                    continue  # its own fields are named by the whole file's validation
                look_up(given, f"{place}.{key}" + ("" if i is None else f".{i}"), book)
    return problems


def _own_catalog(data: dict[str, Any], where: str, base_dir: Path | None) -> OwnCatalog | None:
    """The file's `catalog:` (issue 15): a catalog file's name (relative to the encounter file), or the
    catalog itself as a mapping (what a stored or pasted encounter carries)."""
    name = data.get("catalog")
    if name is None:
        return None
    from referee.catalog.own import read_own_catalog_data

    if isinstance(name, dict):
        return read_own_catalog_data(name, where, "catalog.")
    if not isinstance(name, str) or not name.strip():
        raise EncounterFileError(f"{where}: catalog: expected a catalog file's name or a catalog mapping")
    if base_dir is None:  # nothing sent to a server may make it open a path (docs/errors.md, "Files")
        raise EncounterFileError(
            f"{where}: catalog {name!r}: encounter data not read from a file names no file; write the"
            " catalog itself there (catalog: {weapons: [...], monsters: [...]})"
        )
    path = Path(name)
    return read_own_catalog(path if path.is_absolute() else base_dir / path)


def read_own_catalog(path: Path) -> OwnCatalog:
    """A referee's own catalog file: `monsters:`, `weapons:`, `armour:`, `shields:` (referee.catalog.own)."""
    from referee.catalog.own import read_own_catalog_data

    try:
        content = read_yaml(path)
    except OSError as exc:
        raise EncounterFileError(f"{path}: cannot read the catalog: {exc.strerror or exc}") from None
    return read_own_catalog_data(content, str(path))


def _reads_descending(data: dict[str, Any], base_dir: Path | None) -> bool:
    """Whether the file's ruleset counts AC downwards (DAC-AC-1), for a stat line's "6 [13]" (issue 15).
    A ruleset that cannot be read reads as ascending here; loading it properly then names the problem."""
    name, options = str(data.get("ruleset", "odd")), data.get("options")
    if base_dir is None and not is_preset_name(name):
        return False  # data not read from a file never opens a path
    try:
        ruleset = load_ruleset(name, options if isinstance(options, dict) else None, base_dir)
    except (OptionError, EncounterFileError, OSError, TypeError, ValueError):
        return False
    return ruleset.armour_class is ArmourClass.DESCENDING


def ruling_situation(name: str, spec: RulingSpec) -> Situation:
    """A stored ruling (ODD-SIT-1) as the situation it adds to an attack; each modifier's reason names it."""

    def modifiers(items: list[ModifierSpec], rule: str) -> tuple[Modifier, ...]:
        return tuple(Modifier(m.value, m.rule or rule, f"{m.reason} (ruling: {name})") for m in items)

    return Situation(
        cover=str(spec.cover or "none"),
        concealment=str(spec.concealment or "none"),
        modifiers=modifiers(spec.modifiers, "ODD-SIT-1"),
        ac_modifiers=modifiers(spec.ac_modifiers, "ODD-AC-SIT"),
        flags=frozenset(spec.flags),
    )


def _catalog_entry(name: str, look_up: Callable[[str], _M | None]) -> tuple[_M | None, int | None]:
    """The catalog entry for a name, and the enhancement of a `long sword +1` (issue 15)."""
    base = look_up(name)
    split = split_enhancement(name) if base is None else None
    if split is not None and (stem := look_up(split[0])) is not None:
        return stem, split[1]
    return base, None


def resolve_weapon(item: str | WeaponSpec, where: str, book: Catalog | None = None) -> Weapon:
    """Merge a weapon given by name or by fields with the catalog entry of the same name; a name ending
    in `+1` is the catalog weapon with +1 to hit and to damage (a magic weapon, ODD-MELEE-3)."""
    given = _validated(WeaponSpec, {"name": item}, where) if isinstance(item, str) else item
    book = book or catalog.built_in()
    base, bonus = _catalog_entry(given.name, book.weapon)
    if base is None and given.damage is None:
        hint = did_you_mean(given.name, catalog.names(book.weapons))
        shown = given.name if given.name.isprintable() else "NAME"  # keep the message on one line
        advice = f"; give its damage (e.g. {{name: {shown}, damage: 1d6}}) or use a catalog weapon"
        raise EncounterFileError(
            f"{where}: unknown weapon {given.name!r}{hint or advice + ' (`referee catalog`)'}"
        )
    merged: dict[str, Any] = base.model_dump(exclude_none=True) if base else {}
    if bonus is not None:
        merged.update(to_hit=bonus, damage_bonus=bonus, assumed=base.assumed if base else False)
    merged.update(given.model_dump(exclude_none=True, exclude_defaults=True))
    merged["name"] = given.name
    merged.setdefault("kind", WeaponKind.MELEE)
    if merged.get("type") is not None:
        merged["type"] = tuple(merged["type"])
    return _validated(Weapon, merged, where)


def _resolve_armour(item: str | ArmourSpec | None, where: str, book: Catalog) -> ArmourSpec | None:
    if item is None:
        return None
    given = _validated(ArmourSpec, {"name": item}, where) if isinstance(item, str) else item
    base, bonus = _catalog_entry(given.name, book.armour)
    if base is None and given.ac_bonus is None and given.ac is None:
        hint = did_you_mean(given.name, catalog.names(book.armours))
        raise EncounterFileError(
            f"{where}: unknown armour {given.name!r}{hint or '; give ac_bonus or ac, or use a catalog armour'}"
        )
    merged: dict[str, Any] = base.model_dump() if base else {}
    if bonus is not None:  # `chain mail +1`: magic armour (ODD-AC-MAGIC-1)
        merged.update(enhancement=bonus, magical=True)
    merged.update(given.model_dump(exclude_none=True, exclude_defaults=True))
    merged["name"] = given.name
    # one value gives the other: AAC = 20 - DAC (RULES.md 1.3)
    if merged.get("ac_bonus") is None and merged.get("ac") is not None:
        merged["ac_bonus"] = 10 - merged["ac"]
    if merged.get("ac") is None and merged.get("ac_bonus") is not None:
        merged["ac"] = 10 - merged["ac_bonus"]
    return _validated(ArmourSpec, merged, where)


def _resolve_shield(item: str | ShieldSpec | None, where: str, book: Catalog) -> ShieldSpec | None:
    if item is None:
        return None
    given = _validated(ShieldSpec, {"name": item}, where) if isinstance(item, str) else item
    base, bonus = _catalog_entry(given.name, book.shield)
    if base is None and given.bonus is None and given.deflection is None:
        hint = did_you_mean(given.name, catalog.names(book.shields))
        raise EncounterFileError(
            f"{where}: unknown shield {given.name!r}{hint or '; use small/medium/large/tower shield'}"
        )
    merged: dict[str, Any] = (
        base.model_dump() if base else {"bonus": 1, "attackers": 1, "deflection": 1, "uses": 1}
    )
    if bonus is not None:  # `shield +1`: a magic shield (ODD-AC-MAGIC-1)
        merged.update(enhancement=bonus, magical=True)
    merged.update(given.model_dump(exclude_none=True, exclude_defaults=True))
    merged["name"] = given.name
    return _validated(ShieldSpec, merged, where)


def _validated(model: type[_M], merged: dict[str, Any], where: str) -> _M:
    """Catalog values merged with the file's (and derived ones, like DAC from AAC) checked again."""
    try:
        return model.model_validate(merged)
    except SpecError as exc:
        raise EncounterFileError("\n".join(exc.placed(where))) from None


@contextmanager
def _noted(problems: list[str]) -> Iterator[None]:
    """Note a part's problem and go on to the next part; the caller raises them all together."""
    try:
        yield
    except EncounterFileError as exc:
        problems.extend(str(exc).splitlines())


def resolve_combatant(
    spec: CombatantSpec, side: str, where: str, book: Catalog | None = None
) -> list[Combatant]:
    """One spec (maybe with `count`) → resolved combatants, numbered when there are several; names are
    looked up in `book` (default: the built-in catalog).

    Monsters and characters become the same `Combatant` and go through the same procedures (ODD-NPC-1);
    only the basic to-hit bonus and hit points come from hit dice instead of class and level."""
    problems: list[str] = []  # every unknown item of the combatant, not only the first (issue 15)
    book = book or catalog.built_in()
    weapons: list[Weapon] = []
    for i, item in enumerate(spec.weapons):
        with _noted(problems):
            weapons.append(resolve_weapon(item, f"{where}.weapons.{i}", book))
    with _noted(problems):
        armour = _resolve_armour(spec.armour, f"{where}.armour", book)
    with _noted(problems):
        shield = _resolve_shield(spec.shield, f"{where}.shield", book)
    layers: list[ArmourSpec | None] = []
    for i, suit in enumerate(spec.armour_layers):
        with _noted(problems):
            layers.append(_resolve_armour(suit, f"{where}.armour_layers.{i}", book))
    with _noted(problems):
        off_hand = _resolve_shield(spec.off_hand_shield, f"{where}.off_hand_shield", book)
    if problems:
        raise EncounterFileError("\n".join(problems))
    kinds = [spec.creature_type] if isinstance(spec.creature_type, str) else (spec.creature_type or [])
    is_monster = spec.is_monster
    hit_dice = str(spec.hit_dice) if spec.hit_dice is not None else None  # the validator made it text
    hd = hit_dice_count(hit_dice) if hit_dice else 0
    klass = class_named(spec.character_class) if spec.character_class else None
    if spec.attack_bonus is not None:
        bonus = spec.attack_bonus
    elif is_monster:
        bonus = hd  # ODD-BTH-2: a monster's basic to-hit bonus is its number of hit dice
    elif klass is not None:
        bonus = klass.attack_bonus(spec.level or 1)  # ODD-BTH-1 by class (GAP-CLASS-BTH)
    else:
        bonus = max(0, (spec.level or 1) - 1)  # GAP-CLASS-BTH fallback: warriors level - 1
    hit_die = spec.hit_die or (klass.hit_die if klass else None)
    if hit_dice:
        hp_dice: str | None = hit_dice_expression(hit_dice)
    elif hit_die and spec.level:
        hp_dice = f"{spec.level}{hit_die}"  # ODD-HD-1: L dice of the class's type
    else:
        hp_dice = None
    return [
        Combatant(
            name=name,
            side=side,
            is_monster=is_monster,
            level=spec.level or 0,
            attack_bonus=bonus,
            hit_dice=hd,
            hp=spec.hp,
            hp_dice=hp_dice,
            abilities=spec.abilities,
            size=spec.size,
            move=spec.move,
            swim=spec.swim,
            fly=spec.fly,
            aquatic=spec.aquatic,
            armour=armour,
            shield=shield,
            ac=spec.ac,
            natural_armour=spec.natural_armour,
            armour_layers=tuple(a for a in layers if a is not None),
            off_hand_shield=off_hand,
            defences=tuple(DefenceSpec.model_validate(d) if isinstance(d, str) else d for d in spec.defences),
            creature_types=tuple(k.strip().lower() for k in kinds if k.strip()),
            protection=tuple(spec.protection),
            proficiencies=tuple(spec.proficiencies),
            weapons=tuple(weapons),
            attacks=tuple(spec.attacks),
            position=spec.position,
            conditions=tuple(c if isinstance(c, str) else c.name for c in spec.conditions),
            condition_rounds=tuple(
                (c.name, c.rounds) for c in spec.conditions if not isinstance(c, str) and c.rounds
            ),
            proficient=spec.proficient,
            hidden=spec.hidden,
            tactic=spec.tactic,
            sacrifice_shield=spec.sacrifice_shield,
        )
        for name in expand_names(spec)
    ]


def load_ruleset(
    spec: str, overrides: Mapping[str, Any] | None = None, base_dir: Path | None = None
) -> Ruleset:
    """A preset name, or a path to a house-rules YAML file (`preset:` + `options:`), plus overrides.

    A relative path is read from `base_dir` (the encounter file's folder) when given."""
    if is_preset_name(spec):
        return preset_or_options(spec, overrides)
    path = Path(spec)
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    if not path.exists():
        raise OptionError(f"ruleset {spec!r} is neither a preset ({', '.join(PRESETS)}) nor a file")
    ruleset = load_ruleset_file(path)
    return ruleset.with_options(**{str(k): v for k, v in overrides.items()}) if overrides else ruleset


def load_ruleset_file(path: Path) -> Ruleset:
    """A house-rules file: `preset: odd` then `options: {critical_hits: max_plus_half_level}`."""
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise EncounterFileError(f"{path}: expected a mapping with `preset` and `options`")
    unknown = set(data) - {"preset", "options", "name", "description"}
    if unknown:
        raise EncounterFileError(
            f"{path}: unknown key {sorted(unknown)[0]!r}; a ruleset file has preset and options"
        )
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise EncounterFileError(f"{path}: options must be a mapping of option: variant")
    try:
        return Ruleset.preset(str(data.get("preset", "odd"))).with_options(
            **{str(k): v for k, v in options.items()}
        )
    except OptionError as exc:
        raise EncounterFileError(f"{path}: {exc}") from None
