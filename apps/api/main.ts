import { configOrExit, createAppContext } from '../../libs/runtime/context';
import { startOpsServer } from '../../libs/runtime/ops-server';
import { runUntilSignal } from '../../libs/runtime/shutdown';
import { startApiServer } from './server';

async function main() {
  const ctx = createAppContext(configOrExit());
  const server = await startApiServer(ctx);
  const stopOps = await startOpsServer(ctx, 'api');
  runUntilSignal(ctx, [
    () => new Promise<void>((resolve) => server.close(() => resolve())),
    stopOps,
  ]);
}

void main();
