/**
 * Drives a native <dialog> from an `open` flag: `showModal()` when it opens (focus moves inside, Tab
 * stays inside, Escape fires `cancel`), `close()` when it closes (focus returns to the opener).
 * `onShow` runs just before it is shown, e.g. to reset a form.
 */
import { useEffect, useRef } from 'react';

export function useModalDialog(open: boolean, onShow?: (dialog: HTMLDialogElement) => void) {
  const ref = useRef<HTMLDialogElement>(null);
  const onShowRef = useRef(onShow);
  onShowRef.current = onShow;
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      onShowRef.current?.(d);
      if (typeof d.showModal === 'function') d.showModal();
      else d.setAttribute('open', '');
    } else if (!open && d.open) d.close();
  }, [open]);
  return ref;
}
