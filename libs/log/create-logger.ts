import winston from 'winston';
import type { Logger } from '../core/log';

function wrap(inner: winston.Logger): Logger {
  // winston formats a line (timestamp, JSON) before its transport drops it for its level, so a
  // line below the level is dropped here: the request log calls info on every request.
  const at =
    (level: 'error' | 'warn' | 'info' | 'debug'): Logger['info'] =>
    (category, message, fields) => {
      if (inner.isLevelEnabled(level)) inner.log(level, message, { category, ...fields });
    };
  return {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    child: (fields) => wrap(inner.child(fields)),
  };
}

/**
 * JSON lines (LOG_FORMAT=json) on stdout, where container runtimes, systemd's journal and log
 * agents read a service's output; the CLI and the local tools log on stderr (`stream`), as their
 * stdout carries their answers.
 */
export function createLogger(options: {
  level: string;
  format: 'json' | 'pretty';
  stream?: 'stdout' | 'stderr';
}): Logger {
  const format =
    options.format === 'json'
      ? winston.format.combine(winston.format.timestamp(), winston.format.json())
      : winston.format.combine(
          winston.format.timestamp(),
          winston.format.printf(({ timestamp, level, message, category, ...rest }) => {
            const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
            return `${String(timestamp)} ${level} [${String(category)}] ${String(message)}${extra}`;
          }),
        );
  return wrap(
    winston.createLogger({
      level: options.level,
      format,
      transports: [
        new winston.transports.Console({
          stderrLevels: options.stream === 'stderr' ? Object.keys(winston.config.npm.levels) : [],
        }),
      ],
    }),
  );
}
