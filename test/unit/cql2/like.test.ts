/**
 * The one LIKE matcher (src/domain/cql2/like.ts) against DuckDB's `LIKE ... ESCAPE '\'`, which
 * the lakes must agree with, and the RE2 expression the DuckDB lake runs instead of its LIKE
 * against both: thousands of generated values and patterns (escapes, `_` on multi-byte
 * characters, regular-expression metacharacters, newlines, empty patterns), CASEI/ACCENTI
 * folded in SQL, and the patterns that make a backtracking matcher take exponential time.
 */
import { expect } from 'chai';
import { DuckDBInstance, listValue, type DuckDBConnection } from '@duckdb/node-api';
import { likeMatcher, likePieces, likeRegex, likeWildcards } from '../../../src/domain/cql2/like.js';

/** A small deterministic generator (mulberry32), so a failure names a case that comes back. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VALUE_CHARS = ['a', 'b', 'A', 'é', 'e\u0301', '😀', 'ß', '\n', '.', '*', '%', '_', '\\', ' ', '(', '[', '$', '^', '|', '?', '+', '{'];
const PATTERN_TOKENS = ['a', 'b', 'A', 'é', '😀', 'ß', '\n', '.', '*', '(', '[', '$', '^', '|', '?', '+', '{', '%', '%', '%', '_', '_', '\\%', '\\_', '\\\\', '\\a', '\\😀', '\\.', 'e\u0301'];

/** `n` patterns of up to `tokens` tokens and a value for each; long patterns make segments longer than one 32-bit word of the search. */
function generate(seed: number, n: number, tokens: number): { values: string[]; patterns: string[] } {
  const r = random(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  const values: string[] = [];
  const patterns: string[] = [];
  for (let i = 0; i < n; i++) {
    const pattern = Array.from({ length: Math.floor(r() * tokens) }, () => (tokens > 10 && r() < 0.8 ? pick(['a', 'b', '_']) : pick(PATTERN_TOKENS))).join('');
    // Half the values are built from the pattern (wildcards filled in), so that many match.
    const value =
      r() < 0.5
        ? Array.from({ length: Math.floor(r() * (tokens + 1)) }, () => pick(VALUE_CHARS)).join('')
        : likePieces(pattern)!
            .map((p) => (p.kind === 'text' ? p.text : p.kind === 'one' ? pick(VALUE_CHARS) : Array.from({ length: Math.floor(r() * 3) }, () => pick(VALUE_CHARS)).join('')))
            .join('');
    values.push(value);
    patterns.push(pattern);
  }
  return { values, patterns };
}

describe('CQL2 LIKE: one linear-time matcher, as DuckDB matches', () => {
  let conn: DuckDBConnection;

  before(async () => {
    conn = await (await DuckDBInstance.create(':memory:')).connect();
  });

  /** DuckDB's answers for each (value, pattern, regex) row: LIKE with ESCAPE '\' and regexp_full_match. */
  async function duck(values: string[], patterns: string[], sql: { value: string; regex: string } = { value: 's', regex: 'r' }): Promise<{ like: boolean; re: boolean }[]> {
    const regexes = patterns.map((p) => likeRegex(p)!);
    const reader = await conn.runAndReadAll(
      `SELECT s LIKE p ESCAPE '\\' AS "like", regexp_full_match(${sql.value}, ${sql.regex}) AS re
       FROM (SELECT unnest($1::VARCHAR[]) AS s, unnest($2::VARCHAR[]) AS p, unnest($3::VARCHAR[]) AS r, generate_subscripts($1::VARCHAR[], 1) AS i) ORDER BY i`,
      [listValue(values), listValue(patterns), listValue(regexes)],
    );
    return reader.getRowObjects() as { like: boolean; re: boolean }[];
  }

  it('agrees with DuckDB LIKE ESCAPE \'\\\' and its regexp_full_match on 4,000 generated values and patterns', async () => {
    const short = generate(20, 3000, 7);
    const long = generate(21, 1000, 120);
    const [values, patterns] = [[...short.values, ...long.values], [...short.patterns, ...long.patterns]];
    const answers = await duck(values, patterns);
    let matched = 0;
    answers.forEach((a, i) => {
      const what = `${JSON.stringify(values[i])} LIKE ${JSON.stringify(patterns[i])}`;
      const mine = likeMatcher(patterns[i]!)(values[i]!);
      expect(mine, `${what}: DuckDB LIKE says ${a.like}`).to.equal(a.like);
      expect(a.re, `${what}: regexp_full_match with ${JSON.stringify(likeRegex(patterns[i]!))}`).to.equal(a.like);
      if (mine) matched++;
    });
    // The generator is useful only if both answers are common, also among patterns with segments past 32 characters.
    expect(matched).to.be.within(800, 3200);
    const longestSegment = (p: string) => Math.max(...likePieces(p)!.reduce((runs, x) => (x.kind === 'any' ? [...runs, 0] : [...runs.slice(0, -1), runs.at(-1)! + (x.kind === 'one' ? 1 : [...x.text].length)]), [0]));
    const longSegments = long.patterns.filter((p, i) => longestSegment(p) > 32 && likeMatcher(p)(long.values[i]!));
    expect(longSegments.length).to.be.above(50);
  });

  it('agrees on the edge cases: empty pattern and value, lone wildcards, `_` on multi-byte characters, escapes of ordinary characters', async () => {
    const cases: [string, string][] = [
      ['', ''], ['x', ''], ['', '%'], ['', '_'], ['x', '%'], ['xy', '%%'], ['é', '_'], ['😀', '_'], ['😀', '__'], ['e\u0301', '_'], ['e\u0301', '__'],
      ['a\nb', 'a_b'], ['a\nb', 'a%'], ['ab', '\\a\\b'], ['a%', 'a\\%'], ['ax', 'a\\%'], ['a\\', 'a\\\\'], ['a_', '%\\_'], ['ab', '%\\_'], ['😀x', '\\😀_'],
      ['aaa', '%a%a%a'], ['aa', '%a%a%a'], ['abcabc', '%b_a%'], ['abc', 'a%%%c'], ['.*', '.*'], ['ab', '.*'], ['Ab', 'ab'], ['$', '$'], ['x', '^x'],
    ];
    const answers = await duck(cases.map((c) => c[0]), cases.map((c) => c[1]));
    answers.forEach((a, i) => {
      const [value, pattern] = cases[i]!;
      expect(likeMatcher(pattern)(value), `${JSON.stringify(value)} LIKE ${JSON.stringify(pattern)}`).to.equal(a.like);
      expect(a.re, `${JSON.stringify(value)} LIKE ${JSON.stringify(pattern)} as a regex`).to.equal(a.like);
    });
  });

  it('a pattern ending in a lone escape: DuckDB fails once it gets there and never matches it; here it matches nothing', async () => {
    await conn.runAndReadAll(`SELECT 'ab' LIKE 'a\\' ESCAPE '\\'`).then(
      () => expect.fail('DuckDB accepted a trailing escape'),
      (e: Error) => expect(e.message).to.match(/must not end with escape character/),
    );
    const [[short]] = (await conn.runAndReadAll(`SELECT 'a' LIKE 'a\\' ESCAPE '\\'`)).getRows();
    expect(short).to.equal(false);
    for (const v of ['a', 'ab', 'a\\', '']) expect(likeMatcher('a\\')(v)).to.equal(false);
    expect(likePieces('a\\')).to.equal(undefined);
    expect(likePieces('a\\\\')).to.deep.equal([{ kind: 'text', text: 'a\\' }]);
    expect(likeRegex('%\\')).to.equal(undefined);
  });

  it('CASEI and ACCENTI: the regex folded in SQL selects what the matcher selects with the folded literal text', async () => {
    const r = random(7);
    const letters = ['a', 'B', 'é', 'É', 'ü', 'Ü', 'x', 'Ç', '%', '_', '\\%', '.'];
    const patterns = Array.from({ length: 600 }, () => Array.from({ length: 1 + Math.floor(r() * 5) }, () => letters[Math.floor(r() * letters.length)]).join(''));
    const values = patterns.map((p) => likePieces(p)!.map((x) => (x.kind === 'text' ? (r() < 0.5 ? x.text.toUpperCase() : x.text) : x.kind === 'one' ? 'Ö' : 'Ab')).join(''));
    const folds = {
      casei: { js: (s: string) => s.toLowerCase(), sql: 'lower' },
      accenti: { js: (s: string) => s.normalize('NFD').replace(/\p{M}/gu, ''), sql: 'strip_accents' },
    };
    for (const [name, fold] of Object.entries(folds)) {
      const answers = await duck(values, patterns, { value: `${fold.sql}(s)`, regex: `${fold.sql}(r)` });
      let matched = 0;
      answers.forEach((a, i) => {
        const mine = likeMatcher(patterns[i]!, fold.js)(fold.js(values[i]!));
        expect(mine, `${name}(${JSON.stringify(values[i])}) LIKE ${name}(${JSON.stringify(patterns[i])})`).to.equal(a.re);
        if (mine) matched++;
      });
      expect(matched, name).to.be.above(100);
    }
  });

  it('takes no exponential time: 16 wildcards against 10,000 characters, and the 68-character filter that once held the event loop for 26.5 s', () => {
    const long = 'a'.repeat(10_000);
    expect(likeMatcher(`${'%a'.repeat(16)}%b`)(long)).to.equal(false);
    expect(likeMatcher(`${'%a'.repeat(16)}%`)(long)).to.equal(true);
    expect(likeMatcher(`%${'a_'.repeat(100)}b%`)(long)).to.equal(false);
    expect(likeMatcher('%a%a%a%a%a%a%a%a%a%a%a%b')('a'.repeat(34))).to.equal(false);
    expect(likeMatcher('%a%a%a%a%a%a%a%a%a%a%a%b')(`${'a'.repeat(34)}b`)).to.equal(true);
  });

  it('counts the % wildcards the bound counts: escaped ones are literal text', () => {
    expect(likeWildcards('%a%%b\\%c\\\\%')).to.equal(4);
    expect(likeWildcards('\\%\\%')).to.equal(0);
  });
});
