import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configKeys, configReference } from '../../src/app/config/config-reference.js';
import { configSchema } from '../../src/app/config/config-schema.js';

const DOC = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'configuration.md');

/** The value at a dotted path of the parsed defaults, or undefined. */
function at(value: unknown, dotted: string): unknown {
  return dotted.split('.').reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), value);
}

describe('docs/configuration.md', () => {
  it('is what the config schema generates', () => {
    const written = readFileSync(DOC, 'utf8');
    if (written !== configReference()) expect.fail('docs/configuration.md differs from the config schema: run `npm run docs:config` and commit the file');
  });

  it('has a description for every key of the schema', () => {
    const missing = configKeys().filter((k) => !k.description?.trim()).map((k) => (k.variant ? `${k.path} (${k.variant})` : k.path));
    expect(missing, 'keys without a description: add .describe(...) in src/app/config/config-schema.ts').to.deep.equal([]);
  });

  it('shows the defaults the schema applies', () => {
    const defaults = configSchema.parse({});
    const checked = configKeys().filter((k) => !k.variant && /^[\w.]+$/.test(k.path) && k.default.startsWith('`') && !k.default.startsWith('`{') && at(defaults, k.path) !== undefined);
    expect(checked.length).to.be.greaterThan(50);
    for (const k of checked) expect(k.default.replace(/ \(.*\)$/, ''), k.path).to.equal('`' + JSON.stringify(at(defaults, k.path)) + '`');
  });

  it('documents the keys inside arrays, maps and unions', () => {
    const paths = configKeys().map((k) => k.path);
    for (const p of ['server.port', 'lake.s3.endpoint', 'datastore.url', 'collections[].id', 'collections[].backing.url', 'collections[].backing.strategy', 'fields.<name>.svc_band_index']) {
      expect(paths, p).to.include(p);
    }
  });
});
