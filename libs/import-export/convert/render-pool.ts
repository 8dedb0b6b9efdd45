import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { at } from '../../core/at';
import type { RenderedMarkdown } from '../../markdown';
import type { RenderAdditions, RenderReply, RenderRequest, RenderSeen } from './render-tables';

/**
 * Loads the thread's module; from TypeScript sources (tsx, jest) through tsx's require hook
 * when the process did not pass one on.
 */
const BOOT = `
const { workerData } = require('node:worker_threads');
if (workerData.file.endsWith('.ts') && !require.extensions['.ts']) require('tsx/cjs/api').register();
require(workerData.file);
`;
const WORKER_FILE = path.join(__dirname, `render-worker${path.extname(__filename)}`);

interface Waiting {
  resolve: (results: RenderedMarkdown[]) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  /** How much of each table this thread has been sent. */
  sent: RenderSeen;
  waiting: Map<number, Waiting>;
}

/**
 * Threads that render converted messages' Markdown, a batch per request, so that a Slack or
 * Mattermost conversion uses every core (rendering was most of its time). Each thread keeps
 * its own copy of the organization's names, sent as they grow.
 */
export class RenderPool {
  private readonly threads: Thread[] = [];
  private nextThread = 0;
  private nextId = 0;
  private closed = false;

  constructor(size = Math.min(8, Math.max(2, os.availableParallelism()))) {
    for (let i = 0; i < size; i++) this.threads.push(this.start());
  }

  get size(): number {
    return this.threads.length;
  }

  private start(): Thread {
    const worker = new Worker(BOOT, { eval: true, workerData: { file: WORKER_FILE } });
    const thread: Thread = { worker, sent: { users: 0, streams: 0, emoji: 0 }, waiting: new Map() };
    const failAll = (err: Error) => {
      for (const w of thread.waiting.values()) w.reject(err);
      thread.waiting.clear();
    };
    worker.on('message', (reply: RenderReply) => {
      const waiting = thread.waiting.get(reply.id);
      thread.waiting.delete(reply.id);
      if ('error' in reply) waiting?.reject(new Error(`rendering Markdown: ${reply.error}`));
      else waiting?.resolve(reply.results);
    });
    worker.on('error', failAll);
    worker.on('exit', (code) => {
      if (!this.closed) failAll(new Error(`a Markdown render thread exited (${code})`));
    });
    return thread;
  }

  /** The batch's Markdown rendered; `tables` is everything the converter has made so far. */
  render(
    tables: RenderAdditions,
    contents: string[],
    seen: RenderSeen[],
  ): Promise<RenderedMarkdown[]> {
    const thread = at(this.threads, this.nextThread);
    this.nextThread = (this.nextThread + 1) % this.threads.length;
    const id = this.nextId++;
    const request: RenderRequest = {
      id,
      added: {
        users: tables.users.slice(thread.sent.users),
        streams: tables.streams.slice(thread.sent.streams),
        emoji: tables.emoji.slice(thread.sent.emoji),
      },
      contents,
      seen,
    };
    thread.sent = {
      users: tables.users.length,
      streams: tables.streams.length,
      emoji: tables.emoji.length,
    };
    return new Promise((resolve, reject) => {
      thread.waiting.set(id, { resolve, reject });
      thread.worker.postMessage(request);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}
