import type { LogCategory, LogFields, Logger } from '../libs/core/log';

export interface LoggedLine {
  level: 'error' | 'warn' | 'info' | 'debug';
  category: LogCategory;
  message: string;
  fields: LogFields;
}

/** A logger that keeps every line it is given, with its fields, for tests that read the log. */
export function recordingLog(): { log: Logger; lines: LoggedLine[] } {
  const lines: LoggedLine[] = [];
  const keep =
    (level: LoggedLine['level']) =>
    (category: LogCategory, message: string, fields: LogFields = {}) => {
      lines.push({ level, category, message, fields });
    };
  const log: Logger = {
    error: keep('error'),
    warn: keep('warn'),
    info: keep('info'),
    debug: keep('debug'),
    child: () => log,
  };
  return { log, lines };
}
