/** What a poll that waited the whole heartbeat interval receives; never emitted by the domain. */
export interface HeartbeatEvent {
  type: 'heartbeat';
}

export const heartbeatEvent = (): HeartbeatEvent => ({ type: 'heartbeat' });
