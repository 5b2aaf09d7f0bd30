/** Prometheus metrics: the per-context registry, the HTTP middleware, and the /metrics endpoint. */
export { type MetricsListener, metricsOnMainPort, startMetricsListener } from './endpoint.js';
export { countedBody, createMetrics, httpMetrics, type Metrics, trackUploads, UNMATCHED_ROUTE } from './metrics.js';
