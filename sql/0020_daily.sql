-- Daily deals, the attempts at them, and the order of the daily leaderboard.
--
-- One deal per variant and UTC day, proven winnable by the solver before anyone
-- plays it; its commitment is public from the start and its seed and salt are
-- revealed once the day is closed (docs/protocol.md, "Daily deals and leaderboards").
--
-- An attempt is an ordinary entry (race_id null) plus a daily_entries row that says
-- which day it counts for and whether it is the player's ranked first attempt. The
-- unique index daily_entries_first settles two first attempts started at once: the
-- second one is stored as practice. When the entry's status changes (won, resigned),
-- the trigger below writes the attempt's result from the move log in the same
-- transaction, so a ranked result is never lost between the game and the board.

-- A game may have a deadline for its moves and a seed kept secret after it ends
-- (a daily deal's seed stays sealed until its day closes).
alter table entries
    add column play_until timestamptz,
    add column seed_sealed_until timestamptz;

create table daily_deals (
    variant text not null,
    day date not null,
    -- seeds are 0 <= seed < 2**64, beyond bigint
    seed numeric(20, 0) not null check (seed >= 0 and seed < 18446744073709551616),
    -- n of the derivation: the first candidate the solver proved winnable
    candidate int not null check (candidate >= 0),
    salt text not null,
    commitment text not null,
    verdict text not null check (verdict = 'winnable'),
    solution_length int not null check (solution_length > 0),
    solver_nodes bigint not null,
    solver_ms int not null,
    prepared_at timestamptz not null default now(),
    primary key (variant, day)
);

create table daily_entries (
    entry_id bigint primary key references entries (id),
    variant text not null,
    day date not null,
    player_id bigint not null references players (id),
    guild_id text,
    ranked boolean not null,
    started_at timestamptz not null,
    -- the end of the attempt's play time; a win after it does not count
    deadline timestamptz not null,
    status text not null default 'playing'
        check (status in ('playing', 'won', 'resigned', 'out_of_time')),
    time_ms bigint check (time_ms >= 0),
    moves int,
    undos int,
    hints int,
    finished_at timestamptz,
    -- The board's order: wins first, then less time, then fewer moves; every
    -- attempt not won shares the place after the last win.
    board_time_ms bigint not null generated always as (
        case when status = 'won' then time_ms else 9223372036854775807 end
    ) stored,
    board_moves int not null generated always as (
        case when status = 'won' then moves else 2147483647 end
    ) stored,
    check (status <> 'won' or (time_ms is not null and moves is not null)),
    foreign key (variant, day) references daily_deals (variant, day)
);

-- The first-attempt rule: one ranked attempt per player, variant and day.
create unique index daily_entries_first on daily_entries (player_id, variant, day) where ranked;

-- Pages, ranks and "around me": an index range in board order.
create index daily_entries_board
    on daily_entries (variant, day, board_time_ms, board_moves, entry_id)
    where ranked;
create index daily_entries_board_guild
    on daily_entries (variant, day, guild_id, board_time_ms, board_moves, entry_id)
    where ranked and guild_id is not null;
create index daily_entries_practice
    on daily_entries (variant, day, board_time_ms, board_moves, entry_id)
    where not ranked;
-- Attempts whose play time ran out, found by the sweep.
create index daily_entries_playing on daily_entries (deadline) where status = 'playing';

-- Moves in the sense of the engine's counter: a move taken back no longer counts.
create function daily_entry_result() returns trigger
language plpgsql as $$
declare
    played int;
    taken_back int;
    hinted int;
begin
    if not exists (select 1 from daily_entries where entry_id = new.id and status = 'playing') then
        return null;
    end if;
    select count(*) filter (where action not in ('undo', 'hint')),
           count(*) filter (where action = 'undo'),
           count(*) filter (where action = 'hint')
      into played, taken_back, hinted
      from moves where game_id = new.id;
    update daily_entries d set
        status = case
            when new.status = 'won' and coalesce(new.finished_at, now()) <= d.deadline then 'won'
            when new.status = 'won' then 'out_of_time'
            else 'resigned' end,
        finished_at = coalesce(new.finished_at, now()),
        time_ms = least(
            greatest(0, round(extract(epoch from coalesce(new.finished_at, now()) - d.started_at)
                * 1000)),
            round(extract(epoch from d.deadline - d.started_at) * 1000))::bigint,
        moves = played - taken_back,
        undos = taken_back,
        hints = hinted
    where d.entry_id = new.id and d.status = 'playing';
    return null;
end
$$;

create trigger entries_daily_result
    after update of status on entries
    for each row
    when (old.status = 'playing' and new.status <> 'playing')
    execute function daily_entry_result();
