import type { Page } from 'puppeteer-core';

/**
 * Where a page's main thread spends its long tasks, for the web client's benchmark: a Chromium
 * trace (what kind of work: script, style, layout, paint, garbage collection) and a V8 CPU
 * profile (which functions), taken together around `run`.
 */
export interface BrowserProfile<T> {
  result: T;
  /** Long tasks (> 50 ms) on the page's main thread: their count and longest, in ms. */
  longTasks: number[];
  /** Time inside the long tasks by trace event name (self time, ms), largest first. */
  kinds: [string, number][];
  /** JavaScript self time by function (ms, whole run), largest first. */
  functions: [string, number][];
}

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string; data?: { frame?: string } };
}

interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }[];
  samples: number[];
  timeDeltas: number[];
}

const CATEGORIES = [
  'toplevel',
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'v8',
  'v8.execute',
  'blink.user_timing',
];

/** The renderer main thread: the one that ran the most top-level tasks named RunTask. */
function mainThread(events: TraceEvent[]): string {
  const names = new Map<string, string>();
  for (const e of events)
    if (e.ph === 'M' && e.name === 'thread_name')
      names.set(`${e.pid}:${e.tid}`, e.args?.name ?? '');
  const counts = new Map<string, number>();
  for (const e of events) {
    const key = `${e.pid}:${e.tid}`;
    if (names.get(key) === 'CrRendererMain' && e.ph === 'X')
      counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
}

/** Self time by event name inside each complete event over 50 ms named RunTask. */
function longTaskKinds(events: TraceEvent[]): { longTasks: number[]; kinds: [string, number][] } {
  const thread = mainThread(events);
  const spans = events
    .filter((e) => e.ph === 'X' && `${e.pid}:${e.tid}` === thread && e.dur !== undefined)
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const kinds = new Map<string, number>();
  const longTasks: number[] = [];
  let task: TraceEvent | null = null;
  // A stack of the open events in the current long task, for self times.
  const stack: { event: TraceEvent; child: number }[] = [];
  const close = (upTo: number) => {
    while (
      stack.length &&
      stack[stack.length - 1].event.ts + stack[stack.length - 1].event.dur! <= upTo
    ) {
      const { event, child } = stack.pop()!;
      kinds.set(event.name, (kinds.get(event.name) ?? 0) + (event.dur! - child) / 1000);
      if (stack.length) stack[stack.length - 1].child += event.dur!;
    }
  };
  for (const e of spans) {
    if (task && e.ts >= task.ts + task.dur!) {
      close(Infinity);
      task = null;
    }
    if (!task) {
      if (e.name !== 'RunTask' || e.dur! <= 50_000) continue;
      task = e;
      longTasks.push(e.dur! / 1000);
    } else close(e.ts);
    stack.push({ event: e, child: 0 });
  }
  close(Infinity);
  return { longTasks, kinds: [...kinds].sort((a, b) => b[1] - a[1]) };
}

function selfTimes(profile: CpuProfile): [string, number][] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const times = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!;
    const file = frame.url.split('/').pop() ?? '';
    const name = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
    times.set(name, (times.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...times].sort((a, b) => b[1] - a[1]);
}

export async function profileBrowser<T>(
  page: Page,
  run: () => Promise<T>,
): Promise<BrowserProfile<T>> {
  const cdp = await page.createCDPSession();
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await page.tracing.start({ categories: CATEGORIES });
  await cdp.send('Profiler.start');
  const result = await run();
  const { profile } = await cdp.send('Profiler.stop');
  const trace = await page.tracing.stop();
  await cdp.detach();
  const events = (
    JSON.parse(Buffer.from(trace ?? []).toString('utf8')) as { traceEvents: TraceEvent[] }
  ).traceEvents;
  return {
    result,
    ...longTaskKinds(events),
    functions: selfTimes(profile as unknown as CpuProfile),
  };
}
