import { Form, NavLink, useLocation } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { ThemeSwitch } from "./theme-switch";
import type { ThemePreference } from "~/utils/theme";

const LINKS = [
  { to: "/admin", label: "Dashboard", end: true },
  { to: "/admin/users", label: "Usuarios", end: false },
  { to: "/admin/cards", label: "Gestionar Tarjetas", end: false },
  { to: "/admin/grupos", label: "Grupos de acceso", end: false },
  { to: "/admin/logs", label: "Registros", end: false },
  { to: "/admin/incidents", label: "Incidencias", end: false },
  { to: "/admin/reservations", label: "Reservas", end: false },
  { to: "/admin/habitaciones", label: "Habitaciones", end: false },
  { to: "/admin/ocupacion", label: "Ocupación", end: false },
  { to: "/admin/instalaciones", label: "Reservas de instalaciones", end: false },
  { to: "/admin/invitaciones", label: "Invitaciones", end: false },
  { to: "/admin/consultations", label: "Consultas", end: false },
  { to: "/admin/copias", label: "Copias de seguridad", end: false },
  { to: "/admin/auditoria", label: "Auditoría", end: false },
] as const;

/**
 * Below 768 px the sidebar is folded behind a checkbox toggle, which needs no
 * JavaScript; at 768 px and above the CSS always shows it.
 */
export function AdminSidebar({ theme, username }: { theme: ThemePreference; username: string }) {
  const toggle = useRef<HTMLInputElement>(null);
  const { pathname } = useLocation();
  // With JavaScript a link navigates without a reload: fold the menu again.
  useEffect(() => {
    if (toggle.current) toggle.current.checked = false;
  }, [pathname]);
  return (
    <>
      <input ref={toggle} type="checkbox" id="admin-nav-toggle" className="admin-nav-toggle" aria-controls="admin-sidebar" aria-label="Menú" />
      <label htmlFor="admin-nav-toggle" className="button button-secondary admin-nav-button">
        Menú
      </label>
      <aside id="admin-sidebar" className="sidebar">
        <div className="sidebar-title">Sistema de Gestión de Accesos</div>
        <nav aria-label="Administración">
          <ul>
            {LINKS.map((link) => (
              <li key={link.to}>
                <NavLink to={link.to} end={link.end} prefetch="intent">
                  {link.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <ThemeSwitch theme={theme} id="theme-admin" />
        <div className="muted">Sesión: {username}</div>
        <Form method="post" action="/logout">
          <input type="hidden" name="redirectTo" value="/login" />
          <button type="submit" className="button button-secondary">
            Cerrar Sesión
          </button>
        </Form>
        <a href="/">Ir al sitio público</a>
      </aside>
    </>
  );
}
