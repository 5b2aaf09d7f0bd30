/** Account settings: the mail settings (docs/chat.md): one discreet mail when the team replies while the member is away. */
import { Alert, CheckboxField, Spinner } from '@members/ui';
import { CHAT_REPLY_MAIL_LABEL } from '@members/ui/format';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../app/api';
import { errorText, type Notice, NoticeLine, Section } from './accountParts';

const KEY = ['notification-settings'];

export function Notifications() {
  const qc = useQueryClient();
  const settings = useQuery({ queryKey: KEY, queryFn: () => api.notificationSettings(), retry: false });
  const [notice, setNotice] = useState<Notice>(null);
  // The choice while it is being saved: the box follows the click at once (React state, set in the
  // event), then the saved value, or the old one on error.
  const [choice, setChoice] = useState<boolean | null>(null);
  const save = useMutation({
    mutationFn: (chatReplyMail: boolean) => api.setNotificationSettings({ chatReplyMail }),
    onSuccess: (saved) => {
      qc.setQueryData(KEY, saved);
      setChoice(null);
      setNotice({
        tone: 'success',
        text: saved.chatReplyMail ? 'We will e-mail you about new replies.' : 'No more e-mails about new replies.',
      });
    },
    onError: (err) => {
      setChoice(null);
      setNotice({ tone: 'error', text: errorText(err, 'Could not save the setting') });
    },
  });

  return (
    <Section title="E-mail notifications" testId="notifications">
      {/* The mail's settings link and List-Unsubscribe point here (/account#notifications). */}
      <span id="notifications" />
      {settings.isPending ? (
        <Spinner label="Loading..." />
      ) : settings.isError ? (
        <Alert>{errorText(settings.error, 'Could not load your e-mail settings')}</Alert>
      ) : (
        <>
          <CheckboxField
            label={CHAT_REPLY_MAIL_LABEL}
            checked={choice ?? settings.data.chatReplyMail}
            disabled={save.isPending}
            onChange={(e) => {
              setChoice(e.target.checked);
              save.mutate(e.target.checked);
            }}
          />
          <p className="muted">
            At most one short e-mail until you have read the reply; it never contains the message, only a link to your chat.
          </p>
        </>
      )}
      <NoticeLine notice={notice} />
    </Section>
  );
}
