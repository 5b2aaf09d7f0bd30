/** AnalyticsCharts behind React.lazy, so recharts is fetched only when the panel renders. */
import { Suspense } from 'react';
import type { AnalyticsChartsProps } from './AnalyticsCharts';
import { Spinner } from './Feedback';
import { lazyScreen } from './lazyScreen';

const Charts = /* @__PURE__ */ lazyScreen(() => import('./AnalyticsCharts'));

export function LazyAnalyticsCharts(props: AnalyticsChartsProps) {
  return (
    <Suspense fallback={<Spinner label="Loading charts..." />}>
      <Charts {...props} />
    </Suspense>
  );
}
