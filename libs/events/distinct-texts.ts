/**
 * Texts listed once each, in the order first seen, with each one's index in the list: a message
 * to a big channel is the same event JSON for most of its recipients' queues, and is sent once.
 */
export class DistinctTexts {
  readonly list: string[] = [];
  private readonly indexes = new Map<string, number>();

  has(text: string): boolean {
    return this.indexes.has(text);
  }

  /** The text's index in the list, where it is added if it is new. */
  indexOf(text: string): number {
    let index = this.indexes.get(text);
    if (index === undefined) {
      index = this.list.push(text) - 1;
      this.indexes.set(text, index);
    }
    return index;
  }
}
