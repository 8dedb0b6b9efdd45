import { configOrExit, createAppContext } from '../../libs/runtime/context';
import { runUntilSignal } from '../../libs/runtime/shutdown';
import { startEventsServer } from './server';

async function main() {
  const ctx = createAppContext(configOrExit());
  const events = await startEventsServer(ctx);
  runUntilSignal(ctx, [() => events.stop()]);
}

void main();
