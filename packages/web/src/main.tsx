/** Entry: providers, the age gate, the router; removes the page-loading class after 1000 ms. */
import '@members/ui/styles.css';
import './web.css';
import { ApiClientProvider } from '@members/ui';
import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router-dom';
import { api, restoreSession, routeApiRedirectsThrough } from './app/api';
import { createQueryClient } from './app/queryClient';
import { router } from './app/routes';
import { AgeGate } from './layout/AgeGate';

export const PAGE_LOADING_MS = 1000;

const queryClient = createQueryClient();

setTimeout(() => document.body.classList.remove('page-loading'), PAGE_LOADING_MS);
// A refused call moves the tab within the app, as the pages' own guards do (app/api.ts).
// To /login (the session is gone): the cached answers of the account that was signed in go too,
// as the full page load that did this before dropped them.
routeApiRedirectsThrough((path) => {
  if (path === '/login') queryClient.clear();
  void router.navigate(path, { replace: true });
});

// The session comes back from the refresh cookie before the first render (app/api.ts).
void restoreSession().finally(() =>
  createRoot(document.getElementById('root') as HTMLElement).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <ApiClientProvider client={api}>
          <AgeGate>
            <RouterProvider router={router} />
          </AgeGate>
        </ApiClientProvider>
      </QueryClientProvider>
    </StrictMode>,
  ),
);
