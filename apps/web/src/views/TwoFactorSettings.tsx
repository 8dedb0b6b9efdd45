import { useEffect, useState } from 'preact/hooks';
import { call } from '../api';
import { useAction, ActionStatus } from './action';

interface Status {
  available: boolean;
  enabled: boolean;
  backup_codes_left: number;
}

interface Setup {
  secret: string;
  otpauth_url: string;
  qr_code: string;
}

/**
 * Two-factor authentication in Account & privacy (Zulip's /account/two_factor/ pages): scan the
 * QR code, confirm with a first code, keep the backup codes; or turn it off with a code.
 */
export function TwoFactorSettings() {
  const [status, setStatus] = useState<Status | null>(null);
  const [setup, setSetup] = useState<Setup | null>(null);
  const [codes, setCodes] = useState<string[]>([]);
  const [code, setCode] = useState('');
  const action = useAction();

  const load = () =>
    call<Status & Record<string, unknown>>('GET', '/two_factor').then(setStatus, () => undefined);
  useEffect(() => void load(), []);
  if (!status?.available) return null;

  const codeField = (label: string) => (
    <label>
      {label}
      <input
        name="otp"
        inputMode="numeric"
        autocomplete="one-time-code"
        required
        value={code}
        onInput={(e) => setCode((e.currentTarget as HTMLInputElement).value)}
      />
    </label>
  );

  return (
    <section class="settings-form" aria-label="Two-factor authentication">
      <h2>Two-factor authentication</h2>
      {codes.length > 0 && (
        <div role="status">
          <p>
            Two-factor authentication is on. Keep these backup codes somewhere safe: each works
            once.
          </p>
          <ul class="backup-codes">
            {codes.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
      {status.enabled ? (
        <form
          aria-label="Turn off two-factor authentication"
          onSubmit={(e) => {
            e.preventDefault();
            void action
              .run(() => call('POST', '/two_factor/disable', { otp: code }))
              .then((ok) => {
                if (ok) {
                  setCode('');
                  setCodes([]);
                  void load();
                }
              });
          }}
        >
          <p>On. Backup codes left: {status.backup_codes_left}.</p>
          {codeField('Code from your app, or a backup code')}
          <ActionStatus action={action} />
          <div class="form-actions">
            <button type="submit" disabled={action.busy}>
              Turn off
            </button>
          </div>
        </form>
      ) : setup ? (
        <form
          aria-label="Confirm two-factor authentication"
          onSubmit={(e) => {
            e.preventDefault();
            void action.run(async () => {
              const done = await call<{ backup_codes: string[] }>('POST', '/two_factor/confirm', {
                otp: code,
              });
              setCodes(done.backup_codes);
              setSetup(null);
              setCode('');
              await load();
            });
          }}
        >
          <p>Scan this code with your authenticator app, then enter the code it shows.</p>
          <img class="two-factor-qr" src={setup.qr_code} alt="QR code for your authenticator app" />
          <p>
            Or enter this key: <code class="two-factor-secret">{setup.secret}</code>
          </p>
          {codeField('Code from your app')}
          <ActionStatus action={action} />
          <div class="form-actions">
            <button type="submit" disabled={action.busy}>
              Turn on
            </button>
          </div>
        </form>
      ) : (
        <div class="form-actions">
          <p>Off: signing in with your password needs nothing else.</p>
          <button
            type="button"
            disabled={action.busy}
            onClick={() =>
              void action.run(async () =>
                setSetup(await call<Setup & Record<string, unknown>>('POST', '/two_factor/setup')),
              )
            }
          >
            Set up two-factor authentication
          </button>
        </div>
      )}
    </section>
  );
}
