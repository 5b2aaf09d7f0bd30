/** The way out of a page a signed-in account cannot get past (pending approval, not approved): sign out, or ask support. */
import { Button } from '@members/ui';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router-dom';
import { signOut } from '../app/session';

export function SignOutOrSupport() {
  const navigate = useNavigate();
  const qc = useQueryClient();
  return (
    <div className="button-row">
      <Button
        variant="secondary"
        onClick={async () => {
          await signOut(qc);
          navigate('/login');
        }}
      >
        Sign Out
      </Button>
      <Link className="btn btn-ghost" to="/contact">
        Contact Support
      </Link>
    </div>
  );
}
