import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import {
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLoaderData,
  useLocation,
  useRouteLoaderData,
  type ShouldRevalidateFunction,
} from "@remix-run/react";
import { useEffect } from "react";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { SiteFooter } from "~/components/site-footer";
import { SiteHeader } from "~/components/site-header";
import { ToastProvider } from "~/components/toaster";
import { countUnread } from "~/services/notifications.server";
import stylesUrl from "~/styles/app.css?url";
import { getOptionalUser } from "~/utils/auth.server";
import { getEnv } from "~/utils/env.server";
import { getTheme } from "~/utils/theme.server";
import { DEFAULT_BUILDING_NAME } from "~/utils/meta";
import { useNonce } from "~/utils/nonce";
import type { Toast } from "~/utils/toast";
import { takeToasts } from "~/utils/toast.server";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: stylesUrl },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

// A page without its own title (an error page) still gets "<page> · <building>".
export const meta: MetaFunction<typeof loader> = ({ data, error }) => [
  { title: `${error ? "Error" : "Coliving y coworking en Asturias"} · ${data?.buildingName ?? DEFAULT_BUILDING_NAME}` },
  { name: "description", content: "Coliving y coworking en Asturias: habitaciones, salas de reuniones y comunidad." },
];

export async function loader({ request }: LoaderFunctionArgs) {
  const [user, theme, { toasts, headers }] = await Promise.all([getOptionalUser(request), getTheme(request), takeToasts(request)]);
  // The 'Mi Portal' button shows the signed-in user's unread notifications.
  const unreadNotifications = user ? await countUnread(user.id) : 0;
  return data(
    {
      user: user ? { username: user.username, role: user.role, unreadNotifications } : null,
      theme,
      toasts,
      buildingName: getEnv().BUILDING_NAME,
    },
    { headers },
  );
}

const NO_TOASTS: Toast[] = [];

/**
 * After every form post, even a refused one (Remix skips revalidation after a
 * 4xx/5xx action), the root loader runs again: it brings the toast the action
 * left in the flash cookie.
 */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formMethod, defaultShouldRevalidate }) =>
  (formMethod !== undefined && formMethod.toUpperCase() !== "GET") || defaultShouldRevalidate;

export function useRootData() {
  return useRouteLoaderData<typeof loader>("root");
}

export function Layout({ children }: { children: React.ReactNode }) {
  const rootData = useRouteLoaderData<typeof loader>("root");
  const location = useLocation();
  const inAdmin = location.pathname === "/admin" || location.pathname.startsWith("/admin/");
  const theme = rootData?.theme ?? "system";
  const buildingName = rootData?.buildingName ?? DEFAULT_BUILDING_NAME;
  const nonce = useNonce();
  return (
    <html lang="es" data-theme={theme}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body>
        <a className="skip-link" href="#main">
          Saltar al contenido
        </a>
        <ToastProvider toasts={rootData?.toasts ?? NO_TOASTS}>
          {inAdmin ? null : <SiteHeader user={rootData?.user ?? null} buildingName={buildingName} theme={theme} />}
          {inAdmin ? children : <main id="main">{children}</main>}
          {inAdmin ? null : <SiteFooter buildingName={buildingName} />}
        </ToastProvider>
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  useLoaderData<typeof loader>();
  useEffect(() => {
    // Lets end-to-end tests (and CSS, if ever needed) know React is in charge.
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
