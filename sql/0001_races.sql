-- Players, races, entries, the move log, race events and results.
--
-- A game is (variant, options, seed, actions): an entry row holds the first three,
-- the move log holds the actions in order, and the server rebuilds the game by
-- replaying them. The move log's key (game_id, seq) is what settles two
-- connections of one player moving at once: the second insert of a sequence
-- number loses. Races change state with compare-and-set updates on `version`.

create table server_keys (
    name text primary key,
    secret bytea not null,
    created_at timestamptz not null default now()
);

create table players (
    id bigserial primary key,
    -- 'guest:<random>' for guests, 'discord:<user id>' for Discord users
    principal text not null unique,
    display_name text not null,
    locale text not null default 'en' check (locale in ('en', 'de')),
    created_at timestamptz not null default now(),
    last_seen_at timestamptz not null default now()
);

create table races (
    id bigserial primary key,
    creator_id bigint not null references players (id),
    variant text not null,
    options jsonb not null default '{}',
    -- seeds are 0 <= seed < 2**64, beyond bigint
    seed numeric(20, 0) not null check (seed >= 0 and seed < 18446744073709551616),
    salt text not null,
    commitment text not null,
    state text not null default 'lobby'
        check (state in ('lobby', 'countdown', 'running', 'finished')),
    max_players int not null check (max_players between 1 and 100),
    start_mode text not null check (start_mode in ('now', 'manual', 'countdown')),
    countdown_s int not null check (countdown_s between 0 and 3600),
    time_limit_s int check (time_limit_s between 1 and 86400),
    allow_undo boolean not null,
    allow_hints boolean not null,
    guild_id text,
    context jsonb,
    created_at timestamptz not null default now(),
    starts_at timestamptz,
    ends_at timestamptz,
    ended_at timestamptz,
    end_reason text,
    version int not null default 0
);

create index races_open on races (state) where state <> 'finished';
create index races_guild on races (guild_id, created_at) where guild_id is not null;

-- A player's game: in a race (race_id set) or a practice game (race_id null).
create table entries (
    id bigserial primary key,
    race_id bigint references races (id),
    player_id bigint not null references players (id),
    variant text not null,
    options jsonb not null default '{}',
    seed numeric(20, 0) not null check (seed >= 0 and seed < 18446744073709551616),
    seed_public boolean not null default false,
    guild_id text,
    status text not null default 'playing'
        check (status in ('playing', 'won', 'resigned', 'left')),
    created_at timestamptz not null default now(),
    finished_at timestamptz
);

create unique index entries_one_per_race on entries (race_id, player_id)
    where race_id is not null and status <> 'left';
create index entries_player on entries (player_id, created_at);

-- Everything that changed a game, in order: canonical moves, 'undo', 'hint'.
create table moves (
    game_id bigint not null references entries (id),
    seq int not null check (seq >= 0),
    action text not null,
    move_id text,
    played_at timestamptz not null default now(),
    primary key (game_id, seq)
);

create unique index moves_client_id on moves (game_id, move_id) where move_id is not null;

-- What a race told its watchers, kept so a reconnecting client can catch up.
create table race_events (
    race_id bigint not null references races (id),
    seq int not null,
    kind text not null,
    body jsonb not null,
    at timestamptz not null default now(),
    primary key (race_id, seq)
);

-- One line per entry of a finished race (and, later, per finished ranked game).
create table results (
    entry_id bigint primary key references entries (id),
    race_id bigint references races (id),
    player_id bigint not null references players (id),
    rank int,
    finished boolean not null,
    resigned boolean not null default false,
    time_ms bigint,
    moves int not null,
    foundation int not null,
    score int not null,
    recorded_at timestamptz not null default now()
);

create index results_race on results (race_id, rank);
create index results_player on results (player_id, recorded_at);
