/** `/logout`: ends the session and goes to /login. */
import { Spinner } from '@members/ui';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useNavigate } from 'react-router-dom';
import { signOut } from '../app/session';

export default function Logout() {
  const qc = useQueryClient();
  const navigate = useNavigate();
  useEffect(() => {
    let active = true;
    signOut(qc).then(() => {
      if (active) navigate('/login', { replace: true });
    });
    return () => {
      active = false;
    };
  }, [qc, navigate]);
  return <Spinner label="Signing out..." />;
}
