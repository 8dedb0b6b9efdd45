/** The parts of the untyped `zulip-js` client our tests use. */
declare module 'zulip-js' {
  interface ZulipResponse {
    result: 'success' | 'error';
    msg: string;
    [field: string]: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  }
  interface ZulipClient {
    queues: {
      register(params: Record<string, unknown>): Promise<ZulipResponse>;
      deregister(params: { queue_id: string }): Promise<ZulipResponse>;
    };
    events: { retrieve(params: Record<string, unknown>): Promise<ZulipResponse> };
    messages: { send(params: Record<string, unknown>): Promise<ZulipResponse> };
  }
  export default function zulip(config: {
    username: string;
    apiKey: string;
    realm: string;
  }): Promise<ZulipClient>;
}
