import type {
  LinkableStream,
  MarkdownContext,
  MentionableUser,
  RealmEmojiEntry,
  RenderedMarkdown,
} from '../../markdown';

/** Users, channels and custom emoji a converter has made, in the order it made them. */
export interface RenderAdditions {
  users: MentionableUser[];
  streams: LinkableStream[];
  emoji: RealmEmojiEntry[];
}

/** How many of each there were when a message was converted: its Markdown sees only those. */
export interface RenderSeen {
  users: number;
  streams: number;
  emoji: number;
}

export interface RenderRequest {
  id: number;
  /** What the converter added since its previous request to this thread. */
  added: RenderAdditions;
  contents: string[];
  seen: RenderSeen[];
}

export type RenderReply =
  { id: number; results: RenderedMarkdown[] } | { id: number; error: string };

/** The converted organization's names, for rendering its messages' mentions, links and emoji. */
export class RenderTables {
  private readonly usersByName = new Map<string, { user: MentionableUser; index: number }>();
  private readonly usersById = new Map<number, { user: MentionableUser; index: number }>();
  private readonly streamsByName = new Map<string, { stream: LinkableStream; index: number }[]>();
  private readonly emoji: RealmEmojiEntry[] = [];
  private users = 0;
  private streams = 0;

  add(added: RenderAdditions) {
    for (const user of added.users) {
      const entry = { user, index: this.users++ };
      const key = user.fullName.toLowerCase();
      // The first user of a name is the one a mention of the name means.
      if (!this.usersByName.has(key)) this.usersByName.set(key, entry);
      this.usersById.set(user.id, entry);
    }
    for (const stream of added.streams) {
      const key = stream.name.toLowerCase();
      const list = this.streamsByName.get(key) ?? [];
      list.push({ stream, index: this.streams++ });
      this.streamsByName.set(key, list);
    }
    this.emoji.push(...added.emoji);
  }

  /** The Markdown context of a message converted when `seen` of each existed. */
  context(seen: RenderSeen): MarkdownContext {
    const userBefore = (entry?: { user: MentionableUser; index: number }) =>
      entry && entry.index < seen.users ? [entry.user] : [];
    return {
      realmUrl: 'https://imported.invalid',
      lookupUsersByName: (names) =>
        Promise.resolve(names.flatMap((n) => userBefore(this.usersByName.get(n.toLowerCase())))),
      lookupUsersById: (ids) =>
        Promise.resolve(ids.flatMap((id) => userBefore(this.usersById.get(id)))),
      lookupGroupsByName: () => Promise.resolve([]),
      lookupStreamsByName: (names) =>
        Promise.resolve(
          names.flatMap((n) => {
            // A later channel of the same name replaced an earlier one in the converter's map.
            const found = (this.streamsByName.get(n.toLowerCase()) ?? [])
              .filter((s) => s.index < seen.streams)
              .pop();
            return found ? [found.stream] : [];
          }),
        ),
      realmEmoji: seen.emoji === this.emoji.length ? this.emoji : this.emoji.slice(0, seen.emoji),
      linkifiers: [],
    };
  }
}
