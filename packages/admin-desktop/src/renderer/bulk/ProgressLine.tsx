/** A progress bar with "uploaded / total · speed". */
import { formatBytes, formatSpeed } from './rows.js';

export function ProgressLine({ label, done, total, speed }: { label: string; done: number; total: number; speed: number }) {
  return (
    <div className="progress-row">
      <progress aria-label={label} max={Math.max(total, 1)} value={Math.min(done, total)} />
      <span className="progress-text">
        {formatBytes(done)} / {formatBytes(total)} · {formatSpeed(speed)}
      </span>
    </div>
  );
}
