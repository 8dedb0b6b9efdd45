import { useState } from 'preact/hooks';
import { csrfToken } from '../../api';
import type { DraftBox } from './draft';

/** A file on its way up, and how far it is. */
export interface Upload {
  name: string;
  progress: number;
}

/** Uploads a file with progress (fetch reports none for request bodies). */
function uploadFile(file: File, onProgress: (fraction: number) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/json/user_uploads');
    xhr.setRequestHeader('X-CSRFToken', csrfToken());
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      try {
        const body = JSON.parse(xhr.responseText) as {
          result: string;
          msg?: string;
          url?: string;
          uri?: string;
        };
        if (xhr.status === 200 && body.result === 'success') resolve(body.url ?? body.uri ?? '');
        else reject(new Error(body.msg ?? `HTTP ${xhr.status}`));
      } catch {
        reject(new Error(`HTTP ${xhr.status}`));
      }
    };
    xhr.onerror = () => reject(new Error('The upload failed: no connection.'));
    const body = new FormData();
    body.append('file', file, file.name);
    xhr.send(body);
  });
}

/** The files on their way up, and the ways to send more. */
interface Uploads {
  uploads: Upload[];
  upload: (files: File[]) => void;
  /** The box's `drop` handler: files dropped on it are uploaded, not opened by the browser. */
  drop: (e: DragEvent) => void;
}

/**
 * Files uploaded one after another, each linked at the box's caret (on a line of its own) once
 * up; `failed` hears why one did not make it.
 */
export function useUploads(draft: DraftBox, failed: (message: string) => void): Uploads {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const upload = async (files: File[]) => {
    for (const file of files) {
      setUploads((u) => [...u, { name: file.name, progress: 0 }]);
      try {
        const url = await uploadFile(file, (progress) =>
          setUploads((u) => u.map((x) => (x.name === file.name ? { ...x, progress } : x))),
        );
        const link = `[${file.name}](${url})`;
        const value = draft.box.current?.value ?? '';
        draft.insertAtCaret(value && !value.endsWith('\n') ? `\n${link}` : link);
      } catch (err) {
        failed((err as Error).message);
      } finally {
        setUploads((u) => u.filter((x) => x.name !== file.name));
      }
    }
  };
  return {
    uploads,
    upload: (files) => void upload(files),
    drop: (e) => {
      e.preventDefault();
      if (e.dataTransfer?.files.length) void upload(Array.from(e.dataTransfer.files));
    },
  };
}

/** The files on their way up, with their progress. */
export function UploadList({ uploads }: { uploads: Upload[] }) {
  return (
    <>
      {uploads.map((u) => (
        <p class="upload" key={u.name}>
          Uploading {u.name}…{' '}
          <progress max={1} value={u.progress} aria-label={`Uploading ${u.name}`} />
        </p>
      ))}
    </>
  );
}
