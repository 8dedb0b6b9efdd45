import { at } from './at';

interface Waiting<K, R> {
  key: K;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/**
 * Runs the calls made during one turn of the event loop as one batch, once the turn's input has
 * been read: under load several requests arrive in a turn, and one round trip for all of them
 * costs about what one costs alone. `run` answers the keys in their order; when it fails, every
 * call of the batch fails with its error.
 */
export function perTurnBatch<K, R>(run: (keys: K[]) => Promise<R[]>): (key: K) => Promise<R> {
  let waiting: Waiting<K, R>[] = [];
  const flush = (): void => {
    const batch = waiting;
    waiting = [];
    const keys = new Array<K>(batch.length);
    for (let i = 0; i < batch.length; i++) keys[i] = at(batch, i).key;
    let results: Promise<R[]>;
    try {
      results = run(keys);
    } catch (err) {
      results = Promise.reject(err);
    }
    void settle(batch, results);
  };
  return (key) =>
    new Promise<R>((resolve, reject) => {
      if (waiting.push({ key, resolve, reject }) === 1) setImmediate(flush);
    });
}

/**
 * Answers each call of a batch. A function of the module's: closures made per batch lost their
 * optimized code at every full collection (see `BatchCommand` in libs/redis/by-node.ts).
 */
async function settle<K, R>(batch: Waiting<K, R>[], results: Promise<R[]>): Promise<void> {
  let answers: R[];
  try {
    answers = await results;
  } catch (err) {
    for (const waiting of batch) waiting.reject(err);
    return;
  }
  // `run` answers every key, in order (above).
  for (let i = 0; i < batch.length; i++) at(batch, i).resolve(answers[i] as R);
}
