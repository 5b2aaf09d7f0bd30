/** A surface with an optional heading. */
import type { HTMLAttributes, ReactNode } from 'react';

export interface CardProps extends Omit<HTMLAttributes<HTMLElement>, 'title'> {
  title?: ReactNode;
  headingLevel?: 2 | 3;
  actions?: ReactNode;
}

export function Card({ title, headingLevel = 2, actions, className, children, ...rest }: CardProps) {
  const H = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <section className={['card', className ?? ''].filter(Boolean).join(' ')} {...rest}>
      {(title || actions) && (
        <div className="card-header">
          {title && <H className="card-title">{title}</H>}
          {actions}
        </div>
      )}
      {children}
    </section>
  );
}
