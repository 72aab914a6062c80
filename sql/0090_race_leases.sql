-- Who owns each unfinished race: the one server process that numbers its events and
-- runs its clock (issue #21).
--
-- With several processes or hosts on this database, a race's players may be served by
-- different processes. If each numbered the race's events and ran its clock, they lost
-- event numbers to each other (a false `conflict` for the player) and each sent progress
-- at its own pace. Now a process holds a lease on the race: taken by compare-and-set
-- (an insert, or an update of a lease whose holder is gone), kept while its holder
-- lives, and taken over by another process once it is gone. The others commit their
-- players' moves and report them to the holder (server/services/lease.py).
--
-- A holder proves it lives by renewing one row of its own in `lease_holders`, not
-- every lease it holds: a process with thousands of races renews one row every few
-- seconds, instead of rewriting thousands (a row version and WAL record each).

create table lease_holders (
    -- a server process, as it names itself in change notices (random at each start)
    holder text primary key,
    -- its leases are good until then; renewed every third of the lease period
    expires_at timestamptz not null
);

create table race_leases (
    race_id bigint primary key references races (id),
    holder text not null,
    taken_at timestamptz not null default now()
);

create index race_leases_holder on race_leases (holder);
