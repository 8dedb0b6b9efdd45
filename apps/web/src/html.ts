import DOMPurify from 'dompurify';

// Links in messages open in a new tab without handing it this page; image previews are named
// after their link (the server's Markdown gives them no alt text).
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.getAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
  if (node.tagName === 'IMG' && !node.hasAttribute('alt')) {
    const link = node.closest('a');
    const name = link?.getAttribute('title') || link?.getAttribute('href')?.split('/').pop();
    node.setAttribute('alt', name ? decodeURIComponent(name) : 'image');
  }
});

/** The server's rendered HTML, sanitized again here before it reaches the page. */
export const safeHtml = (html: string): string =>
  DOMPurify.sanitize(html, { ADD_ATTR: ['target'], FORBID_TAGS: ['style', 'form'] });
