import type { AppContext } from '../libs/core/context';
import { eventsForQueue, type DomainEvent } from '../libs/protocol/event-catalogue';
import {
  DEFAULT_CAPABILITIES,
  type ClientCapabilities,
  type QueueSettings,
} from '../libs/protocol/queue';
import { expectOpenApiEvents } from './openapi';

/** A queue of a current client, and one of a client that declared nothing and wants Markdown. */
const CLIENTS: Pick<QueueSettings, 'applyMarkdown' | 'clientGravatar' | 'capabilities'>[] = [
  {
    applyMarkdown: true,
    clientGravatar: false,
    capabilities: Object.fromEntries(
      Object.keys(DEFAULT_CAPABILITIES).map((name) => [name, true]),
    ) as unknown as ClientCapabilities,
  },
  { applyMarkdown: false, clientGravatar: true, capabilities: { ...DEFAULT_CAPABILITIES } },
];

const PAGE = 1000;

/**
 * Checks every event the test's domain actions wrote to the outbox against the reference's event
 * schemas, as its first recipient's queues would receive it: one of a current client, one of a
 * legacy client (legacy forms included). Run when a test context closes, so every event a test
 * produces is checked, whether or not the test reads it through `GET /events`.
 */
export async function expectOutboxEventsDocumented(t: Pick<AppContext, 'db'>): Promise<void> {
  for (let after = 0n; ;) {
    const rows = await t.db.outboxEvent.findMany({
      where: { id: { gt: after } },
      orderBy: { id: 'asc' },
      take: PAGE,
      select: { id: true, realmId: true, eventJson: true, usersJson: true },
    });
    if (!rows.length) return;
    const owners = [...new Set(rows.map((row) => (row.usersJson as number[])[0] ?? 0))];
    const users = await t.db.user.findMany({
      where: { id: { in: owners } },
      select: { id: true, email: true },
    });
    const emails = new Map(users.map((user) => [user.id, user.email]));
    const context = { emailOf: (id: number) => emails.get(id) };
    for (const row of rows) {
      const recipients = row.usersJson as number[];
      for (const client of CLIENTS) {
        const queue: QueueSettings = {
          id: 'checked',
          userId: recipients[0] ?? 0,
          realmId: row.realmId,
          eventTypes: null,
          narrow: [],
          allPublicStreams: false,
          slimPresence: false,
          client: 'test',
          ...client,
        };
        const isRecipient = recipients.length > 0;
        const event = row.eventJson as unknown as DomainEvent;
        expectOpenApiEvents(eventsForQueue(queue, event, { ...context, isRecipient }));
      }
    }
    after = rows[rows.length - 1].id;
  }
}
