/**
 * The summary rows, collected while the benches run and printed together at the end of
 * `npm run bench`: each of our figures beside its reference measured in the same run, the target, and
 * on how many threads (server processes, worker threads or DuckDB threads, as the row says).
 */
export interface SummaryRow {
  /** The table's "work" column. */
  work: string;
  threads: number;
  ours: string;
  reference: string;
  /** Ours against the reference, in the sense the target is stated. */
  ratio?: string;
  target: string;
}

const rows: SummaryRow[] = [];

export function reportRow(row: SummaryRow): void {
  rows.push(row);
}

export function printSummaryTable(): void {
  if (rows.length === 0) return;
  console.log('\n== summary (this run) ==');
  const cols: [keyof SummaryRow, string][] = [['work', 'work'], ['threads', 'thr'], ['ours', 'ours'], ['reference', 'reference (same run)'], ['ratio', 'ratio'], ['target', 'target']];
  const cell = (r: SummaryRow, k: keyof SummaryRow) => String(r[k] ?? '');
  console.log(`| ${cols.map(([, h]) => h).join(' | ')} |`);
  console.log(`|${cols.map(() => '---').join('|')}|`);
  for (const r of rows) console.log(`| ${cols.map(([k]) => cell(r, k)).join(' | ')} |`);
}
