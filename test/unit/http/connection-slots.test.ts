import { expect } from 'chai';
import { ClientRequests, ConnectionSlots, peerKey } from '../../../src/http/connection-slots.js';

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

  it('a connection admitted past the per-peer cap (a trusted proxy\'s) still counts in the total', () => {
    const slots = new ConnectionSlots<string>(3, 1);
    expect(slots.admit('p1', 'P', false)).to.deep.equal({ admitted: true });
    expect(slots.admit('p2', 'P', false)).to.deep.equal({ admitted: true });
    expect(slots.admit('a1', 'P')).to.deep.equal({ admitted: false, scope: 'peer' });
    slots.requestStarted('p1');
    slots.requestStarted('p2');
    expect(slots.admit('b1', 'B')).to.deep.equal({ admitted: true });
    slots.requestStarted('b1');
    expect(slots.admit('p3', 'P', false)).to.deep.equal({ admitted: false, scope: 'server' });
  });
});

describe('ClientRequests', () => {
  it('bounds the requests in flight per client key, and frees the bound as they end', () => {
    const clients = new ClientRequests(2);
    expect([clients.start('a'), clients.start('a'), clients.start('a'), clients.start('b')]).to.deep.equal([true, true, false, true]);
    clients.end('a');
    expect(clients.start('a')).to.equal(true);
    expect(clients.start('a')).to.equal(false);
  });

  it('keys IPv6 clients by /64, IPv4 ones by address, other names as they are', () => {
    expect(peerKey('2001:db8:0:1::1')).to.equal(peerKey('2001:0db8:0000:0001:ffff::2'));
    expect(peerKey('2001:db8:0:1::1')).to.not.equal(peerKey('2001:db8:0:2::1'));
    expect(peerKey('::ffff:192.0.2.1')).to.equal('192.0.2.1');
    expect(peerKey('unknown')).to.equal('unknown');
  });
});
