/** The admin stat cards: Pending Approvals, Active Members, Total Revenue (BTC string), Pending Payments. */
import type { ReactNode } from 'react';
import type { AdminStats } from '../api/types';
import { formatBtc } from '../money/btc';

export function StatCard({ label, value, hint }: { label: ReactNode; value: ReactNode; hint?: ReactNode }) {
  return (
    <div className="stat-card">
      <div className="stat-label">{label}</div>
      <div className="stat-value">{value}</div>
      {hint && <div className="stat-hint">{hint}</div>}
    </div>
  );
}

export function StatCards({ stats }: { stats: AdminStats }) {
  return (
    <section className="stat-grid" aria-label="Site statistics">
      <StatCard label="Pending Approvals" value={stats.pendingApprovals} />
      <StatCard label="Active Members" value={stats.activeMembers} />
      <StatCard label="Total Revenue" value={formatBtc(stats.totalRevenue)} />
      <StatCard label="Pending Payments" value={stats.pendingPayments} />
    </section>
  );
}
