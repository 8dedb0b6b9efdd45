import {
  StateReducerError,
  applyEvent,
  reducerOptions,
  type ReducerOptions,
  type ReducibleEvent,
  type RegisterState,
} from '../../../libs/protocol/state-reducer';
import { at } from '../../../libs/core/at';
import { call } from './api';
import type { Message, Narrow, Reaction, ServerEvent, Subscription, User } from './types';
import { apiNarrow, dmKey, inNarrow, narrowKey } from './narrow';

/** Where an unread message is, for counting it per channel, topic and conversation. */
export type UnreadPlace = { streamId: number; topic: string } | { dm: string };

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

/** A custom emoji of the organization (`realm_emoji`). */
export interface CustomEmoji {
  id: string;
  name: string;
  source_url: string;
  deactivated: boolean;
}

export interface Draft {
  id?: number;
  type: 'stream' | 'private' | '';
  to: number[];
  topic: string;
  content: string;
  timestamp: number;
}

/**
 * The messages of one narrow the client holds: a contiguous run of its messages, oldest first.
 * Views are cached (switching back to a narrow shows it at once) and kept current by events.
 */
export interface MessageView {
  narrow: Narrow;
  key: string;
  messages: Message[];
  foundOldest: boolean;
  /** Whether the run reaches the narrow's newest message: then new messages join it live. */
  foundNewest: boolean;
  /** Whether its first page has come. */
  loaded: boolean;
  /** The message to open at (the first unread), if not the newest. */
  anchor: number | null;
  lastUsed: number;
  /** The message keyboard commands act on (Zulip's pointer). */
  selected: number | null;
  /** Where the reader was, restored when they come back to the view. */
  scroll: { offset: number; atBottom: boolean; cache?: unknown } | null;
  pending: Promise<void> | null;
}

export interface MessagePage {
  messages: Message[];
  found_oldest: boolean;
  found_newest: boolean;
  anchor?: number;
}

/** Events that change messages already known: replayed onto copies fetched while they came. */
type Part =
  | 'realm'
  | 'users'
  | 'subscriptions'
  | 'unread'
  | 'recent'
  | 'starred'
  | 'presence'
  | 'emoji'
  | 'settings'
  | 'drafts';

/** The indexes each event type can change. */
const PARTS: Record<string, Part[]> = {
  realm: ['realm'],
  realm_user: ['users'],
  subscription: ['subscriptions'],
  stream: ['subscriptions'],
  message: ['unread', 'recent', 'starred'],
  update_message: ['unread'],
  delete_message: ['unread', 'starred', 'recent'],
  update_message_flags: ['unread', 'starred'],
  presence: ['presence'],
  realm_emoji: ['emoji'],
  user_settings: ['settings'],
  update_display_settings: ['settings'],
  update_global_notifications: ['settings'],
  drafts: ['drafts'],
};

const MESSAGE_EVENTS = new Set([
  'update_message',
  'delete_message',
  'reaction',
  'update_message_flags',
]);
const REPLAY_LOG = 1000;
const CACHED_VIEWS = 30;
export const PAGE = 100;
const NEWEST_ID = 10_000_000_000_000_000;

const byId = (a: Message, b: Message) => a.id - b.id;

/** The index of the message with `id` in a list sorted by ID, or -1. */
function indexOf(list: Message[], id: number): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const midId = at(list, mid).id;
    if (midId === id) return mid;
    if (midId < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** One message as an event says it is now; the same object when the event does not touch it. */
export function applyToMessage(m: Message, event: ServerEvent): Message | null {
  switch (event.type) {
    case 'update_message': {
      const ids = (event.message_ids as number[] | undefined) ?? [event.message_id as number];
      if (!ids.includes(m.id)) return m;
      let next = m;
      // A rendering-only update (a link preview fetched) is no edit: no "edited" mark.
      if (m.id === event.message_id && event.rendered_content !== undefined)
        next = {
          ...next,
          content: event.rendered_content as string,
          ...(event.rendering_only ? {} : { last_edit_timestamp: event.edit_timestamp as number }),
        };
      const topic = (event.subject ?? event.topic) as string | undefined;
      if (topic !== undefined) next = { ...next, subject: topic };
      if (event.new_stream_id !== undefined)
        next = { ...next, stream_id: event.new_stream_id as number, display_recipient: '' };
      if (topic !== undefined || event.new_stream_id !== undefined)
        next = { ...next, last_moved_timestamp: event.edit_timestamp as number };
      return next;
    }
    case 'delete_message': {
      const ids = (event.message_ids as number[] | undefined) ?? [event.message_id as number];
      return ids.includes(m.id) ? null : m;
    }
    case 'reaction': {
      if (event.message_id !== m.id) return m;
      const r = event as unknown as Reaction;
      const others = m.reactions.filter(
        (x) => !(x.user_id === r.user_id && x.emoji_code === r.emoji_code),
      );
      const { emoji_name, emoji_code, reaction_type, user_id } = r;
      return {
        ...m,
        reactions:
          event.op === 'add'
            ? [...others, { emoji_name, emoji_code, reaction_type, user_id }]
            : others,
      };
    }
    case 'update_message_flags': {
      const flag = event.flag as string;
      const touched = event.all === true || (event.messages as number[]).includes(m.id);
      if (!touched) return m;
      const flags = (m.flags ?? []).filter((f) => f !== flag);
      if (event.op === 'add') flags.push(flag);
      return { ...m, flags };
    }
  }
  return m;
}

/**
 * The client's copy of the server's state, built from `POST /register` and kept current by the
 * events that follow. Views read it and re-render on `changed`.
 *
 * Messages: one copy of each (`known`), shared by the cached narrows' views. A page fetched from
 * the server never overwrites what events said: a message already known since the current
 * registration keeps its copy, and a newly fetched one gets every message event that came while
 * its request was out (they are idempotent) before it is shown. So a message that arrives while
 * a narrow's history loads stays, with its flags, edits and reactions.
 */
export class Store {
  me = 0;
  realmName = '';
  realmIcon = '';
  /**
   * The whole `register` answer, kept current by the one event reducer (libs/protocol's
   * applyEvent, which the server's tests prove against a fresh registration). The maps below are
   * indexes of it, made again for the parts each batch of events changed.
   */
  state: RegisterState & Record<string, unknown> = {};
  private options: ReducerOptions | null = null;
  private dirty = new Set<Part>();
  /** Marked read here, while the server's event is on its way. */
  private locallyRead = new Set<number>();
  users = new Map<number, User>();
  subscriptions = new Map<number, Subscription>();
  topics = new Map<number, string[]>();
  unread = new Map<number, UnreadPlace>();
  recentDms = new Map<string, number>();
  presence = new Map<number, number>();
  typing: Typist[] = [];
  /** Unicode emoji: name to code. */
  emoji = new Map<string, string>();
  customEmoji = new Map<string, CustomEmoji>();
  userSettings: Record<string, unknown> = {};
  drafts = new Map<number, Draft>();
  starred = new Set<number>();
  /** Messages that mention the reader (unread ones, from registering on). */
  mentions = new Set<number>();
  connection: 'connected' | 'reconnecting' = 'connected';

  known = new Map<number, Message>();
  /** Messages whose copy is current since this registration: fetched copies never replace them. */
  private live = new Set<number>();
  private eventSeq = 0;
  private log: { seq: number; event: ServerEvent }[] = [];
  views = new Map<string, MessageView>();
  view: MessageView | null = null;
  /** Listeners told of each event once applied (notifications, other views). */
  eventListeners = new Set<(event: ServerEvent) => void>();
  private listeners = new Set<() => void>();
  /** Opens a narrow (set by the page). */
  go: (narrow: Narrow) => void = () => undefined;
  /** What the compose box is asked to do next (reply, quote, a new topic): it follows `seq`. */
  composeRequest: { seq: number; target: Narrow | null; text: string } = {
    seq: 0,
    target: null,
    text: '',
  };

  requestCompose(target: Narrow | null, text = ''): void {
    this.composeRequest = { seq: this.composeRequest.seq + 1, target, text };
    this.changed();
  }

  get narrow(): Narrow | null {
    return this.view?.narrow ?? null;
  }

  /** The messages of the narrow in view, oldest first. */
  get messages(): Message[] {
    return this.view?.messages ?? [];
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(): void {
    if (this.dirty.size) {
      this.derive(this.dirty);
      this.dirty = new Set();
    }
    for (const listener of this.listeners) listener();
  }

  load(state: Record<string, unknown>): void {
    this.state = state as RegisterState & Record<string, unknown>;
    this.me = state.user_id as number;
    this.options = reducerOptions(this.state, { slim_presence: true, include_subscribers: false });
    this.locallyRead.clear();
    this.derive(new Set(Object.values(PARTS).flat()));
    // Copies held from before are kept for showing, but the next fetch of them wins: events
    // between the old queue's end and this registration were never seen.
    this.live.clear();
    this.log = [];
    for (const view of this.views.values()) if (view !== this.view) this.views.delete(view.key);
  }

  /** The store's indexes of the register state, made again for the parts events changed. */
  private derive(parts: Set<Part>): void {
    const state = this.state;
    const loose = state as Record<string, unknown>;
    if (parts.has('realm')) {
      this.realmName = String(loose.realm_name ?? '');
      this.realmIcon = String(loose.realm_icon_url ?? '');
    }
    if (parts.has('users'))
      this.users = new Map(
        ((state.realm_users ?? []) as unknown as User[]).map((u) => [u.user_id, u]),
      );
    if (parts.has('subscriptions'))
      this.subscriptions = new Map(
        ((state.subscriptions ?? []) as unknown as Subscription[]).map((s) => [s.stream_id, s]),
      );
    if (parts.has('unread')) {
      this.unread.clear();
      const unread = state.unread_msgs;
      const seen = new Set<number>();
      const put = (id: number, place: UnreadPlace) => {
        seen.add(id);
        if (!this.locallyRead.has(id)) this.unread.set(id, place);
      };
      for (const s of unread?.streams ?? [])
        for (const id of s.unread_message_ids) put(id, { streamId: s.stream_id, topic: s.topic });
      for (const p of unread?.pms ?? [])
        for (const id of p.unread_message_ids) put(id, { dm: dmKey([p.other_user_id], this.me) });
      for (const h of unread?.huddles ?? [])
        for (const id of h.unread_message_ids)
          put(id, { dm: dmKey(h.user_ids_string.split(',').map(Number), this.me) });
      // Marked read here and since read on the server too: nothing left to hide.
      for (const id of this.locallyRead) if (!seen.has(id)) this.locallyRead.delete(id);
      this.mentions = new Set(unread?.mentions ?? []);
    }
    if (parts.has('recent')) {
      this.recentDms.clear();
      for (const c of state.recent_private_conversations ?? [])
        this.recentDms.set(dmKey(c.user_ids, this.me), c.max_message_id);
    }
    if (parts.has('starred')) this.starred = new Set(state.starred_messages ?? []);
    if (parts.has('presence')) {
      this.presence.clear();
      for (const [id, p] of Object.entries(state.presences ?? {}))
        this.presence.set(Number(id), (p as { active_timestamp?: number }).active_timestamp ?? 0);
    }
    if (parts.has('emoji'))
      this.customEmoji = new Map(
        Object.values((state.realm_emoji ?? {}) as Record<string, CustomEmoji>).map((e) => [
          e.name,
          e,
        ]),
      );
    if (parts.has('settings')) this.userSettings = { ...(state.user_settings ?? {}) };
    if (parts.has('drafts'))
      this.drafts = new Map(((state.drafts ?? []) as Draft[]).map((d) => [d.id!, d]));
  }

  /** Marks messages read here at once, before the server's event says so. */
  readLocally(ids: number[]): void {
    for (const id of ids) {
      this.locallyRead.add(id);
      this.unread.delete(id);
    }
  }

  /** A local mark that the server refused: the messages count as the state says again. */
  unreadLocally(ids: number[]): void {
    for (const id of ids) this.locallyRead.delete(id);
    this.derive(new Set(['unread']));
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
    if (narrow.kind === 'stream')
      return `s${narrow.streamId}:${(narrow.topic ?? '').toLowerCase()}`;
    if (narrow.kind === 'dm') return `d${dmKey(narrow.userIds, this.me)}`;
    return '';
  }

  private addTopic(streamId: number, topic: string): void {
    const list = this.topics.get(streamId);
    if (!list) return;
    const rest = list.filter((t) => t.toLowerCase() !== topic.toLowerCase());
    this.topics.set(streamId, [topic, ...rest]);
  }

  // ---- Message views ----

  /** Shows a narrow: its cached view at once, or a new one loading from the first unread. */
  open(narrow: Narrow): MessageView {
    const key = narrowKey(narrow, this.me);
    let view = this.views.get(key);
    if (!view) {
      view = {
        narrow,
        key,
        messages: [],
        foundOldest: false,
        foundNewest: false,
        loaded: false,
        anchor: null,
        lastUsed: 0,
        selected: null,
        scroll: null,
        pending: null,
      };
      this.views.set(key, view);
      this.evict();
    }
    view.lastUsed = Date.now();
    this.view = view;
    this.changed();
    return view;
  }

  private evict(): void {
    if (this.views.size <= CACHED_VIEWS) return;
    const oldest = [...this.views.values()]
      .filter((v) => v !== this.view)
      .sort((a, b) => a.lastUsed - b.lastUsed)[0];
    if (oldest) this.views.delete(oldest.key);
  }

  /** Fetches a page of a narrow's messages, noting which events it may have missed. */
  async fetchPage(
    narrow: Narrow,
    anchor: number | 'newest' | 'first_unread',
    numBefore: number,
    numAfter: number,
    includeAnchor = typeof anchor !== 'number',
  ): Promise<MessagePage & { since: number }> {
    const since = this.eventSeq;
    const page = await call<MessagePage>('GET', '/messages', {
      anchor,
      num_before: numBefore,
      num_after: numAfter,
      include_anchor: includeAnchor,
      narrow: apiNarrow(narrow, this.me),
      apply_markdown: true,
      client_gravatar: false,
    });
    return { ...page, since };
  }

  /**
   * The known copy of each fetched message: the one events kept current where there is one, else
   * the fetched copy with the events that came while it was being fetched.
   */
  private merge(fetched: Message[], since: number): Message[] {
    const out: Message[] = [];
    for (let m of fetched) {
      const kept = this.known.get(m.id);
      if (kept && this.live.has(m.id)) {
        out.push(kept);
        continue;
      }
      let gone = false;
      for (const { seq, event } of this.log) {
        if (seq <= since) continue;
        const next = applyToMessage(m, event);
        if (!next) {
          gone = true;
          break;
        }
        m = next;
      }
      if (gone) continue;
      this.known.set(m.id, m);
      this.live.add(m.id);
      if (kept) this.replaceEverywhere(m);
      out.push(m);
    }
    return out;
  }

  /** Adds a page to a view: a union by message ID, never dropping what the view holds. */
  addPage(
    view: MessageView,
    page: MessagePage & { since: number },
    where: 'first' | 'older' | 'newer',
  ) {
    const fresh = this.merge(page.messages, page.since);
    const ids = new Set(fresh.map((m) => m.id));
    let keep = view.messages.filter((m) => !ids.has(m.id));
    const last = fresh.at(-1);
    if (where === 'first' && !page.found_newest && last) {
      // Messages that came live while the first page loaded, past its end: the run must stay
      // contiguous, so they wait for the page after it (their copies stay known).
      keep = keep.filter((m) => m.id < last.id);
    }
    view.messages = [...keep, ...fresh].sort(byId);
    if (where === 'first') {
      view.loaded = true;
      view.foundOldest = page.found_oldest;
      view.foundNewest = page.found_newest;
      // The first unread message, where there is one: the view opens there.
      view.anchor = page.anchor !== undefined && page.anchor < NEWEST_ID ? page.anchor : null;
    } else if (where === 'older') view.foundOldest = page.found_oldest;
    else view.foundNewest = page.found_newest;
    this.changed();
  }

  /**
   * Loads a view's first page: around `near` (a permalink), else from the first unread message,
   * as Zulip opens a narrow. One load at a time per view.
   */
  loadFirst(view: MessageView, near?: number): Promise<void> {
    if (view.pending) return view.pending;
    const anchor = near ?? (view.narrow.kind === 'search' ? 'newest' : 'first_unread');
    view.pending = this.fetchPage(view.narrow, anchor, PAGE, anchor === 'newest' ? 0 : PAGE, true)
      .then((page) => {
        this.addPage(view, page, 'first');
        if (near !== undefined) view.anchor = near;
      })
      .finally(() => {
        view.pending = null;
      });
    return view.pending;
  }

  /** What a view fetched before the queue existed lacks: everything after its last message. */
  async catchUp(view: MessageView): Promise<void> {
    if (!view.foundNewest) return;
    view.foundNewest = false;
    for (let i = 0; i < 20 && !view.foundNewest; i++) await this.loadNewer(view);
  }

  async loadOlder(view: MessageView): Promise<void> {
    const first = view.messages[0];
    if (!first || view.foundOldest) return;
    this.addPage(view, await this.fetchPage(view.narrow, first.id, PAGE, 0), 'older');
  }

  async loadNewer(view: MessageView): Promise<void> {
    const last = view.messages[view.messages.length - 1];
    if (!last) return this.loadFirst(view);
    if (view.foundNewest) return;
    this.addPage(view, await this.fetchPage(view.narrow, last.id, 0, PAGE), 'newer');
  }

  /**
   * After registering again: the view in sight is fetched around what it shows and reconciled
   * (fetched copies win over those from before, events from now on win over fetched copies).
   */
  async reconcile(): Promise<void> {
    const view = this.view;
    if (!view) return;
    const [first] = view.messages;
    if (!first) return this.loadFirst(view);
    // What the view holds, again, and what came after it.
    const page = await this.fetchPage(
      view.narrow,
      first.id,
      0,
      Math.min(view.messages.length, 5000) + PAGE,
    );
    const fetched = new Set(page.messages.map((m) => m.id));
    const end = page.found_newest ? Infinity : (page.messages.at(-1)?.id ?? first.id);
    // Deleted while there was no queue: within the fetched range but not in it.
    view.messages = view.messages.filter((m) => m.id < first.id || m.id > end || fetched.has(m.id));
    view.foundNewest = false;
    this.addPage(view, page, 'newer');
    for (let i = 0; i < 20 && !view.foundNewest && this.view === view; i++)
      await this.loadNewer(view);
  }

  private replaceEverywhere(m: Message): void {
    for (const view of this.views.values()) {
      const i = indexOf(view.messages, m.id);
      if (i < 0) continue;
      const next = view.messages.slice();
      if (inNarrow(m, view.narrow, this.me) || view.narrow.kind === 'search') next[i] = m;
      else next.splice(i, 1);
      view.messages = next;
    }
  }

  private removeEverywhere(ids: Set<number>): void {
    for (const view of this.views.values())
      if (view.messages.some((m) => ids.has(m.id)))
        view.messages = view.messages.filter((m) => !ids.has(m.id));
  }

  private applyToKnown(event: ServerEvent): void {
    const ids =
      event.type === 'reaction'
        ? [event.message_id as number]
        : event.type === 'update_message_flags' && event.all
          ? [...this.known.keys()]
          : (((event.message_ids ?? event.messages) as number[] | undefined) ?? [
              event.message_id as number,
            ]);
    const removed = new Set<number>();
    for (const id of ids) {
      const m = this.known.get(id);
      if (!m) continue;
      const next = applyToMessage(m, event);
      if (next === m) continue;
      if (!next) {
        this.known.delete(id);
        removed.add(id);
      } else {
        this.known.set(id, next);
        this.replaceEverywhere(next);
      }
    }
    if (removed.size) this.removeEverywhere(removed);
  }

  private addMessage(message: Message): void {
    this.known.set(message.id, message);
    this.live.add(message.id);
    for (const view of this.views.values()) {
      // A view that stops short of the newest gets it when it loads the page after.
      if (view.loaded && !view.foundNewest) continue;
      if (!inNarrow(message, view.narrow, this.me) || indexOf(view.messages, message.id) >= 0)
        continue;
      const last = view.messages[view.messages.length - 1];
      view.messages =
        !last || last.id < message.id
          ? [...view.messages, message]
          : [...view.messages, message].sort(byId);
    }
  }

  apply(event: ServerEvent): void {
    this.eventSeq++;
    try {
      applyEvent(this.state, event as unknown as ReducibleEvent, this.options!);
    } catch (err) {
      // An event the reducer has no case for (a newer server's) leaves the state as it was.
      if (!(err instanceof StateReducerError)) throw err;
    }
    for (const part of PARTS[event.type] ?? []) this.dirty.add(part);
    if (MESSAGE_EVENTS.has(event.type)) {
      this.log.push({ seq: this.eventSeq, event });
      if (this.log.length > REPLAY_LOG) this.log.splice(0, this.log.length - REPLAY_LOG);
      this.applyToKnown(event);
    }
    // What the register state does not hold: the message lists, topics shown, who is typing.
    switch (event.type) {
      case 'message': {
        const message = { ...(event.message as Message), flags: event.flags as string[] };
        if (message.type === 'stream') this.addTopic(message.stream_id!, message.subject);
        this.typing = this.typing.filter((t) => t.userId !== message.sender_id);
        this.addMessage(message);
        break;
      }
      case 'update_message': {
        const topic = (event.subject ?? event.topic) as string | undefined;
        const streamId = (event.new_stream_id ?? event.stream_id) as number | undefined;
        if (topic !== undefined && streamId !== undefined) this.addTopic(streamId, topic);
        break;
      }
      case 'typing': {
        const sender = (event.sender as { user_id: number }).user_id;
        if (sender === this.me) break;
        const place =
          event.message_type === 'stream'
            ? `s${String(event.stream_id)}:${String(event.topic).toLowerCase()}`
            : `d${dmKey(
                (event.recipients as { user_id: number }[]).map((r) => r.user_id),
                this.me,
              )}`;
        this.typing = this.typing.filter((t) => !(t.userId === sender && t.place === place));
        if (event.op === 'start')
          this.typing.push({ userId: sender, place, until: Date.now() + 15_000 });
        break;
      }
    }
    for (const listener of this.eventListeners) listener(event);
  }
}

export const store = new Store();

/** Marks every message of the narrow as read, as Zulip's "Mark all messages as read". */
export async function markNarrowRead(narrow: Narrow): Promise<void> {
  if (narrow.kind === 'feed') await call('POST', '/mark_all_as_read');
  else if (narrow.kind === 'stream' && narrow.topic === undefined)
    await call('POST', '/mark_stream_as_read', { stream_id: narrow.streamId });
  else if (narrow.kind === 'stream')
    await call('POST', '/mark_topic_as_read', {
      stream_id: narrow.streamId,
      topic_name: narrow.topic,
    });
  else
    await call('POST', '/messages/flags/narrow', {
      anchor: 'oldest',
      num_before: 0,
      num_after: 5000,
      include_anchor: true,
      narrow: apiNarrow(narrow, store.me),
      op: 'add',
      flag: 'read',
    });
}
