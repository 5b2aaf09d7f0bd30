/** A small coloured label (plan, status, NEW/4K badges). */
import type { ReactNode } from 'react';
import type { BadgeTone } from '../format/subscriptionBadge';

export function StatusBadge({
  tone = 'neutral',
  children,
  className,
}: {
  tone?: BadgeTone | 'brand';
  children: ReactNode;
  className?: string;
}) {
  return <span className={['badge', `badge-${tone}`, className ?? ''].filter(Boolean).join(' ')}>{children}</span>;
}
