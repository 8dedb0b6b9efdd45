import { useEffect, useRef, useState } from 'preact/hooks';

interface Shown {
  src: string;
  title: string;
  href: string;
}

/**
 * What messages' content does when clicked, for every message on the page: an image preview
 * opens in a viewer over the page (Esc or a click closes it), and a spoiler's header shows or
 * hides what it hides.
 */
export function Lightbox() {
  const [shown, setShown] = useState<Shown | null>(null);
  const close = useRef<HTMLButtonElement>(null);
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
      const link = img.closest('a');
      const href = link?.getAttribute('href') ?? img.src;
      // The original where it is ours (uploads), else the preview shown.
      const ownHref = href.startsWith('/') && !href.startsWith('//');
      setShown({
        src: ownHref ? href : img.src,
        title: link?.getAttribute('title') ?? img.alt,
        href,
      });
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
  useEffect(() => {
    if (!shown) return;
    close.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        setShown(null);
      }
    };
    document.addEventListener('keydown', onKey, true);
    return () => document.removeEventListener('keydown', onKey, true);
  }, [shown]);
  if (!shown) return null;
  return (
    <div
      class="lightbox"
      role="dialog"
      aria-modal="true"
      aria-label={shown.title || 'Image'}
      onClick={(e) => {
        if (e.target === e.currentTarget) setShown(null);
      }}
    >
      <div class="lightbox-bar">
        <span class="lightbox-title">{shown.title}</span>
        <a href={shown.href} target="_blank" rel="noopener noreferrer">
          Open original
        </a>
        <button ref={close} class="secondary" onClick={() => setShown(null)}>
          Close
        </button>
      </div>
      <img src={shown.src} alt={shown.title || 'Image'} />
    </div>
  );
}
