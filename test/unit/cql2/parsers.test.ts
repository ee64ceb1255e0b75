import { expect } from 'chai';
import { parseCql2Json, parseCql2Text, properties } from '../../../src/domain/cql2/index.js';
import { examplePairs } from './examples.js';

const { pairs, alternatives } = examplePairs();

describe('CQL2 parsers on the OGC examples', () => {
  it('finds all 109 pairs and 11 alternative spellings', () => {
    expect(pairs).to.have.length(109);
    expect(alternatives).to.have.length(11);
  });

  for (const { name, text, json } of pairs) {
    it(`${name}: text and JSON parse to the same tree`, () => {
      expect(parseCql2Text(text)).to.deep.equal(parseCql2Json(json));
    });
  }

  for (const { name, text, json } of alternatives) {
    it(`${name}: alternative spelling parses to its partner's tree`, () => {
      expect(parseCql2Text(text)).to.deep.equal(parseCql2Json(json));
    });
  }
});
