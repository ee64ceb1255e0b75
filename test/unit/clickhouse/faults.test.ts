import { expect } from 'chai';
import { clickHouseFault, isUnknownTable, serverErrorCode } from '../../../src/adapters/clickhouse/faults.js';
import { NotFoundError, UnavailableError, UpstreamError, UpstreamTimeoutError } from '../../../src/ports/errors.js';

describe('ClickHouse faults (faults.ts)', () => {
  const origin = { cluster: 'dggs', server: 'http://10.0.0.5:8123', retryAfterSeconds: 9 };
  const server = (code: number, text: string) => new Error(`Code: ${code}, e.displayText() = DB::Exception: ${text}, e.what() = DB::Exception\n`);

  it('reads the server\'s error code from an 18.16 message', () => {
    expect(serverErrorCode('Code: 279, e.displayText() = DB::NetException: All connection tries failed.')).to.equal(279);
    expect(serverErrorCode('no code here')).to.equal(undefined);
  });

  it('turns a shard down (279, 210, lost mid-query) or a refused connection into UnavailableError with the configured Retry-After, naming the cluster and server', () => {
    for (const err of [server(279, 'All connection tries failed'), server(210, 'Connection refused (127.0.0.1:9001)'), server(32, 'Attempt to read after eof'), Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:8123'), { code: 'ECONNREFUSED' }), new Error('socket hang up')]) {
      const fault = clickHouseFault(err, origin);
      expect(fault, err.message).to.be.instanceOf(UnavailableError);
      expect(fault.retryAfterSeconds).to.equal(9);
      expect(fault.hint).to.contain('cluster "dggs" via http://10.0.0.5:8123');
    }
  });

  it('turns the client\'s timeout and the server\'s TIMEOUT_EXCEEDED into UpstreamTimeoutError', () => {
    expect(clickHouseFault(new Error('Timeout error.'), origin)).to.be.instanceOf(UpstreamTimeoutError);
    expect(clickHouseFault(server(159, 'Timeout exceeded: elapsed 10.1 seconds'), origin)).to.be.instanceOf(UpstreamTimeoutError);
  });

  it('turns any other server error into UpstreamError with its first line, bounded, and passes error kinds through', () => {
    const fault = clickHouseFault(server(62, `Syntax error ${'x'.repeat(1000)}`), origin);
    expect(fault).to.be.instanceOf(UpstreamError);
    expect(fault.hint!.length).to.be.lessThan(400);
    expect(fault.hint).to.contain('Code: 62');
    const kind = new NotFoundError('x');
    expect(clickHouseFault(kind, origin)).to.equal(kind);
  });

  it('tells a missing table or database (a generation dropped meanwhile) from other faults', () => {
    expect(isUnknownTable(server(60, 'Table dggs.x doesn\'t exist.'))).to.equal(true);
    expect(isUnknownTable(server(81, 'Database dggs doesn\'t exist'))).to.equal(true);
    expect(isUnknownTable(server(279, 'x'))).to.equal(false);
    // A newer server's error as the client parses it: the code apart from the message.
    expect(isUnknownTable(Object.assign(new Error('Table dggs.x does not exist. '), { code: '60', type: 'UNKNOWN_TABLE' }))).to.equal(true);
    expect(clickHouseFault(Object.assign(new Error('All connection tries failed. '), { code: '279', type: 'ALL_CONNECTION_TRIES_FAILED' }), origin)).to.be.instanceOf(UnavailableError);
  });
});
