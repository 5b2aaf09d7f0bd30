/** AnalyticsCharts behind React.lazy, so recharts is fetched only when the panel renders. */
import { lazy, Suspense } from 'react';
import type { AnalyticsChartsProps } from './AnalyticsCharts';
import { Spinner } from './Feedback';

const Charts = /* @__PURE__ */ lazy(() => import('./AnalyticsCharts'));

export function LazyAnalyticsCharts(props: AnalyticsChartsProps) {
  return (
    <Suspense fallback={<Spinner label="Loading charts..." />}>
      <Charts {...props} />
    </Suspense>
  );
}
