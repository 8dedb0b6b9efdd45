import { ConfigError, loadConfig } from '.';

describe('listening port', () => {
  it('is API_PORT, else PORT, else 9991', () => {
    expect(loadConfig({}).apiPort).toBe(9991);
    expect(loadConfig({ PORT: '8000' }).apiPort).toBe(8000);
    expect(loadConfig({ PORT: '8000', API_PORT: '9000' }).apiPort).toBe(9000);
  });

  it('refuses a PORT that is not a port', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
  });
});

describe('FAKE_EMAIL_DOMAIN', () => {
  it('defaults to a reserved name and refuses what cannot end an email address', () => {
    expect(loadConfig({}).fakeEmailDomain).toBe('chat.invalid');
    expect(loadConfig({ FAKE_EMAIL_DOMAIN: 'Bots.Example.org' }).fakeEmailDomain).toBe(
      'bots.example.org',
    );
    expect(() => loadConfig({ FAKE_EMAIL_DOMAIN: '127.0.0.1' })).toThrow(ConfigError);
  });
});
