import type { LoaderFunctionArgs } from "@remix-run/node";
import { Outlet, useLoaderData } from "@remix-run/react";
import { AdminSidebar } from "~/components/admin-sidebar";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { requireAdmin } from "~/utils/auth.server";
import { getTheme } from "~/utils/theme.server";

export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  return { username: admin.username, theme: await getTheme(request) };
}

export default function AdminLayout() {
  const { username, theme } = useLoaderData<typeof loader>();
  return (
    <div className="admin-shell">
      <AdminSidebar theme={theme} username={username} />
      <main id="main" className="admin-main">
        <Outlet />
      </main>
    </div>
  );
}

export function ErrorBoundary() {
  return (
    <main id="main">
      <GeneralErrorBoundary />
    </main>
  );
}
