/**
 * npm run fuzz [-- options]: hostile requests generated from the live /api/openapi.json against
 * the service in a child process; prints totals, writes the failing cases to .fuzz/report.json
 * and exits 1 when anything failed. Options (defaults in brackets):
 *   --seed N [20240917]  --random N [4000]  --sweep full|N [full]  --thin N [3]  --concurrency N [6]
 *   --filters N [3000]: requests with a generated CQL2 filter (items, zone data, zone lists, cross-collection selections)
 *   --cross N [1500]: cross-collection POSTs with a valid body, half of them with one mistake
 *   --s3-lake: serve the demo lake from an S3 server on loopback (s3rver) instead of the directory
 *   --max-replays N [30]: stalls, timeouts, memory peaks and backend fan-out seen under load are replayed alone, at most N of each kind
 *   --timeout-ms N [10000]  --bomb-mib N [256]  --stall-ms N [1000]  --stall-alone-ms N [200]  --rss-bound-mib N [300]
 *   --only opId[,opId]  --report path [.fuzz/report.json]  --quick (sweep 600, random 400, filters 300, cross 150)
 *   --passes N [1]: send the cases N times to one service; its idle RSS after each pass tells a leak from a high-water mark
 *   --heap-snapshots: after each pass the child writes a heap snapshot (live objects only); its size is reported
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { failureCount, formatSummary, runFuzz } from './runner.js';
import { REPO_ROOT } from './server-process.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '20240917' },
    random: { type: 'string' },
    filters: { type: 'string' },
    cross: { type: 'string' },
    's3-lake': { type: 'boolean', default: false },
    sweep: { type: 'string' },
    thin: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '6' },
    'timeout-ms': { type: 'string', default: '10000' },
    'bomb-mib': { type: 'string', default: '256' },
    'stall-ms': { type: 'string', default: '1000' },
    'stall-alone-ms': { type: 'string', default: '200' },
    'rss-bound-mib': { type: 'string', default: '300' },
    'max-restarts': { type: 'string', default: '100' },
    'max-replays': { type: 'string', default: '30' },
    only: { type: 'string' },
    passes: { type: 'string', default: '1' },
    'heap-snapshots': { type: 'boolean', default: false },
    report: { type: 'string', default: path.join(REPO_ROOT, '.fuzz/report.json') },
    quick: { type: 'boolean', default: false },
  },
});

const int = (name: string, v: string | undefined) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`fuzz: --${name} must be a non-negative integer (got ${v})`);
    process.exit(2);
  }
  return n;
};
// Ctrl-C or a kill: leave through process.exit so the child services are stopped too.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

const sweepArg = values.sweep ?? (values.quick ? '600' : 'full');
const summary = await runFuzz({
  seed: int('seed', values.seed),
  random: int('random', values.random ?? (values.quick ? '400' : '4000')),
  filters: int('filters', values.filters ?? (values.quick ? '300' : '3000')),
  cross: int('cross', values.cross ?? (values.quick ? '150' : '1500')),
  s3Lake: values['s3-lake'],
  thin: Math.max(1, int('thin', values.thin)),
  sweep: sweepArg === 'full' ? 'full' : int('sweep', sweepArg),
  concurrency: Math.max(1, int('concurrency', values.concurrency)),
  timeoutMs: int('timeout-ms', values['timeout-ms']),
  bombBytes: int('bomb-mib', values['bomb-mib']) * 2 ** 20,
  stallMs: int('stall-ms', values['stall-ms']),
  stallAloneMs: int('stall-alone-ms', values['stall-alone-ms']),
  rssBoundBytes: int('rss-bound-mib', values['rss-bound-mib']) * 2 ** 20,
  maxRestarts: int('max-restarts', values['max-restarts']),
  maxReplays: int('max-replays', values['max-replays']),
  only: values.only?.split(',').filter(Boolean),
  passes: Math.max(1, int('passes', values.passes)),
  heapSnapshots: values['heap-snapshots'],
  progress: (line) => console.log(`fuzz: ${line}`),
});

const report = path.resolve(values.report);
mkdirSync(path.dirname(report), { recursive: true });
// The report directory ignores itself, so runs never show up as untracked files.
if (path.dirname(report) === path.join(REPO_ROOT, '.fuzz')) writeFileSync(path.join(REPO_ROOT, '.fuzz/.gitignore'), '*\n');
writeFileSync(report, JSON.stringify(summary, null, 2));
console.log(formatSummary(summary, path.relative(process.cwd(), report)));
process.exit(failureCount(summary) > 0 ? 1 : 0);
