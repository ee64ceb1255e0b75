/**
 * Replays the Dockerfile's stages on this machine, for hosts without a container engine
 * (scripts/check-dockerfile.sh runs it). Each stage gets a scratch directory standing for its
 * WORKDIR; COPY takes from the build context (honouring .dockerignore) or an earlier stage, RUN runs
 * its command there with the stage's ENV and this machine's Node on PATH. The one substitution:
 * the build stage's `npm ci` links the repository's node_modules (installed from the same
 * lockfile) instead of installing every devDependency again. The runtime stage's
 * `npm ci --omit=dev` runs for real, so whatever the compiled service imports from a
 * devDependency is missing, as it would be in the image.
 *
 * Then, as the image would run (as an unprivileged user when this runs as root, owning only what
 * the Dockerfile gives USER): every package the compiled code imports must resolve; the CMD must
 * start and answer the HEALTHCHECK's probe, `/` and zone data of the demo's lake and raster; the
 * worker (`node dist/src/worker.js`) must start; both must stop cleanly on SIGTERM. Prints one
 * `replay OK:` line when all holds and exits 0, else says what failed and exits 1.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const REPO = path.resolve(import.meta.dirname, '..');
const { values: opts } = parseArgs({ options: { keep: { type: 'boolean', default: false } } });
/** The unprivileged user standing in for the image's USER when this runs as root: nobody. */
const NOBODY = 65534;
const START_MS = 60_000;

class ReplayError extends Error {}
const fail = (message: string): never => {
  throw new ReplayError(message);
};
const log = (message: string) => console.log(`replay: ${message}`);

interface Instruction {
  name: string;
  flags: Map<string, string>;
  args: string;
  line: number;
}
interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

/** The Dockerfile as stages of instructions: continuations joined, comments and directives dropped. */
function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*(#|$)/.test(lines[i]!)) continue;
    const line = i + 1;
    let joined = lines[i]!.trimEnd();
    while (joined.endsWith('\\') && i + 1 < lines.length) {
      joined = joined.slice(0, -1);
      const next = lines[++i]!;
      if (!/^\s*#/.test(next)) joined += ` ${next.trim()}`;
    }
    const m = /^\s*(\w+)\s+(.*)$/.exec(joined) ?? fail(`Dockerfile line ${line}: cannot read "${joined}"`);
    const name = m[1]!.toUpperCase();
    let rest = m[2]!.trim();
    const flags = new Map<string, string>();
    for (let f = /^--([\w-]+)(?:=(\S+))?\s*/.exec(rest); f; f = /^--([\w-]+)(?:=(\S+))?\s*/.exec(rest)) {
      flags.set(f[1]!, f[2] ?? '');
      rest = rest.slice(f[0].length);
    }
    if (name === 'FROM') {
      const [from, as, stageName] = rest.split(/\s+/);
      stages.push({ name: as?.toUpperCase() === 'AS' && stageName ? stageName : String(stages.length), from: from!, instructions: [] });
    } else {
      (stages.at(-1) ?? fail(`Dockerfile line ${line}: ${name} before FROM`)).instructions.push({ name, flags, args: rest, line });
    }
  }
  return stages;
}

/** .dockerignore: the last pattern matching a path or one of its parents decides; `!` includes. */
function dockerignore(text: string): (rel: string) => boolean {
  const rules = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const negated = l.startsWith('!');
      const p = (negated ? l.slice(1) : l).replace(/^\/+|\/+$/g, '');
      const re = new RegExp(`^${p.split('**').map((s) => s.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')).join('.*')}$`);
      return { negated, re };
    });
  return (rel) => {
    const parts = rel.split('/');
    const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let excluded = false;
    for (const r of rules) if (prefixes.some((p) => r.re.test(p))) excluded = !r.negated;
    return excluded;
  };
}

function* files(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(full);
    else yield full;
  }
}

function chownTree(p: string, uid: number): void {
  chownSync(p, uid, uid);
  if (statSync(p).isDirectory()) for (const e of readdirSync(p)) chownTree(path.join(p, e), uid);
}

/** An exec-form (JSON array) command, as CMD and HEALTHCHECK CMD hold it. */
function execForm(args: string, what: string): string[] {
  try {
    const argv = JSON.parse(args) as unknown;
    if (Array.isArray(argv) && argv.length > 0 && argv.every((a) => typeof a === 'string')) return argv;
  } catch {
    // reported below
  }
  return fail(`${what} must be in exec form (a JSON array of strings): ${args}`);
}

interface StageState {
  root: string;
  workdir: string;
  env: Record<string, string>;
  user?: string;
  cmd?: string[];
  healthcheck?: string[];
  expose: string[];
}

const work = mkdtempSync(path.join(tmpdir(), 'dggs-replay-'));
const children = new Set<ChildProcess>();

async function main(): Promise<void> {
  const stages = parseDockerfile(readFileSync(path.join(REPO, 'Dockerfile'), 'utf8'));
  const ignored = dockerignore(existsSync(path.join(REPO, '.dockerignore')) ? readFileSync(path.join(REPO, '.dockerignore'), 'utf8') : '');
  const runtime = stages.at(-1) ?? fail('the Dockerfile has no stage');
  const imageNode = /^node:(\d+)-[a-z]+-slim$/.exec(runtime.from) ?? fail(`the runtime stage's base must be node:<major>-<debian>-slim, not ${runtime.from}`);
  const nodeMajor = process.versions.node.split('.')[0];
  if (nodeMajor !== imageNode[1]) log(`note: this machine's Node is ${process.versions.node}, the image's is ${imageNode[1]}`);
  const asRoot = process.getuid?.() === 0;
  const uid = asRoot ? NOBODY : process.getuid!();
  // Stands for node's home directory in the image.
  const home = path.join(work, 'home');
  mkdirSync(home);
  chmodSync(work, 0o755);
  if (asRoot) chownSync(home, uid, uid);
  const baseEnv: Record<string, string> = {
    PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    // The host's npm cache stands for the build's cache mount; prefer it over the network.
    npm_config_cache: path.join(process.env.HOME ?? home, '.npm'),
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
    ...hostTrust(),
  };

  const done = new Map<string, StageState>();
  for (const stage of stages) {
    const last = stage === runtime;
    const s: StageState = { root: path.join(work, `stage-${stage.name}`), workdir: '/', env: {}, expose: [] };
    mkdirSync(s.root);
    chmodSync(s.root, 0o755);
    const local = (p: string) => {
      const rel = path.posix.relative(s.workdir, path.posix.resolve(s.workdir, p));
      return rel.startsWith('..') ? fail(`${stage.name}: ${p} is outside the WORKDIR ${s.workdir}, which the replay cannot map`) : path.join(s.root, rel);
    };
    for (const ins of stage.instructions) {
      const where = `Dockerfile line ${ins.line} (${stage.name})`;
      switch (ins.name) {
        case 'WORKDIR':
          if (s.workdir !== '/') fail(`${where}: the replay maps one WORKDIR per stage`);
          s.workdir = ins.args;
          break;
        case 'ENV':
          for (const m of ins.args.matchAll(/(\w+)=(\S*)/g)) s.env[m[1]!] = m[2]!;
          break;
        case 'COPY': {
          if (ins.args.startsWith('[')) fail(`${where}: the replay reads COPY in its plain form (COPY src... dest)`);
          const parts = ins.args.split(/\s+/);
          const dest = parts.pop()!;
          const from = ins.flags.get('from');
          for (const src of parts) {
            const target = dest.endsWith('/') ? path.join(local(dest), path.basename(src)) : local(dest);
            if (from !== undefined) {
              const other = done.get(from) ?? fail(`${where}: no stage "${from}" before this one`);
              const rel = path.posix.relative(other.workdir, src);
              if (rel.startsWith('..')) fail(`${where}: ${src} is outside stage ${from}'s WORKDIR`);
              const source = path.join(other.root, rel);
              if (!existsSync(source)) fail(`${where}: stage ${from} has no ${src}`);
              cpSync(source, target, { recursive: true });
            } else {
              const source = path.join(REPO, src);
              if (!existsSync(source) || ignored(src.replace(/\/+$/, ''))) fail(`${where}: ${src} is not in the build context (missing, or excluded by .dockerignore)`);
              const list = statSync(source).isDirectory() ? [...files(source)] : [source];
              for (const f of list) {
                const rel = path.relative(REPO, f);
                if (ignored(rel)) continue;
                const to = statSync(source).isDirectory() ? path.join(target, path.relative(source, f)) : target;
                mkdirSync(path.dirname(to), { recursive: true });
                cpSync(f, to);
              }
            }
            if (ins.flags.has('chown') && asRoot) chownTree(target, uid);
          }
          break;
        }
        case 'RUN': {
          const command = ins.args;
          if (!last && /^npm ci(\s|$)/.test(command)) {
            symlinkSync(realpathSync(path.join(REPO, 'node_modules')), path.join(s.root, 'node_modules'));
            log(`${stage.name}: "${command}" stands in as the repository's node_modules`);
            break;
          }
          log(`${stage.name}: RUN ${command}`);
          const t0 = Date.now();
          const r = spawnSync('sh', ['-c', command], { cwd: local('.'), env: { ...baseEnv, ...s.env }, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
          if (r.status !== 0) fail(`${where}: RUN ${command} exited ${r.status ?? r.signal}\n${r.stdout.slice(-4000)}${r.stderr.slice(-4000)}`);
          log(`${stage.name}:   done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
          break;
        }
        case 'USER':
          s.user = ins.args;
          break;
        case 'EXPOSE':
          s.expose.push(...ins.args.split(/\s+/));
          break;
        case 'HEALTHCHECK': {
          const m = /^CMD\s+(.*)$/.exec(ins.args) ?? fail(`${where}: HEALTHCHECK must be CMD [...]`);
          s.healthcheck = execForm(m[1]!, `${where}: HEALTHCHECK CMD`);
          break;
        }
        case 'CMD':
          s.cmd = execForm(ins.args, `${where}: CMD`);
          break;
        default:
          fail(`${where}: the replay does not know ${ins.name}`);
      }
    }
    done.set(stage.name, s);
  }

  const s = done.get(runtime.name)!;
  if (!s.user || s.user === 'root' || s.user === '0') fail('the runtime stage must switch to an unprivileged USER');
  if (!s.expose.includes('8080')) fail('the runtime stage must EXPOSE 8080');
  const cmd = s.cmd ?? fail('the runtime stage has no CMD');
  const healthcheck = s.healthcheck ?? fail('the runtime stage has no HEALTHCHECK');
  const root = s.root;
  const packages = readdirSync(path.join(root, 'node_modules')).filter((n) => !n.startsWith('.')).length;

  // Every package the compiled code imports must resolve among the production dependencies.
  const specifiers = new Set<string>();
  for (const f of files(path.join(root, 'dist'))) {
    if (!f.endsWith('.js')) continue;
    for (const m of readFileSync(f, 'utf8').matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)'((?:@[\w.-]+\/)?\w[\w.-]*(?:\/[\w.\/-]+)?)'/g)) {
      if (!isBuiltin(m[1]!)) specifiers.add(m[1]!);
    }
  }
  const probe = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', 'const bad = []; for (const s of JSON.parse(process.argv[1])) { try { import.meta.resolve(s); } catch { bad.push(s); } } console.log(JSON.stringify(bad));', JSON.stringify([...specifiers])],
    { cwd: root, encoding: 'utf8' },
  );
  const unresolved = JSON.parse(probe.stdout || '["(resolution probe failed)"]') as string[];
  if (unresolved.length > 0) {
    const dev = Object.keys((JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> }).devDependencies ?? {});
    fail(`the compiled code imports what the runtime stage lacks: ${unresolved.map((u) => (dev.some((d) => u === d || u.startsWith(`${d}/`)) ? `${u} (a devDependency)` : u)).join(', ')}`);
  }
  log(`runtime: ${specifiers.size} packages imported by dist/ all resolve among the ${packages} installed by npm ci --omit=dev`);

  const runEnv = { ...baseEnv, ...s.env, HOST: '127.0.0.1' };
  const as = asRoot ? { uid, gid: uid } : {};
  // The image's node is on a path every user reaches; this one may not be (a Node fetched into a
  // checkout under a private temp dir, as CI's clone is): the runtime's user gets its own copy.
  const runtimeNode = asRoot ? path.join(work, 'bin', 'node') : process.execPath;
  if (asRoot) {
    mkdirSync(path.dirname(runtimeNode));
    cpSync(process.execPath, runtimeNode);
    chmodSync(runtimeNode, 0o755);
  }
  const node = (argv: string[]) => (argv[0] === 'node' ? [runtimeNode, ...argv.slice(1)] : argv);

  // The service, as CMD starts it, on a free port.
  const [bin, ...args] = node(cmd);
  const service = spawn(bin!, args, { cwd: root, env: { ...runEnv, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'], ...as });
  children.add(service);
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new ReplayError(`the service did not report its port within ${START_MS / 1000} s:\n${out.slice(-4000)}`)), START_MS);
    const seen = (d: Buffer) => {
      out += d;
      const m = /"port":(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    service.stdout!.on('data', seen);
    service.stderr!.on('data', seen);
    service.once('exit', (code) => reject(new ReplayError(`the service exited (${code}) before listening:\n${out.slice(-4000)}`)));
  });
  log(`runtime: ${cmd.join(' ')} listens on port ${port} as ${asRoot ? `uid ${uid} (standing for USER ${s.user})` : 'this user'}`);

  const base = `http://127.0.0.1:${port}`;
  const hc = node(healthcheck);
  for (let i = 0; ; i++) {
    if (spawnSync(hc[0]!, hc.slice(1), { cwd: root, env: { ...runEnv, PORT: String(port) }, timeout: 5000, ...as }).status === 0) break;
    if (i === 30) fail(`the HEALTHCHECK command failed for 30 s (/health/live: ${(await fetch(`${base}/health/live`).catch(() => undefined))?.status ?? 'no answer'})`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  for (const p of ['/', '/collections/demo-stations/dggs/IVEA7H/zones/F4-120-B/data?f=json', '/collections/demo-elevation/dggs/IVEA7H/zones/F4-120-B/data?f=json', '/api?f=html']) {
    const res = await fetch(base + p);
    await res.arrayBuffer();
    if (res.status !== 200) fail(`GET ${p}: ${res.status}`);
  }
  log('runtime: /, zone data from the lake and from the raster, and /api answer 200');

  const worker = spawn(runtimeNode, ['dist/src/worker.js'], { cwd: root, env: { ...runEnv, DGGS__datastore__file: 'data/runtime/worker-check.sqlite' }, stdio: ['ignore', 'pipe', 'pipe'], ...as });
  children.add(worker);
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new ReplayError(`the worker did not start within ${START_MS / 1000} s:\n${out.slice(-4000)}`)), START_MS);
    const seen = (d: Buffer) => {
      out += d;
      if (out.includes('dggs-api worker running')) {
        clearTimeout(timer);
        resolve();
      }
    };
    worker.stdout!.on('data', seen);
    worker.stderr!.on('data', seen);
    worker.once('exit', (code) => reject(new ReplayError(`the worker exited (${code}) before running:\n${out.slice(-4000)}`)));
  });
  log('runtime: node dist/src/worker.js runs');

  for (const [what, child] of [['service', service], ['worker', worker]] as const) {
    const code = await stop(child);
    if (code !== 0) fail(`the ${what} exited ${code} on SIGTERM`);
  }
  console.log(`replay OK: the runtime stage (${runtime.from}, npm ci --omit=dev: ${packages} packages) runs the service and the worker from dist/; the HEALTHCHECK command passed`);
}

function stop(child: ChildProcess): Promise<number | string | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode ?? child.signalCode);
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolve(code ?? signal);
    });
    child.kill('SIGTERM');
  });
}

main()
  .then(
    () => 0,
    (err: unknown) => {
      console.error(`replay FAILED: ${err instanceof ReplayError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return 1;
    },
  )
  .then(async (code) => {
    await Promise.all([...children].map(stop));
    if (opts.keep) log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
    process.exit(code);
  });

/**
 * The certificate authorities this machine's npm and Node trust (a TLS-inspecting proxy's, say):
 * a build on this machine would be given them too, and the replayed stages run with another HOME
 * and possibly another npm, which would not find the host's npmrc.
 */
function hostTrust(): Record<string, string> {
  const trust: Record<string, string> = {};
  if (process.env.NODE_EXTRA_CA_CERTS) trust.NODE_EXTRA_CA_CERTS = process.env.NODE_EXTRA_CA_CERTS;
  const cafile = spawnSync('npm', ['config', 'get', 'cafile'], { encoding: 'utf8' }).stdout?.trim();
  if (cafile && cafile !== 'null' && cafile !== 'undefined') trust.npm_config_cafile = cafile;
  return trust;
}
