-- Player ratings per variant and option set, from rated races (docs/ratings.md).
--
-- A rating is derived data: ``rated_games`` is the ledger of what was rated and in which
-- order (its id), and every number in ``ratings`` and ``rating_changes`` can be recomputed
-- from it and the stored results (``solitaire ratings rebuild``), giving the same floats.
-- A pool is a variant with its options as canonical JSON, defaults filled in
-- (server/core/ratings.py, ``pool_options``), so ``{}`` and ``{"passes": 0}`` are one.

-- Races opened rated (quick match): their finishing order is rated when they end.
create table rated_races (
    race_id bigint primary key references races (id),
    variant text not null,
    options text not null,
    created_at timestamptz not null default now()
);

-- Every rated game, in the order it was rated: a race, or (later) a solo game.
create table rated_games (
    id bigserial primary key,
    variant text not null,
    options text not null,
    race_id bigint unique references races (id),
    rated_at timestamptz not null default now()
);

create index rated_games_pool on rated_games (variant, options, id);

-- A player's rating in one pool, as it stands after their last rated game.
create table ratings (
    variant text not null,
    options text not null,
    player_id bigint not null references players (id),
    mu double precision not null,
    sigma double precision not null,
    games int not null,
    rated_at timestamptz not null,
    primary key (variant, options, player_id)
);

create index ratings_player on ratings (player_id);

-- What each rated game did to each of its rated players: their place and the skill
-- before and after (the history a player's chart draws).
create table rating_changes (
    game_id bigint not null references rated_games (id),
    player_id bigint not null references players (id),
    place int not null,
    mu_before double precision not null,
    sigma_before double precision not null,
    mu double precision not null,
    sigma double precision not null,
    primary key (game_id, player_id)
);

create index rating_changes_player on rating_changes (player_id, game_id);
