/**
 * MapServer 8 (Debian `cgi-mapserver`) as an OGC API - Features server on loopback, for the
 * remote-backend tests. `mapserv` has no server mode of its own, so a tiny CGI host runs one
 * `mapserv` process per request with the CGI environment (RFC 3875) and relays its answer.
 *
 * The API is at `<base>/remote/ogcapi` (a MapServer map alias); collections: `stations`,
 * `parcels` (the GeoPackage through GDAL VRT) and `stations-gpkg` (the GeoPackage read natively; MapServer 8.0.0 ignores `offset`
 * there). Every request is recorded, so tests can see what a client pushed to the server.
 *
 * Fails loudly when mapserv is missing: install it with `apt-get install cgi-mapserver`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/remote');

export interface MapServerHost {
  /** Landing page of the OGC API: `<origin>/remote/ogcapi`. */
  api: string;
  origin: string;
  /** Path and query of every request received, in order. */
  requests: string[];
  close(): Promise<void>;
}

export function mapservVersion(): string {
  const r = spawnSync('mapserv', ['-v'], { encoding: 'utf8' });
  if (r.error || r.status !== 0 || !/OGCAPI_SERVER/.test(r.stdout)) {
    throw new Error('MapServer with OGC API support is required for these tests: install it with `apt-get install -y cgi-mapserver` (Debian). The suite fails rather than skips.');
  }
  return r.stdout.trim().split('\n')[0]!;
}

export async function startMapServer(): Promise<MapServerHost> {
  mapservVersion();
  const dir = mkdtempSync(path.join(tmpdir(), 'mapserver-'));
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://host');
    requests.push(url.pathname + url.search);
    const { port } = server.address() as AddressInfo;
    const child = spawn('mapserv', [], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        MAPSERVER_CONFIG_FILE: path.join(dir, 'mapserver.conf'),
        GATEWAY_INTERFACE: 'CGI/1.1',
        REQUEST_METHOD: req.method ?? 'GET',
        SCRIPT_NAME: '',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        SERVER_NAME: '127.0.0.1',
        SERVER_PORT: String(port),
        SERVER_PROTOCOL: 'HTTP/1.1',
        HTTP_HOST: req.headers.host ?? `127.0.0.1:${port}`,
        HTTP_ACCEPT: req.headers.accept ?? '*/*',
      },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.on('close', (code) => {
      const all = Buffer.concat(out);
      const split = all.indexOf('\r\n\r\n') >= 0 ? all.indexOf('\r\n\r\n') : all.indexOf('\n\n');
      if (split < 0) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`mapserv exited ${code} without a CGI answer`);
        return;
      }
      const head = all.subarray(0, split).toString('latin1').split(/\r?\n/);
      const body = all.subarray(split + (all[split] === 13 ? 4 : 2));
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head) {
        const i = line.indexOf(':');
        if (i < 0) continue;
        const name = line.slice(0, i).trim().toLowerCase(), value = line.slice(i + 1).trim();
        if (name === 'status') status = parseInt(value, 10) || 200;
        else headers[name] = value;
      }
      res.writeHead(status, headers); // restify's patched writeHead returns nothing: no chaining
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const api = `${origin}/remote/ogcapi`;
  const mapfile = path.join(dir, 'remote.map');
  writeFileSync(mapfile, readFileSync(path.join(FIXTURES, 'mapserver.map'), 'utf8').replaceAll('@FIXTURES@', FIXTURES).replaceAll('@ONLINE@', api));
  writeFileSync(
    path.join(dir, 'mapserver.conf'),
    `CONFIG\n  ENV\n    MS_MAP_PATTERN "^${dir}/"\n  END\n  MAPS\n    remote "${mapfile}"\n  END\nEND\n`,
  );
  return {
    api,
    origin,
    requests,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
