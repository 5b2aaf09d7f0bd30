/** Frame for the policy pages: title, optional 'last updated' line, prose. */
import type { ReactNode } from 'react';

export function StaticPage({ title, lastUpdated, children }: { title: string; lastUpdated?: boolean; children: ReactNode }) {
  return (
    <div className="container narrow section prose">
      <h1>{title}</h1>
      {lastUpdated && (
        <p className="muted">Last updated: {new Date().toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric' })}</p>
      )}
      {children}
    </div>
  );
}
