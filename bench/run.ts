/**
 * npm run bench [name...]: runs every bench/*.bench.ts (or the named ones) in turn. Each prints
 * its figures beside a reference measured in the same run; none of this is part of npm test. The
 * summary rows (each figure, its same-run reference, the ratio and the target) are gathered and
 * printed together at the end.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { printSummaryTable } from './summary-table.js';

const dir = import.meta.dirname;
const wanted = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();
if (files.length === 0) {
  console.error(`no benchmark matches ${wanted.join(', ')}`);
  process.exit(2);
}
for (const file of files) {
  console.log(`\n== ${file.replace('.bench.ts', '')} ==`);
  const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { run: () => Promise<void> };
  await mod.run();
}
printSummaryTable();
