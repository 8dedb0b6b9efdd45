import { loadConfig } from '../config';
import { connectRedis } from '../redis/connect';
import { TEST_REDIS_CLUSTER_NODES, TEST_REDIS_URL } from '../../test/harness';
import { Waker } from './waker';

describe('Waker', () => {
  it('counts the polls waiting, each once, whatever the order they stop in', () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_CLUSTER_NODES: TEST_REDIS_CLUSTER_NODES,
    });
    const waker = new Waker(connectRedis(config, { lazyConnect: true }), 'waker-test');
    try {
      const first = waker.listen('q1', () => undefined);
      const second = waker.listen('q1', () => undefined);
      const other = waker.listen('q2', () => undefined);
      expect(waker.pollCount).toBe(3);
      first();
      first();
      expect(waker.pollCount).toBe(2);
      other();
      second();
      expect(waker.pollCount).toBe(0);
      waker.listen('q1', () => undefined);
      expect(waker.pollCount).toBe(1);
    } finally {
      waker.close();
    }
  });
});
