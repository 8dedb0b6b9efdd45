import { useState } from 'preact/hooks';
import { call } from '../../api';
import { safeHtml } from '../../html';

/** The text as the server renders it, shown in place of the box while asked for. */
export function usePreview() {
  const [preview, setPreview] = useState<string | null>(null);
  return {
    /** The rendered HTML on show, or null while the box shows. */
    html: preview,
    toggle: async (text: string) => {
      if (preview !== null) return setPreview(null);
      const { rendered } = await call<{ rendered: string }>('POST', '/messages/render', {
        content: text,
      });
      setPreview(rendered);
    },
    close: () => setPreview(null),
  };
}

/** The rendered message, its HTML cleaned first. */
export function Preview({ html }: { html: string }) {
  return (
    <div
      class="preview content"
      aria-label="Preview"
      dangerouslySetInnerHTML={{ __html: safeHtml(html) }}
    />
  );
}
