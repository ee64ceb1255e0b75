/**
 * The rows of issue 16's table, collected while the benches run and printed together at the end of
 * `npm run bench`: each of our figures beside its reference measured in the same run, the target, and
 * on how many threads (server processes, worker threads or DuckDB threads, as the row says).
 */
export interface IssueRow {
  /** The table's "work" column. */
  work: string;
  threads: number;
  ours: string;
  reference: string;
  /** Ours against the reference, in the sense the target is stated. */
  ratio?: string;
  target: string;
}

const rows: IssueRow[] = [];

export function reportRow(row: IssueRow): void {
  rows.push(row);
}

export function printIssueTable(): void {
  if (rows.length === 0) return;
  console.log('\n== issue 16 table (this run) ==');
  const cols: [keyof IssueRow, string][] = [['work', 'work'], ['threads', 'thr'], ['ours', 'ours'], ['reference', 'reference (same run)'], ['ratio', 'ratio'], ['target', 'target']];
  const cell = (r: IssueRow, k: keyof IssueRow) => String(r[k] ?? '');
  console.log(`| ${cols.map(([, h]) => h).join(' | ')} |`);
  console.log(`|${cols.map(() => '---').join('|')}|`);
  for (const r of rows) console.log(`| ${cols.map(([k]) => cell(r, k)).join(' | ')} |`);
}
