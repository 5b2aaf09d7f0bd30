/**
 * The routes of spec §2. Every page is its own lazily loaded chunk, so `/` never loads the admin,
 * the player or the chart code.
 */

import { Spinner } from '@members/ui';
import { lazy, type ReactNode, Suspense } from 'react';
import { createBrowserRouter, Navigate } from 'react-router-dom';
import { Layout } from '../layout/Layout';
import { RouteError } from '../pages/RouteError';

const Landing = lazy(() => import('../pages/Landing'));
const Login = lazy(() => import('../pages/Login'));
const Register = lazy(() => import('../pages/Register'));
const RegistrationSuccess = lazy(() => import('../pages/RegistrationSuccess'));
const PendingApproval = lazy(() => import('../pages/PendingApproval'));
const Videos = lazy(() => import('../pages/Videos'));
const VideoDetail = lazy(() => import('../pages/VideoDetail'));
const Subscription = lazy(() => import('../pages/subscription/SubscriptionPage'));
const Admin = lazy(() => import('../pages/Admin'));
const Models = lazy(() => import('../pages/Models'));
const Records2257 = lazy(() => import('../pages/static/Records2257'));
const Contact = lazy(() => import('../pages/static/Contact'));
const Dmca = lazy(() => import('../pages/static/Dmca'));
const Privacy = lazy(() => import('../pages/static/Privacy'));
const Terms = lazy(() => import('../pages/static/Terms'));
const Logout = lazy(() => import('../pages/Logout'));
const ForgotPassword = lazy(() => import('../pages/auth/ForgotPassword'));
const StaffInvitation = lazy(() => import('../pages/auth/StaffInvitation'));
const VerifyEmail = lazy(() => import('../pages/auth/VerifyEmail'));
const RedirectToMarketplace = lazy(() => import('../pages/auth/RedirectToMarketplace'));
const NotFound = lazy(() => import('../pages/errors/NotFound'));
const ServerError = lazy(() => import('../pages/errors/ServerError'));
const Blocked = lazy(() => import('../pages/Blocked'));
const TwoFactor = lazy(() => import('../pages/account/TwoFactor'));
const Account = lazy(() => import('../pages/account/Account'));
const RejectedAccount = lazy(() => import('../pages/account/RejectedAccount'));
const ConfirmEmail = lazy(() => import('../pages/auth/ConfirmEmail'));
const AdminMember = lazy(() => import('../pages/admin/Member'));
const AdminLeaks = lazy(() => import('../pages/admin/Leaks'));
const AdminLive = lazy(() => import('../pages/admin/Live'));
const Chat = lazy(() => import('../pages/Chat'));
const CustomRequests = lazy(() => import('../pages/CustomRequests'));
const LiveShow = lazy(() => import('../live/LiveShowPage'));

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
