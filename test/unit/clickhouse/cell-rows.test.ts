import { expect } from 'chai';
import { encodeCells, parseCellLine, parseFloat64, parseInteger } from '../../../src/adapters/clickhouse/cell-rows.js';
import { ALL_TIME, type PyramidCell } from '../../../src/ports/zone-pyramid-store.js';

describe('ClickHouse pyramid cell rows (cell-rows.ts)', () => {
  const cell: PyramidCell = { level: 7, key: 2 ** 40 + 3, coarse: 99, period: ALL_TIME, count: 12, fields: [{ valid: 0, sum: 0, m2: 0, min: NaN, max: NaN }, { valid: 12, sum: 0.1 + 0.2, m2: 1e-300, min: -5e-324, max: 1.7976931348623157e308 }] };

  it('writes RowBinary: part as a length-prefixed string, Int64/UInt8/UInt64 little-endian, doubles bit for bit (NaN included)', () => {
    const buf = encodeCells('p', [cell], 2);
    expect(buf.length).to.equal(2 + 8 + 1 + 8 + 8 + 8 + 2 * 40);
    expect(buf.subarray(0, 2).toString('latin1')).to.equal('\u0001p');
    expect(buf.readBigInt64LE(2)).to.equal(99n);
    expect(buf.readUInt8(10)).to.equal(7);
    expect(buf.readBigInt64LE(11)).to.equal(BigInt(2 ** 40 + 3));
    expect(buf.readBigInt64LE(19)).to.equal(BigInt(ALL_TIME));
    expect(buf.readBigUInt64LE(27)).to.equal(12n);
    expect(Number.isNaN(buf.readDoubleLE(35 + 24))).to.equal(true);
    expect(buf.readDoubleLE(75 + 8)).to.equal(0.1 + 0.2);
    expect(buf.readDoubleLE(75 + 24)).to.equal(-5e-324);
  });

  it('writes every safe integer as its 64-bit two\'s complement', () => {
    for (const n of [0, 1, -1, 2 ** 32 - 1, 2 ** 32, -(2 ** 32), -(2 ** 32) - 1, 2 ** 31, -(2 ** 31), Number.MAX_SAFE_INTEGER, ALL_TIME, 123456789012345]) {
      const buf = encodeCells('', [{ ...cell, key: n }], 2);
      expect(buf.readBigInt64LE(1 + 8 + 1), String(n)).to.equal(BigInt(n));
    }
  });

  it('prefixes a long or multi-byte part name with its UTF-8 length as a varint', () => {
    const part = 'é'.repeat(100);
    const buf = encodeCells(part, [cell], 2);
    expect([buf[0], buf[1]]).to.deep.equal([200 & 0x7f | 0x80, 1]);
    expect(buf.subarray(2, 202).toString('utf8')).to.equal(part);
  });

  it('refuses cells it cannot write exactly', () => {
    expect(() => encodeCells('p', [{ ...cell, key: 2 ** 53 }], 2)).to.throw(/safe integer/);
    expect(() => encodeCells('p', [{ ...cell, count: -1 }], 2)).to.throw(/non-negative/);
    expect(() => encodeCells('p', [{ ...cell, level: 256 }], 2)).to.throw(/level/);
    expect(() => encodeCells('p', [cell], 3)).to.throw(/fields/);
  });

  it('reads TabSeparated numbers as ClickHouse prints them, nan and inf included, and nothing else', () => {
    expect(parseFloat64('nan')).to.be.NaN;
    expect(parseFloat64('-nan')).to.be.NaN;
    expect(parseFloat64('inf')).to.equal(Infinity);
    expect(parseFloat64('-inf')).to.equal(-Infinity);
    expect(parseFloat64('0.30000000000000004')).to.equal(0.1 + 0.2);
    expect(parseFloat64('1e-300')).to.equal(1e-300);
    expect(parseFloat64('-4.9406564584124654e-324')).to.equal(-5e-324);
    for (const bad of ['', 'NaN', 'Infinity', '0x10', '1 ', ' 1', '1,5', 'Code: 395']) expect(parseFloat64(bad), bad).to.equal(undefined);
    expect(parseInteger('-9007199254740991')).to.equal(ALL_TIME);
    for (const bad of ['', '1.5', '9007199254740993', '1e3', 'x']) expect(parseInteger(bad), bad).to.equal(undefined);
  });

  it('parses a row of the expected width and refuses any other line, such as an error text in place of a row', () => {
    const line = ['99', '7', String(2 ** 40 + 3), String(ALL_TIME), '12', '0', '0', '0', 'nan', 'nan', '12', '0.30000000000000004', '1e-300', '-4.9406564584124654e-324', '1.7976931348623157e308'].join('\t');
    expect(parseCellLine(line, 2)).to.deep.equal(cell);
    expect(parseCellLine(line, 1)).to.equal(undefined);
    expect(parseCellLine(`${line}\textra`, 2)).to.equal(undefined);
    expect(parseCellLine('Code: 279, e.displayText() = DB::NetException: All connection tries failed', 2)).to.equal(undefined);
    expect(parseCellLine(line.replace('nan', 'null'), 2)).to.equal(undefined);
  });
});
