/** Leak tracing (docs/leak-tracing.md): send a leaked copy to be examined, then read the outcome. */
import type { LeakExamination, LeakExaminations } from '../types';
import type { Calls } from './session';
import type { createUploads } from './uploads';

export function leakCalls({ get }: Calls, upload: ReturnType<typeof createUploads>['upload']) {
  return {
    /** Past examinations (newest first), whether this server marks streams, and the largest copy accepted. */
    leakExaminations: () => get<LeakExaminations>('/admin/leaks/examinations', { fallbackError: 'Failed to load the examinations' }),
    /** Sends a leaked copy to be examined in the background: poll `leakExamination(id)` for the outcome. */
    examineLeakCopy: (file: Blob, opts: { videoId?: string; fileName?: string } = {}, onProgress?: (fraction: number) => void) => {
      const form = new FormData();
      // Fields first, the file last: the server streams the file to disk as it arrives.
      if (opts.videoId) form.set('videoId', opts.videoId);
      form.set('file', file, opts.fileName ?? (file instanceof File && file.name ? file.name : 'copy'));
      return upload<LeakExamination>('/admin/leaks/examinations', form, onProgress, 'Failed to send the copy');
    },
    leakExamination: (id: string) =>
      get<LeakExamination>(`/admin/leaks/examinations/${encodeURIComponent(id)}`, { fallbackError: 'Failed to load the examination' }),
  };
}
