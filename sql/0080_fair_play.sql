-- Results held back from the boards until the server has recomputed them.
--
-- A race's results and a daily attempt's win reach the boards only once the server has
-- replayed the game from its stored move log, found the same result, and found it no
-- faster than a person could enter its moves (server/core/fairness.py). Until then, and
-- when it is held for review, ``held`` names why: 'unreviewed', 'log_mismatch' or
-- 'too_fast', and 'unranked' for every result of a race that does not rank
-- (0070_ranked_races.sql); null means it counts. Results stored before this count as
-- they did, but those of unranked races.
alter table results add column held text;
alter table results alter column held set default 'unreviewed';
alter table daily_entries add column held text;
update results r set held = 'unranked' from races rc where rc.id = r.race_id and not rc.ranked;

-- The day's boards and the all-time board's daily range, now of the attempts that count.
drop index daily_entries_board;
create index daily_entries_board
    on daily_entries (variant, day, board_time_ms, board_moves, entry_id)
    where ranked and held is null;
drop index daily_entries_board_guild;
create index daily_entries_board_guild
    on daily_entries (variant, day, guild_id, board_time_ms, board_moves, entry_id)
    where ranked and held is null and guild_id is not null;
drop index daily_entries_all_time;
create index daily_entries_all_time
    on daily_entries (variant, player_id) include (status, time_ms, guild_id)
    where ranked and held is null and status <> 'playing';

create index results_unreviewed on results (entry_id) where held = 'unreviewed';
create index daily_entries_unreviewed on daily_entries (entry_id) where held = 'unreviewed';

-- The daily trigger of 0020_daily.sql, now marking a win as not yet reviewed.
create or replace function daily_entry_result() returns trigger
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
        held = case when new.status = 'won' then 'unreviewed' end,
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
