import { keySlot } from './key-slot';

describe('keySlot', () => {
  it('hashes a key as Redis Cluster does (values from the cluster specification and CLUSTER KEYSLOT)', () => {
    expect(keySlot('123456789')).toBe(0x31c3);
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('user:1000')).toBe(1649);
  });

  it('hashes only the first non-empty hash tag', () => {
    expect(keySlot('chat:queue:{abc}:events')).toBe(keySlot('abc'));
    expect(keySlot('{p3}x')).toBe(keySlot('{p3}y'));
    expect(keySlot('a{}{b}')).not.toBe(keySlot('b'));
    expect(keySlot('é{ü}')).toBe(keySlot('ü'));
  });
});
