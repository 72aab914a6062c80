-- A guest's daily attempt keeps its hold when it ends.
--
-- Guests rank nowhere unless the operator lets them (server/core/identity.py,
-- `unranked_reason`): a guest's first attempt at a daily deal is stored with
-- `held = 'guest'` (it stays the guest's first attempt, so a second one is practice). The
-- trigger of 0080_fair_play.sql set `held` afresh when an attempt ended, which would have
-- released it to the boards; now a hold set before the end stays, and only a win with no
-- hold waits for the review ('unreviewed') as before.
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
        held = coalesce(d.held, case when new.status = 'won' then 'unreviewed' end),
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
