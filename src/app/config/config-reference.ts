import { configSchema } from './config-schema.js';
import { defOf, unwrapSchema as unwrap, type Def, type Schema, type Unwrapped } from './schema-wrappers.js';

/**
 * The configuration reference (docs/configuration.md), written from the config schema itself so
 * it cannot drift from what the service accepts: every key with its type, bounds, default and
 * the description the schema gives it. `npm run docs:config` writes the file;
 * test/unit/config-docs.test.ts fails when the file and this output differ, or a key has no
 * description.
 *
 * It reads zod's schema definitions (`_zod.def`), which zod 4 exposes for exactly this kind of
 * walk; a wrapper or type it does not know is shown by its zod type name.
 */

/** One documented key. */
export interface ConfigKeyDoc {
  /** Dotted path: `server.port`, `collections[].backing.url`, `...fields.<name>.title`. */
  path: string;
  type: string;
  /** Backticked JSON of the default, `required`, or '' (optional, no default). */
  default: string;
  description: string | undefined;
  /** Set on the keys of one variant of a union (`datastore` with `kind: "postgres"`, ...). */
  variant?: string;
}


const code = (v: string): string => '`' + v + '`';

function numberText(def: Def): string {
  const checks = (def.checks ?? []).map((c) => c._zod.def);
  const int = checks.some((c) => c.check === 'number_format' && /int/.test(c.format ?? ''));
  let lo = checks.find((c) => c.check === 'greater_than');
  const hi = checks.find((c) => c.check === 'less_than');
  const name = int ? 'integer' : 'number';
  // For integers `> n` reads better as `≥ n + 1`.
  if (int && lo && !lo.inclusive && Number.isInteger(lo.value)) Object.assign((lo = { ...lo }), { value: lo.value! + 1, inclusive: true });
  if (lo?.inclusive && hi?.inclusive) return `${name}, ${lo.value} to ${hi.value}`;
  const bounds = [lo && `${lo.inclusive ? '≥' : '>'} ${lo.value}`, hi && `${hi.inclusive ? '≤' : '<'} ${hi.value}`].filter(Boolean);
  return bounds.length ? `${name} ${bounds.join(', ')}` : name;
}

function lengthText(def: Def, unit: string): string[] {
  const out: string[] = [];
  for (const { _zod: { def: c } } of def.checks ?? []) {
    if (c.check === 'min_length' && c.minimum) out.push(c.minimum === 1 ? 'non-empty' : `at least ${c.minimum} ${unit}`);
    if (c.check === 'max_length') out.push(`at most ${c.maximum} ${unit}`);
  }
  return out;
}

function stringText(def: Def): string {
  const notes = lengthText(def, 'characters');
  for (const { _zod: { def: c } } of def.checks ?? []) {
    if (c.check === 'string_format' && c.format === 'regex' && c.pattern) notes.push(`matching ${code(c.pattern.source)}`);
    else if (c.check === 'string_format' && c.format) notes.push(c.format === 'url' ? 'a URL' : `format ${c.format}`);
  }
  return notes.length ? `string, ${notes.join(', ')}` : 'string';
}

/** A short type text for a schema met as a value (array element, tuple item, record value). */
function typeText(schema: Schema, named: Map<Schema, string>): string {
  const u = unwrap(schema);
  const def = defOf(u.core);
  const base = ((): string => {
    const name = named.get(u.core);
    if (name) return name;
    switch (def.type) {
      case 'string':
        return stringText(def);
      case 'number':
        return numberText(def);
      case 'boolean':
        return 'boolean';
      case 'enum':
        return 'one of ' + Object.values(def.entries ?? {}).map((v) => code(String(v))).join(', ');
      case 'literal':
        return (def.values ?? []).map((v) => code(JSON.stringify(v))).join(' or ');
      case 'array': {
        const len = lengthText(def, 'entries');
        // The array's own bounds come first, so they are not read as the element's.
        return `${len.length ? `${len.join(', ')} ` : ''}array of ${typeText(def.element!, named)}`;
      }
      case 'tuple':
        return '[' + (def.items ?? []).map((i) => typeText(i, named)).join(', ') + ']';
      case 'record':
        return `map of name → ${typeText(def.valueType!, named)}`;
      case 'object':
        return 'object';
      case 'union':
        return def.discriminator ? `object, by ${code(def.discriminator)}` : (def.options ?? []).map((o) => typeText(o, named)).join(' or ');
      default:
        return def.type;
    }
  })();
  return u.nullable ? `${base} or null` : base;
}

function defaultText(u: Unwrapped, path: string): string {
  if (u.defaultValue) {
    const v = u.defaultValue.value;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0) return '';
    const text = code(JSON.stringify(v));
    if (typeof v === 'number' && /Bytes$/.test(path) && v >= 1024 && v % 1024 === 0) {
      const [n, unit] = v % (1024 * 1024) === 0 ? [v / 1024 / 1024, 'MiB'] : [v / 1024, 'KiB'];
      return `${text} (${n} ${unit})`;
    }
    return text;
  }
  return u.optional ? '' : 'required';
}

interface Section {
  title: string;
  anchorName?: string;
  description: string | undefined;
  rows: ConfigKeyDoc[];
  sub: Section[];
}

/** Object schemas met as a record value or array element more than once: documented once, by name. */
function sharedSchemas(root: Schema): Map<Schema, string> {
  const seen = new Map<Schema, { count: number; name: string }>();
  const visit = (schema: Schema, key: string): void => {
    const u = unwrap(schema);
    const def = defOf(u.core);
    if (def.type === 'object') {
      const entry = seen.get(u.core);
      if (entry) {
        entry.count++;
        return;
      }
      seen.set(u.core, { count: 1, name: key });
      for (const [k, child] of Object.entries(def.shape ?? {})) visit(child, k);
    } else if (def.type === 'union') for (const o of def.options ?? []) visit(o, key);
    else if (def.type === 'array') visit(def.element!, key);
    else if (def.type === 'record') visit(def.valueType!, key);
  };
  visit(root, '');
  const named = new Map<Schema, string>();
  for (const [schema, { count, name }] of seen) if (count > 1) named.set(schema, `${code(name)} entry`);
  return named;
}

/**
 * Fills `section` with the keys under `schema` at `path`: nested objects, arrays of objects and
 * maps of objects are flattened into the same table; a union with a discriminator becomes one
 * sub-section per variant.
 */
function walk(schema: Schema, path: string, section: Section, named: Map<Schema, string>, shared: Section[]): void {
  const u = unwrap(schema);
  const def = defOf(u.core);
  // An array's element or a map's value adds a row only when it is not an object (its keys follow).
  const element = /(\[\]|\.<name>)$/.test(path) && (def.type === 'object' || def.type === 'union');
  if (path && !element) section.rows.push({ path, type: typeText(schema, named), default: defaultText(u, path), description: u.description });
  const name = named.get(u.core);
  if (name !== undefined && path) {
    if (!shared.some((s) => s.title === name)) {
      const s: Section = { title: name, description: u.description, rows: [], sub: [] };
      shared.push(s);
      const prefix = path.replace(/^.*\.([^.]+\.<name>)$/, '$1');
      for (const [k, child] of Object.entries(def.shape ?? {})) walk(child, `${prefix}.${k}`, s, named, shared);
    }
    return;
  }
  switch (def.type) {
    case 'object':
      for (const [k, child] of Object.entries(def.shape ?? {})) walk(child, path ? `${path}.${k}` : k, section, named, shared);
      return;
    case 'array':
      walkContainer(def.element!, `${path}[]`, section, named, shared);
      return;
    case 'record':
      walkContainer(def.valueType!, `${path}.<name>`, section, named, shared);
      return;
    case 'union':
      if (!def.discriminator) return;
      for (const option of def.options ?? []) {
        const o = unwrap(option);
        const shape = defOf(o.core).shape ?? {};
        const tag = unwrap(shape[def.discriminator]!);
        const value = (defOf(tag.core).values ?? []).map((v) => JSON.stringify(v)).join(' | ');
        const sub: Section = { title: `${code(path)} with ${code(`${def.discriminator}: ${value}`)}`, description: o.description, rows: [], sub: [] };
        section.sub.push(sub);
        for (const [k, child] of Object.entries(shape)) walk(child, `${path}.${k}`, sub, named, shared);
      }
      return;
    default:
      return;
  }
}

/** Array elements and record values: only containers of objects add keys below. */
function walkContainer(schema: Schema, path: string, section: Section, named: Map<Schema, string>, shared: Section[]): void {
  const u = unwrap(schema);
  const type = defOf(u.core).type;
  if (named.has(u.core)) walk(schema, path, { title: '', description: undefined, rows: [], sub: [] }, named, shared);
  else if (type === 'object' || type === 'union') walk(u.core, path, section, named, shared);
}

function sections(root: Schema): Section[] {
  const named = sharedSchemas(root);
  const shared: Section[] = [];
  const out: Section[] = [];
  for (const [key, child] of Object.entries(defOf(unwrap(root).core).shape ?? {})) {
    const u = unwrap(child);
    const section: Section = { title: code(key), description: u.description, rows: [], sub: [] };
    walk(child, key, section, named, shared);
    // A plain section's own row would only repeat its heading.
    if (section.rows[0]?.type === 'object' && section.rows[0].default === '') section.rows.shift();
    out.push(section);
  }
  return [...out, ...shared];
}

/** Every key of the schema, documented (for tests: a key without a description is a gap). */
export function configKeys(root: Schema = configSchema): ConfigKeyDoc[] {
  const all: ConfigKeyDoc[] = [];
  const collect = (s: Section, variant?: string): void => {
    all.push(...s.rows.map((r) => (variant ? { ...r, variant } : r)));
    for (const sub of s.sub) collect(sub, sub.title);
  };
  for (const s of sections(root)) collect(s);
  return all;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function renderSection(s: Section, level: number): string[] {
  const lines = [`${'#'.repeat(level)} ${s.title}`, ''];
  if (s.description) lines.push(s.description, '');
  if (s.rows.length) {
    lines.push('| key | type | default | description |', '|---|---|---|---|');
    for (const r of s.rows) lines.push(`| ${code(r.path)} | ${cell(r.type)} | ${cell(r.default)} | ${cell(r.description ?? '')} |`);
    lines.push('');
  }
  for (const sub of s.sub) lines.push(...renderSection(sub, level + 1));
  return lines;
}

const INTRO = `<!-- Generated from src/app/config/config-schema.ts by \`npm run docs:config\`: edit the schema's descriptions, not this file. -->

# Configuration

The service reads one JSON file: \`config/default.json\`, or the file \`DGGS_CONFIG\` names
(\`DGGS_CONFIG=my-config.json npm start\`). Every key below may be left out unless it is
marked *required*; a left-out key takes its default. Relative paths are relative to the working
directory.

The environment overrides the file:

| variable | sets |
|---|---|
| \`PORT\` | \`server.port\` |
| \`HOST\` | \`server.host\` |
| \`DGGS__<key>__<key>...\` | any key: \`DGGS__limits__maxSubZones=100000\`, \`DGGS__datastore__kind=postgres\`, \`DGGS__collections__0__title=Stations\` |

In \`DGGS__\` names keys are case-insensitive, \`__\` separates them, a number indexes an array,
and map keys (such as field names) are taken as written. The value is parsed as JSON when it
parses (\`100000\`, \`true\`, \`["IVEA7H","H3"]\`), else taken as a string.

The whole configuration is checked at start, and a mistake stops the service with a message
naming the key and where its value came from (the file, \`PORT\`, \`HOST\` or the \`DGGS__...\`
variable):

- a bad value: \`invalid config in environment variable PORT ("eighty"): key "server.port": ...\`;
- an unknown key, with the nearest known one:
  \`unknown config key "collections[1].backing.noDta" in config file my.json; did you mean "noData"?\`;
- a collection id listed twice;
- a local source that is not there: a raster file, the lake root or a lake collection's folder, a
  static STAC catalog (remote URLs are not fetched at start). A backing with \`"optional": true\`
  turns this into a warning in the log, and the collection's data routes answer 503 until the
  source is in place and the service restarts.

A collection without \`extent\` takes it from its data at start: the GeoParquet \`bbox\` of the lake
files (and the first and last instants of the datetime column), a raster's bounds, a static
catalog's items. Remote rasters, catalogs and object-store lakes give none: give \`extent\` for
them, or their zone lists cover the whole world.

Types: *integer ≥ 1* and the like give the accepted bounds; \`a.b[]\` is an array of entries,
\`a.<name>\` a map from names the operator chooses.
`;

/** docs/configuration.md, from the schema. */
export function configReference(root: Schema = configSchema): string {
  const lines = [INTRO];
  for (const s of sections(root)) lines.push(...renderSection(s, 2));
  return lines.join('\n').replace(/\n+$/, '\n');
}
