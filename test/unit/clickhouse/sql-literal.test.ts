import { expect } from 'chai';
import { sqlArray, sqlIdentifier, sqlList, sqlLiteral, sqlNumber, sqlString } from '../../../src/adapters/clickhouse/sql-literal.js';

/**
 * ClickHouse's reading of a quoted string literal (its lexer and `readQuotedString`): a backslash
 * escapes the next character, `\xHH` is a byte, `\n` `\t` `\0` ... are controls, a quote ends it.
 * Written from the server's rules, independently of sqlString, so the test checks the encoding
 * against what the server does rather than against itself. Returns the bytes and where the literal ended.
 */
function readLiteral(sql: string): { bytes: number[]; end: number } {
  if (sql[0] !== "'") throw new Error('no opening quote');
  const bytes: number[] = [];
  const named: Record<string, number> = { b: 8, f: 12, n: 10, r: 13, t: 9, '0': 0, a: 7, v: 11 };
  for (let i = 1; i < sql.length; i++) {
    const ch = sql[i]!;
    if (ch === "'") return { bytes, end: i + 1 };
    if (ch === '\\') {
      const next = sql[++i]!;
      if (next === 'x') {
        bytes.push(parseInt(sql.slice(i + 1, i + 3), 16));
        i += 2;
      } else if (next in named) bytes.push(named[next]!);
      else bytes.push(...Buffer.from(next, 'utf8'));
      continue;
    }
    bytes.push(...Buffer.from(ch, 'utf8'));
  }
  throw new Error('unterminated literal');
}

describe('ClickHouse literals (sql-literal.ts)', () => {
  it('writes every character 0-255 as a plain-ASCII literal the server reads back as its UTF-8 bytes, ending at its own last quote', () => {
    for (let c = 0; c < 256; c++) {
      const value = `a${String.fromCharCode(c)}b`;
      const lit = sqlString(value);
      expect(lit, `character ${c}`).to.match(/^'[\x20-\x7e]*'$/);
      const { bytes, end } = readLiteral(`${lit} AND 1`);
      expect(end, `character ${c}`).to.equal(lit.length);
      expect(Buffer.from(bytes).equals(Buffer.from(value, 'utf8')), `character ${c}`).to.equal(true);
    }
  });

  it('keeps quotes, backslashes, NUL, newlines and multi-byte characters from ending or changing the literal', () => {
    for (const value of ["'", "\\'", "''", '\\', '\\\\', "\\x27'", '\u0000', 'a\nb\r\t', "x' OR 1=1 --", 'é中文😀', '\u2028\u2029\uFEFF', '']) {
      const lit = sqlString(value);
      const { bytes, end } = readLiteral(`${lit}, 'next'`);
      expect(end, JSON.stringify(value)).to.equal(lit.length);
      expect(Buffer.from(bytes).toString('utf8')).to.equal(value);
    }
    expect(sqlString("it's")).to.equal("'it\\'s'");
    expect(sqlString('a\\b')).to.equal("'a\\\\b'");
    expect(sqlString('\u0000')).to.equal("'\\x00'");
    expect(sqlString('é')).to.equal("'\\xC3\\xA9'");
  });

  it('refuses a string with a lone surrogate (it has no UTF-8 form) and anything not a string', () => {
    expect(() => sqlString('a\uD800b')).to.throw(/surrogate/);
    expect(() => sqlString('\uDC00')).to.throw(/surrogate/);
    expect(() => sqlString(1 as unknown as string)).to.throw(TypeError);
  });

  it('writes finite numbers as their round-trip text and refuses NaN, the infinities and unsafe integers', () => {
    expect(sqlNumber(0)).to.equal('0');
    expect(sqlNumber(-0)).to.equal('0');
    expect(sqlNumber(-42)).to.equal('-42');
    expect(sqlNumber(Number.MIN_SAFE_INTEGER)).to.equal('-9007199254740991');
    expect(sqlNumber(0.1)).to.equal('0.1');
    expect(sqlNumber(1e-7)).to.equal('1e-7');
    expect(sqlNumber(-2.5e-300)).to.equal('-2.5e-300');
    for (const x of [0.1, 1 / 3, -2.5e-300, 123456.789]) expect(Number(sqlNumber(x))).to.equal(x);
    // An integer past 2^53 (1e308 is one) may already have lost digits: ids and keys never are.
    for (const bad of [NaN, Infinity, -Infinity, 2 ** 53, -(2 ** 60), 1.7976931348623157e308]) expect(() => sqlNumber(bad), String(bad)).to.throw();
    expect(() => sqlNumber('1' as unknown as number)).to.throw();
  });

  it('takes either kind through sqlLiteral and refuses an empty IN list or array', () => {
    expect(sqlLiteral('x')).to.equal("'x'");
    expect(sqlLiteral(3)).to.equal('3');
    expect(sqlList([1, 'a', -2])).to.equal("(1, 'a', -2)");
    expect(() => sqlList([])).to.throw(/empty/);
    expect(sqlArray([1, -2])).to.equal('[1, -2]');
    expect(() => sqlArray([])).to.throw(/empty/);
  });

  it('back-quotes identifiers of the allow-list and refuses any other, never escaping one', () => {
    expect(sqlIdentifier('dggs_pyramids_g1')).to.equal('`dggs_pyramids_g1`');
    expect(sqlIdentifier('_A9')).to.equal('`_A9`');
    for (const bad of ['', '9a', 'a-b', 'a`b', 'a b', "a'", 'a.b', 'é', 'a\u0000', 'x'.repeat(192)]) expect(() => sqlIdentifier(bad), JSON.stringify(bad)).to.throw(/identifier/);
  });
});
