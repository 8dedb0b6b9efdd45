/**
 * Zulip names the sending client after the User-Agent's product token ("ZulipPython/0.9" ->
 * "ZulipPython"); a `client` request value wins (legacy); no agent at all is "Unspecified".
 */
export function sendingClientName(userAgent: string | undefined, clientParam?: string): string {
  if (clientParam) return clientParam;
  const token = (userAgent ?? '').trim().split(/[\s/]/)[0];
  return token || 'Unspecified';
}

const HUMAN_CLIENTS = new Set([
  'zulipandroid',
  'zulipios',
  'zulipdesktop',
  'zulipmobile',
  'zulipelectron',
  'zulipterminal',
  'zulipflutter',
  'snipe',
  'website',
  'ios',
  'android',
]);

/**
 * Zulip's Message.sent_by_human: the sender's own copy starts read only when sent from one of
 * Zulip's interactive apps (spec 2.9: "except messages the user sent with a non-API client").
 * Scripts and bots using the API (ZulipPython, curl, ...) leave their copy unread.
 */
export function sentByHuman(clientName: string): boolean {
  const name = clientName.toLowerCase();
  return HUMAN_CLIENTS.has(name) || name.includes('desktop app');
}
