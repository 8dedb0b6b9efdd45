/**
 * Input an import cannot take, named by file and (where there is one) record: the operator
 * sees this message, never a stack trace.
 */
export class ImportError extends Error {
  constructor(
    readonly file: string,
    message: string,
    readonly record?: string,
  ) {
    super(`${file}${record ? `, ${record}` : ''}: ${message}`);
  }
}

/** A record pointing at a row the input does not have. */
export interface MissingReference {
  file: string;
  record: string;
  reason: string;
}
