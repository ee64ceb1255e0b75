import { parseArgs } from 'node:util';

const USAGE = `usage:
  npm run token -- create --owner NAME [--label TEXT]   prints a new bearer token once; stores only its SHA-256
  npm run token -- list                                 tokens: id, owner, label, created, revoked, digest prefix
  npm run token -- revoke ID                            the token stops working at once
The datastore is the one the config names (DGGS_CONFIG, DGGS__datastore__... overrides).`;

const OWNER = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}$/;

type Command = { kind: 'create'; owner: string; label?: string } | { kind: 'list' } | { kind: 'revoke'; id: number };

function fail(message: string, code = 2): never {
  console.error(`token: ${message}`);
  process.exit(code);
}

/** The command line, checked before anything heavy is loaded. */
function parse(): Command {
  const { positionals, values } = parseArgs({ args: process.argv.slice(2), allowPositionals: true, options: { owner: { type: 'string' }, label: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  const [command, arg] = positionals;
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  switch (command) {
    case 'create': {
      const owner = values.owner ?? fail(`create needs --owner NAME\n${USAGE}`);
      if (!OWNER.test(owner)) fail('an owner name is 1-128 of letters, digits, _ . @ - (starting with a letter or digit)');
      return { kind: 'create', owner, ...(values.label !== undefined ? { label: values.label } : {}) };
    }
    case 'list':
      return { kind: 'list' };
    case 'revoke': {
      const id = Number(arg);
      if (!arg || !Number.isInteger(id) || id < 1) fail(`revoke needs a token id (see list)\n${USAGE}`);
      return { kind: 'revoke', id };
    }
    default:
      fail(command ? `unknown command "${command}"\n${USAGE}` : USAGE);
  }
}

async function main(): Promise<void> {
  const command = parse();
  const [{ default: pino }, { loadConfig, ConfigError }, { buildContainer }, { TOKENS }, { newToken, sha256Hex }] = await Promise.all([
    import('pino'),
    import('../src/app/config/load-config.js'),
    import('../src/app/container.js'),
    import('../src/app/tokens.js'),
    import('../src/adapters/auth/sha256-token-verifier.js'),
  ]);
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  const container = buildContainer(config, pino({ level: 'silent' }));
  const admin = container.get<import('../src/ports/datastore.js').DatastoreAdmin>(TOKENS.DatastoreAdmin);
  const store = container.get<import('../src/ports/datastore.js').TokenStore>(TOKENS.TokenStore);
  try {
    const status = config.datastore.autoInitialize ? await admin.initialize() : await admin.status();
    if (!status.initialized) fail('the datastore is not initialised yet: POST /admin/initialize on the admin listener (server.admin) first, or set datastore.autoInitialize', 1);
    if (command.kind === 'create') {
      const token = newToken();
      const record = await store.createToken(command.owner, sha256Hex(token), command.label);
      console.log(`token ${record.id} for owner "${command.owner}" (shown once; only its SHA-256 is stored):\n${token}`);
    } else if (command.kind === 'list') {
      const tokens = await store.listTokens();
      if (tokens.length === 0) console.log('no tokens (the config\'s auth.tokenSha256 digests belong to owner "demo")');
      for (const t of tokens) console.log([t.id, t.owner, t.label ?? '-', t.created, t.revoked ? `revoked ${t.revoked}` : 'live', `${t.digest.slice(0, 12)}…`].join('\t'));
    } else {
      if (!(await store.revokeToken(command.id))) fail(`no live token ${command.id}`, 1);
      console.log(`token ${command.id} revoked`);
    }
  } finally {
    await admin.close();
  }
}

main().catch((err) => fail(err instanceof Error ? err.message : String(err), 1));
