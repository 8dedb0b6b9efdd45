import { organization } from './organization';

/**
 * The organization of the user-access tests: Alice, Bob, the guest Gus and Bob's bot, without
 * default channels so that Gus shares #shared with Alice and nothing with Bob; the events tier
 * runs in the test process. `env`: configuration overrides (`startTestContext`).
 */
export const guestAccessOrganization = (env?: Record<string, string>) =>
  organization({
    env,
    events: true,
    defaultChannels: false,
    members: {
      alice: 'member',
      bob: 'member',
      guest: { role: 'guest', fullName: 'Gus Guest' },
      bot: { botOf: 'bob' },
    },
    channels: { shared: ['alice', 'guest'] },
  });
