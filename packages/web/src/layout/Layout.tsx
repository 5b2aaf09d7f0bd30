/**
 * The site layout of spec §2: a fixed top bar (Home, Videos, Models; welcome line, Admin badge,
 * Subscribe, Chat (members with chat access, with the unread count), Account (the member's settings), Admin, Logout when logged in; Login and 'JOIN NOW' when not) and the footer links.
 */
import { StatusBadge } from '@members/ui';
import { useBrandPalette } from '@members/ui/theme/apply';
import { useEffect, useState } from 'react';
import { Link, NavLink, Outlet, useLocation } from 'react-router-dom';
import { useProfileSync, useSession } from '../app/session';
import { useSite } from '../app/site';
import { ChatLink } from './ChatLink';

export function Layout() {
  const { user, loggedIn, admin } = useSession();
  const site = useSite();
  const [menuOpen, setMenuOpen] = useState(false);
  const { pathname } = useLocation();
  useProfileSync();
  useBrandPalette(site.theme);

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every navigation
  useEffect(() => {
    setMenuOpen(false);
    window.scrollTo(0, 0);
  }, [pathname]);

  useEffect(() => {
    document.title = site.siteName;
  }, [site.siteName]);

  const name = user?.firstName || user?.email;

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar-inner">
          <Link to="/" className="brand">
            {site.siteName}
          </Link>
          <button
            type="button"
            className="menu-toggle"
            aria-expanded={menuOpen}
            aria-controls="site-menu"
            aria-label={menuOpen ? 'Close menu' : 'Open menu'}
            onClick={() => setMenuOpen((o) => !o)}
          >
            <span aria-hidden="true">{menuOpen ? '✕' : '☰'}</span>
          </button>
          <nav id="site-menu" className={`site-menu${menuOpen ? ' open' : ''}`} aria-label="Main">
            <ul className="nav-links">
              <li>
                <NavLink to="/" end>
                  Home
                </NavLink>
              </li>
              <li>
                <NavLink to="/videos">Videos</NavLink>
              </li>
              <li>
                <NavLink to="/models">Models</NavLink>
              </li>
            </ul>
            <div className="nav-user">
              {loggedIn ? (
                <>
                  <span className="welcome">
                    Welcome, <bdi>{name}</bdi>
                    {admin && (
                      <StatusBadge tone="brand" className="admin-badge">
                        Admin
                      </StatusBadge>
                    )}
                  </span>
                  <NavLink to="/subscription">Subscribe</NavLink>
                  <ChatLink />
                  <NavLink to="/account" end>
                    Account
                  </NavLink>
                  {admin && <NavLink to="/admin">Admin</NavLink>}
                  <Link to="/logout" className="btn btn-ghost btn-sm">
                    Logout
                  </Link>
                </>
              ) : (
                <>
                  <NavLink to="/login">Login</NavLink>
                  <Link to="/register" className="btn btn-primary btn-sm">
                    JOIN NOW
                  </Link>
                </>
              )}
            </div>
          </nav>
        </div>
      </header>
      <main id="main" className="main" tabIndex={-1}>
        <Outlet />
      </main>
      <footer className="footer">
        <nav aria-label="Legal">
          <ul className="footer-links">
            <li>
              <Link to="/tos">Terms of Service</Link>
            </li>
            <li>
              <Link to="/privacy">Privacy Policy</Link>
            </li>
            <li>
              <Link to="/contact">Contact</Link>
            </li>
            <li>
              <Link to="/dmca">DMCA</Link>
            </li>
            <li>
              <Link to="/2257">18 U.S.C. 2257</Link>
            </li>
          </ul>
        </nav>
        <p className="muted">
          © {new Date().getFullYear()} {site.siteName}. All models were 18 years of age or older at the time of production.
        </p>
      </footer>
    </>
  );
}
