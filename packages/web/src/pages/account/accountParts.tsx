/** Pieces shared by the account settings sections: the section frame and the notice line. */
import { Alert, Card } from '@members/ui';
import type { ReactNode } from 'react';

export type Notice = { tone: 'success' | 'error'; text: string } | null;

export { errorText } from '@members/ui/format';

export function NoticeLine({ notice }: { notice: Notice }) {
  return notice ? <Alert tone={notice.tone}>{notice.text}</Alert> : null;
}

export function Section({ title, children, testId }: { title: string; children: ReactNode; testId: string }) {
  return (
    <Card title={title} className="account-section" data-testid={testId}>
      {children}
    </Card>
  );
}
