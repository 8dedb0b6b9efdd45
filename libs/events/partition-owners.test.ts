import { consumerName, partitionOwners, queueIdIn } from './partition-owners';

const owners = (members: string[]) => partitionOwners(members, 8);

describe('partitionOwners', () => {
  it('splits the partitions by name order among replicas without a home', () => {
    const [a, b] = [consumerName(10, 'aa', null), consumerName(11, 'bb', null)];
    expect(owners([b, a])).toEqual([a, b, a, b, a, b, a, b]);
    expect(owners([a])).toEqual(Array(8).fill(a));
  });

  it('gives each replica its home share, whatever the names sort to', () => {
    const second = consumerName(10, 'zz', { index: 1, count: 2 });
    const first = consumerName(99, 'aa', { index: 0, count: 2 });
    expect(owners([second, first])).toEqual([
      first,
      second,
      first,
      second,
      first,
      second,
      first,
      second,
    ]);
  });

  it('leaves no partition without a leader while a home replica is away', () => {
    const homes = [0, 1, 2, 3].map((index) => consumerName(index, 'x', { index, count: 4 }));
    const [h0, h1, , h3] = homes;
    const live = [h0, h1, h3];
    // Partitions 2 and 6 (home 2) fall to member p % 3 of the live ones in name order.
    expect(owners(live)).toEqual([h0, h1, live.sort()[2], h3, h0, h1, live.sort()[0], h3]);
  });

  it('names the partition in a queue id', () => {
    expect(queueIdIn(5, 'abc')).toBe('5:abc');
  });
});
