import { expect } from 'chai';
import { judge } from '../../../scripts/fuzz/checks.js';
import type { FuzzCase } from '../../../scripts/fuzz/cases.js';

/** The fuzzer's leak check: a server path in a body is a finding unless the request itself sent it. */
describe('fuzz checks: leaked markers', () => {
  const marker = '/srv/dggs-api';
  const notFound = (hint: string) => ({
    response: { status: 404, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ code: 404, message: 'Collection not found', hint })), bodyBytes: 0, ms: 1 },
  });
  const fuzzCase = (path: string): FuzzCase => ({ id: 1, op: 'getCollection', family: 'param', params: ['collection_id'], req: { method: 'GET', path, headers: [] }, note: '' });
  const leaks = (c: FuzzCase, hint: string) => judge(c, notFound(hint), [marker], 10_000).filter((v) => v.kind === 'leak');

  it('flags a marker the service added to its answer', () => {
    expect(leaks(fuzzCase('/collections/x'), `No collection under ${marker}/data`)).to.have.length(1);
  });

  it('does not flag a marker echoed from the request target, percent-encoded or not', () => {
    expect(leaks(fuzzCase(`/collections/${encodeURIComponent(`COPY TO '${marker}'`)}`), `No collection "COPY TO '${marker}'"`)).to.have.length(0);
    expect(leaks(fuzzCase(`/collections/a${marker}`), `No collection "a${marker}"`)).to.have.length(0);
  });
});
