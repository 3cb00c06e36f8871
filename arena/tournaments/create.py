"""Creating a tournament: resolve the entrants, schedule the tables, store it all at once."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import asdict

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.game import Ruleset
from arena.house.names import parse_house
from arena.players.bhoos.wire import plays_bhoos
from arena.ratings import DEFAULT_MODEL
from arena.referee import Clock, secret_seed
from arena.registry import house_version
from arena.runtime import Runtime
from arena.store import (
    BotVersion,
    Database,
    StoreError,
    Tournament,
    User,
    create_tournament,
    find_bot_version,
)
from arena.text import plural
from arena.tournaments.owners import seating_problem
from arena.tournaments.schedule import DEFAULT_HOUSE_BOTS, DEFAULT_MAX_TABLES, schedule


def new_tournament(
    db: Database,
    runtime: Runtime,
    bot_refs: Sequence[str],
    *,
    rules: Ruleset,
    games_per_match: int = 4,
    seed: int | None = None,
    clock: Clock | None = None,
    max_strikes: int = 3,
    tables: int | None = None,
    max_tables: int = DEFAULT_MAX_TABLES,
    name: str = "",
    public_deals: bool = False,
    rating_model: str = DEFAULT_MODEL,
    adaptive_matches: int = 0,
    adaptive_top: int | None = None,
    allow_same_owner: bool = False,
) -> Tournament:
    """``bot_refs`` name valid bot versions (``name``, ``name@version`` or an id) or house
    bots (``house:heuristic``, ``house:random``). ``seed`` decides the seating only; every
    match's deals get a secret seed of their own. ``public_deals`` derives them from ``seed``
    instead, so the same call repeats the same tournament (``arena demo``): anyone knowing
    the seed knows every hand, so never for a contest. ``adaptive_matches``: extra matches
    where the ranking is unsure once the scheduled ones are played
    (``arena.tournaments.extend``), separating the first ``adaptive_top`` places (None: all).
    Two bots of one owner never share a table unless ``allow_same_owner``."""
    if not bot_refs:
        raise StoreError("a tournament needs at least one entrant (--bots)")
    seed = random.randrange(2**31) if seed is None else seed
    entrants = _resolve(db, runtime, bot_refs)
    for ref, version in zip(bot_refs, entrants, strict=True):
        if version.manifest.get("protocol") == "bhoos-http" and not plays_bhoos(rules):
            raise StoreError(
                f"{ref} is a Bhoos HTTP bot: it plays the bhoos rules only, not {rules.name}"
            )
    # A house bot already entered (as house:x, by its name or its id) never fills a seat too.
    entered = {v.bot.name for v in entrants if "house" in v.manifest}
    spare = [h for h in DEFAULT_HOUSE_BOTS if parse_house(h).stored_name not in entered]
    names = [str(v.id) for v in entrants]
    with db.session(read_only=True) as s:
        owners = {} if allow_same_owner else entrant_owners(s, entrants)
    problem = seating_problem(names, owners, {str(v.id): v.ref for v in entrants})
    if problem:
        raise StoreError(problem)
    plan = schedule(
        names, seed, tables=tables, max_tables=max_tables, house_bots=spare, owners=owners
    )
    seated = {name for table in plan for name in table.seats}
    fills = sorted(seated - {str(v.id) for v in entrants})
    entries = entrants + [house_version(db, runtime, f) for f in fills]
    index = {str(v.id): i for i, v in enumerate(entrants)}
    index.update({f: len(entrants) + i for i, f in enumerate(fills)})
    specs = [
        (t.index, tuple(index[n] for n in t.seats), _deal_seed(seed, t.index, public_deals))
        for t in plan
    ]
    clock_data = asdict(clock or Clock()) | {"max_strikes": max_strikes}
    with db.session() as s:
        entries = [s.merge(v) for v in entries]
        return create_tournament(
            s,
            name or f"{plural(len(entrants), 'bot')}, {rules.name}, seed {seed}",
            rules.to_dict(),
            clock_data,
            rules.deals_per_game,
            games_per_match,
            seed,
            entries,
            specs,
            rating_model=rating_model,
            adaptive_matches=adaptive_matches,
            adaptive_top=adaptive_top,
            allow_same_owner=allow_same_owner,
        )


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
