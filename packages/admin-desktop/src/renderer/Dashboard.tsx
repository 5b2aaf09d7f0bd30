/**
 * The admin dashboard: the very component the web /admin renders, from @members/ui. A member's
 * e-mail (pending list, member search) opens their page in place: history from their events and
 * erasure, the same MemberHistoryView as the web's /admin/users/:id. A library row's "Preview" opens
 * the video's player page on the server in the system browser (the console has no player of its own).
 */
import { AdminDashboard, Button, can, MemberHistoryView, type StaffRole } from '@members/ui';
import type { ApiClient } from '@members/ui/api';
import { useState } from 'react';
import type { DesktopApi } from '../shared/ipc.js';
import { useSite } from './useSite.js';

export function Dashboard({ api, desktop, staffRole }: { api: ApiClient; desktop: DesktopApi; staffRole: StaffRole }) {
  const { models, explorerTemplate } = useSite(api);
  const [memberId, setMemberId] = useState<string | null>(null);
  if (memberId)
    return (
      <div>
        <Button variant="ghost" onClick={() => setMemberId(null)}>
          ← Back to the dashboard
        </Button>
        <MemberHistoryView key={memberId} client={api} memberId={memberId} explorerTemplate={explorerTemplate} staffRole={staffRole} />
      </div>
    );
  return (
    <AdminDashboard
      client={api}
      staffRole={staffRole}
      models={models}
      explorerTemplate={explorerTemplate}
      renderMemberLink={(m) =>
        can(staffRole, 'members.history') ? (
          <button type="button" className="link-button" onClick={() => setMemberId(m.id)}>
            {m.email}
          </button>
        ) : (
          m.email
        )
      }
      renderVideoPreview={(v) => (
        <Button
          size="sm"
          variant="secondary"
          onClick={() => void desktop.shell.previewVideo({ videoId: v.id })}
          aria-label={`Preview ${v.title}`}
        >
          Preview
        </Button>
      )}
    />
  );
}
