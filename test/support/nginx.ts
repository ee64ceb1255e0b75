/**
 * Debian's nginx as a plain process for the reference-deployment test: the repository's
 * deploy/nginx.conf.template filled in, started with its own prefix, pid and logs in a scratch
 * directory (`-p <dir> -c <conf> -e <error log> -g 'daemon off;'`), never the system's service.
 * Fails loudly when nginx is missing (`apt-get install nginx`): never skipped.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const TEMPLATE = path.resolve(import.meta.dirname, '../../deploy/nginx.conf.template');

const hasNginx = () => spawnSync('sh', ['-c', 'command -v nginx'], { stdio: 'ignore' }).status === 0;

/** Throws unless `nginx` is on PATH: the suite fails rather than skips. */
export function requireNginx(): void {
  if (!hasNginx()) throw new Error('nginx is not installed: apt-get install nginx (.ci/run does). The suite fails rather than skips.');
}

/**
 * `${NAME}` placeholders replaced as envsubst would, but only those named: a placeholder without a
 * value, or a value never used, is an error (nginx's own `$host` has no braces and stays).
 */
export function fillTemplate(template: string, values: Record<string, string>): string {
  const used = new Set<string>();
  const text = template.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`template placeholder \${${name}} has no value`);
    used.add(name);
    return v;
  });
  const unused = Object.keys(values).filter((k) => !used.has(k));
  if (unused.length > 0) throw new Error(`values for placeholders the template does not have: ${unused.join(', ')}`);
  return text;
}

/** A self-signed certificate for `name` (and the IP addresses given) made by openssl: PEM files in `dir`. */
export function makeCert(dir: string, name: string, ips: string[] = []): { cert: string; key: string } {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const san = [`DNS:${name}`, ...ips.map((ip) => `IP:${ip}`)].join(',');
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', `/CN=${name}`, '-addext', `subjectAltName=${san}`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl could not make a certificate: ${r.error?.message ?? r.stderr}`);
  return { cert, key };
}

export interface NginxHost {
  conf: string;
  stateDir: string;
  errorLog: string;
  accessLog: string;
  process: ChildProcess;
  /** Lines of the access log (the template's `dggs` format). */
  accessLines(): string[];
  stop(): Promise<void>;
}

function nginxArgs(dir: string, conf: string, errorLog: string): string[] {
  return ['-p', dir, '-c', conf, '-e', errorLog, '-g', 'daemon off;'];
}

/** `nginx -t` on the filled-in file: exit status and what nginx said. */
export function testConfig(dir: string, conf: string): { ok: boolean; output: string } {
  const r = spawnSync('nginx', ['-t', ...nginxArgs(dir, conf, path.join(dir, 'error-t.log'))], { encoding: 'utf8' });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}

/**
 * Writes the template with `values` (STATE_DIR is `<dir>/state`) to `<dir>/nginx.conf` and starts
 * nginx in the foreground; resolves once it accepts TCP connections on `host`:`port`.
 */
export async function startNginx(dir: string, host: string, port: number, values: Record<string, string>): Promise<NginxHost> {
  const stateDir = path.join(dir, 'state');
  mkdirSync(stateDir, { recursive: true });
  const conf = path.join(dir, 'nginx.conf');
  writeFileSync(conf, fillTemplate(readFileSync(TEMPLATE, 'utf8'), { ...values, STATE_DIR: stateDir }));
  const errorLog = path.join(stateDir, 'error.log');
  const accessLog = path.join(stateDir, 'access.log');
  const child = spawn('nginx', nginxArgs(dir, conf, errorLog), { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const errors = () => `${out}${existsSync(errorLog) ? readFileSync(errorLog, 'utf8') : ''}`.slice(-4000);
  const end = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}):\n${errors()}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host, port }, () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > end) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not listen on ${host}:${port}:\n${errors()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    conf,
    stateDir,
    errorLog,
    accessLog,
    process: child,
    accessLines: () => (existsSync(accessLog) ? readFileSync(accessLog, 'utf8').split('\n').filter(Boolean) : []),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        // SIGQUIT: the graceful shutdown (open connections finish), as `nginx -s quit`.
        child.kill('SIGQUIT');
      }),
  };
}
