import { useEffect, useRef, useState } from 'preact/hooks';
import { messageNodes } from '../html';
import { store } from '../store';

interface Shown {
  src: string;
  title: string;
  href: string;
}

/** What the viewer shows for an image preview: the original where it is ours (uploads). */
function shownOf(img: Element): Shown {
  const link = img.closest('a');
  const preview = new URL(img.getAttribute('src') ?? '', location.href).href;
  const href = link?.getAttribute('href') ?? preview;
  const ownHref = href.startsWith('/') && !href.startsWith('//');
  return {
    src: ownHref ? href : preview,
    title: link?.getAttribute('title') ?? img.getAttribute('alt') ?? '',
    href,
  };
}

/** Every image preview of the conversation in view, oldest first: the viewer's carousel. */
function imagesInView(): Shown[] {
  const out: Shown[] = [];
  for (const m of store.view?.messages ?? []) {
    if (!m.content.includes('message_inline_image')) continue;
    for (const img of messageNodes(m).querySelectorAll('.message_inline_image img'))
      out.push(shownOf(img));
  }
  return out;
}

/**
 * Listens, on the whole page, for clicks on messages' content: a spoiler's header shows or hides
 * what it hides (Enter and Space too, where it has the focus), and an image preview calls `show`
 * with the conversation's images and the clicked one's place among them.
 */
function useContentClicks(show: (images: Shown[], at: number) => void): void {
  useEffect(() => {
    const onClick = (e: MouseEvent) => {
      const target = e.target as HTMLElement;
      const spoiler = target.closest<HTMLElement>('.content .spoiler-header');
      if (spoiler) {
        const block = spoiler.closest('.spoiler-block')!;
        const open = block.classList.toggle('spoiler-revealed');
        block.querySelector('.spoiler-content')?.setAttribute('aria-hidden', String(!open));
        return;
      }
      const img = target.closest<HTMLImageElement>('.content .message_inline_image img');
      if (!img || e.ctrlKey || e.metaKey || e.shiftKey) return;
      e.preventDefault();
      const clicked = shownOf(img);
      const all = imagesInView();
      const index = all.findIndex((x) => x.href === clicked.href);
      show(index >= 0 ? all : [clicked], Math.max(0, index));
    };
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if ((e.key === 'Enter' || e.key === ' ') && target.matches('.content .spoiler-header')) {
        e.preventDefault();
        target.click();
      }
    };
    document.addEventListener('click', onClick);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('click', onClick);
      document.removeEventListener('keydown', onKey);
    };
  }, []);
}

/**
 * What messages' content does when clicked, for every message on the page: an image preview
 * opens in a viewer over the page, and a spoiler's header shows or hides what it hides. The
 * viewer steps through the conversation's images (the arrow keys, or its buttons), shows one at
 * its actual size and back (Z, or "Zoom"), and closes with Esc or a click beside the image.
 */
export function Lightbox() {
  const [images, setImages] = useState<Shown[]>([]);
  const [at, setAt] = useState(0);
  const [zoomed, setZoomed] = useState(false);
  useContentClicks((all, index) => {
    setImages(all);
    setAt(index);
    setZoomed(false);
  });
  const shown = images[at];
  if (!shown) return null;
  return (
    <ImageViewer
      shown={shown}
      at={at}
      count={images.length}
      zoomed={zoomed}
      onStep={(by) => {
        setAt((i) => Math.max(0, Math.min(images.length - 1, i + by)));
        setZoomed(false);
      }}
      onZoom={() => setZoomed((z) => !z)}
      onClose={() => setImages([])}
    />
  );
}

interface ViewerProps {
  shown: Shown;
  /** Where `shown` is among the conversation's `count` images, from 0. */
  at: number;
  count: number;
  zoomed: boolean;
  onStep: (by: number) => void;
  onZoom: () => void;
  onClose: () => void;
}

/** The viewer over the page: its Close button has the focus, and it has the keyboard. */
function ImageViewer({ shown, at, count, zoomed, onStep, onZoom, onClose }: ViewerProps) {
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    close.current?.focus();
  }, []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const keys: Record<string, () => void> = {
        Escape: onClose,
        ArrowLeft: () => onStep(-1),
        ArrowRight: () => onStep(1),
        z: onZoom,
      };
      const act = keys[e.key];
      if (!act) return;
      e.stopPropagation();
      e.preventDefault();
      act();
    };
    document.addEventListener('keydown', onKey, true);
    return () => document.removeEventListener('keydown', onKey, true);
  }, [count]);
  const many = count > 1;
  return (
    <div
      class="lightbox"
      role="dialog"
      aria-modal="true"
      aria-label={shown.title || 'Image'}
      onClick={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <div class="lightbox-bar">
        <span class="lightbox-title">{shown.title}</span>
        {many && (
          <span class="lightbox-count" aria-live="polite">
            {at + 1} of {count}
          </span>
        )}
        <button class="secondary" aria-pressed={zoomed} onClick={onZoom}>
          Zoom
        </button>
        <a href={shown.href} target="_blank" rel="noopener noreferrer">
          Open original
        </a>
        <button ref={close} class="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      <div
        class={zoomed ? 'lightbox-stage zoomed' : 'lightbox-stage'}
        onClick={(e) => {
          if (e.target === e.currentTarget) onClose();
        }}
      >
        <img src={shown.src} alt={shown.title || 'Image'} onClick={onZoom} />
      </div>
      {many && <ViewerNav at={at} count={count} onStep={onStep} />}
    </div>
  );
}

/** The viewer's Previous and Next buttons. */
function ViewerNav({ at, count, onStep }: Pick<ViewerProps, 'at' | 'count' | 'onStep'>) {
  return (
    <div class="lightbox-nav">
      <button
        class="secondary"
        aria-label="Previous image"
        disabled={at === 0}
        onClick={() => onStep(-1)}
      >
        ‹
      </button>
      <button
        class="secondary"
        aria-label="Next image"
        disabled={at === count - 1}
        onClick={() => onStep(1)}
      >
        ›
      </button>
    </div>
  );
}
