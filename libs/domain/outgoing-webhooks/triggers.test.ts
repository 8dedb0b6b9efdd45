import { mayTriggerBots } from './triggers';

const human = { isBot: false };
const bot = { isBot: true };

describe('mayTriggerBots: which new messages need the trigger query', () => {
  it('a channel message only when it mentions a user or a group', () => {
    const channel = { sender: human, isChannelMessage: true };
    expect(mayTriggerBots({ ...channel, mentionedUserIds: [], mentionedGroupIds: [] })).toBe(false);
    expect(mayTriggerBots({ ...channel, mentionedUserIds: [7], mentionedGroupIds: [] })).toBe(true);
    expect(mayTriggerBots({ ...channel, mentionedUserIds: [], mentionedGroupIds: [3] })).toBe(true);
  });

  it('every direct message from a human, and nothing a bot sends', () => {
    const none = { mentionedUserIds: [], mentionedGroupIds: [] };
    expect(mayTriggerBots({ sender: human, isChannelMessage: false, ...none })).toBe(true);
    expect(mayTriggerBots({ sender: bot, isChannelMessage: false, ...none })).toBe(false);
    expect(
      mayTriggerBots({
        sender: bot,
        isChannelMessage: true,
        mentionedUserIds: [7],
        mentionedGroupIds: [3],
      }),
    ).toBe(false);
  });
});
