/**
 * npm run ingest -- <collection> --grid IVEA7H --levels 0-12
 *
 * Stores zone keys in a parquet-lake collection's files (src/adapters/lake/zone-columns-writer.ts):
 * one BIGINT column per level, `zone_<grid>_l<level>`, plus the GeoParquet bbox covering when the
 * files lack one. Zone data for those levels is then a GROUP BY in DuckDB. The lake root and the
 * collection come from the config (DGGS_CONFIG and DGGS__... overrides, as for the service).
 *
 * npm run ingest -- <collection> --pyramid clickhouse [--grid IVEA7H] [--levels 0-12] [--workers N]
 *
 * Builds a clickhouse-pyramid collection's zone pyramid from its source lake
 * (src/app/pyramids/pyramid-ingest.ts): parts by coarse zones, run by this process (N at once)
 * and, on a PostgreSQL datastore, by every `npm run worker` sharing the pg-boss queue.
 */
import 'reflect-metadata';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';

const USAGE = `usage: npm run ingest -- <collection> --grid <grid id> --levels <levels>
       npm run ingest -- <collection> --pyramid clickhouse [--grid <grid id>] [--levels <levels>] [--workers <n>]
  <levels>: a range (0-12), a list (3,5,7) or one level; the grid must offer numeric zone keys (every grid but A5).
Without --pyramid: zone-key columns written into a parquet-lake collection's files; each file is rewritten in place (written beside it under a hidden name, then renamed over it).
The demo lake's files are committed: \`npm run demo-data\` restores them byte for byte (npm start keeps an ingested demo lake).
With --pyramid clickhouse: <collection> is a clickhouse-pyramid collection; its source lake (local or S3) is aggregated per zone into
its table; --grid and --levels default to the backing's grid and levels; --workers: parts run at once by this process (default: the cores;
0 leaves them to \`npm run worker\` processes, which share the parts' queue on a PostgreSQL datastore).`;

function fail(message: string, code = 2): never {
  console.error(`ingest: ${message}`);
  process.exit(code);
}

/** `0-12`, `3,5,7`, `5`: ascending, distinct. */
function parseLevels(text: string): number[] {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\d{1,2})(?:-(\d{1,2}))?$/.exec(part.trim());
    if (!m) fail(`levels "${text}": write a range (0-12), a list (3,5,7) or one level`);
    const [from, to] = [Number(m[1]), Number(m[2] ?? m[1])];
    if (to < from) fail(`levels "${part}": the range runs upwards`);
    for (let l = from; l <= to; l++) out.add(l);
  }
  return [...out].sort((a, b) => a - b);
}

/** The service's config (DGGS_CONFIG and DGGS__... overrides); a config mistake ends the command with its message. */
async function configOrFail() {
  const { loadConfig, ConfigError } = await import('../src/app/config/load-config.js');
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: { grid: { type: 'string' }, levels: { type: 'string' }, pyramid: { type: 'string' }, workers: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const [collectionId, extra] = positionals;
  if (!collectionId || extra !== undefined) fail(USAGE);
  if (values.pyramid !== undefined) return ingestPyramid(collectionId, values);
  if (values.workers !== undefined) fail(`--workers goes with --pyramid\n${USAGE}`);
  const gridId = values.grid ?? fail(`--grid is required\n${USAGE}`);
  const levels = parseLevels(values.levels ?? fail(`--levels is required\n${USAGE}`));

  const [config, { GRID_FACTORIES }, { writeZoneColumns, ZoneColumnsError }] = await Promise.all([
    configOrFail(),
    import('../src/adapters/grids/catalog.js'),
    import('../src/adapters/lake/zone-columns-writer.js'),
  ]);
  const collection = config.collections.find((c) => c.id === collectionId) ?? fail(`no collection "${collectionId}" in the config (${config.collections.map((c) => c.id).join(', ')})`);
  if (collection.backing.kind !== 'parquet-lake') fail(`"${collectionId}" is a ${collection.backing.kind} collection; only parquet-lake collections have files to ingest`);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(config.lake.root)) fail(`lake.root ${config.lake.root} is not a directory: ingest rewrites local files`);
  const make = GRID_FACTORIES[gridId] ?? fail(`unknown grid "${gridId}" (known: ${Object.keys(GRID_FACTORIES).join(', ')})`);
  const t0 = performance.now();
  try {
    const done = await writeZoneColumns({
      root: config.lake.root,
      collectionId,
      geometryColumn: collection.backing.geometryColumn,
      grid: make(),
      levels,
      log: (line) => console.log(line),
    });
    console.log(`${collectionId}: ${done.files} file(s), ${done.rows.toLocaleString('en')} rows, zone keys of ${gridId} at levels ${levels.join(',')} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } catch (err) {
    if (err instanceof ZoneColumnsError) fail(err.message, 1);
    throw err;
  }
}

/** `--pyramid clickhouse`: the pyramid ingest use case from the service's container (the store it binds from the config's clickhouse section). */
async function ingestPyramid(collectionId: string, values: { grid?: string; levels?: string; pyramid?: string; workers?: string }): Promise<void> {
  if (values.pyramid !== 'clickhouse') fail(`--pyramid ${values.pyramid}: the pyramid store is clickhouse`);
  const workers = values.workers === undefined ? availableParallelism() : Number(values.workers);
  if (!Number.isInteger(workers) || workers < 0 || workers > 256) fail(`--workers "${values.workers}": a whole number of parts this process runs at once, 0-256`);
  const levels = values.levels === undefined ? undefined : parseLevels(values.levels);
  const [config, { buildContainer }, { TOKENS }, { PyramidIngestError }, pino] = await Promise.all([
    configOrFail(),
    import('../src/app/container.js'),
    import('../src/app/tokens.js'),
    import('../src/app/pyramids/pyramid-ingest.js'),
    import('pino'),
  ]);
  const container = buildContainer(config, pino.default({ level: 'warn', name: 'dggs-api-ingest' }));
  const ingest = container.get<import('../src/app/pyramids/pyramid-ingest.js').PyramidIngest>(TOKENS.PyramidIngest);
  const closeAll = async () => {
    await container.get<import('../src/ports/pyramid-parts.js').PyramidPartQueue>(TOKENS.PyramidPartQueue).close();
    await Promise.allSettled([
      container.get<import('../src/ports/zone-pyramid-store.js').ZonePyramidStore>(TOKENS.ZonePyramidStore).close(),
      container.get<import('../src/ports/lake-reader.js').LakeReader>(TOKENS.LakeReader).close(),
    ]);
  };
  try {
    await ingest.ingest({ collectionId, ...(values.grid ? { grid: values.grid } : {}), ...(levels ? { levels } : {}), workers, log: (line) => console.log(line) });
  } catch (err) {
    await closeAll().catch(() => undefined);
    if (err instanceof PyramidIngestError) fail(err.message, 1);
    throw err;
  }
  await closeAll();
}

await main();
