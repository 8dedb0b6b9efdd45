import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api';
import { useAction, ActionStatus, type Action } from './action';

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
 * Two-factor authentication as the server has it, and the requests that change it: set up (a
 * new key), confirm with a first code (which yields the backup codes), and turn off.
 */
function useTwoFactor() {
  const [status, setStatus] = useState<Status | null>(null);
  const [setup, setSetup] = useState<Setup | null>(null);
  const [codes, setCodes] = useState<string[]>([]);
  const action = useAction();
  const load = () =>
    call<Status & Record<string, unknown>>('GET', '/two_factor').then(setStatus, () => undefined);
  useEffect(() => void load(), []);
  const startSetup = () =>
    action.run(async () =>
      setSetup(await call<Setup & Record<string, unknown>>('POST', '/two_factor/setup')),
    );
  const confirm = (otp: string) =>
    action.run(async () => {
      const done = await call<{ backup_codes: string[] }>('POST', '/two_factor/confirm', { otp });
      setCodes(done.backup_codes);
      setSetup(null);
      await load();
    });
  const disable = async (otp: string) => {
    const ok = await action.run(() => call('POST', '/two_factor/disable', { otp }));
    if (ok) {
      setCodes([]);
      void load();
    }
    return ok;
  };
  return { status, setup, codes, action, startSetup, confirm, disable };
}

/**
 * Two-factor authentication in Account & privacy (Zulip's /account/two_factor/ pages): scan the
 * QR code, confirm with a first code, keep the backup codes; or turn it off with a code.
 */
export function TwoFactorSettings() {
  const { status, setup, codes, action, startSetup, confirm, disable } = useTwoFactor();
  if (!status?.available) return null;
  return (
    <section class="settings-form" aria-label="Two-factor authentication">
      <h2>Two-factor authentication</h2>
      {codes.length > 0 && <BackupCodes codes={codes} />}
      {status.enabled ? (
        <CodeForm
          label="Turn off two-factor authentication"
          fieldLabel="Code from your app, or a backup code"
          submit="Turn off"
          action={action}
          onCode={disable}
        >
          <p>On. Backup codes left: {status.backup_codes_left}.</p>
        </CodeForm>
      ) : setup ? (
        <CodeForm
          label="Confirm two-factor authentication"
          fieldLabel="Code from your app"
          submit="Turn on"
          action={action}
          onCode={confirm}
        >
          <p>Scan this code with your authenticator app, then enter the code it shows.</p>
          <img class="two-factor-qr" src={setup.qr_code} alt="QR code for your authenticator app" />
          <p>
            Or enter this key: <code class="two-factor-secret">{setup.secret}</code>
          </p>
        </CodeForm>
      ) : (
        <div class="form-actions">
          <p>Off: signing in with your password needs nothing else.</p>
          <button type="button" disabled={action.busy} onClick={() => void startSetup()}>
            Set up two-factor authentication
          </button>
        </div>
      )}
    </section>
  );
}

/** The backup codes, shown once when two-factor authentication is turned on. */
function BackupCodes({ codes }: { codes: string[] }) {
  return (
    <div role="status">
      <p>
        Two-factor authentication is on. Keep these backup codes somewhere safe: each works once.
      </p>
      <ul class="backup-codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * A form that sends one code (from the app, or a backup code) to `onCode`, after what `children`
 * explain; the field is emptied once the code is taken.
 */
function CodeForm({
  label,
  fieldLabel,
  submit,
  action,
  onCode,
  children,
}: {
  label: string;
  fieldLabel: string;
  submit: string;
  action: Action;
  onCode: (otp: string) => Promise<boolean>;
  children: ComponentChildren;
}) {
  const [code, setCode] = useState('');
  return (
    <form
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        void onCode(code).then((ok) => ok && setCode(''));
      }}
    >
      {children}
      <label>
        {fieldLabel}
        <input
          name="otp"
          inputMode="numeric"
          autocomplete="one-time-code"
          required
          value={code}
          onInput={(e) => setCode((e.currentTarget as HTMLInputElement).value)}
        />
      </label>
      <ActionStatus action={action} />
      <div class="form-actions">
        <button type="submit" disabled={action.busy}>
          {submit}
        </button>
      </div>
    </form>
  );
}
