/**
 * The routes of spec §2. Every page is its own lazily loaded chunk, so `/` never loads the admin,
 * the player or the chart code (`lazyScreen`: a chunk cancelled by leaving the page renders nothing,
 * a chunk gone after a deploy reloads the document once).
 */

import { lazyScreen, Spinner } from '@members/ui';
import { type ReactNode, Suspense } from 'react';
import { createBrowserRouter, Navigate } from 'react-router-dom';
import { Layout } from '../layout/Layout';
import { RouteError } from '../pages/RouteError';

const Landing = lazyScreen(() => import('../pages/Landing'));
const Login = lazyScreen(() => import('../pages/Login'));
const Register = lazyScreen(() => import('../pages/Register'));
const RegistrationSuccess = lazyScreen(() => import('../pages/RegistrationSuccess'));
const PendingApproval = lazyScreen(() => import('../pages/PendingApproval'));
const Videos = lazyScreen(() => import('../pages/Videos'));
const VideoDetail = lazyScreen(() => import('../pages/VideoDetail'));
const Subscription = lazyScreen(() => import('../pages/subscription/SubscriptionPage'));
const Admin = lazyScreen(() => import('../pages/Admin'));
const Models = lazyScreen(() => import('../pages/Models'));
const Records2257 = lazyScreen(() => import('../pages/static/Records2257'));
const Contact = lazyScreen(() => import('../pages/static/Contact'));
const Dmca = lazyScreen(() => import('../pages/static/Dmca'));
const Privacy = lazyScreen(() => import('../pages/static/Privacy'));
const Terms = lazyScreen(() => import('../pages/static/Terms'));
const Logout = lazyScreen(() => import('../pages/Logout'));
const ForgotPassword = lazyScreen(() => import('../pages/auth/ForgotPassword'));
const StaffInvitation = lazyScreen(() => import('../pages/auth/StaffInvitation'));
const VerifyEmail = lazyScreen(() => import('../pages/auth/VerifyEmail'));
const RedirectToMarketplace = lazyScreen(() => import('../pages/auth/RedirectToMarketplace'));
const NotFound = lazyScreen(() => import('../pages/errors/NotFound'));
const ServerError = lazyScreen(() => import('../pages/errors/ServerError'));
const Blocked = lazyScreen(() => import('../pages/Blocked'));
const TwoFactor = lazyScreen(() => import('../pages/account/TwoFactor'));
const Account = lazyScreen(() => import('../pages/account/Account'));
const RejectedAccount = lazyScreen(() => import('../pages/account/RejectedAccount'));
const ConfirmEmail = lazyScreen(() => import('../pages/auth/ConfirmEmail'));
const AdminMember = lazyScreen(() => import('../pages/admin/Member'));
const AdminLeaks = lazyScreen(() => import('../pages/admin/Leaks'));
const AdminLive = lazyScreen(() => import('../pages/admin/Live'));
const Chat = lazyScreen(() => import('../pages/Chat'));
const CustomRequests = lazyScreen(() => import('../pages/CustomRequests'));
const LiveShow = lazyScreen(() => import('../live/LiveShowPage'));

function page(el: ReactNode) {
  return <Suspense fallback={<Spinner label="Loading..." />}>{el}</Suspense>;
}

export const router = createBrowserRouter([
  {
    path: '/',
    element: <Layout />,
    errorElement: <RouteError />,
    children: [
      { index: true, element: page(<Landing />) },
      { path: 'home', element: <Navigate to="/videos" replace /> },
      { path: 'login', element: page(<Login />) },
      { path: 'register', element: page(<Register />) },
      { path: 'registration-success', element: page(<RegistrationSuccess />) },
      { path: 'pending-approval', element: page(<PendingApproval />) },
      { path: 'videos', element: page(<Videos />) },
      { path: 'videos/:id', element: page(<VideoDetail />) },
      { path: 'subscription', element: page(<Subscription />) },
      { path: 'admin', element: page(<Admin />) },
      { path: 'admin/users/:id', element: page(<AdminMember />) },
      { path: 'admin/leaks', element: page(<AdminLeaks />) },
      { path: 'admin/live', element: page(<AdminLive />) },
      { path: 'models', element: page(<Models />) },
      { path: '2257', element: page(<Records2257 />) },
      { path: 'contact', element: page(<Contact />) },
      { path: 'dmca', element: page(<Dmca />) },
      { path: 'privacy', element: page(<Privacy />) },
      { path: 'tos', element: page(<Terms />) },
      { path: 'logout', element: page(<Logout />) },
      { path: 'blocked', element: page(<Blocked />) },
      { path: 'account', element: page(<Account />) },
      { path: 'chat', element: page(<Chat />) },
      { path: 'custom-requests', element: page(<CustomRequests />) },
      { path: 'live/:id', element: page(<LiveShow />) },
      { path: 'account/two-factor', element: page(<TwoFactor />) },
      { path: 'account/your-data', element: page(<RejectedAccount />) },
      { path: 'auth/login', element: <Navigate to="/login" replace /> },
      { path: 'auth/forgot-password', element: page(<ForgotPassword />) },
      { path: 'auth/reset-password', element: page(<ForgotPassword />) },
      { path: 'auth/staff-invitation', element: page(<StaffInvitation />) },
      { path: 'auth/verify-email', element: page(<VerifyEmail />) },
      { path: 'auth/confirm-email', element: page(<ConfirmEmail />) },
      { path: 'auth/redirect', element: page(<RedirectToMarketplace />) },
      { path: 'auth/*', element: <Navigate to="/login" replace /> },
      { path: 'error/500', element: page(<ServerError />) },
      { path: 'error', element: page(<NotFound />) },
      { path: 'error/*', element: page(<NotFound />) },
      { path: '*', element: <Navigate to="/" replace /> },
    ],
  },
]);
