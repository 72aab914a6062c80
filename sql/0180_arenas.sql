-- Arena tournaments: a timed event of back-to-back races on one variant (docs/arena.md).
--
-- The arena core (server/core/arena.py) is rebuilt from these rows for each change,
-- under a lock on the arena's row (`select … for update`): whichever server process
-- runs a pairing round or a player's request holds the arena alone meanwhile, so two
-- processes never pair one player twice. Each change moves the arena's `version` on
-- and stamps the rows it wrote with the new version, so a process that pushes the
-- arena's standings and next races to its own clients reads only what changed since
-- the version it last saw.
--
-- A seat is a player's place in one pairing: the race once created, how it ended for
-- them, the points once scored. The seats of a player, in pairing order, are the
-- player's races in the arena, readable after its end.

create table arenas (
    id bigserial primary key,
    -- null for an arena the operator's schedule created (`schedule` names the entry)
    creator_id bigint references players (id),
    schedule text,
    title text,
    variant text not null,
    options jsonb not null default '{}',
    duration_s int not null check (duration_s between 300 and 3600),
    race_time_s int not null check (race_time_s between 60 and 3600),
    countdown_s int not null check (countdown_s between 0 and 60),
    race_size int not null check (race_size between 2 and 8),
    rated boolean not null,
    state text not null default 'upcoming'
        check (state in ('upcoming', 'running', 'ending', 'finished')),
    starts_at timestamptz not null,
    ends_at timestamptz not null,
    finished_at timestamptz,
    -- the last pairing number given
    pairings int not null default 0,
    version bigint not null default 0,
    created_at timestamptz not null default now()
);

-- One arena per schedule entry and start: processes creating it at once make one.
create unique index arenas_scheduled on arenas (schedule, starts_at) where schedule is not null;
create index arenas_open on arenas (starts_at) where state <> 'finished';

create table arena_players (
    arena_id bigint not null references arenas (id),
    player_id bigint not null references players (id),
    name text not null,
    rating double precision not null,
    status text not null check (status in ('waiting', 'paired', 'racing', 'paused')),
    score int not null default 0 check (score >= 0),
    streak int not null default 0,
    best_streak int not null default 0,
    races int not null default 0,
    wins int not null default 0,
    score_at timestamptz not null,
    joined_at timestamptz not null,
    pause_after boolean not null default false,
    withdraw boolean not null default false,
    -- the arena's version when this row last changed
    version bigint not null,
    primary key (arena_id, player_id)
);

-- The standings' order (server/core/arena_rules.py, ``standings_key``).
create index arena_players_standings
    on arena_players (arena_id, score desc, score_at, joined_at, player_id);

create table arena_seats (
    arena_id bigint not null references arenas (id),
    pairing int not null,
    player_id bigint not null references players (id),
    paired_at timestamptz not null,
    race_id bigint references races (id),
    done boolean not null default false,
    rank int,
    racers int,
    moves int,
    points int check (points >= 0),
    fire boolean not null default false,
    version bigint not null,
    -- the arena's version when the seat's race was placed: its players are told then
    placed_version bigint,
    primary key (arena_id, pairing, player_id)
);

-- What a pairing round reads: the seats not scored yet.
create index arena_seats_open on arena_seats (arena_id) where points is null;
create index arena_seats_player on arena_seats (arena_id, player_id, pairing);
create index arena_seats_changed on arena_seats (arena_id, version);
create index arena_seats_placed on arena_seats (arena_id, placed_version);
create index arena_seats_race on arena_seats (race_id) where race_id is not null;
