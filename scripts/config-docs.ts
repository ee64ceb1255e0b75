// npm run docs:config: writes docs/configuration.md from the config schema
// (src/app/config/config-reference.ts). test/unit/config-docs.test.ts fails when the file is stale.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configReference } from '../src/app/config/config-reference.js';

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'configuration.md');
writeFileSync(file, configReference());
console.log(`wrote ${path.relative(process.cwd(), file)}`);
