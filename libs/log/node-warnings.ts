import type { Logger } from '../core/log';

let routed = false;

/**
 * Node's own warnings (a deprecation, a possible EventEmitter leak, an experimental feature) go
 * to the process's log as `warn` lines of category `node`, instead of Node's plain-text lines on
 * stderr: every line a process writes is then JSON. Node prints them through a `warning`
 * listener of its own, which is replaced once per process.
 */
export function logNodeWarnings(log: Logger): void {
  if (routed) return;
  routed = true;
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { code?: string }) => {
    log.warn('node', warning.message, {
      name: warning.name,
      ...(warning.code ? { code: warning.code } : {}),
      stack: warning.stack,
    });
  });
}
