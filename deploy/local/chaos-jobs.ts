/**
 * Chaos scenario of the jobs (deploy/local/chaos.ts runs it): Redis restarts empty while
 * scheduled messages, outgoing-webhook calls and emails are pending. PostgreSQL decides what is
 * due (docs/reliability.md, "Jobs"): the workers must re-create every pending job.
 */
import { SMTPServer } from 'smtp-server';
import { sleep, type Chaos } from './chaos-load';
import type { PrivateRedis } from './private-stores';
import { startWebhookReceiver } from './webhook-receiver';

export interface JobsResult {
  scenario: string;
  scheduled: { pending: number; posted: number; missing: number; repeated: number };
  webhooks: {
    pending: number;
    called: number;
    notCalled: number;
    calledTwice: number;
    calledMore: number;
    replies: number;
    repliesRepeated: number;
  };
  emails: {
    pending: number;
    sent: number;
    missing: number;
    repeated: number;
    repeatedTwice: number;
  };
  /** Seconds from Redis's return until every job not yet due was in BullMQ again. */
  recreatedWithinS: number | null;
  notes: string[];
}

export interface JobsCounts {
  scheduled: number;
  webhooks: number;
  emails: number;
  /** Lead time of the scheduled messages: due within this many seconds of being scheduled. */
  dueWithinS: number;
}

const DOWN_MS = 5000;

/**
 * Pending at once: `scheduled` messages due within `dueWithinS`, `webhooks` calls to a bot that
 * answers each after 2 s, `emails` invitations to an SMTP server that takes 1 s a mail. Then Redis
 * is stopped, its data deleted, and started again after 5 s. Counts what was posted, called and
 * sent, and how often.
 */
export async function redisRestartEmptyJobs(
  c: Chaos,
  redis: PrivateRedis,
  ports: { webhook: number; smtp: number },
  counts: JobsCounts,
): Promise<JobsResult> {
  const notes: string[] = [];
  const tag = `jobs-${Date.now()}`;
  const receiver = await startWebhookReceiver(ports.webhook, 2000, (id) => ({
    content: `reply to ${id}`,
  }));
  const { calls } = receiver;
  const mails = new Map<string, number>();
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      stream.resume();
      stream.on('end', () => {
        for (const to of session.envelope.rcptTo) {
          mails.set(to.address, (mails.get(to.address) ?? 0) + 1);
        }
        setTimeout(callback, 1000);
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(ports.smtp, '127.0.0.1', () => resolve()));
  try {
    const [owner, sender] = c.users;
    // Invitations need an administrator; the auth cache forgets the old role within seconds.
    await c.db.query('UPDATE users SET role = 100 WHERE id = $1', [owner.id]);

    // Each due `dueWithinS` after it was scheduled: on a slow machine the first ones still fall
    // due after the restart, and all within `dueWithinS` of it.
    const failures = await c.scheduleMessages(
      tag,
      counts.scheduled,
      () => Math.ceil(Date.now() / 1000) + counts.dueWithinS,
    );
    if (failures.length) notes.push(`${failures.length} not scheduled: ${failures[0]}`);
    const scheduledAt = Date.now();

    const made = await c.api(
      '/bots',
      owner,
      c.form({
        full_name: 'Jobs bot',
        short_name: `jobs${Date.now()}`,
        bot_type: '3',
        payload_url: `http://127.0.0.1:${ports.webhook}/`,
        interface: '1',
      }),
    );
    if (made.status !== 200) throw new Error(`POST /bots: ${await made.text()}`);
    const botId = ((await made.json()) as { user_id: number }).user_id;
    const sent: number[] = [];
    for (let i = 0; i < counts.webhooks; i++) {
      const res = await c.api(
        '/messages',
        sender,
        c.form({ type: 'direct', to: JSON.stringify([botId]), content: `${tag} call ${i}` }),
      );
      if (res.status !== 200) throw new Error(`POST /messages: ${await res.text()}`);
      sent.push(((await res.json()) as { id: number }).id);
    }

    const invitees = [...Array(counts.emails).keys()].map((i) => `${tag}-${i}@invitee.example`);
    for (let i = 0; i < invitees.length; i += 50) {
      const res = await c.api(
        '/invites',
        owner,
        c.form({ invitee_emails: invitees.slice(i, i + 50).join(','), stream_ids: '[]' }),
      );
      if (res.status !== 200) throw new Error(`POST /invites: ${await res.text()}`);
    }

    const pendingJobs = await c.db.query<{ name: string; n: string }>(
      `SELECT job_name AS name, count(*) AS n FROM job_outbox WHERE done_at IS NULL GROUP BY 1`,
    );
    notes.push(
      `pending before the restart: ${pendingJobs.rows.map((r) => `${r.name} ${r.n}`).join(', ')}; ` +
        `${calls.size} calls and ${mails.size} mails already made`,
    );
    await redis.stop();
    redis.wipe();
    notes.push(
      `redis stopped and its data deleted ${Math.round((Date.now() - scheduledAt) / 1000)} s after scheduling`,
    );
    await sleep(DOWN_MS);
    await redis.start();
    const back = Date.now();
    notes.push('redis started empty');

    // Back in BullMQ: every job not done has been handed over again since Redis returned.
    let recreatedWithinS: number | null = null;
    while (Date.now() - back < 60_000) {
      const { rows } = await c.db.query<{ n: string }>(
        `SELECT count(*) AS n FROM job_outbox
         WHERE done_at IS NULL AND (published_at IS NULL OR published_at < $1)`,
        [new Date(back)],
      );
      if (Number(rows[0].n) === 0) {
        recreatedWithinS = Math.round((Date.now() - back) / 100) / 10;
        break;
      }
      await sleep(250);
    }

    // Everything due has run: no job left, and nothing new for a while.
    const deadline = scheduledAt + counts.dueWithinS * 1000 + 180_000;
    let quietSince = Date.now();
    let last = '';
    while (Date.now() < deadline && Date.now() - quietSince < 20_000) {
      await sleep(1000);
      const { rows } = await c.db.query<{ n: string }>(
        'SELECT count(*) AS n FROM job_outbox WHERE done_at IS NULL',
      );
      const now = `${rows[0].n} ${[...calls.values()].reduce((a, b) => a + b, 0)} ${mails.size}`;
      if (now !== last || Number(rows[0].n) > 0) quietSince = Date.now();
      last = now;
    }

    const posted = (
      await c.db.query<{ n: string; distinct: string }>(
        `SELECT count(*) AS n, count(DISTINCT content) AS distinct FROM messages WHERE subject = $1`,
        [tag],
      )
    ).rows[0];
    const replies = (
      await c.db.query<{ n: string; distinct: string }>(
        `SELECT count(*) AS n, count(DISTINCT content) AS distinct FROM messages
         WHERE sender_id = $1 AND content LIKE 'reply to %'`,
        [botId],
      )
    ).rows[0];
    const callCounts = sent.map((id) => calls.get(id) ?? 0);
    const mailCounts = invitees.map((to) => mails.get(to) ?? 0);
    const scheduled = counts.scheduled - failures.length;
    return {
      scenario: 'redis-restart-empty-jobs',
      scheduled: {
        pending: scheduled,
        posted: Number(posted.distinct),
        missing: scheduled - Number(posted.distinct),
        repeated: Number(posted.n) - Number(posted.distinct),
      },
      webhooks: {
        pending: sent.length,
        called: callCounts.filter((n) => n > 0).length,
        notCalled: callCounts.filter((n) => n === 0).length,
        calledTwice: callCounts.filter((n) => n === 2).length,
        calledMore: callCounts.filter((n) => n > 2).length,
        replies: Number(replies.distinct),
        repliesRepeated: Number(replies.n) - Number(replies.distinct),
      },
      emails: {
        pending: invitees.length,
        sent: mailCounts.filter((n) => n > 0).length,
        missing: mailCounts.filter((n) => n === 0).length,
        repeated: mailCounts.filter((n) => n === 2).length,
        repeatedTwice: mailCounts.filter((n) => n > 2).length,
      },
      recreatedWithinS,
      notes,
    };
  } finally {
    await receiver.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  }
}
