/** The parts of the untyped `zulip-js` client our tests use. */
declare module 'zulip-js' {
  interface ZulipResponse {
    result: 'success' | 'error';
    msg: string;
    [field: string]: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  }
  type Call = (params: Record<string, unknown>) => Promise<ZulipResponse>;
  interface ZulipClient {
    config: { apiKey: string; apiURL: string };
    queues: {
      register: Call;
      deregister(params: { queue_id: string }): Promise<ZulipResponse>;
    };
    events: { retrieve: Call };
    messages: {
      send: Call;
      retrieve: Call;
      update: Call;
      getById: Call;
      deleteById: Call;
      flags: { add: Call; remove: Call };
    };
    reactions: { add: Call; remove: Call };
    typing: { send: Call };
    /** Registers a queue and calls `callback` with each event, forever. */
    callOnEachEvent(
      callback: (event: Record<string, any>) => void, // eslint-disable-line @typescript-eslint/no-explicit-any
      eventTypes?: string[] | null,
    ): Promise<never>;
  }
  export default function zulip(
    config:
      | { username: string; apiKey: string; realm: string }
      | { username: string; password: string; realm: string },
  ): Promise<ZulipClient>;
}
