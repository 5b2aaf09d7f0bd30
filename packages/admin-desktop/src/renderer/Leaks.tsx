/**
 * Leak tracing in the desktop console: the shared screen of the web /admin/leaks, with the copy
 * picked in the native file dialog and streamed to the server by the main process (the renderer
 * reads no bytes of it); the outcome is polled through the renderer's API client.
 */
import { LeakTracing } from '@members/ui';
import type { ApiClient } from '@members/ui/api';
import type { DesktopApi } from '../shared/ipc.js';
import { localFile } from './apiClient.js';

export function Leaks({ desktop, api }: { desktop: DesktopApi; api: ApiClient }) {
  return (
    <LeakTracing
      client={api}
      chooseFile={async () => {
        const [chosen] = await desktop.files.choose({ folders: false });
        return chosen ? localFile(chosen) : null;
      }}
    />
  );
}
