import DOMPurify from 'dompurify';

// Links in messages open in a new tab without handing it this page; image previews are named
// after their link (the server's Markdown gives them no alt text).
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.getAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
  // A spoiler's header is its button: reachable with the keyboard (Lightbox.tsx toggles it).
  if (node.classList?.contains('spoiler-header')) {
    node.setAttribute('tabindex', '0');
    node.setAttribute('role', 'button');
  }
  if (node.tagName === 'IMG' && !node.hasAttribute('alt')) {
    const link = node.closest('a');
    const name = link?.getAttribute('title') || link?.getAttribute('href')?.split('/').pop();
    node.setAttribute('alt', name ? decodeURIComponent(name) : 'image');
  }
});

const OPTIONS = { ADD_ATTR: ['target'], FORBID_TAGS: ['style', 'form'] };

/** The server's rendered HTML, sanitized again here before it reaches the page. */
export const safeHtml = (html: string): string => DOMPurify.sanitize(html, OPTIONS);

/**
 * Each message's content is sanitized once, the first time its row is drawn, into nodes that
 * each later drawing copies. Keyed by the message object, which the store replaces (never
 * changes) when the message is edited, so an entry goes with the content it was made from.
 */
const sanitized = new WeakMap<object, DocumentFragment>();

export function messageNodes(message: { content: string }): DocumentFragment {
  let nodes = sanitized.get(message);
  if (!nodes) {
    nodes = DOMPurify.sanitize(message.content, { ...OPTIONS, RETURN_DOM_FRAGMENT: true });
    sanitized.set(message, nodes);
  }
  return nodes;
}
