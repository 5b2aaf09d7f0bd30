/** What a reconciliation reports: one difference between replayed and live state, and the replayed totals. */
export interface Difference {
  check: string;
  subject: string;
  message: string;
  expected?: unknown;
  actual?: unknown;
}

export interface ReplayedTotals {
  revenueSats: number;
  verifiedPayments: number;
  pendingPayments: number;
  activeSubscribers: number;
  subscriptions: number;
}
