/**
 * The analytics panel: one line chart per numeric series of the per-day points from GET /admin/analytics.
 * Loaded lazily (recharts is large); import `LazyAnalyticsCharts` from the package root.
 */
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { AnalyticsPoint } from '../api/types';

const COLORS = ['#e91e63', '#4fc3f7', '#81c784', '#ffb74d', '#ba68c8', '#fff176'];

function label(key: string): string {
  return key
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]/g, ' ')
    .replace(/^./, (c) => c.toUpperCase());
}

export interface AnalyticsChartsProps {
  points: AnalyticsPoint[];
}

export default function AnalyticsCharts({ points }: AnalyticsChartsProps) {
  const keys = [...new Set(points.flatMap((p) => Object.keys(p).filter((k) => k !== 'date' && typeof p[k] === 'number')))];
  if (!points.length || !keys.length) return <p className="empty-state">No analytics data yet</p>;
  // Money-like series (BTC, sats, revenue) get their own chart so counts stay readable.
  const money = keys.filter((k) => /revenue|btc|sats|amount/i.test(k));
  const counts = keys.filter((k) => !money.includes(k));
  const groups = [counts, money].filter((g) => g.length);
  return (
    <div className="charts">
      {groups.map((group) => (
        <figure key={group.join()} className="chart" aria-label={`Daily ${group.map(label).join(', ')}`}>
          <ResponsiveContainer width="100%" height={260}>
            <LineChart data={points} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#333" />
              <XAxis dataKey="date" stroke="#aaa" fontSize={12} />
              <YAxis stroke="#aaa" fontSize={12} allowDecimals={group === money} />
              <Tooltip animationDuration={400} contentStyle={{ background: '#1b1b1f', border: '1px solid #333' }} />
              <Legend />
              {group.map((k) => (
                <Line
                  key={k}
                  type="monotone"
                  dataKey={k}
                  name={label(k)}
                  stroke={COLORS[keys.indexOf(k) % COLORS.length]}
                  dot={false}
                  strokeWidth={2}
                />
              ))}
            </LineChart>
          </ResponsiveContainer>
        </figure>
      ))}
    </div>
  );
}
