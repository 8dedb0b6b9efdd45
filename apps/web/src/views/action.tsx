import { useState } from 'preact/hooks';

export interface Action {
  busy: boolean;
  error: string;
  done: boolean;
  run(task: () => Promise<unknown>): Promise<boolean>;
}

/** A request a form sends: whether it is under way, and how it ended (the server's message). */
export function useAction(): Action {
  const [state, setState] = useState({ busy: false, error: '', done: false });
  return {
    ...state,
    async run(task) {
      setState({ busy: true, error: '', done: false });
      try {
        await task();
        setState({ busy: false, error: '', done: true });
        return true;
      } catch (err) {
        setState({ busy: false, error: (err as Error).message, done: false });
        return false;
      }
    },
  };
}

export function ActionStatus({ action, saved = 'Saved.' }: { action: Action; saved?: string }) {
  if (action.error)
    return (
      <p class="error" role="alert">
        {action.error}
      </p>
    );
  return (
    <p class="action-status muted" role="status">
      {action.busy ? 'Saving…' : action.done ? saved : ''}
    </p>
  );
}
