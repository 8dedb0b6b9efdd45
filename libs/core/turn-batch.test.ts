import { perTurnBatch } from './turn-batch';

describe('perTurnBatch', () => {
  it('runs the calls of one turn as one batch and answers each in order', async () => {
    const batches: number[][] = [];
    const double = perTurnBatch(async (keys: number[]) => {
      batches.push(keys);
      return keys.map((k) => k * 2);
    });
    expect(await Promise.all([double(1), double(2), double(3)])).toEqual([2, 4, 6]);
    expect(await double(4)).toBe(8);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it('fails every call of a failed batch, and the next batch runs again', async () => {
    let fail = true;
    const echo = perTurnBatch(async (keys: string[]) => {
      if (fail) throw new Error('store down');
      return keys;
    });
    const results = await Promise.allSettled([echo('a'), echo('b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await echo('c')).toBe('c');
  });
});
