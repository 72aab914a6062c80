-- A player's preferences, kept for the clients that serve them.
--
-- The Discord bot's players choose board options (a tap plays wherever the card fits;
-- safe cards go home by themselves) and read the bot in their language. The bot kept
-- them in a file of its own, lost with its disk and never shared between its hosts; a
-- DM (which names no language) came back in English after a restart. One row per
-- player who set anything (`set_preferences`); no row means the defaults.

create table player_preferences (
    player_id bigint primary key references players (id) on delete cascade,
    one_tap boolean not null default false,
    auto_home boolean not null default false,
    locale text check (locale in ('en', 'de')),
    updated_at timestamptz not null default now()
);
