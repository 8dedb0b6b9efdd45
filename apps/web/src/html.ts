import DOMPurify from 'dompurify';

/**
 * A link preview's image (Zulip's `message_embed_image`, a link with the image as background):
 * hidden from screen readers and the Tab key, since the preview's title links to the same page.
 * An image from another origin (the camo proxy off) is dropped: the page's CSP refuses it.
 */
function embedImage(node: Element): void {
  node.setAttribute('aria-hidden', 'true');
  node.setAttribute('tabindex', '-1');
  const url = /url\("((?:[^"\\]|\\.)*)"\)/.exec(node.getAttribute('style') ?? '')?.[1];
  if (url === undefined || !URL.canParse(url, location.href)) node.removeAttribute('style');
  else if (new URL(url, location.href).origin !== location.origin) node.removeAttribute('style');
}

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
  if (node.classList?.contains('message_embed_image')) embedImage(node);
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
