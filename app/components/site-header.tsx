import { Form, NavLink, useLocation } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { Logo } from "./logo";
import { ThemeSwitch } from "./theme-switch";
import type { ThemePreference } from "~/utils/theme";

type HeaderUser = { username: string; role: "user" | "admin"; unreadNotifications: number } | null;

/**
 * Below 768 px the navigation and account buttons fold behind "Menú" (a
 * checkbox toggle, so it works without JavaScript), keeping the bar to one row.
 */
export function SiteHeader({ user, buildingName, theme }: { user: HeaderUser; buildingName: string; theme: ThemePreference }) {
  const toggle = useRef<HTMLInputElement>(null);
  const { pathname } = useLocation();
  useEffect(() => {
    if (toggle.current) toggle.current.checked = false;
  }, [pathname]);
  return (
    <header className="topbar">
      <div className="topbar-inner">
        <a href="/" className="brand">
          <Logo />
          <span>{buildingName}</span>
        </a>
        <input ref={toggle} type="checkbox" id="site-nav-toggle" className="site-nav-toggle" aria-controls="site-nav" aria-label="Menú" />
        <label htmlFor="site-nav-toggle" className="button button-secondary button-small site-nav-button">
          Menú
        </label>
        <div id="site-nav" className="site-nav">
          <nav aria-label="Principal" className="topnav">
            <NavLink to="/" end>
              Inicio
            </NavLink>
            <NavLink to="/reservar">Reservar</NavLink>
            <NavLink to="/consulta">Consulta</NavLink>
          </nav>
          <div className="topbar-user">
            <ThemeSwitch theme={theme} id="theme-top" />
            {user ? (
              <>
                <span data-testid="welcome">Bienvenido, {user.username}</span>
                <a
                  className="button button-secondary button-small"
                  href="/portal"
                  aria-label={user.unreadNotifications > 0 ? `Mi Portal, ${unreadLabel(user.unreadNotifications)}` : undefined}
                >
                  Mi Portal
                  {user.unreadNotifications > 0 ? (
                    <span className="count-badge" aria-hidden="true" data-testid="unread-count">
                      {user.unreadNotifications > 99 ? "99+" : user.unreadNotifications}
                    </span>
                  ) : null}
                </a>
                {user.role === "admin" ? (
                  <a className="button button-secondary button-small" href="/admin">
                    Panel Admin
                  </a>
                ) : null}
                <Form method="post" action="/logout" className="inline-form">
                  <input type="hidden" name="redirectTo" value="/" />
                  <button type="submit" className="button button-small">
                    Cerrar Sesión
                  </button>
                </Form>
              </>
            ) : (
              <a className="button button-small" href="/login">
                Iniciar Sesión
              </a>
            )}
          </div>
        </div>
      </div>
    </header>
  );
}

export function unreadLabel(count: number) {
  return count === 1 ? "1 notificación sin leer" : `${count} notificaciones sin leer`;
}
