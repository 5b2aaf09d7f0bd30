/** Prometheus metrics: the per-context registry, the HTTP middleware, and the /metrics endpoint. */
export { metricsOnMainPort, type MetricsListener, startMetricsListener } from './endpoint.js';
export { countedBody, createMetrics, httpMetrics, type Metrics, trackUploads, UNMATCHED_ROUTE } from './metrics.js';
