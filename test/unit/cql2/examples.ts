import fs from 'node:fs';
import path from 'node:path';

/** The OGC example filters (test/fixtures/shared/cql2/ogc; its README gives their provenance). */
export const OGC_DIR = path.resolve(import.meta.dirname, '../../..', 'test/fixtures/shared/cql2/ogc');

export interface ExamplePair {
  name: string;
  text: string;
  json: unknown;
}

function readJson(name: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(OGC_DIR, 'json', `${name}.json`), 'utf8'));
}

/** The 109 text/JSON pairs, plus the 11 `-alt01` spellings mapped to their partner's JSON. */
export function examplePairs(): { pairs: ExamplePair[]; alternatives: ExamplePair[] } {
  const textFiles = fs.readdirSync(path.join(OGC_DIR, 'text')).filter((f) => f.endsWith('.txt')).sort();
  const pairs: ExamplePair[] = [];
  const alternatives: ExamplePair[] = [];
  for (const file of textFiles) {
    const name = file.slice(0, -4);
    const text = fs.readFileSync(path.join(OGC_DIR, 'text', file), 'utf8');
    const alt = /^(.*)-alt\d+$/.exec(name);
    if (alt) alternatives.push({ name, text, json: readJson(alt[1]!) });
    else pairs.push({ name, text, json: readJson(name) });
  }
  return { pairs, alternatives };
}
