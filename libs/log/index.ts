import winston from 'winston';
import type { Logger } from '../core/log';

function wrap(inner: winston.Logger): Logger {
  return {
    error: (category, message, fields) => inner.error(message, { category, ...fields }),
    warn: (category, message, fields) => inner.warn(message, { category, ...fields }),
    info: (category, message, fields) => inner.info(message, { category, ...fields }),
    debug: (category, message, fields) => inner.debug(message, { category, ...fields }),
    child: (fields) => wrap(inner.child(fields)),
  };
}

/** JSON lines on stderr in production; stdout stays free for CLI output. */
export function createLogger(options: { level: string; format: 'json' | 'pretty' }): Logger {
  const format =
    options.format === 'json'
      ? winston.format.combine(winston.format.timestamp(), winston.format.json())
      : winston.format.combine(
          winston.format.timestamp(),
          winston.format.printf(({ timestamp, level, message, category, ...rest }) => {
            const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
            return `${timestamp} ${level} [${category}] ${message}${extra}`;
          }),
        );
  return wrap(
    winston.createLogger({
      level: options.level,
      format,
      transports: [
        new winston.transports.Console({ stderrLevels: Object.keys(winston.config.npm.levels) }),
      ],
    }),
  );
}
