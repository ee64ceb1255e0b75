import { expect } from 'chai';
import { ConnectionSlots } from '../../../src/http/connection-slots.js';

describe('ConnectionSlots', () => {
  it('refuses a peer past its cap, whatever room the server has', () => {
    const slots = new ConnectionSlots<string>(10, 2);
    expect(slots.admit('a1', 'A')).to.deep.equal({ admitted: true });
    expect(slots.admit('a2', 'A')).to.deep.equal({ admitted: true });
    expect(slots.admit('a3', 'A')).to.deep.equal({ admitted: false, scope: 'peer' });
    slots.release('a1');
    expect(slots.admit('a3', 'A')).to.deep.equal({ admitted: true });
  });

  it('at the total cap, takes the oldest idle connection of the peer holding the most idle ones', () => {
    const slots = new ConnectionSlots<string>(5, 5);
    for (const c of ['a1', 'a2']) slots.admit(c, 'A');
    for (const c of ['b1', 'b2', 'b3']) slots.admit(c, 'B');
    expect(slots.admit('c1', 'C')).to.deep.equal({ admitted: true, evicted: 'b1' });
    expect(slots.admit('c2', 'C')).to.deep.equal({ admitted: true, evicted: 'a1' });
    expect(slots.open).to.equal(5);
  });

  it('keeps the slots of connections serving a request; refuses when every slot serves one', () => {
    const slots = new ConnectionSlots<string>(3, 3);
    for (const c of ['a1', 'a2', 'a3']) slots.admit(c, 'A');
    slots.requestStarted('a1');
    slots.requestStarted('a3');
    expect(slots.admit('b1', 'B')).to.deep.equal({ admitted: true, evicted: 'a2' });
    slots.requestStarted('b1');
    expect(slots.admit('c1', 'C')).to.deep.equal({ admitted: false, scope: 'server' });
    // answered: idle again, and now the most recently idle of its peer
    slots.requestEnded('a3');
    slots.requestEnded('a1');
    expect(slots.admit('c1', 'C')).to.deep.equal({ admitted: true, evicted: 'a3' });
  });

  it('counts pipelined requests: a connection is idle once all of them are answered', () => {
    const slots = new ConnectionSlots<string>(1, 1);
    slots.admit('a', 'A');
    slots.requestStarted('a');
    slots.requestStarted('a');
    slots.requestEnded('a');
    expect(slots.admit('b', 'B')).to.deep.equal({ admitted: false, scope: 'server' });
    slots.requestEnded('a');
    expect(slots.admit('b', 'B')).to.deep.equal({ admitted: true, evicted: 'a' });
  });

  it('releases once: an evicted connection closing later frees nothing more', () => {
    const slots = new ConnectionSlots<string>(1, 1);
    slots.admit('a', 'A');
    slots.admit('b', 'B');
    slots.release('a');
    slots.requestEnded('a');
    expect(slots.open).to.equal(1);
    expect(slots.admit('c', 'C')).to.deep.equal({ admitted: true, evicted: 'b' });
  });
});
