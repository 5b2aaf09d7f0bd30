/**
 * `/account/your-data`: what a rejected member's restricted session offers. Their registration was
 * not approved, so the site stays closed to them, but their data rights do not depend on approval:
 * they download everything stored about them and can delete the account (the same forms as the
 * account settings), or sign out. The API allows exactly these routes to a rejected member.
 */
import { StatusBadge } from '@members/ui';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, Navigate } from 'react-router-dom';
import { session } from '../../app/api';
import { useSession } from '../../app/session';
import { SignOutOrSupport } from '../../layout/SignOutOrSupport';
import { DeleteAccount, DownloadData } from './YourData';

export default function RejectedAccount() {
  const { loggedIn, user } = useSession();
  const qc = useQueryClient();
  const [deleted, setDeleted] = useState(false);

  if (deleted)
    return (
      <div className="auth-page">
        <div className="card auth-card" data-testid="account-deleted" role="status">
          <h1>Your account has been deleted</h1>
          <p>Your personal data has been erased and you have been signed out.</p>
          <Link className="btn btn-primary" to="/">
            Return Home
          </Link>
        </div>
      </div>
    );
  if (!loggedIn || !user) return <Navigate to="/login" replace />;
  if (user.status !== 'rejected') return <Navigate to="/account" replace />;

  return (
    <div className="container narrow section account-page" data-testid="rejected-account">
      <h1>Your data</h1>
      <div className="card">
        <p>
          Your account registration was not approved, so the site is not available to you. You can still download a copy of everything we
          store about you, or delete your account and personal data.
        </p>
        <dl className="details">
          <dt>Email</dt>
          <dd>{user.email}</dd>
          <dt>Status</dt>
          <dd>
            <StatusBadge tone="danger">Not approved</StatusBadge>
          </dd>
        </dl>
        <SignOutOrSupport />
      </div>
      <DownloadData />
      <DeleteAccount
        restricted
        onDeleted={() => {
          setDeleted(true);
          session.clear();
          qc.clear();
        }}
      />
    </div>
  );
}
