import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { ShardClient, ShardStatementError } from '../../../src/adapters/clickhouse/shard-client.js';
import { UnavailableError, UpstreamError } from '../../../src/ports/errors.js';

/**
 * The row reader against a stand-in HTTP server that answers what ClickHouse answers when a query
 * fails after its first rows were sent: status 200, rows, then the error text. (The real server
 * does the same in test/clients/clickhouse-pyramid-store.test.ts.)
 */
describe('ClickHouse row reader (shard-client.ts)', () => {
  let server: Server;
  let url: string;
  let body: string[] = [];
  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', async () => {
        res.writeHead(200, { 'content-type': 'text/tab-separated-values' });
        // Each piece its own write, so lines and the error text arrive split across chunks.
        for (const piece of body) {
          res.write(piece);
          await new Promise((r) => setImmediate(r));
        }
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  const client = () => new ShardClient({ url, cluster: 'dggs', username: 'default', password: 'secret-pw', timeoutMs: 5000, maxConnections: 2, retryAfterSeconds: 3 });
  const intRow = (line: string) => (/^\d+\t\d+$/.test(line) ? line.split('\t').map(Number) : undefined);

  async function failure(pieces: string[]): Promise<ShardStatementError> {
    body = pieces;
    const c = client();
    try {
      await c.rows('SELECT 1', intRow);
    } catch (err) {
      return err as ShardStatementError;
    } finally {
      await c.close();
    }
    throw new Error('the read succeeded');
  }

  it('returns every row of a whole answer, lines split across chunks included', async () => {
    body = ['1\t2\n3', '\t4\n', '5\t6', '\n'];
    const c = client();
    try {
      expect(await c.rows('SELECT 1', intRow)).to.deep.equal([[1, 2], [3, 4], [5, 6]]);
    } finally {
      await c.close();
    }
  });

  it('refuses an error text appended after rows, never returning it as a row, and keeps its code\'s kind', async () => {
    const err = await failure(['1\t2\n3\t4\nCode: 395, e.displayText() = DB::Exception: Value passed', " to 'throwIf' function is non zero, e.what() = DB::Exception\n"]);
    expect(err).to.be.instanceOf(ShardStatementError);
    expect(err.mapped).to.be.instanceOf(UpstreamError);
    expect((err.mapped as UpstreamError).hint).to.contain("Value passed to 'throwIf'");
    expect((err.mapped as UpstreamError).hint).to.not.contain('secret-pw');
    const down = await failure(['1\t2\n3\t', '4\nCode: 279, e.displayText() = DB::NetException: All connection tries failed\n']);
    expect(down.mapped).to.be.instanceOf(UnavailableError);
    expect((down.mapped as UnavailableError).retryAfterSeconds).to.equal(3);
  });

  it('refuses an error text cut into a row and an answer whose last line is unfinished', async () => {
    const cut = await failure(['1\t2\n3\tCode: 241, e.displayText() = DB::Exception: Memory limit exceeded\n']);
    expect((cut.mapped as UpstreamError).hint).to.contain('Memory limit');
    const unfinished = await failure(['1\t2\n3\t4']);
    expect(unfinished.mapped).to.be.instanceOf(UpstreamError);
  });

  it('answers UnavailableError naming the cluster and server, not the credentials, when nothing listens', async () => {
    const dead = new ShardClient({ url: 'http://127.0.0.1:9', cluster: 'dggs', username: 'u', password: 'secret-pw', timeoutMs: 5000, maxConnections: 1, retryAfterSeconds: 3 });
    try {
      let caught: unknown;
      await dead.rows('SELECT 1', intRow).catch((e: unknown) => (caught = e));
      const mapped = (caught as ShardStatementError).mapped as UnavailableError;
      expect(mapped).to.be.instanceOf(UnavailableError);
      expect(mapped.hint).to.contain('cluster "dggs" via http://127.0.0.1:9');
      expect(mapped.hint).to.not.contain('secret-pw');
    } finally {
      await dead.close();
    }
  });
});
