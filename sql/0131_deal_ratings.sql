-- Deal ratings: a solo ranked game (a daily attempt) is a game between the player and the
-- deal, so each dealt deal has a rating on the players' scale (docs/ratings.md).
--
-- A deal's first rating comes from the solver's work on it (server/core/deals.py): the
-- verdict and the positions searched are kept, and the first rating is recomputed from
-- them (by the rebuild too), never stored apart. ``practice`` marks the deals the server
-- may hand to a practice game that asks for a difficulty: never a daily's or a race's.
create table deal_ratings (
    variant text not null,
    options text not null,
    seed numeric(20, 0) not null check (seed >= 0 and seed < 18446744073709551616),
    verdict text not null check (verdict in ('winnable', 'lost', 'unknown')),
    solver_nodes bigint not null,
    mu double precision not null,
    sigma double precision not null,
    games int not null default 0,
    practice boolean not null default false,
    created_at timestamptz not null default now(),
    primary key (variant, options, seed)
);

create index deal_ratings_practice on deal_ratings (variant, options, mu) where practice;

-- A solo game in the ledger: the attempt, its deal, and what it did to the deal's rating
-- (the player's change is a row of rating_changes, as for a race).
alter table rated_games add column entry_id bigint unique references entries (id);
alter table rated_games add column seed numeric(20, 0);
alter table rated_games add column deal_mu_before double precision;
alter table rated_games add column deal_sigma_before double precision;
alter table rated_games add column deal_mu double precision;
alter table rated_games add column deal_sigma double precision;

-- The sweep's look for daily attempts to rate: those over and counted, oldest first.
create index daily_entries_to_rate on daily_entries (finished_at, entry_id)
    where ranked and held is null and status <> 'playing';
