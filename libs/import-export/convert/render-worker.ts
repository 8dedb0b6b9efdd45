import { parentPort } from 'node:worker_threads';
import { at } from '../../core/at';
import { renderMarkdown } from '../../markdown';
import { RenderTables, type RenderReply, type RenderRequest } from './render-tables';

/**
 * A render pool's thread: renders the Markdown of batches of converted messages, each against
 * the users, channels and custom emoji the converter had made when it converted the message.
 * Requests are taken one at a time, in the order they came.
 */
const tables = new RenderTables();

async function handle(request: RenderRequest): Promise<RenderReply> {
  try {
    tables.add(request.added);
    const results = [];
    for (const [i, content] of request.contents.entries()) {
      results.push(await renderMarkdown(content, tables.context(at(request.seen, i))));
    }
    return { id: request.id, results };
  } catch (err) {
    return { id: request.id, error: (err as Error).message };
  }
}

let queue = Promise.resolve();
parentPort?.on('message', (request: RenderRequest) => {
  queue = queue.then(async () => parentPort?.postMessage(await handle(request)));
});
