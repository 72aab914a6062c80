// The dailies of other days, under the daily deal (daily.js): the past days of a
// variant that have a deal (`daily_archive`), each with its board and replays, and
// played again unranked. Playing an old deal is practice from its revealed seed
// (`daily` with the date, then `practice`), so it reaches no board; a day whose last
// attempts may still run is not closed, and says when it will be.

import { clock } from "./game.js";
import { t, variantName } from "./i18n.js";
import { escape } from "./cards.js";
import { ghostBestLink, ghostYoursLink } from "./ghost-link.js";

const DAYS = 14;

export class DailyArchive {
  constructor(connection, playDeal) {
    this.connection = connection;
    this.playDeal = playDeal; // (variant, seed, label): a practice game of that deal
  }

  /** The list of past days of ``variant`` (the newest ``DAYS``, or before ``before``). */
  async daysHtml(variant, before = null) {
    const fields = { variant, limit: DAYS };
    if (before) fields.before = before;
    const reply = await this.connection.request("daily_archive", fields);
    if (!reply.days.length) return before ? "" : `<p>${t("pastDaysEmpty")}</p>`;
    const items = reply.days.map((day) => this.dayHtml(day, variant)).join("");
    const oldest = reply.days.at(-1).date;
    const more = reply.days.length === DAYS
      ? `<p><button data-action="archive-more" data-before="${oldest}">${t("archiveMore")}</button></p>`
      : "";
    return `<ul class="archive-days">${items}</ul>${more}`;
  }

  dayHtml(day, variant) {
    const about = t("archiveDay", { date: day.date, n: day.solution_length, players: day.players });
    const yours = day.yours
      ? t("archiveYours", { result: day.yours.status === "won" ? clock(day.yours.time_ms ?? 0) : t(`status_${day.yours.status}`) })
      : t("archiveNotYours");
    const opens = new Date(day.closes_at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    const actions = day.closed
      ? `<button data-action="archive-play" data-date="${day.date}">${t("archivePlay")}</button>
         <button data-action="archive-board" data-date="${day.date}" aria-expanded="false">${t("archiveBoard")}</button>
         ${ghostBestLink(variant, day.date)}${day.yours?.status === "won" ? ghostYoursLink(day.yours.game) : ""}`
      : `<span>${t("archiveOpensAt", { time: opens })}</span>`;
    return `<li data-day="${day.date}"><span>${escape(about)} · ${escape(yours)}</span>
      <span class="actions">${actions}</span><div data-day-board></div></li>`;
  }

  /** A past day's board, its first ten lines, each with its replay (open once closed). */
  async boardHtml(variant, date) {
    const board = await this.connection.request("daily_board", { variant, date, page_size: 10 });
    if (!board.lines?.length) return `<p>${t("dailyEmpty")}</p>`;
    const me = this.connection.player?.id;
    const rows = board.lines.map((line) => {
      const result = line.status === "won" ? clock(line.time_ms ?? 0) : t(`status_${line.status}`);
      const you = line.player === me ? ` (${t("you")})` : "";
      return `<tr data-rank="${line.rank}"><td>${line.rank}</td><td>${escape(line.name)}${you}</td><td>${result}</td><td>${line.moves ?? ""}</td>
        <td><a href="#replay=game:${line.game}">${t("replay")}</a></td></tr>`;
    });
    return `<table class="ranking"><thead><tr><th>${t("rank")}</th><th>${t("player")}</th><th>${t("result")}</th><th>${t("moves")}</th><th></th></tr></thead>
      <tbody>${rows.join("")}</tbody></table>`;
  }

  /** Play a closed day's deal again, unranked: practice from its revealed seed. */
  async play(variant, date) {
    const reply = await this.connection.request("daily", { variant, date });
    if (reply.deal.seed === null || reply.deal.seed === undefined) throw new Error(t("archiveNotClosed"));
    this.playDeal(variant, BigInt(reply.deal.seed), t("archiveLabel", { variant: variantName(variant), date }));
  }

  /** The archive's buttons (daily.js hands their clicks here); true when handled. */
  async click(button, variant, panel) {
    const action = button.dataset.action;
    if (action === "archive-play") {
      await this.play(variant, button.dataset.date);
    } else if (action === "archive-board") {
      const cell = button.closest("li").querySelector("[data-day-board]");
      const open = button.getAttribute("aria-expanded") === "true";
      cell.innerHTML = open ? "" : await this.boardHtml(variant, button.dataset.date);
      button.setAttribute("aria-expanded", String(!open));
    } else if (action === "archive-more") {
      const list = panel.querySelector("[data-archive-days]");
      button.parentElement.remove();
      list.insertAdjacentHTML("beforeend", await this.daysHtml(variant, button.dataset.before));
    } else {
      return false;
    }
    return true;
  }
}
