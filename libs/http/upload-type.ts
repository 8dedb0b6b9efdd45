import { lookup } from 'mime-types';

/**
 * Types a multipart file part may carry when its sender named none: a part without a
 * Content-Type reaches us as text/plain (busboy applies RFC 7578's default, so the two cannot be
 * told apart), and application/octet-stream says nothing more. Python's `requests`, and so the
 * `zulip` client's upload_file and upload_custom_emoji, send parts without one.
 */
const UNSTATED_TYPES = new Set(['', 'text/plain', 'application/octet-stream']);

/**
 * The type of an uploaded file: the one its part states, or, where it states none, the type its
 * name suggests, as Zulip guesses with Python's mimetypes (kept when the name suggests nothing).
 */
export function uploadedFileType(file: { mimetype: string; originalname: string }): string {
  const stated = file.mimetype.toLowerCase();
  if (!UNSTATED_TYPES.has(stated)) return file.mimetype;
  return lookup(file.originalname) || file.mimetype;
}
