import { useState } from 'preact/hooks';
import { ApiError, call } from '../api';
import {
  loginHref,
  ownIcon,
  useSignInSettings,
  type ExternalMethod,
} from '../auth/external-methods';

interface Props {
  realmName: string;
  realmIcon: string;
  onLogin: () => void;
}

export function Login({ realmName, realmIcon, onLogin }: Props) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [needsCode, setNeedsCode] = useState(false);
  const { external, emailUsernames } = useSignInSettings();
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError('');
    try {
      await call('POST', '/login', {
        username: String(form.get('username')),
        password: String(form.get('password')),
        otp: needsCode ? (form.get('otp') as string) : undefined,
      });
      onLogin();
    } catch (err) {
      // An account with two-factor authentication: the same form asks for the code too.
      if (err instanceof ApiError && err.code === 'TWO_FACTOR_REQUIRED') setNeedsCode(true);
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form class="login-card" onSubmit={(event) => void submit(event)}>
        {realmIcon && <img class="realm-icon large" src={realmIcon} alt="" />}
        <h1>Log in to {realmName}</h1>
        {/* Text, not `type="email"`: an LDAP uid is no address, and the browser would refuse it.
            The phone's keyboard still has its @ where the server's usernames are addresses. */}
        <label>
          {emailUsernames ? 'Email' : 'Email or username'}
          <input
            name="username"
            type="text"
            inputMode={emailUsernames ? 'email' : 'text'}
            autocomplete="username"
            autocapitalize="none"
            spellcheck={false}
            required
          />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        {needsCode && (
          <label>
            Two-factor code
            <input name="otp" inputMode="numeric" autocomplete="one-time-code" required />
          </label>
        )}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Log in
        </button>
        <a class="login-forgot" href="/accounts/password/reset/">
          Forgot your password?
        </a>
        <ExternalSignIn methods={external} />
      </form>
    </main>
  );
}

/** The buttons of the organization's other ways to sign in (SAML, OpenID Connect...), if any. */
function ExternalSignIn({ methods }: { methods: ExternalMethod[] }) {
  if (!methods.length) return null;
  return (
    <div class="login-external" aria-label="Other ways to log in">
      {methods.map((method) => {
        const href = loginHref(method);
        const icon = ownIcon(method.display_icon);
        return (
          href && (
            <a key={method.name} class="login-external-button" href={href}>
              {icon && <img src={icon} alt="" width={20} height={20} />}
              Log in with {method.display_name}
            </a>
          )
        );
      })}
    </div>
  );
}
