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
    let results: Promise<R[]>;
    try {
      results = run(batch.map((w) => w.key));
    } catch (err) {
      results = Promise.reject(err);
    }
    results.then(
      (answers) => batch.forEach((w, i) => w.resolve(answers[i])),
      (err: unknown) => batch.forEach((w) => w.reject(err)),
    );
  };
  return (key) =>
    new Promise<R>((resolve, reject) => {
      if (waiting.push({ key, resolve, reject }) === 1) setImmediate(flush);
    });
}
