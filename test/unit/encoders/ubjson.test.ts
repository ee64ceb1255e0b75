/**
 * The JSON-to-UBJSON transcoder against an independent UBJSON decoder (@shelacek/ubjson): any JSON
 * text, cut into pieces anywhere (inside strings, numbers, literals, escapes), decodes to what
 * JSON.parse reads from the same text.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { decode } from '@shelacek/ubjson';
import { JsonToUbjson, UbjsonSyntaxError } from '../../../src/formats/ubjson.js';

function transcode(pieces: string[]): unknown {
  const t = new JsonToUbjson();
  for (const p of pieces) t.write(p);
  const bytes = t.end();
  return decode(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
}

/** `text` cut at the given positions. */
function cut(text: string, at: number[]): string[] {
  const points = [...new Set(at.map((a) => a % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of points) {
    out.push(text.slice(from, p));
    from = p;
  }
  out.push(text.slice(from));
  return out;
}

describe('JSON to UBJSON transcoder', () => {
  it('decodes, through an independent decoder, to what JSON.parse reads, however the text is cut', () => {
    fc.assert(
      fc.property(fc.jsonValue().filter((v) => !JSON.stringify(v).includes('__proto__')), fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (value, at, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        expect(transcode(cut(text, at))).to.deep.equal(JSON.parse(text));
      }),
      { numRuns: 400 },
    );
  });

  it('keeps doubles exactly, integers of 32 bits as integers, and large integers as doubles', () => {
    const values = [0, -1, 127, 128, 255, 256, -129, 32767, 32768, -32769, 2147483647, 2147483648, -2147483649, 2 ** 53, -(2 ** 53), 1e21, 0.1, -1.5e-300, Number.MAX_VALUE, 5e-324];
    const text = JSON.stringify({ values, nested: [{ a: null, b: true, c: false, 'é ✓': 'x"\\\n\u0001' }] });
    expect(transcode([text])).to.deep.equal(JSON.parse(text));
    // Each integer uses the smallest marker: i for 0, U for 200, I for 1000, l for 100000, D beyond.
    const t = new JsonToUbjson();
    t.write('[0,200,1000,100000,3000000000]');
    expect([...t.end()].map((b) => String.fromCharCode(b)).filter((c) => 'iUIlD'.includes(c)).join('')).to.equal('iUIlD');
  });

  it('refuses text that is not JSON', () => {
    for (const bad of ['[1,2', '{"a":tru}', '[1]]', '"open', '[nul', '{"a":1}}', '@']) {
      expect(() => transcode([bad]), bad).to.throw(UbjsonSyntaxError);
    }
  });
});
