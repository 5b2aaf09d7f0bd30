/**
 * `/account`: the member's settings. Their name; change the password (the current one is asked; every other
 * device is signed out), change the e-mail address (a link goes to the new address), the optional
 * second factor (managed on `/account/two-factor`), the signed-in sessions (sign one or all others
 * out), the mail settings (`#notifications`), "Download my data" (JSON and a readable HTML summary) and "Delete my account".
 */

import { REJECTED_MEMBER_PATH } from '@members/ui/format';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, Navigate } from 'react-router-dom';
import { session } from '../../app/api';
import { useSession } from '../../app/session';
import { ChangeEmail, ChangeName, ChangePassword } from './Credentials';
import { Notifications } from './Notifications';
import { Passkeys } from './Passkeys';
import { Sessions, TwoFactorSummary } from './SessionsAndFactor';
import { DeleteAccount, DownloadData } from './YourData';

export default function Account() {
  const { loggedIn, user } = useSession();
  const qc = useQueryClient();
  const [deleted, setDeleted] = useState(false);

  if (deleted)
    return (
      <div className="auth-page">
        <div className="card auth-card" data-testid="account-deleted">
          <h1>Your account has been deleted</h1>
          <p>Your personal data has been erased and you have been signed out. Thank you for having been with us.</p>
          <Link className="btn btn-primary" to="/">
            Return Home
          </Link>
        </div>
      </div>
    );
  if (!loggedIn || !user) return <Navigate to="/login" replace />;
  if (user.status === 'rejected') return <Navigate to={REJECTED_MEMBER_PATH} replace />;

  return (
    <div className="container narrow section account-page">
      <h1>Account settings</h1>
      <ChangeName firstName={user.firstName ?? ''} lastName={user.lastName ?? ''} />
      <ChangePassword />
      <ChangeEmail email={user.email} />
      <TwoFactorSummary />
      <Passkeys />
      <Sessions />
      <Notifications />
      <DownloadData />
      <DeleteAccount
        onDeleted={() => {
          setDeleted(true);
          // The server has ended every session; forget this one here too.
          session.clear();
          qc.clear();
        }}
      />
    </div>
  );
}
