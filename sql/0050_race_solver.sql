-- The solver at a race's service (server/solving.py): whether the creator asked for a
-- proven-winnable deal, whether its players may ask the solver for help (hints,
-- "still winnable?", jump back), and whether the deal dealt was proven winnable.
alter table races
    add column require_winnable boolean not null default false,
    add column solver_help boolean not null default false,
    add column winnable text not null default 'unproven'
        check (winnable in ('proven', 'unproven'));
