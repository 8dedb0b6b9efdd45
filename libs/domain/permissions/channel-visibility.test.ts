import { Role } from '../users/roles';
import {
  canListAllChannels,
  canManageDefaultChannels,
  canSeeUnsubscribed,
  channelOpenTo,
  isOpenPublicChannel,
  requireCanSetChannelRetention,
  seesAllPublicChannels,
} from './channels';

const admin = { role: Role.ADMINISTRATOR };
const member = { role: Role.MEMBER };
const guest = { role: Role.GUEST };
const publicChannel = { inviteOnly: false, isWebPublic: false };
const webPublic = { inviteOnly: false, isWebPublic: true };
const privateChannel = { inviteOnly: true, isWebPublic: false };

describe('who may see a channel', () => {
  it('opens public channels to non-guests and web-public ones to guests', () => {
    expect(channelOpenTo(member, publicChannel)).toBe(true);
    expect(channelOpenTo(member, webPublic)).toBe(true);
    expect(channelOpenTo(member, privateChannel)).toBe(false);
    expect(channelOpenTo(admin, privateChannel)).toBe(false);
    expect(channelOpenTo(guest, publicChannel)).toBe(false);
    expect(channelOpenTo(guest, webPublic)).toBe(true);
    expect(channelOpenTo(guest, privateChannel)).toBe(false);
  });

  it('shows administrators private channels they are not subscribed to', () => {
    expect(canSeeUnsubscribed(admin, privateChannel)).toBe(true);
    expect(canSeeUnsubscribed(member, privateChannel)).toBe(false);
    expect(canSeeUnsubscribed(member, publicChannel)).toBe(true);
    expect(canSeeUnsubscribed(guest, publicChannel)).toBe(false);
    expect(canSeeUnsubscribed(guest, webPublic)).toBe(true);
  });

  it('lists and opens every public channel to non-guests only', () => {
    expect(seesAllPublicChannels(member)).toBe(true);
    expect(seesAllPublicChannels(guest)).toBe(false);
    expect(isOpenPublicChannel(member, publicChannel)).toBe(true);
    expect(isOpenPublicChannel(member, privateChannel)).toBe(false);
    expect(isOpenPublicChannel(guest, webPublic)).toBe(false);
  });

  it('keeps the organization-level channel settings for administrators and owners', () => {
    expect(canListAllChannels(admin)).toBe(true);
    expect(canListAllChannels(member)).toBe(false);
    expect(canManageDefaultChannels(admin)).toBe(true);
    expect(canManageDefaultChannels(member)).toBe(false);
    expect(() => requireCanSetChannelRetention({ role: Role.OWNER })).not.toThrow();
    expect(() => requireCanSetChannelRetention(admin)).toThrow('Must be an organization owner');
  });
});
