/**
 * "Members": find any member by e-mail or name (newest first) and open their page. How a row links
 * is the host's choice (a router link on the web), through `renderMemberLink`.
 */
import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import type { ApiClient } from '../api/client';
import { adminQueries } from '../api/queries';
import type { MemberListRow } from '../api/types';
import { formatDate } from '../format/dates';
import { DataTable } from './DataTable';
import { Alert, Spinner } from './Feedback';
import { FormField } from './FormField';

export interface MemberSearchProps {
  api: ApiClient;
  renderMemberLink(member: { id: string; email: string }): ReactNode;
}

export function MemberSearch({ api, renderMemberLink }: MemberSearchProps) {
  const [q, setQ] = useState('');
  const found = useQuery(adminQueries(api).members(q.trim()));
  return (
    <div className="member-search">
      <FormField
        label="Find a member (e-mail or name)"
        name="memberSearch"
        type="search"
        value={q}
        onChange={(e) => setQ(e.target.value)}
      />
      {found.isError && <Alert>{(found.error as Error).message}</Alert>}
      {found.isPending ? (
        <Spinner label="Loading members..." />
      ) : (
        <DataTable<MemberListRow>
          caption={`Members (${found.data?.length ?? 0})`}
          rows={found.data ?? []}
          rowKey={(m) => m.id}
          empty="No members found"
          columns={[
            { key: 'email', header: 'Email', render: (m) => renderMemberLink(m) },
            { key: 'name', header: 'Name', render: (m) => <bdi>{[m.firstName, m.lastName].filter(Boolean).join(' ') || 'N/A'}</bdi> },
            { key: 'status', header: 'Status', render: (m) => m.status },
            { key: 'membership', header: 'Membership', render: (m) => m.membershipStatus },
            { key: 'date', header: 'Registration Date', render: (m) => formatDate(m.createdAt) },
          ]}
        />
      )}
    </div>
  );
}
