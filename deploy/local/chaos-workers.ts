/**
 * Chaos scenarios of the worker tier (deploy/local/chaos.ts runs them): scheduled messages due at
 * once on two workers, and an outgoing-webhook call in flight, each with a worker killed -9.
 */
import { sleep, type Chaos } from './chaos-load';
import { startWebhookReceiver } from './webhook-receiver';

const WEBHOOK_PORT = 19650;

export interface ScheduledResult {
  scenario: string;
  scheduled: number;
  delivered: number;
  missing: number;
  duplicates: number;
  rowsMarkedDelivered: number;
  lastDeliveryAfterDueS: number;
  notes: string[];
}

/**
 * 1,000 scheduled messages due at the same instant on 2 workers; worker-1 is killed -9 one
 * second after they fall due. Each must be posted exactly once.
 */
export async function scheduledKill(c: Chaos): Promise<ScheduledResult> {
  const tag = `scheduled-kill-${Date.now()}`;
  const total = 1000;
  const notes: string[] = [];
  const due = Math.ceil(Date.now() / 1000) + 45;
  const failures = await c.scheduleMessages(tag, total, () => due);
  if (failures.length) notes.push(`${failures.length} not scheduled: ${failures[0]}`);
  if (Date.now() / 1000 > due) notes.push('scheduling took longer than the lead time');
  await sleep(Math.max(0, due * 1000 - Date.now()) + 1000);
  notes.push(`worker-1 killed: ${await c.cluster.kill('worker-1', 'SIGKILL')}`);
  const count = async () =>
    (
      await c.db.query<{ n: string; distinct: string; last: Date | null }>(
        `SELECT count(*) AS n, count(DISTINCT content) AS distinct, max(date_sent) AS last
         FROM messages WHERE subject = $1`,
        [tag],
      )
    ).rows[0];
  const deadline = Date.now() + 120_000;
  let seen = await count();
  while (Number(seen.distinct) < total - failures.length && Date.now() < deadline) {
    await sleep(1000);
    seen = await count();
  }
  // A duplicate would come from a job run twice; give a retried job time to show it.
  await sleep(5000);
  seen = await count();
  await c.cluster.restart('worker-1');
  const marked = await c.db.query<{ n: string }>(
    `SELECT count(*) AS n FROM scheduled_messages s JOIN messages m ON m.id = s.delivered_message_id
     WHERE s.delivered AND m.subject = $1`,
    [tag],
  );
  return {
    scenario: 'scheduled-kill',
    scheduled: total - failures.length,
    delivered: Number(seen.distinct),
    missing: total - failures.length - Number(seen.distinct),
    duplicates: Number(seen.n) - Number(seen.distinct),
    rowsMarkedDelivered: Number(marked.rows[0].n),
    lastDeliveryAfterDueS: seen.last
      ? Math.round((seen.last.getTime() / 1000 - due) * 10) / 10
      : -1,
    notes,
  };
}

export interface WebhookResult {
  scenario: string;
  messages: number;
  calledOnce: number;
  calledTwice: number;
  calledMore: number;
  notCalled: number;
  notes: string[];
}

/**
 * An outgoing-webhook bot whose server answers after 3 s; 10 direct messages to it, and the
 * worker holding some of the calls is killed -9 in the middle of them. Each call may be repeated
 * at most once, with the same message (Zulip's payload names the message; that is the key a bot
 * can deduplicate on).
 */
export async function webhookKill(c: Chaos): Promise<WebhookResult> {
  const notes: string[] = [];
  const receiver = await startWebhookReceiver(WEBHOOK_PORT, 3000, () => ({
    response_not_required: true,
  }));
  const { calls } = receiver;
  try {
    const made = await c.api(
      '/bots',
      c.users[0],
      c.form({
        full_name: 'Slow bot',
        short_name: `slow${Date.now()}`,
        bot_type: '3',
        payload_url: `http://127.0.0.1:${WEBHOOK_PORT}/`,
        interface: '1',
      }),
    );
    if (made.status !== 200) throw new Error(`POST /bots: ${await made.text()}`);
    const botId = ((await made.json()) as { user_id: number }).user_id;
    const sent: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await c.api(
        '/messages',
        c.users[1],
        c.form({ type: 'direct', to: JSON.stringify([botId]), content: `call ${i}` }),
      );
      sent.push(((await res.json()) as { id: number }).id);
    }
    // In the middle of the calls: both workers hold some, each waiting on the slow bot.
    const deadline = Date.now() + 40_000;
    while (calls.size < sent.length && Date.now() < deadline) await sleep(100);
    await sleep(1000);
    notes.push(
      `${calls.size} calls in flight; worker-1 killed: ${await c.cluster.kill('worker-1', 'SIGKILL')}`,
    );
    // worker-1's jobs come back once their lock expired (30 s) and a stalled check (every 30 s) saw it.
    const settle = Date.now() + 150_000;
    let quietSince = Date.now();
    let total = [...calls.values()].reduce((a, b) => a + b, 0);
    while (Date.now() < settle && Date.now() - quietSince < 75_000) {
      await sleep(1000);
      const now = [...calls.values()].reduce((a, b) => a + b, 0);
      if (now !== total) quietSince = Date.now();
      total = now;
    }
    await c.cluster.restart('worker-1');
    const counts = sent.map((id) => calls.get(id) ?? 0);
    return {
      scenario: 'webhook-kill',
      messages: sent.length,
      calledOnce: counts.filter((n) => n === 1).length,
      calledTwice: counts.filter((n) => n === 2).length,
      calledMore: counts.filter((n) => n > 2).length,
      notCalled: counts.filter((n) => n === 0).length,
      notes,
    };
  } finally {
    await receiver.close();
  }
}
