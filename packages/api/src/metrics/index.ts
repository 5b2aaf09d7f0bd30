/** Prometheus metrics: the per-context registry, the HTTP middleware, and the /metrics endpoint. */
export { type MetricsListener, metricsOnMainPort, startMetricsListener } from './endpoint.js';
export {
  countedBody,
  createMetrics,
  type GaugeSample,
  httpMetrics,
  type Metrics,
  type ModuleGauge,
  trackUploads,
  UNMATCHED_ROUTE,
} from './metrics.js';
