import type { AppContext } from '../core/context';
import { readiness } from '../http/probes';
import { noteStoreHealth } from '../metrics';

type Store = 'postgres' | 'redis';

const STORE_NAMES: Record<Store, string> = { postgres: 'PostgreSQL', redis: 'Redis' };

export interface StoreWatchOptions {
  /** How often the stores are asked while they answer, and while one does not. */
  upIntervalMs?: number;
  downIntervalMs?: number;
  /** A store that flaps is reported at most this often; the warning counts the outages between. */
  warnEveryMs?: number;
}

interface StoreState {
  down: boolean;
  since: number;
  lastWarnedAt: number;
  unreported: number;
}

/**
 * Asks PostgreSQL and Redis, as `/readyz` does, every few seconds, and logs each outage once: a
 * warning naming the cause when a store stops answering (or does not answer at boot), and a line
 * when it answers again. Every other place that meets the outage logs it at debug
 * (`logFailure`). Returns the function that stops watching.
 */
export function watchStores(ctx: AppContext, options: StoreWatchOptions = {}): () => void {
  const { upIntervalMs = 5000, downIntervalMs = 1000, warnEveryMs = 60_000 } = options;
  const states: Record<Store, StoreState> = {
    postgres: { down: false, since: Date.now(), lastWarnedAt: -Infinity, unreported: 0 },
    redis: { down: false, since: Date.now(), lastWarnedAt: -Infinity, unreported: 0 },
  };
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const note = (store: Store, answer: string) => {
    noteStoreHealth(store, answer === 'ok');
    const state = states[store];
    const now = Date.now();
    if (answer === 'ok') {
      if (!state.down) return;
      state.down = false;
      ctx.log.info(store === 'redis' ? 'redis' : 'db', `${STORE_NAMES[store]} reachable again`, {
        store,
        downForMs: now - state.since,
      });
      state.since = now;
      return;
    }
    if (state.down) return;
    state.down = true;
    state.since = now;
    if (now - state.lastWarnedAt < warnEveryMs) {
      state.unreported++;
      return;
    }
    // In `npm start`'s cluster every worker watches (its own readiness needs it), but one speaks
    // for them all: the same outage is not logged once per core.
    const level = (process.env.CHAT_CLUSTER_SLOT ?? '0') === '0' ? 'warn' : 'debug';
    ctx.log[level](store === 'redis' ? 'redis' : 'db', `${STORE_NAMES[store]} unreachable`, {
      store,
      cause: answer,
      ...(state.unreported ? { outagesNotLogged: state.unreported } : {}),
    });
    state.lastWarnedAt = now;
    state.unreported = 0;
  };
  const check = async () => {
    const answers = await readiness(ctx);
    if (stopped) return;
    note('postgres', answers.postgres);
    note('redis', answers.redis);
    const anyDown = states.postgres.down || states.redis.down;
    timer = setTimeout(() => void check(), anyDown ? downIntervalMs : upIntervalMs);
    timer.unref();
  };
  void check();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
