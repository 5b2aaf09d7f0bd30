/**
 * The frame of an admin page under `/admin/…`: sign-in first, 'Access Denied' for anyone but an
 * admin, then a link back to the dashboard and the page's heading above its content.
 */
import { AdminAccessDenied } from '@members/ui';
import type { ReactNode } from 'react';
import { Link, Navigate } from 'react-router-dom';
import { useSession } from '../../app/session';

export function AdminSubpage({ title, children }: { title: string; children: ReactNode }) {
  const { user, loggedIn, admin } = useSession();
  if (!loggedIn || !user) return <Navigate to="/login" replace />;
  if (!admin) return <AdminAccessDenied email={user.email} role={user.role} />;
  return (
    <div className="container section">
      <p>
        <Link to="/admin">← Admin Dashboard</Link>
      </p>
      <h1>{title}</h1>
      {children}
    </div>
  );
}
