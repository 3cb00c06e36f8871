"""Creating a tournament: resolve the entrants, schedule the tables, store it all at once."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.bots.protocols import protocol_of
from arena.house.names import house_name, parse_house
from arena.referee import secret_seed
from arena.registry import house_version
from arena.runtime import Runtime
from arena.store import (
    BotVersion,
    Database,
    StoreError,
    TableSpec,
    Tournament,
    User,
    create_tournament,
    find_bot_version,
)
from arena.tournaments.owners import seating_problem
from arena.tournaments.schedule import DEFAULT_HOUSE_BOTS, Table, schedule, seat_numbers
from arena.tournaments.spec import TournamentSpec


def new_tournament(db: Database, runtime: Runtime, spec: TournamentSpec) -> Tournament:
    """Create the tournament ``spec`` describes (``arena.tournaments.spec``): its entrants
    (``spec.bots``: valid bot versions or house bots), the tables the scheduler plans for
    them, seated from ``spec.seed``, and its settings, all stored at once or not at all.
    Fewer than 4 entrants are joined by house bots; two bots of one owner never share a
    table unless ``spec.allow_same_owner``."""
    if not spec.bots:
        raise StoreError("a tournament needs at least one entrant (--bots)")
    spec = spec.resolved(_organised(db) + 1)
    entrants = _resolve(db, runtime, spec.bots)
    for ref, version in zip(spec.bots, entrants, strict=True):
        protocol = protocol_of(version.manifest)
        if why := protocol.refusal(spec.rules):
            raise StoreError(f"{ref} is a {protocol.title}: {why}, not {spec.rules.name}")
    entries, tables = _seat(db, runtime, spec, entrants)
    with db.session() as s:
        entries = [s.merge(v) for v in entries]
        return create_tournament(s, spec.columns(), entries, tables)


def _organised(db: Database) -> int:
    """How many tournaments were created (kind "tournament": not the ladders' rows)."""
    with db.session(read_only=True) as s:
        query = select(func.count()).select_from(Tournament)
        return s.scalar(query.where(Tournament.kind == "tournament")) or 0


def _seat(
    db: Database, runtime: Runtime, spec: TournamentSpec, entrants: list[BotVersion]
) -> tuple[list[BotVersion], list[TableSpec]]:
    """Every entrant, then the house bots filling empty seats, and the scheduled tables as
    indices into them, each with its deal seed."""
    names = [str(v.id) for v in entrants]
    assert spec.seed is not None  # resolved
    plan = schedule(
        names,
        spec.seed,
        tables=spec.tables,
        max_tables=spec.max_tables,
        house_bots=_spare_house_bots(entrants),
        owners=_owners(db, spec, entrants),
    )
    fills = sorted({name for table in plan for name in table.seats} - set(names))
    index = {name: i for i, name in enumerate(names + fills)}
    tables = [_table(t, index, spec.seed, spec.public_deals) for t in plan]
    return entrants + [house_version(db, runtime, f) for f in fills], tables


def _owners(db: Database, spec: TournamentSpec, entrants: list[BotVersion]) -> dict[str, str]:
    """The entrants' owners the scheduler keeps apart (none when the organiser allows
    same-owner tables); entrants no table could seat apart are refused."""
    with db.session(read_only=True) as s:
        owners = {} if spec.allow_same_owner else entrant_owners(s, entrants)
    refs = {str(v.id): v.ref for v in entrants}
    if problem := seating_problem(list(refs), owners, refs):
        raise StoreError(problem)
    return owners


def _spare_house_bots(entrants: list[BotVersion]) -> list[str]:
    """The house bots that may fill empty seats: one already entered (as house:x, by its
    name or its id) never fills a seat too."""
    entered = {v.bot.name for v in entrants if "house" in v.manifest}
    return [h for h in DEFAULT_HOUSE_BOTS if house_name(h).stored_name not in entered]


def _table(table: Table, index: dict[str, int], seed: int, public: bool) -> TableSpec:
    """A planned table as the store takes it: entrant indices and the deal seed."""
    return table.index, seat_numbers(table.seats, index), _deal_seed(seed, table.index, public)


def entrant_owners(s: Session, versions: Sequence[BotVersion]) -> dict[str, str]:
    """Owner labels by version id (the schedulers' entrant names): ``user NAME`` for a bot
    with an owner, ``bot NAME`` for one without (so two of its versions stay apart too);
    house bots have none and sit anywhere."""
    owner_ids = {v.bot.owner_id for v in versions} - {None}
    users = dict(s.execute(select(User.id, User.name).where(User.id.in_(owner_ids))).all())
    return {
        str(v.id): f"user {users[v.bot.owner_id]}" if v.bot.owner_id else f"bot {v.bot.name}"
        for v in versions
        if "house" not in v.manifest
    }


def _deal_seed(seed: int, table: int, public: bool) -> int:
    if not public:
        return secret_seed()
    material = f"callbreak-arena/public-deals/{seed}/{table}".encode()
    return int.from_bytes(hashlib.sha256(material).digest()[:8], "big") >> 1


def _resolve(db: Database, runtime: Runtime, refs: Sequence[str]) -> list[BotVersion]:
    with db.session(read_only=True) as s:
        versions = [
            house_version(db, runtime, ref) if parse_house(ref) else find_bot_version(s, ref)
            for ref in refs
        ]
    for ref, version in zip(refs, versions, strict=True):
        if version.status != "valid":
            why = f": {version.reason}" if version.reason else ""
            raise StoreError(f"{ref} is {version.status}, not valid{why}")
        if (retired := version.bot.retired_at) is not None:
            raise StoreError(
                f"{ref}: the bot {version.bot.name} was retired on {retired:%Y-%m-%d}; "
                f"restore it to enter it (arena bot restore {version.bot.name})"
            )
    seen: dict[int, str] = {}
    for ref, version in zip(refs, versions, strict=True):
        if version.id in seen:
            raise StoreError(f"{ref} and {seen[version.id]} are the same bot version")
        seen[version.id] = ref
    return versions
