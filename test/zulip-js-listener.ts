import zulip from 'zulip-js';

/**
 * zulip-js's `callOnEachEvent` in a process of its own (its loop never ends, so a test kills this
 * process when done). Each event is printed as one JSON line; argv: site, email, API key, the
 * event types as JSON.
 */
const [realm, username, apiKey, eventTypes] = process.argv.slice(2);
void zulip({ realm, username, apiKey }).then((client) =>
  client.callOnEachEvent(
    (event) => process.stdout.write(`${JSON.stringify(event)}\n`),
    JSON.parse(eventTypes) as string[],
  ),
);
