import { ImportError, type MissingReference } from '../errors';

const MAX_REPORTED = 100;

/**
 * What a conversion met in its input that it could not carry: fields it does not know
 * (counted), and records naming a user or conversation the input lacks (reported, then skipped
 * or fatal as `--skip-missing` decides).
 */
export class ConvertReport {
  readonly ignoredFields: Record<string, number> = {};
  readonly missing: MissingReference[] = [];
  missingCount = 0;
  /** Files a message names that could be neither found in the input nor fetched. */
  readonly filesNotFetched: string[] = [];
  /**
   * Reactions left out for an emoji that is neither Unicode nor among the export's custom
   * emoji (Slack's export holds no custom emoji of its own), by emoji name.
   */
  readonly unknownEmoji: Record<string, number> = {};

  emojiUnknown(name: string) {
    this.unknownEmoji[name] = (this.unknownEmoji[name] ?? 0) + 1;
  }

  constructor(private readonly onMissing: 'skip' | 'stop') {}

  /** Counts the fields of `record` outside `known`, as `kind.field`. */
  fields(kind: string, record: Record<string, unknown>, known: ReadonlySet<string>) {
    for (const key of Object.keys(record)) if (!known.has(key)) this.ignore(`${kind}.${key}`);
  }

  /** Counts one more record of something this converter leaves out. */
  ignore(name: string) {
    this.ignoredFields[name] = (this.ignoredFields[name] ?? 0) + 1;
  }

  /** A record naming what the input lacks: stops the conversion, or is noted and skipped. */
  lacking(file: string, record: string, reason: string): void {
    if (this.onMissing === 'stop') throw new ImportError(file, reason, record);
    this.missingCount += 1;
    if (this.missing.length < MAX_REPORTED) this.missing.push({ file, record, reason });
  }
}
