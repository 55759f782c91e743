// The scoreboard table. Rows are keyed by user, so a live update re-renders
// only the rows that changed; column widths are fixed (table-layout: fixed)
// so cells never shift as values change.

import { t } from "../i18n";
import { rowView, type CellView, type Rule, type Scoreboard } from "../scoreboard";

function cellLabel(rule: Rule, label: string, v: CellView): string {
  switch (v.tone) {
    case "empty":
      return t("board.cellEmpty", { label });
    case "pending":
      return t("board.cellPending", { label, pending: v.sub || "1" });
    case "failed":
      return t("board.cellFailed", { label, attempts: v.text.slice(1) });
    case "solved":
    case "first": {
      if (rule === "ioi") return t("board.cellScore", { label, score: v.text });
      const wrong = v.text === "+" ? 0 : Number(v.text.slice(1));
      const s = t("board.cellSolved", { label, time: v.sub, attempts: wrong + 1 });
      return v.tone === "first" ? `${s}, ${t("board.firstBlood")}` : s;
    }
    default:
      return t("board.cellScore", { label, score: v.text });
  }
}

export function ScoreboardTable({ board, labels }: { board: Scoreboard; labels: string[] }) {
  const rule = board.rule;
  if (board.rows.length === 0) return <p class="muted">{t("board.empty")}</p>;
  return (
    <div class="table-wrap scoreboard-wrap">
      <table class={`scoreboard scoreboard-${rule}`}>
        <caption class="sr-only">{t("contest.scoreboard")}</caption>
        <thead>
          <tr>
            <th scope="col" class="sb-rank">{t("board.rank")}</th>
            <th scope="col" class="sb-user">{t("board.user")}</th>
            <th scope="col" class="sb-total">{rule === "ioi" ? t("board.score") : t("board.solved")}</th>
            {rule === "icpc" && <th scope="col" class="sb-penalty">{t("board.penalty")}</th>}
            {labels.map((l) => (
              <th scope="col" class="sb-cell" key={l}>
                {l}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {board.rows.map((r) => (
            <ScoreboardRow key={String(r.user)} rule={rule} labels={labels} row={rowView(rule, labels, r)} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ScoreboardRow({ rule, labels: _labels, row }: { rule: Rule; labels: string[]; row: ReturnType<typeof rowView> }) {
  return (
    <tr data-user={row.user}>
      <td class="sb-rank num">{row.rank}</td>
      <th scope="row" class="sb-user" title={row.user}>
        {row.name}
      </th>
      <td class="sb-total num">{row.total}</td>
      {rule === "icpc" && <td class="sb-penalty num">{row.penalty}</td>}
      {row.cells.map(({ label, view }) => (
        <td key={label} class={`sb-cell cell-${view.tone}`} aria-label={cellLabel(rule, label, view)} data-label={label}>
          <span class="cell-main">{view.text}</span>
          {view.sub && <span class="cell-sub">{view.sub}</span>}
        </td>
      ))}
    </tr>
  );
}
