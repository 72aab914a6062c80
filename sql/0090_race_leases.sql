-- Who owns each unfinished race: the one server process that numbers its events and
-- runs its clock (issue #21).
--
-- With several processes or hosts on this database, a race's players may be served by
-- different processes. If each numbered the race's events and ran its clock, they lost
-- event numbers to each other (a false `conflict` for the player) and each sent progress
-- at its own pace. Now a process holds a lease on the race: taken by compare-and-set
-- (an insert, or an update of a lease that has run out), renewed while the process
-- lives, and taken over by another process once it has run out. The others commit
-- their players' moves and report them to the holder (server/services/lease.py).
create table race_leases (
    race_id bigint primary key references races (id),
    -- the holding process, as it names itself in change notices
    holder text not null,
    expires_at timestamptz not null,
    taken_at timestamptz not null default now()
);

create index race_leases_holder on race_leases (holder);
