import { mrkdwnToMarkdown, type MrkdwnNames } from './slack-mrkdwn';

const names: MrkdwnNames = {
  user: (id) => (id === 'U01' ? 'Alice Owner' : undefined),
  channel: () => undefined,
};

describe('mrkdwnToMarkdown', () => {
  it('keeps the private-use character it marks conversions with when a message holds it', () => {
    // The converter stands for `<@U01>` by U+E000 0 U+E000 while it converts emphasis.
    expect(mrkdwnToMarkdown('odd \uE0007\uE000 and \uE0000\uE000 for <@U01>', names)).toBe(
      'odd \uE0007\uE000 and \uE0000\uE000 for @**Alice Owner**',
    );
  });
});
