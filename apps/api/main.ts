import { configOrExit, createAppContext } from '../../libs/runtime/context';
import { runUntilSignal } from '../../libs/runtime/shutdown';
import { startApiServer } from './server';

async function main() {
  const ctx = createAppContext(configOrExit());
  const server = await startApiServer(ctx);
  runUntilSignal(ctx, [() => new Promise<void>((resolve) => server.close(() => resolve()))]);
}

void main();
