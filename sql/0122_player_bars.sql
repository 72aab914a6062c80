-- Barred players: their results leave every board at once, and stay off while barred.
--
-- An operator bars a player whose play is not a person's (`solitaire players bar`,
-- server/store/bars.py). Every board keeps only results with `held` null
-- (0080_fair_play.sql), so a bar holds each of the player's race results and daily
-- attempts as `barred`, keeping the hold it replaced in `held_unbarred` for an unbar to
-- put back; the boards, their indexes and their queries stay as they are.
--
-- The trigger holds whatever result of a barred player is written later: a race that
-- ends, a daily attempt started or ended, a review's verdict, a guest's games merged
-- in. It reads the player's row `for share`, so a bar running at the same moment waits
-- for the result's transaction (and then holds it) or the result waits for the bar
-- (and sees it): no result slips past a bar.
--
-- `player_bars` counts every bar and unbar, so a server process that keeps a board in
-- memory (the all-time board) knows to compute it again.

alter table players
    add column barred_at timestamptz,
    add column barred_reason text;

alter table results add column held_unbarred text;
alter table daily_entries add column held_unbarred text;

create sequence player_bars;

create function hold_if_barred() returns trigger
language plpgsql as $$
declare
    barred timestamptz;
begin
    if new.held is not distinct from 'barred' then
        return new;
    end if;
    select p.barred_at into barred from players p where p.id = new.player_id for share;
    if barred is not null then
        new.held_unbarred := new.held;
        new.held := 'barred';
    end if;
    return new;
end
$$;

create trigger results_hold_if_barred
    before insert or update of held, player_id on results
    for each row execute function hold_if_barred();

create trigger daily_entries_hold_if_barred
    before insert or update of held, player_id on daily_entries
    for each row execute function hold_if_barred();
