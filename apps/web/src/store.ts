import type { Message, Narrow, Reaction, ServerEvent, Subscription, User } from './types';
import { dmKey, inNarrow, messageDmKey } from './narrow';

/** Where an unread message is, for counting it per channel, topic and conversation. */
type UnreadPlace = { streamId: number; topic: string } | { dm: string };

export interface UnreadCounts {
  streams: Map<number, number>;
  topics: Map<string, number>;
  dms: Map<string, number>;
}

/** A channel's topic as unread counts name it: topics match whatever their case. */
export const topicKey = (streamId: number, topic: string) => `${streamId}:${topic.toLowerCase()}`;

export interface Typist {
  userId: number;
  place: string;
  until: number;
}

/**
 * The client's copy of the server's state, built from `POST /register` and kept current by the
 * events that follow. Views read it and re-render on `changed`.
 */
export class Store {
  me = 0;
  realmName = '';
  realmIcon = '';
  users = new Map<number, User>();
  subscriptions = new Map<number, Subscription>();
  topics = new Map<number, string[]>();
  unread = new Map<number, UnreadPlace>();
  recentDms = new Map<string, number>();
  presence = new Map<number, number>();
  typing: Typist[] = [];
  emoji = new Map<string, string>();
  /** The messages of the narrow in view, oldest first. */
  messages: Message[] = [];
  foundOldest = false;
  narrow: Narrow | null = null;
  connection: 'connected' | 'reconnecting' = 'connected';
  private listeners = new Set<() => void>();

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(): void {
    for (const listener of this.listeners) listener();
  }

  load(state: Record<string, unknown>): void {
    this.me = state.user_id as number;
    this.realmName = state.realm_name as string;
    this.realmIcon = (state.realm_icon_url as string) ?? '';
    this.users = new Map((state.realm_users as User[]).map((u) => [u.user_id, u]));
    this.subscriptions = new Map(
      (state.subscriptions as Subscription[]).map((s) => [s.stream_id, s]),
    );
    this.unread.clear();
    const unread = state.unread_msgs as {
      streams: { stream_id: number; topic: string; unread_message_ids: number[] }[];
      pms: { other_user_id: number; unread_message_ids: number[] }[];
      huddles: { user_ids_string: string; unread_message_ids: number[] }[];
    };
    for (const s of unread.streams)
      for (const id of s.unread_message_ids)
        this.unread.set(id, { streamId: s.stream_id, topic: s.topic });
    for (const p of unread.pms)
      for (const id of p.unread_message_ids)
        this.unread.set(id, { dm: dmKey([p.other_user_id], this.me) });
    for (const h of unread.huddles)
      for (const id of h.unread_message_ids)
        this.unread.set(id, { dm: dmKey(h.user_ids_string.split(',').map(Number), this.me) });
    this.recentDms.clear();
    for (const c of (state.recent_private_conversations ?? []) as {
      user_ids: number[];
      max_message_id: number;
    }[])
      this.recentDms.set(dmKey(c.user_ids, this.me), c.max_message_id);
    this.presence.clear();
    for (const [id, p] of Object.entries(
      (state.presences ?? {}) as Record<string, { active_timestamp?: number }>,
    ))
      this.presence.set(Number(id), p.active_timestamp ?? 0);
  }

  /**
   * Unread messages counted per channel, per channel's topic (`<stream id>:<topic in lower
   * case>`) and per conversation, in one pass: the sidebar asks for every count at each render.
   */
  unreadCounts(): UnreadCounts {
    const counts: UnreadCounts = { streams: new Map(), topics: new Map(), dms: new Map() };
    const bump = (map: Map<string | number, number>, key: string | number) =>
      map.set(key, (map.get(key) ?? 0) + 1);
    for (const place of this.unread.values()) {
      if ('dm' in place) bump(counts.dms, place.dm);
      else {
        bump(counts.streams, place.streamId);
        bump(counts.topics, topicKey(place.streamId, place.topic));
      }
    }
    return counts;
  }

  userName(id: number): string {
    return this.users.get(id)?.full_name ?? `User ${id}`;
  }

  isActive(id: number): boolean {
    return Date.now() / 1000 - (this.presence.get(id) ?? 0) < 140;
  }

  /** Where typing in `narrow` is shown: a channel's topic or a conversation. */
  typingPlace(narrow: Narrow): string {
    return narrow.kind === 'stream'
      ? `s${narrow.streamId}:${(narrow.topic ?? '').toLowerCase()}`
      : `d${dmKey(narrow.userIds, this.me)}`;
  }

  private addTopic(streamId: number, topic: string): void {
    const list = this.topics.get(streamId);
    if (!list) return;
    const rest = list.filter((t) => t.toLowerCase() !== topic.toLowerCase());
    this.topics.set(streamId, [topic, ...rest]);
  }

  private findMessage(id: number): Message | undefined {
    return this.messages.find((m) => m.id === id);
  }

  apply(event: ServerEvent): void {
    switch (event.type) {
      case 'message': {
        const message = event.message as Message;
        message.flags = event.flags as string[];
        if (message.type === 'stream') this.addTopic(message.stream_id!, message.subject);
        else this.recentDms.set(messageDmKey(message, this.me), message.id);
        if (!message.flags.includes('read')) {
          this.unread.set(
            message.id,
            message.type === 'stream'
              ? { streamId: message.stream_id!, topic: message.subject }
              : { dm: messageDmKey(message, this.me) },
          );
        }
        this.typing = this.typing.filter((t) => t.userId !== message.sender_id);
        if (
          this.narrow &&
          inNarrow(message, this.narrow, this.me) &&
          !this.findMessage(message.id)
        ) {
          this.messages = [...this.messages, message];
        }
        break;
      }
      case 'update_message': {
        const ids = (event.message_ids as number[]) ?? [event.message_id as number];
        const topic = event.subject as string | undefined;
        this.messages = this.messages.map((m) => {
          if (m.id === event.message_id && event.rendered_content !== undefined)
            m = {
              ...m,
              content: event.rendered_content as string,
              last_edit_timestamp: event.edit_timestamp as number,
            };
          if (topic !== undefined && ids.includes(m.id)) m = { ...m, subject: topic };
          return m;
        });
        if (topic !== undefined && event.stream_id !== undefined)
          this.addTopic(event.stream_id as number, topic);
        if (this.narrow)
          this.messages = this.messages.filter((m) => inNarrow(m, this.narrow!, this.me));
        break;
      }
      case 'delete_message': {
        const ids = new Set((event.message_ids as number[]) ?? [event.message_id as number]);
        this.messages = this.messages.filter((m) => !ids.has(m.id));
        for (const id of ids) this.unread.delete(id);
        break;
      }
      case 'reaction': {
        const reaction = event as unknown as Reaction & { message_id: number };
        this.messages = this.messages.map((m) => {
          if (m.id !== reaction.message_id) return m;
          const others = m.reactions.filter(
            (r) => !(r.user_id === reaction.user_id && r.emoji_code === reaction.emoji_code),
          );
          const { emoji_name, emoji_code, reaction_type, user_id } = reaction;
          return {
            ...m,
            reactions:
              event.op === 'add'
                ? [...others, { emoji_name, emoji_code, reaction_type, user_id }]
                : others,
          };
        });
        break;
      }
      case 'update_message_flags': {
        if (event.flag !== 'read') break;
        const ids = event.messages as number[];
        if (event.op === 'add') {
          if (event.all) this.unread.clear();
          for (const id of ids) this.unread.delete(id);
        } else {
          const details = (event.message_details ?? {}) as Record<
            string,
            { type: string; stream_id?: number; topic?: string; user_ids?: number[] }
          >;
          for (const [id, d] of Object.entries(details))
            this.unread.set(
              Number(id),
              d.type === 'stream'
                ? { streamId: d.stream_id!, topic: d.topic ?? '' }
                : { dm: dmKey(d.user_ids ?? [], this.me) },
            );
        }
        break;
      }
      case 'subscription': {
        if (event.op === 'add')
          for (const s of event.subscriptions as Subscription[])
            this.subscriptions.set(s.stream_id, s);
        else if (event.op === 'remove')
          for (const s of event.subscriptions as { stream_id: number }[])
            this.subscriptions.delete(s.stream_id);
        else if (event.op === 'update') {
          const sub = this.subscriptions.get(event.stream_id as number);
          if (sub)
            this.subscriptions.set(sub.stream_id, {
              ...sub,
              [event.property as string]: event.value,
            });
        }
        break;
      }
      case 'stream': {
        if (event.op === 'update') {
          const sub = this.subscriptions.get(event.stream_id as number);
          if (sub)
            this.subscriptions.set(sub.stream_id, {
              ...sub,
              [event.property as string]: event.value,
            });
        }
        break;
      }
      case 'typing': {
        const sender = (event.sender as { user_id: number }).user_id;
        if (sender === this.me) break;
        const place =
          event.message_type === 'stream'
            ? `s${event.stream_id}:${String(event.topic).toLowerCase()}`
            : `d${dmKey(
                (event.recipients as { user_id: number }[]).map((r) => r.user_id),
                this.me,
              )}`;
        this.typing = this.typing.filter((t) => !(t.userId === sender && t.place === place));
        if (event.op === 'start')
          this.typing.push({ userId: sender, place, until: Date.now() + 15_000 });
        break;
      }
      case 'presence': {
        const presence = event.presence as Record<string, { timestamp: number; status: string }>;
        const latest = Math.max(
          ...Object.values(presence ?? {})
            .filter((p) => p.status === 'active')
            .map((p) => p.timestamp),
          0,
        );
        if (latest) this.presence.set(event.user_id as number, latest);
        break;
      }
      case 'realm_user': {
        const person = event.person as User;
        if (event.op === 'add') this.users.set(person.user_id, person);
        else if (event.op === 'update') {
          const user = this.users.get(person.user_id);
          if (user) this.users.set(user.user_id, { ...user, ...person });
        }
        break;
      }
      case 'realm': {
        if (event.op === 'update' && event.property === 'name')
          this.realmName = String(event.value);
        break;
      }
    }
  }
}

export const store = new Store();
