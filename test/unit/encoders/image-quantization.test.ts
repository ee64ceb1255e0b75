/**
 * The integer images' quantization (PNG, JPEG-XL): fitted to values large beside their range, every
 * value keeps its place in 1..top (value × scale + offset in doubles would lose it), the headers'
 * offset is the equivalent one, and a range whose scale is no finite number is a 422.
 */
import { expect } from 'chai';
import { GRID_FACTORIES } from '../../../src/adapters/grids/catalog.js';
import type { ZoneData } from '../../../src/domain/zone-data.js';
import { ValidationError } from '../../../src/ports/errors.js';
import { quantization, quantize } from '../../../src/formats/zone-data/zone-image.js';

const grid = GRID_FACTORIES.IVEA7H!();

function dataOf(values: number[]): ZoneData {
  const zones = values.map((_, i) => `Z${i}`);
  return { dggrsId: 'IVEA7H', zoneId: 'A0-0-A', fields: { v: { title: 'v', type: 'number' } }, depths: [{ depth: 1, zones, values: { v: values } }], sources: [] };
}

describe('image quantization', () => {
  it('fits values near 1e15 with a range of 1 onto 1..65535 exactly, with the equivalent offset in the headers', () => {
    const values = [1e15, 1e15 + 0.25, 1e15 + 0.5, 1e15 + 1];
    const q = quantization(dataOf(values), { grid, links: [], refined: false }, 16);
    expect(q.scale).to.equal(65534);
    expect(q.offset).to.equal(1 - 1e15 * 65534);
    expect(values.map((v) => quantize(v, q))).to.deep.equal([1, 16385, 32768, 65535]);
    // What the plain formula gives in doubles: no longer the data's steps.
    expect(values.map((v) => Math.round(v * q.scale + q.offset))).to.not.deep.equal([1, 16385, 32768, 65535]);
  });

  it('keeps the least value at 1 with a values-scale alone, and follows values-scale and values-offset as asked', () => {
    const data = dataOf([10, 20, 30]);
    const alone = quantization(data, { grid, links: [], refined: false, valuesScale: 2 }, 8);
    expect([10, 20, 30].map((v) => quantize(v, alone))).to.deep.equal([1, 21, 41]);
    expect(alone.offset).to.equal(-19);
    const both = quantization(data, { grid, links: [], refined: false, valuesScale: 2, valuesOffset: 5 }, 8);
    expect([10, 20, 30].map((v) => quantize(v, both))).to.deep.equal([25, 45, 65]);
  });

  it('refuses (422) a range whose fitted scale is no finite positive number', () => {
    for (const values of [[-1e308, 1e308], [0, 1e-310]]) {
      expect(() => quantization(dataOf(values), { grid, links: [], refined: false }, 16), String(values)).to.throw(ValidationError, /cannot be fitted/);
    }
  });
});
