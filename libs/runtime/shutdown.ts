import { markDraining } from '../http/probes';
import type { RunningContext } from './context';

/** On SIGTERM or SIGINT: stop taking work, finish what is in flight, close connections, exit. */
export function runUntilSignal(ctx: RunningContext, stoppers: (() => Promise<void>)[]): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    markDraining();
    ctx.log.info('boot', 'shutting down', { signal });
    await Promise.allSettled(stoppers.map((s) => s()));
    await ctx.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
