/** The one Accept header reader (src/http/accept-header.ts), against RFC 9110's grammar. */
import { expect } from 'chai';
import { mediaRanges } from '../../../src/http/accept-header.js';
import { openApiMediaType } from '../../../src/http/openapi/media-type.js';

const plain = (accept: string) => mediaRanges(accept).map((r) => ({ type: r.type, q: r.q, params: Object.fromEntries(r.params) }));

describe('Accept header ranges', () => {
  it('splits ranges and parameters only outside quoted strings, and unquotes values', () => {
    expect(plain('application/geo+json; profile="a,b;c" ; q=0.5, text/html')).to.deep.equal([
      { type: 'application/geo+json', q: 0.5, params: { profile: 'a,b;c', q: '0.5' } },
      { type: 'text/html', q: 1, params: {} },
    ]);
    expect(plain('application/json; x="say \\"hi\\", then go"')).to.deep.equal([{ type: 'application/json', q: 1, params: { x: 'say "hi", then go' } }]);
  });

  it('lower-cases types and parameter names, keeps values as sent, and skips empty ranges', () => {
    expect(plain(' , APPLICATION/JSON;Version=3.1;PROFILE=ABC,,')).to.deep.equal([{ type: 'application/json', q: 1, params: { version: '3.1', profile: 'ABC' } }]);
  });

  it('reads q within 0..1: absent 1, out of range clamped, not a number 0', () => {
    expect(mediaRanges('a/b;q=0.25, c/d;q=2, e/f;q=-1, g/h;q=x, i/j').map((r) => r.q)).to.deep.equal([0.25, 1, 0, 0, 1]);
  });

  it("serves the OpenAPI document's negotiation (version parameter, quoted or not)", () => {
    expect(openApiMediaType('application/vnd.oai.openapi+json;version="3.0", application/json')).to.equal('application/json');
    expect(openApiMediaType('application/vnd.oai.openapi+json;version=3.1, application/json')).to.equal('application/vnd.oai.openapi+json;version=3.1');
  });
});
