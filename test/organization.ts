import type { Stream } from '../generated/prisma/client';
import { Role, type RoleCode } from '../libs/domain/users/roles';
import { makeChannel, type ChannelOptions } from './channel-factories';
import {
  eventsUntil,
  poll,
  register,
  startTestEvents,
  type EventBody,
  type Registered,
  type TestEvents,
} from './events-factories';
import { makeBot, makeRealm, makeUser, type TestRealm, type TestUser } from './factories';
import { startTestContext, type TestContext } from './harness';
import { client, type Client } from './requests';

export type RoleName = 'owner' | 'administrator' | 'moderator' | 'member' | 'guest';

const ROLES: Record<RoleName, RoleCode> = {
  owner: Role.OWNER,
  administrator: Role.ADMINISTRATOR,
  moderator: Role.MODERATOR,
  member: Role.MEMBER,
  guest: Role.GUEST,
};

export interface MemberSpec {
  /** Default: member. */
  role?: RoleName;
  /** Default: the member's key, capitalized (`alice` -> `Alice`). */
  fullName?: string;
  password?: string;
  /** A generic bot owned by this member (`owner`: the organization's owner) instead of a person. */
  botOf?: string;
}

export interface ChannelSpec<M extends string> extends Omit<
  ChannelOptions,
  'name' | 'subscribers'
> {
  subscribers?: (M | 'owner')[];
}

export interface OrganizationSpec<M extends string, C extends string> {
  /** Configuration overrides for the test context (`startTestContext`). */
  env?: Record<string, string>;
  realm?: Parameters<typeof makeRealm>[1];
  /** The events tier in the test process too (`org.events`). */
  events?: boolean;
  /** False: no default channels, so new members share no channel (#general) by default. */
  defaultChannels?: boolean;
  /** Created in this order, after the owner. */
  members?: Record<M, RoleName | MemberSpec>;
  /** Channel name -> its subscribers, or its options; rows only (no events, no notices). */
  channels?: Record<C, NoInfer<M | 'owner'>[] | ChannelSpec<NoInfer<M>>>;
}

/** A test organization: its own database and Redis prefix, its members and channels. */
export interface Organization<
  M extends string = string,
  C extends string = string,
> extends TestRealm {
  t: TestContext;
  users: Record<M, TestUser>;
  channels: Record<C, Stream>;
  /** IDs of the organization's system groups by name (`role:members`, `role:nobody`, ...). */
  systemGroups: Record<string, number>;
  /** Set when the spec asked for `events`. */
  events: TestEvents;
  /** Calls `/api/v1` on the organization's host as `who` (Basic auth); null: no credentials. */
  as(who: { auth: string } | null): Client;
  /** `POST /register` as `who`; the body. */
  register(who: TestUser, form?: Record<string, string>): Promise<Registered>;
  /** `GET /events` as `who` on the events tier (`events: true`). */
  poll(who: TestUser, query: Record<string, string | number | boolean>): ReturnType<typeof poll>;
  /** Polls `who`'s queue until `until` holds (default: some event arrived) or 5 s passed. */
  eventsUntil(
    who: TestUser,
    queueId: string,
    until?: (events: EventBody[]) => boolean,
    timeoutMs?: number,
  ): Promise<EventBody[]>;
  /** Stops the events tier and drops the database and Redis keys. */
  close(): Promise<void>;
}

const capitalized = (key: string) => key.charAt(0).toUpperCase() + key.slice(1);

/**
 * Starts a test context and creates an organization in it, with `members` (besides its owner)
 * and `channels`, e.g. `organization({ members: { iago: 'administrator', hamlet: 'member' },
 * channels: { Denmark: ['iago', 'hamlet'] } })`. Call it in `beforeAll`; `close` in `afterAll`.
 */
export async function organization<M extends string = never, C extends string = never>(
  spec: OrganizationSpec<M, C> = {},
): Promise<Organization<M, C>> {
  const t = await startTestContext(spec.env);
  const events = spec.events ? await startTestEvents(t) : undefined;
  const org = await makeRealm(t, spec.realm);
  if (spec.defaultChannels === false) {
    await t.db.defaultStream.deleteMany({ where: { realmId: org.realm.id } });
  }
  const users = {} as Record<M, TestUser>;
  const byKey = (key: string): TestUser => {
    const user = key === 'owner' ? org.owner : users[key as M];
    if (!user) throw new Error(`organization: no member '${key}' (yet)`);
    return user;
  };
  for (const [key, value] of Object.entries(spec.members ?? {}) as [M, RoleName | MemberSpec][]) {
    const member = typeof value === 'string' ? { role: value } : value;
    users[key] = member.botOf
      ? await makeBot(t, org.realm, byKey(member.botOf).user)
      : await makeUser(t, org.realm, {
          role: ROLES[member.role ?? 'member'],
          fullName: member.fullName ?? capitalized(key),
          password: member.password,
        });
  }
  const channels = {} as Record<C, Stream>;
  for (const [name, value] of Object.entries(spec.channels ?? {}) as [
    C,
    string[] | ChannelSpec<string>,
  ][]) {
    const { subscribers = [], ...options } = Array.isArray(value) ? { subscribers: value } : value;
    channels[name] = await makeChannel(t, org.realm, {
      ...options,
      name,
      subscribers: subscribers.map((key) => byKey(key).user),
    });
  }
  const groups = await t.db.userGroup.findMany({
    where: { realmId: org.realm.id, isSystemGroup: true },
    select: { id: true, name: true },
  });
  const running = (): TestEvents => {
    if (!events) throw new Error('organization: started without events');
    return events;
  };
  return {
    ...org,
    t,
    users,
    channels,
    systemGroups: Object.fromEntries(groups.map((g) => [g.name ?? '', g.id])),
    get events() {
      return running();
    },
    as: (who) => client(t, org.host, who),
    register: (who, form) => register(t, org.host, who.auth, form),
    poll: (who, query) => poll(running(), org.host, who.auth, query),
    eventsUntil: (who, queueId, until = (got) => got.length > 0, timeoutMs) =>
      eventsUntil(running(), org.host, who.auth, queueId, until, timeoutMs),
    async close() {
      await events?.stop();
      await t.close();
    },
  };
}
