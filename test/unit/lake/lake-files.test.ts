import { expect } from 'chai';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findParquetFiles, UnsafeLakePathError } from '../../../src/adapters/lake/lake-files.js';

describe('lake file discovery', () => {
  it('lists parquet files under <id>/data in path order, skipping hidden files, markers and escaping links', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'lake-files-'));
    const outside = mkdtempSync(path.join(tmpdir(), 'lake-out-'));
    writeFileSync(path.join(outside, 'x.parquet'), 'PAR1');
    const data = path.join(root, 'c', 'data');
    mkdirSync(path.join(data, 'b'), { recursive: true });
    mkdirSync(path.join(root, 'shared'), { recursive: true });
    for (const f of ['b/2.parquet', 'a.parquet', '.hidden.parquet', '_tmp.parquet', 'notes.txt']) writeFileSync(path.join(data, f), 'PAR1');
    writeFileSync(path.join(root, 'shared', 'in.parquet'), 'PAR1');
    symlinkSync(path.join(outside, 'x.parquet'), path.join(data, 'evil.parquet'));
    symlinkSync(outside, path.join(data, 'evil-dir'));
    symlinkSync(path.join(root, 'shared'), path.join(data, 'ok-dir')); // inside the root: followed
    const found = await findParquetFiles(root, 'c');
    expect(found.map((f) => f.relative)).to.deep.equal(['c/data/a.parquet', 'c/data/b/2.parquet', 'shared/in.parquet']);
    expect(await findParquetFiles(root, 'missing')).to.deep.equal([]);
  });

  it('refuses ids that are not a plain name', async () => {
    for (const id of ['..', '../x', 'a/b', '.x', '', 'a\0b', 'x'.repeat(200)]) {
      await findParquetFiles(tmpdir(), id).then(
        () => expect.fail(id),
        (e: unknown) => expect(e, id).to.be.instanceOf(UnsafeLakePathError),
      );
    }
  });
});
