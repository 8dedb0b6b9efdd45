import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { call } from '../api';
import { ActionStatus, type Action } from './action';

/**
 * The pieces the settings pages share (personal settings and the organization's): a page of
 * tabs, a form that saves on submit, a text field, a list of switches saved as they change, and
 * an image to upload or put back to the default; and the filter field the views' lists share.
 */

/** Tabs of a settings page: buttons that switch the page (each has its own address). */
export function Tabs<T extends string>({
  tabs,
  current,
  label,
  onChoose,
}: {
  tabs: [T, string][];
  current: T;
  label: string;
  onChoose: (tab: T) => void;
}) {
  return (
    <nav class="settings-tabs" aria-label={label}>
      {tabs.map(([tab, name]) => (
        <button
          key={tab}
          class="secondary"
          aria-current={tab === current ? 'page' : undefined}
          onClick={() => onChoose(tab)}
        >
          {name}
        </button>
      ))}
    </nav>
  );
}

/** A settings page: its title, its tabs (`label` names them), and the chosen tab's content. */
export function SettingsPage<T extends string>({
  title,
  children,
  ...tabs
}: {
  title: string;
  tabs?: [T, string][];
  current?: T;
  label?: string;
  onChoose?: (tab: T) => void;
  children: ComponentChildren;
}) {
  return (
    <>
      <div class="narrow-header">
        <h1 class="narrow-title">{title}</h1>
      </div>
      <div class="view-body">
        {tabs.tabs && tabs.current !== undefined && tabs.onChoose && (
          <Tabs
            tabs={tabs.tabs}
            current={tabs.current}
            label={tabs.label ?? title}
            onChoose={tabs.onChoose}
          />
        )}
        {children}
      </div>
    </>
  );
}

/** A form saved with its button: the request's state and the server's answer below the fields. */
export function SettingsForm({
  label,
  action,
  submit,
  saved,
  onSubmit,
  buttons,
  children,
}: {
  label: string;
  action: Action;
  /** The button's text. */
  submit: string;
  /** Other buttons, after it. */
  buttons?: ComponentChildren;
  /** What the status says once saved ("Saved." unless given). */
  saved?: string;
  onSubmit: () => void;
  children: ComponentChildren;
}) {
  return (
    <form
      class="settings-form"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
      <ActionStatus action={action} saved={saved} />
      <div class="form-actions">
        <button type="submit" disabled={action.busy}>
          {submit}
        </button>
        {buttons}
      </div>
    </form>
  );
}

/** A labelled text field: an input (with `input`'s attributes), or a textarea with `multiline`. */
export function TextField({
  label,
  value,
  onValue,
  multiline = false,
  input,
}: {
  label: string;
  value: string;
  onValue: (value: string) => void;
  multiline?: boolean;
  input?: InputHTMLAttributes<HTMLInputElement>;
}) {
  const onInput = (e: Event) => onValue((e.currentTarget as HTMLInputElement).value);
  return (
    <label>
      {label}
      {multiline ? (
        <textarea value={value} onInput={onInput} />
      ) : (
        <input {...input} value={value} onInput={onInput} />
      )}
    </label>
  );
}

/** A list's filter: a search field named by its placeholder, its text given as typed. */
export function FilterField({
  label,
  value,
  onValue,
}: {
  label: string;
  value: string;
  onValue: (value: string) => void;
}) {
  return (
    <input
      type="search"
      aria-label={label}
      placeholder={label}
      value={value}
      onInput={(e) => onValue((e.currentTarget as HTMLInputElement).value)}
    />
  );
}

/** Switches (checkboxes), each a setting saved as it changes; those `values` lacks are left out. */
export function Switches({
  items,
  values,
  onChange,
}: {
  items: [string, string][];
  values: Record<string, unknown>;
  onChange: (name: string, on: boolean) => void;
}) {
  return (
    <>
      {items
        .filter(([name]) => name in values)
        .map(([name, label]) => (
          <label key={name} class="check">
            <input
              type="checkbox"
              checked={!!values[name]}
              onChange={(e) => onChange(name, (e.currentTarget as HTMLInputElement).checked)}
            />
            {label}
          </label>
        ))}
    </>
  );
}

/**
 * An image to upload (a profile picture, the organization's icon) with its preview, and, where
 * `reset` is given, a button back to the default.
 */
export function ImageUpload({
  legend,
  preview,
  upload,
  reset,
  action,
}: {
  legend: string;
  preview: ComponentChildren;
  /** The upload's button text and where the image goes (`POST`, as a file named `file`). */
  upload: { label: string; route: string };
  /** Where a `DELETE` puts the default back, if offered. */
  reset?: string;
  action: Action;
}) {
  return (
    <fieldset class="settings-form">
      <legend>{legend}</legend>
      <div class="avatar-edit">
        {preview}
        <div class="form-actions wrap">
          <label class="button-like">
            {upload.label}
            <input
              type="file"
              accept="image/*"
              class="visually-hidden"
              onChange={(e) => {
                const file = (e.currentTarget as HTMLInputElement).files?.[0];
                if (!file) return;
                const body = new FormData();
                body.append('file', file);
                void action.run(() => call('POST', upload.route, {}, { body }));
              }}
            />
          </label>
          {reset && (
            <button
              type="button"
              class="secondary"
              onClick={() => void action.run(() => call('DELETE', reset))}
            >
              Use the default
            </button>
          )}
        </div>
      </div>
      <ActionStatus action={action} />
    </fieldset>
  );
}
