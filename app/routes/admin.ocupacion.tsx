import type { LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation } from "@remix-run/react";
import { OccupancyBookingModal, OccupancyCards, OccupancyGrid, OccupancyLegend, OccupancyNotFoundModal, OccupancyStayModal } from "~/components/admin/occupancy-views";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { requireAdmin } from "~/utils/auth.server";
import { formatIsoDay, addDays } from "~/utils/dates";
import { pageMeta } from "~/utils/meta";
import { withSearchParams } from "~/utils/page-url";
import { loadOccupancyPage } from "./admin.ocupacion.server";

export const meta = pageMeta("Ocupación");

// Rendered once per distinct data (ADR 0008): loaders and guards still run on every request.

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return loadOccupancyPage(request);
}

export default function OccupancyPage() {
  const { occupancy, modal } = useLoaderData<typeof loader>();
  const { search } = useLocation();
  const here = (changes: Record<string, string | null>) => withSearchParams("/admin/ocupacion", search, changes);
  const closeTo = here({ modal: null, reservation: null, booking: null });
  // Hundreds of links: the query is built once, each link only appends its id.
  const join = closeTo.includes("?") ? "&" : "?";
  const links = {
    stay: (id: string) => `${closeTo}${join}modal=stay&reservation=${encodeURIComponent(id)}`,
    booking: (id: string) => `${closeTo}${join}modal=booking&booking=${encodeURIComponent(id)}`,
  };
  const last = addDays(occupancy.to, -1);
  return (
    <>
      <h1>Ocupación</h1>
      <p className="muted">
        Habitaciones y salas del {formatIsoDay(occupancy.from)} al {formatIsoDay(last)}: cada estancia en su habitación, cada reserva de sala en su día.
      </p>
      <Form method="get" className="admin-toolbar" aria-label="Elegir fechas" key={occupancy.from}>
        <div className="field">
          <label htmlFor="occupancy-from">Desde</label>
          <input id="occupancy-from" type="date" name="from" defaultValue={occupancy.from} required />
        </div>
        <button type="submit" className="button">
          Ver
        </button>
        <Link to={`/admin/ocupacion?from=${occupancy.previous}`} className="button button-secondary" aria-label="Los 14 días anteriores">
          ← Anteriores
        </Link>
        <Link to="/admin/ocupacion" className="button button-secondary">
          Hoy
        </Link>
        <Link to={`/admin/ocupacion?from=${occupancy.next}`} className="button button-secondary" aria-label="Los 14 días siguientes">
          Siguientes →
        </Link>
      </Form>
      <OccupancyLegend />
      <OccupancyGrid occupancy={occupancy} links={links} />
      <OccupancyCards occupancy={occupancy} links={links} />

      {modal.name && !modal.stay && !modal.booking ? <OccupancyNotFoundModal closeTo={closeTo} /> : null}
      {modal.stay ? <OccupancyStayModal reservation={modal.stay} closeTo={closeTo} /> : null}
      {modal.booking ? <OccupancyBookingModal booking={modal.booking} closeTo={closeTo} /> : null}
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
