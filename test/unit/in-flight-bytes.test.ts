import { expect } from 'chai';
import { InFlightBytesBudget } from '../../src/app/zone-data/in-flight-bytes.js';
import { ServiceBusyError } from '../../src/app/zone-data/work-budget.js';
import { httpStatus } from '../support/http-status.js';

describe('InFlightBytesBudget', () => {
  it('takes bytes up to its limit, refuses past it with 503 and Retry-After naming its key, taking nothing', () => {
    const budget = new InFlightBytesBudget(1000, 'rasterFetch.maxInFlightBytes');
    budget.take(600);
    budget.take(400);
    expect(budget.held).to.equal(1000);
    let err: unknown;
    try {
      budget.take(1);
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(ServiceBusyError);
    const busy = err as ServiceBusyError;
    expect(httpStatus(busy)).to.equal(503);
    expect(busy.retryAfterSeconds).to.be.greaterThan(0);
    expect(busy.hint).to.include('rasterFetch.maxInFlightBytes').and.include('1000 of the 1000 bytes');
    expect(budget.held).to.equal(1000);
    budget.release(600);
    budget.take(500);
    expect(budget.held).to.equal(900);
  });
});
