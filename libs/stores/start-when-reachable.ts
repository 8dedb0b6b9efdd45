import { setTimeout as sleep } from 'node:timers/promises';
import type { AppContext } from '../core/context';
import { storeUnreachable } from './failures';

/** A part of the process started once the stores let it (see `startWhenReachable`). */
export interface StartingPart {
  /**
   * Settles after the first attempt: rejected if that failed for another reason than a store
   * out of reach.
   */
  tried: Promise<void>;
  /** Settles once the part has started, or once retrying ended (cancelled, or a fatal failure). */
  started: Promise<void>;
  /** Stops retrying (an attempt under way fails as its connections close). */
  cancel(): void;
}

const starting = new Set<string>();

/** Parts of the process still waiting for a store to start (`/readyz` lists them). */
export const partsStarting = (): string[] => [...starting];

function markStarting(part: string): void {
  starting.add(part);
}

function markStarted(part: string): void {
  starting.delete(part);
}

/** The part a process names while its own start-up runs (`startOpsServer` until `booted()`). */
export const BOOT_PART = 'boot';

/**
 * Names `part` as starting until the returned function is called: for a process's own boot, so
 * that its probes, which answer from the start, do not call it ready before it serves.
 */
export function startingUntilDone(part: string): () => void {
  markStarting(part);
  return () => markStarted(part);
}

/**
 * Runs `start` now and, while it fails because PostgreSQL or Redis is out of reach, again every
 * `retryMs` in the background, so that a process started during an outage stays up and takes
 * its part up once the store returns, without a restart. Meanwhile `/readyz` names the part as
 * starting. With the stores up the part has started when `tried` settles; any other failure
 * rejects `tried` (first attempt) or is logged (a retry) and ends the retries: it is a bug or a
 * misconfiguration, which waiting does not mend. `start` must be safe to run again after a
 * failure part way.
 */
export function startWhenReachable(
  ctx: AppContext,
  part: string,
  start: () => Promise<void>,
  retryMs = 1000,
): StartingPart {
  let cancelled = false;
  let markTried: () => void = () => undefined;
  let markFailed: (err: unknown) => void = () => undefined;
  const tried = new Promise<void>((resolve, reject) => {
    markTried = resolve;
    markFailed = reject;
  });
  const started = (async () => {
    for (let attempt = 0; !cancelled; attempt++) {
      try {
        await start();
        if (attempt > 0) {
          markStarted(part);
          ctx.log.info('boot', 'started once the stores answered', { part });
        }
        markTried();
        return;
      } catch (err) {
        if (!storeUnreachable(err)) {
          if (attempt === 0) {
            markFailed(err);
            return;
          }
          // Left as starting: `/readyz` keeps naming the part that never started.
          ctx.log.error('boot', 'could not start', {
            part,
            error: err instanceof Error ? err.stack : String(err),
          });
          return;
        }
      }
      if (attempt === 0) {
        markStarting(part);
        ctx.log.debug('boot', 'waiting for the stores to start', { part });
        markTried();
      }
      await sleep(retryMs);
    }
    markStarted(part);
  })();
  return {
    tried,
    started,
    cancel() {
      cancelled = true;
    },
  };
}
