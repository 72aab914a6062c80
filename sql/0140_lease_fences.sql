-- Fencing numbers for race leases (issue #35).
--
-- A race's owner numbers its events under a lease that another process may take over
-- once the owner's has run out. An owner that stalled (a long pause, the database away)
-- might not know yet: its write, queued before, could still land after the takeover.
-- So each lease carries a number, new every time the lease changes hands (from one
-- sequence, so a lease given up and taken again never gets an old number back), and the
-- owner's event rows carry the number it took the lease with: the group commit stores
-- them only while the race's lease has no other number (server/store/commit.py). The
-- moves of such a write are committed all the same; its events are the new owner's.

create sequence race_lease_fences;

alter table race_leases add column fence bigint not null default nextval('race_lease_fences');
