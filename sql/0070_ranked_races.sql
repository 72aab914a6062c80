-- Which races rank: only a race on a deal nobody could see or choose beforehand.
--
-- A race whose creator chose the seed (or a deal code) can be studied or solved before
-- it is played, and a race with the solver's help is played with the face-down cards
-- known; neither may reach a board. The server decides when the race is created
-- (server/services/races.py) and stores it here; the boards count a race's results only
-- when it ranks. Races stored before this did not record a chosen seed: those with the
-- solver's help are marked unranked, the others are taken as dealt by the server.
alter table races add column ranked boolean not null default true;
update races set ranked = false where solver_help;
