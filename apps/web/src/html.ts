import DOMPurify from 'dompurify';

// Links in messages open in a new tab without handing it this page.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.getAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

/** The server's rendered HTML, sanitized again here before it reaches the page. */
export const safeHtml = (html: string): string =>
  DOMPurify.sanitize(html, { ADD_ATTR: ['target'], FORBID_TAGS: ['style', 'form'] });
