import { store } from '../store';
import type { ServerEvent } from '../types';

/**
 * The state the views of this folder read, beside the store's: statuses, muted and followed
 * topics, muted people, every channel one may see, and the organization's settings. Read from
 * the store's `register` answer whenever that is a new one, and kept current by the events the
 * store passes on.
 */

/** Zulip's `visibility_policy` of a topic: 0 inherits the channel's, 1 muted, 2 unmuted, 3 followed. */
export const VISIBILITY = { inherit: 0, muted: 1, unmuted: 2, followed: 3 } as const;

export interface UserStatus {
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
  away?: boolean;
}

export interface Channel {
  stream_id: number;
  name: string;
  description: string;
  invite_only: boolean;
  is_web_public?: boolean;
  history_public_to_subscribers?: boolean;
  is_archived?: boolean;
  stream_post_policy?: number;
  can_send_message_group?: number | object;
  [key: string]: unknown;
}

type Settings = Record<string, unknown>;

/** The parts of a subscription's settings the views change (beside the store's copy). */
export const SUBSCRIPTION_PROPERTIES = [
  'color',
  'pin_to_top',
  'is_muted',
  'desktop_notifications',
  'audible_notifications',
  'push_notifications',
  'email_notifications',
  'wildcard_mentions_notify',
] as const;

class ViewState {
  realm: Settings = {};
  statuses = new Map<number, UserStatus>();
  /** `<stream id>:<topic in lower case>` to its visibility policy. */
  userTopics = new Map<string, number>();
  mutedUsers = new Set<number>();
  channels = new Map<number, Channel>();
  /** The reader's role: 100 owner, 200 administrator, 300 moderator, 400 member, 600 guest. */
  role = 400;
  me = 0;
  /** Each person's last active and idle reports (seconds), for Zulip's three presence states. */
  presence = new Map<number, { active: number; idle: number }>();
  private source: Record<string, unknown> | null = null;

  /** Reads the store's `register` answer if it is not the one read last. */
  sync(): void {
    if (store.state === this.source || !store.state.queue_id) return;
    this.source = store.state;
    this.load(store.state);
  }

  private load(state: Record<string, unknown>): void {
    this.me = state.user_id as number;
    this.realm = {};
    for (const [key, value] of Object.entries(state))
      if (key.startsWith('realm_') && key !== 'realm_users' && key !== 'realm_non_active_users')
        this.realm[key.slice('realm_'.length)] = value;
    this.role = state.is_owner ? 100 : state.is_admin ? 200 : state.is_moderator ? 300 : 400;
    if (state.is_guest) this.role = 600;
    this.statuses = new Map(
      Object.entries((state.user_status ?? {}) as Record<string, UserStatus>).map(([id, s]) => [
        Number(id),
        s,
      ]),
    );
    this.userTopics.clear();
    for (const t of (state.user_topics ?? []) as {
      stream_id: number;
      topic_name: string;
      visibility_policy: number;
    }[])
      this.userTopics.set(topicKey(t.stream_id, t.topic_name), t.visibility_policy);
    this.mutedUsers = new Set(((state.muted_users ?? []) as { id: number }[]).map((m) => m.id));
    this.channels = new Map(((state.streams ?? []) as Channel[]).map((s) => [s.stream_id, s]));
    this.presence.clear();
    for (const [id, p] of Object.entries(
      (state.presences ?? {}) as Record<
        string,
        { active_timestamp?: number; idle_timestamp?: number }
      >,
    ))
      this.presence.set(Number(id), {
        active: p.active_timestamp ?? 0,
        idle: p.idle_timestamp ?? 0,
      });
    applyTheme();
  }

  apply(event: ServerEvent): void {
    this.sync();
    switch (event.type) {
      case 'user_settings':
        // The store keeps the settings; the page follows their theme.
        if (event.property === 'color_scheme') applyTheme();
        break;
      case 'user_status': {
        const id = event.user_id as number;
        const old = this.statuses.get(id) ?? {};
        const next: UserStatus = { ...old };
        for (const key of ['status_text', 'emoji_name', 'emoji_code', 'reaction_type', 'away'])
          if (key in event) (next as Record<string, unknown>)[key] = event[key];
        this.statuses.set(id, next);
        break;
      }
      case 'user_topic':
        this.userTopics.set(
          topicKey(event.stream_id as number, event.topic_name as string),
          event.visibility_policy as number,
        );
        break;
      case 'muted_users':
        this.mutedUsers = new Set((event.muted_users as { id: number }[]).map((m) => m.id));
        break;
      case 'stream':
        if (event.op === 'create')
          for (const s of event.streams as Channel[]) this.channels.set(s.stream_id, s);
        else if (event.op === 'delete')
          for (const s of event.streams as Channel[]) this.channels.delete(s.stream_id);
        else if (event.op === 'update') {
          const channel = this.channels.get(event.stream_id as number);
          if (channel) {
            const next = { ...channel, [event.property as string]: event.value };
            // A privacy change names its consequences beside the property.
            for (const key of ['history_public_to_subscribers', 'is_web_public'])
              if (key in event) next[key] = event[key];
            this.channels.set(channel.stream_id, next);
          }
        }
        break;
      case 'subscription':
        // A channel created by someone else and joined reaches us as a subscription only.
        if (event.op === 'add')
          for (const s of event.subscriptions as Channel[])
            if (!this.channels.has(s.stream_id)) this.channels.set(s.stream_id, s);
        break;
      case 'realm':
        if (event.op === 'update') this.realm[event.property as string] = event.value;
        else if (event.op === 'update_dict')
          Object.assign(this.realm, event.data as Record<string, unknown>);
        break;
      case 'presence': {
        const id = event.user_id as number;
        const now = { ...(this.presence.get(id) ?? { active: 0, idle: 0 }) };
        for (const p of Object.values(
          (event.presence ?? {}) as Record<string, { status: string; timestamp: number }>,
        )) {
          if (p.status === 'active') now.active = Math.max(now.active, p.timestamp);
          else now.idle = Math.max(now.idle, p.timestamp);
        }
        this.presence.set(id, now);
        break;
      }
      case 'realm_user': {
        const person = event.person as { user_id: number; role?: number };
        if (event.op === 'update' && person.role !== undefined && person.user_id === this.me)
          this.role = person.role;
        break;
      }
    }
  }

  /** Zulip's presence: active or idle if reported in the last 140 s, else offline. */
  presenceOf(id: number): 'active' | 'idle' | 'offline' {
    const p = this.presence.get(id);
    const now = Date.now() / 1000;
    if (!p) return 'offline';
    if (now - p.active < 140) return 'active';
    if (now - Math.max(p.idle, p.active) < 140) return 'idle';
    return 'offline';
  }

  visibility(streamId: number, topic: string): number {
    return this.userTopics.get(topicKey(streamId, topic)) ?? VISIBILITY.inherit;
  }

  /** Owners and administrators manage the organization (the server decides; this shows the way). */
  isAdmin(): boolean {
    return MANAGERS.has(this.role);
  }
}

/** The roles of owners and administrators. */
const MANAGERS = new Set([100, 200]);

const topicKey = (streamId: number, topic: string) => `${streamId}:${topic.toLowerCase()}`;

/** Zulip's `color_scheme`: 1 follows the system, 2 dark, 3 light. */
const darkQuery =
  typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;

export function applyTheme(): void {
  // The register state, which events change at once (the store's copy follows on its next render).
  const settings = (store.state.user_settings ?? {}) as Record<string, unknown>;
  const scheme = Number(settings.color_scheme ?? 1);
  const dark = scheme === 2 || (scheme === 1 && !!darkQuery?.matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}
darkQuery?.addEventListener('change', applyTheme);

export const viewState = new ViewState();
store.eventListeners.add((event) => viewState.apply(event));
