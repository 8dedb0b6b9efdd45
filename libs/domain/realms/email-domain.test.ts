import { emailDomainFor } from './email-domain';

const config = { fakeEmailDomain: 'chat.invalid' };

it('uses the host without its port when it can end an email address, else FAKE_EMAIL_DOMAIN', () => {
  expect(emailDomainFor('chat.example.com:9991', config)).toBe('chat.example.com');
  expect(emailDomainFor('acme.localhost', config)).toBe('acme.localhost');
  expect(emailDomainFor('127.0.0.1:9991', config)).toBe('chat.invalid');
  expect(emailDomainFor('acme.127.0.0.1', config)).toBe('chat.invalid');
  expect(emailDomainFor('localhost:9991', config)).toBe('chat.invalid');
  expect(emailDomainFor('[::1]:9991', config)).toBe('chat.invalid');
});
