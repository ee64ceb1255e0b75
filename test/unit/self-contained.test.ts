/**
 * Nothing the repository runs names a path outside it: tests read reference data from
 * test/fixtures, never from a sibling checkout or shared material beside the repository, which a
 * fresh clone does not have. A static check of the code; `bash scripts/isolated.sh npm test` (CI)
 * proves it at run time by hiding everything beside the repository.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../support/test-server.js';

const SCANNED = ['src', 'test', 'scripts', 'bench'];
const CODE = /\.(?:[cm]?[jt]s|sh|py|eta)$/;
/**
 * The repository's parent, when it is a place of its own: a checkout in the system's temporary
 * directory (CI's fresh clone) has arbitrary neighbours there, and '/tmp/...' in code names
 * scratch files, not material beside the repository.
 */
const PARENT = [path.parse(REPO_ROOT).root, realpathSync(tmpdir())].includes(path.dirname(REPO_ROOT)) ? undefined : path.dirname(REPO_ROOT);
/** This file spells out the patterns it looks for. */
const SELF = path.relative(REPO_ROOT, import.meta.filename);

/** Lines that name such a path without anything reading it: file, what the line holds, and why. */
const NOT_READ: { file: string; holds: string; why: string }[] = [
  { file: 'scripts/fuzz/cases.ts', holds: 'etc/passwd', why: 'path-traversal probes sent to the server as parameters' },
  { file: 'scripts/fuzz/cases.ts', holds: '.git/config', why: 'path-traversal probes sent to the server as parameters' },
  { file: 'scripts/fuzz/cases.ts', holds: 'proc/self/environ', why: 'path-traversal probes sent to the server as parameters' },
  { file: 'scripts/fuzz/values.ts', holds: 'etc/passwd', why: 'path-traversal probes sent to the server as parameters' },
  { file: 'bench/zone-keys.bench.ts', holds: 'DGGAL_DGG=', why: 'an example value in a hint; DGGAL_DGG is read only when the user sets it' },
];

/** A line that is only a comment: it reads nothing (what it points at is for review, not for this check). */
const COMMENT = /^\s*(?:\/\/|\/?\*|#(?:\s|$))/;

/** Where `text`, a file at `file` (absolute), names a path outside the repository: one line per finding. */
export function outsideReferences(file: string, text: string): string[] {
  const found: string[] = [];
  const dir = path.dirname(file);
  const outside = (p: string) => path.relative(REPO_ROOT, p).startsWith('..');
  const rel = path.relative(REPO_ROOT, file);
  text.split('\n').forEach((line, i) => {
    if (COMMENT.test(line) || NOT_READ.some((n) => n.file === rel && line.includes(n.holds))) return;
    const at = `${rel}:${i + 1}`;
    // The machine's layout: the repository's parent directory, or /work where the project lives.
    for (const prefix of new Set([PARENT && `${PARENT}/`, '/work/'])) {
      if (prefix && line.includes(prefix)) found.push(`${at}: absolute path under ${prefix}`);
    }
    // A relative literal ('..', '../x') read from the file's own directory.
    for (const m of line.matchAll(/(['"`])(\.\.(?:\/[^'"`\s$]*)?)\1/g)) {
      if (outside(path.resolve(dir, m[2]!))) found.push(`${at}: ${m[2]} leaves the repository from ${path.relative(REPO_ROOT, dir)}`);
    }
    // A shell path from the script's own directory: "$(dirname "$0")/../..".
    for (const m of line.matchAll(/dirname[^)]*\)((?:\/\.\.)+)/g)) {
      if (outside(path.resolve(dir, `.${m[1]}`))) found.push(`${at}: dirname${m[1]} leaves the repository`);
    }
    // Going up from the repository root itself: join(REPO_ROOT, '..'), `${REPO_ROOT}/..`.
    if (/\b\w*ROOT\w*\s*,\s*['"`]\.\.(?:['"`]|\/)/i.test(line) || /\$\{\s*\w*ROOT\w*\s*\}\/\.\./i.test(line)) found.push(`${at}: goes up from the repository root`);
  });
  return found;
}

function* codeFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* codeFiles(full);
    else if (entry.isFile() && CODE.test(entry.name)) yield full;
  }
}

describe('self-contained: no code names a path outside the repository', () => {
  it(`holds for every source file under ${SCANNED.join(', ')}`, () => {
    const found: string[] = [];
    let files = 0;
    for (const top of SCANNED) {
      for (const file of codeFiles(path.join(REPO_ROOT, top))) {
        files++;
        if (path.relative(REPO_ROOT, file) === SELF) continue;
        found.push(...outsideReferences(file, readFileSync(file, 'utf8')));
      }
    }
    expect(files).to.be.greaterThan(300);
    expect(found).to.deep.equal([]);
  });

  it('finds the ways a path leaves the repository, and leaves paths inside it alone', () => {
    const at = (rel: string) => path.join(REPO_ROOT, rel);
    const up = '..';
    const sibling = [up, 'shared', 'cql2'].join('/');
    expect(outsideReferences(at('test/unit/x.test.ts'), `readFileSync('${up}/${up}/${sibling}')`)).to.have.length(1);
    expect(outsideReferences(at('test/support/x.ts'), `path.join(import.meta.dirname, '${up}/${up}/${up}')`)).to.have.length(1);
    expect(outsideReferences(at('test/support/x.ts'), `path.join(REPO_ROOT, '${up}', 'shared')`)).to.have.length(1);
    expect(outsideReferences(at('test/support/x.ts'), `const p = \`\${REPO_ROOT}/${up}/shared\``)).to.have.length(1);
    expect(outsideReferences(at('scripts/x.sh'), `cd "$(dirname "$0")/${up}/${up}"`)).to.have.length(1);
    expect(outsideReferences(at('src/x.ts'), `const shared = '${['', 'work', 'shared'].join('/')}/ogc';`)).to.have.length(1);

    expect(outsideReferences(at('test/unit/dggrs/x.test.ts'), `import { a } from '${up}/${up}/${up}/src/domain/a.js';`)).to.deep.equal([]);
    expect(outsideReferences(at('test/support/x.ts'), `path.resolve(import.meta.dirname, '${up}/${up}')`)).to.deep.equal([]);
    expect(outsideReferences(at('scripts/x.sh'), `cd "$(dirname "$0")/${up}"`)).to.deep.equal([]);
    expect(outsideReferences(at('test/support/x.ts'), `path.join(REPO_ROOT, 'test/fixtures/shared')`)).to.deep.equal([]);
    expect(outsideReferences(at('test/support/x.ts'), `  // copied from ${up}/shared/cql2 (see the README there)`), 'a comment reads nothing').to.deep.equal([]);
  });
});
