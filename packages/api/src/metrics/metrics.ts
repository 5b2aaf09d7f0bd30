/**
 * The Prometheus series of one running API process, in a registry of its own (never prom-client's
 * global one), so several servers in one process (the tests) do not collide. Counters and histograms
 * are updated as things happen; the gauges read from the database and the event store at scrape
 * time, so they are exact whenever Prometheus looks and cost nothing in between.
 * Nothing here is labelled per process: Prometheus adds `instance` from the scrape target.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/types.js';
import type { AppendObserver } from '../eventstore/instrumentedStore.js';
import { subscriberLag } from '../eventstore/subscriber.js';
import type { EventStore } from '../eventstore/types.js';

/** The route label of requests no route handled (keeps raw URLs out of the label set). */
export const UNMATCHED_ROUTE = 'unmatched';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'route' | 'method' | 'status'>;
  httpDuration: Histogram<'route' | 'method' | 'status'>;
  bytesStreamed: Counter;
  /**
   * Uploads in progress, by `kind`: `multipart` — single-request uploads this process is receiving
   * right now (an upload route calls inc() on start and dec() when done, or mounts `trackUploads`);
   * `tus` — resumable uploads begun and not finished, on every process of the site (from the
   * database at scrape time, so the same figure on each process).
   */
  uploadsInProgress: Gauge<'kind'>;
  /** For the EventStore decorator (`instrumentStore`). */
  appendObserver: AppendObserver;
  /** The scrape-time gauges need the database and the store; called once both exist. */
  collectFrom(db: Db, store: EventStore): void;
  /** Registers the areas' own gauges (each module's `AppModule.gauges`); the composition root calls it once. */
  addGauges(gauges: readonly ModuleGauge[]): void;
}

/** One series of a labelled gauge. */
export interface GaugeSample {
  labels: Record<string, string>;
  value: number;
}

/**
 * A gauge an area exposes on /metrics (`AppModule.gauges`), read at scrape time so it is exact
 * whenever Prometheus looks and costs nothing in between. An area adds series to a gauge this file
 * owns (`uploads_in_progress`) by naming it: its samples are set beside the process's own.
 */
export interface ModuleGauge {
  name: string;
  help: string;
  labelNames?: readonly string[];
  /** The figure now; for a labelled gauge every series (those not listed are dropped). */
  read(): Promise<number | GaugeSample[]>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status class',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to the response headers, by route pattern, method and status class',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const bytesStreamed = new Counter({
    name: 'media_streamed_bytes_total',
    help: 'Media bytes the API process sent to clients: progressive video, HLS segments and preview sprites (with MEDIA_ACCEL=nginx nginx sends them and they are not counted here)',
    registers: [registry],
  });
  /** Series other areas add to `uploads_in_progress` (the uploads module's `kind="tus"`). */
  const uploadSeries: ModuleGauge['read'][] = [];
  const uploadsInProgress = new Gauge({
    name: 'uploads_in_progress',
    help: 'Video uploads in progress: kind="multipart" being received by this process right now; kind="tus" resumable uploads begun and not finished nor expired, on every process of the site (take the max across instances, not the sum)',
    labelNames: ['kind'] as const,
    registers: [registry],
    async collect() {
      for (const read of uploadSeries) {
        const figure = await read();
        if (typeof figure !== 'number') for (const { labels, value } of figure) this.set(labels, value);
      }
    },
  });
  uploadsInProgress.set({ kind: 'multipart' }, 0);
  let store = 'unknown';
  const appends = new Counter({
    name: 'eventstore_appended_events_total',
    help: 'Events appended to the event store',
    labelNames: ['store'] as const,
    registers: [registry],
  });
  const appendDuration = new Histogram({
    name: 'eventstore_append_duration_seconds',
    help: 'Duration of event store append calls (one transaction each), by outcome',
    labelNames: ['store', 'outcome'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });

  return {
    registry,
    httpRequests,
    httpDuration,
    bytesStreamed,
    uploadsInProgress,
    appendObserver: {
      appended(seconds, events, outcome) {
        appendDuration.observe({ store, outcome }, seconds);
        if (events > 0) appends.inc({ store }, events);
      },
    },
    collectFrom(db, eventStore) {
      store = db.dialect;
      registerScrapeGauges(registry, db, eventStore);
    },
    addGauges(gauges) {
      for (const gauge of gauges) {
        if (gauge.name === 'uploads_in_progress') uploadSeries.push(gauge.read);
        else registerModuleGauge(registry, gauge);
      }
    },
  };
}

function registerScrapeGauges(registry: Registry, db: Db, store: EventStore): void {
  new Gauge({
    name: 'eventstore_head_position',
    help: 'Highest global position in the event log',
    registers: [registry],
    async collect() {
      this.set(await store.headPosition());
    },
  });
  new Gauge({
    name: 'eventstore_subscriber_lag_positions',
    help: 'Head position minus each checkpointed subscriber’s checkpoint',
    labelNames: ['subscriber'] as const,
    registers: [registry],
    async collect() {
      const lags = await subscriberLag(db, store);
      this.reset();
      for (const r of lags) this.set({ subscriber: r.name }, r.lag);
    },
  });
}

function registerModuleGauge(registry: Registry, gauge: ModuleGauge): void {
  new Gauge({
    name: gauge.name,
    help: gauge.help,
    labelNames: gauge.labelNames ?? [],
    registers: [registry],
    async collect() {
      const figure = await gauge.read();
      if (typeof figure === 'number') return this.set(figure);
      this.reset();
      for (const { labels, value } of figure) this.set(labels, value);
    },
  });
}

/** The route pattern that answered (Hono's `routePath` of the last handler run), never the raw URL. */
function routeLabel(c: Context): string {
  let pattern: string | undefined;
  try {
    pattern = routePath(c);
  } catch {
    return UNMATCHED_ROUTE; // no router match recorded on this context
  }
  // A catch-all answering 404 (the API's fallback, or no route at all) is "unmatched".
  if (!pattern || (pattern.endsWith('*') && c.res.status === 404)) return UNMATCHED_ROUTE;
  return pattern;
}

/** Counts and times every request; mounted first on the app so it sees every answer. */
export function httpMetrics(metrics: Metrics): MiddlewareHandler {
  return async function recordHttpMetrics(c, next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      const labels = { route: routeLabel(c), method: c.req.method, status: `${Math.floor(c.res.status / 100)}xx` };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, (performance.now() - started) / 1000);
    }
  };
}

/** Middleware for upload routes: the upload counts as in progress until its handler has answered. */
export function trackUploads(metrics: Metrics, method = 'POST'): MiddlewareHandler {
  return async function countUploadInProgress(c, next) {
    if (c.req.method !== method) return next();
    metrics.uploadsInProgress.inc({ kind: 'multipart' });
    try {
      await next();
    } finally {
      metrics.uploadsInProgress.dec({ kind: 'multipart' });
    }
  };
}

/**
 * Wraps a Node stream as the response body, counting bytes as the HTTP layer takes them (pull-based,
 * no read-ahead), so a client that disconnects early is not credited with the rest of the file.
 */
export function countedBody(metrics: Metrics, source: AsyncIterable<Uint8Array> & { destroy(): void }): ReadableStream<Uint8Array> {
  const it = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { value, done } = await it.next();
        if (done) return controller.close();
        metrics.bytesStreamed.inc(value.byteLength);
        controller.enqueue(value);
      },
      cancel() {
        source.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}
