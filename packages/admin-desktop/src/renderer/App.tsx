/**
 * The desktop shell: sign-in gate, then the dashboard, the members' chat, the bulk upload screen, live shows and leak tracing, each
 * screen shown only to a staff role with its permission (@members/ui/staffRoles; the server refuses the rest anyway).
 */
import { Button, can, SecondFactorSetup, Spinner, STAFF_ROLE_LABELS, StatusBadge } from '@members/ui';
import type { ApiClient } from '@members/ui/api';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useCallback, useEffect, useMemo, useState } from 'react';
import type { DesktopApi, SessionState } from '../shared/ipc.js';
import { createDesktopApiClient } from './apiClient.js';
import { BulkUpload } from './bulk/BulkUpload.js';
import { ChatScreen, useUnreadConversations } from './chat/Chat.js';
import { Dashboard } from './Dashboard.js';
import { Leaks } from './Leaks.js';
import { LiveShows } from './LiveShows.js';
import { SignIn } from './SignIn.js';

type Screen = 'dashboard' | 'chat' | 'bulk' | 'live' | 'leaks';

/** The nav's Chat button with the number of conversations holding unread member messages. */
function ChatNavButton({ desktop, api, current, onClick }: { desktop: DesktopApi; api: ApiClient; current: boolean; onClick(): void }) {
  const unread = useUnreadConversations(desktop, api);
  return (
    <NavButton current={current} onClick={onClick}>
      Chat
      {unread > 0 && (
        <StatusBadge tone="danger" className="desk-nav-badge">
          {unread}
          <span className="visually-hidden"> unread conversations</span>
        </StatusBadge>
      )}
    </NavButton>
  );
}

/** One screen's button in the nav: highlighted and `aria-current="page"` when it is the screen shown. */
function NavButton({ current, onClick, children }: { current: boolean; onClick(): void; children: ReactNode }) {
  return (
    <Button variant={current ? 'primary' : 'ghost'} size="sm" onClick={onClick} aria-current={current ? 'page' : undefined}>
      {children}
    </Button>
  );
}

/** Spec §8: keep unused data 5 minutes, retry failed fetches 3 times (1 s doubling to 30 s), never retry mutations. */
function makeQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: { gcTime: 5 * 60_000, retry: 3, retryDelay: (n) => Math.min(1000 * 2 ** n, 30_000), refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}

export function App({ desktop }: { desktop: DesktopApi }) {
  const [session, setSession] = useState<SessionState | null>(null);
  const [chosen, setScreen] = useState<Screen | null>(null);
  const queryClient = useMemo(makeQueryClient, []);
  const signOutLocally = useCallback(() => setSession((s) => (s ? { ...s, user: null } : s)), []);
  // The main process owns the session (and remembers the server URL): always read it back from there.
  const reload = useCallback(() => desktop.session.get().then(setSession, () => setSession({ serverUrl: null, user: null })), [desktop]);
  const api = useMemo(() => createDesktopApiClient(desktop, signOutLocally), [desktop, signOutLocally]);

  useEffect(() => {
    void reload();
  }, [reload]);

  if (!session) return <Spinner label="Loading..." />;
  const role = session.user?.staffRole ?? 'owner';
  const shown: Record<Screen, boolean> = {
    dashboard: true,
    chat: can(role, 'chat'),
    bulk: can(role, 'videos'),
    // Scheduling (owner, editor) or a show's chat room (owner, moderator, support).
    live: can(role, 'videos') || can(role, 'live.chat'),
    leaks: can(role, 'forensics'),
  };
  // The bulk upload first for whoever uploads (the console's main use), else the dashboard.
  const screen: Screen = chosen && shown[chosen] ? chosen : shown.bulk ? 'bulk' : 'dashboard';
  if (!session.user)
    return <SignIn key={session.serverUrl ?? ''} desktop={desktop} serverUrl={session.serverUrl} onSignedIn={() => void reload()} />;
  // The server allows nothing else until this admin has a second factor (REQUIRE_ADMIN_2FA).
  if (session.secondFactorSetupRequired)
    return (
      <main className="signin">
        <div className="card signin-card">
          <h1>Two-factor authentication</h1>
          <SecondFactorSetup
            required
            start={() => desktop.session.startEnrolment()}
            confirm={(code) => desktop.session.confirmEnrolment({ code })}
            onEnabled={() => void reload()}
          />
          <Button
            variant="ghost"
            onClick={async () => {
              await desktop.session.signOut();
              await reload();
            }}
          >
            Sign Out
          </Button>
        </div>
      </main>
    );

  return (
    <QueryClientProvider client={queryClient}>
      <header className="desk-header">
        <strong>Members Admin</strong>
        <nav aria-label="Screens">
          <NavButton current={screen === 'dashboard'} onClick={() => setScreen('dashboard')}>
            Dashboard
          </NavButton>
          {shown.chat && <ChatNavButton desktop={desktop} api={api} current={screen === 'chat'} onClick={() => setScreen('chat')} />}
          {shown.bulk && (
            <NavButton current={screen === 'bulk'} onClick={() => setScreen('bulk')}>
              Bulk upload
            </NavButton>
          )}
          {shown.live && (
            <NavButton current={screen === 'live'} onClick={() => setScreen('live')}>
              Live shows
            </NavButton>
          )}
          {shown.leaks && (
            <NavButton current={screen === 'leaks'} onClick={() => setScreen('leaks')}>
              Leak tracing
            </NavButton>
          )}
        </nav>
        <span className="muted desk-user">
          {session.user.email} ({STAFF_ROLE_LABELS[role]}) · {session.serverUrl}
        </span>
        <Button
          variant="secondary"
          size="sm"
          onClick={async () => {
            await desktop.session.signOut();
            queryClient.clear();
            await reload();
          }}
        >
          Sign Out
        </Button>
      </header>
      <main className="desk-main">
        {/* Both stay mounted so a running upload keeps its table while the admin looks at the dashboard. */}
        <div hidden={screen !== 'dashboard'}>{screen === 'dashboard' && <Dashboard api={api} desktop={desktop} staffRole={role} />}</div>
        <div hidden={screen !== 'chat'}>{screen === 'chat' && <ChatScreen desktop={desktop} api={api} />}</div>
        {shown.bulk && (
          <div hidden={screen !== 'bulk'}>
            <BulkUpload desktop={desktop} api={api} />
          </div>
        )}
        {screen === 'live' && <LiveShows desktop={desktop} api={api} staffRole={role} />}
        {screen === 'leaks' && <Leaks desktop={desktop} api={api} />}
      </main>
    </QueryClientProvider>
  );
}
