import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { resultFor } from "~/components/forms";
import { CancelBookingModal, NewBookingModal, NotFoundModal } from "~/components/portal/booking-modals";
import { CancelIncidentModal, EditIncidentModal, ReportIncidentModal } from "~/components/portal/incident-modals";
import { BookingsCard, BuildingCard, IncidentsCard, NotificationsCard } from "~/components/portal/portal-cards";
import { PasswordModal, ProfileModal } from "~/components/portal/profile-modals";
import { CancelVisitorPassModal, CreatedVisitorPassModal, InviteVisitorModal, VisitorPassesCard } from "~/components/visitor-passes";
import { requireUser } from "~/utils/auth.server";
import { pageMeta } from "~/utils/meta";
import { loadPortal, portalAction } from "./portal.server";

export const meta = pageMeta("Mi Portal");

// Rendered once per distinct data (ADR 0008): loaders and guards still run on every request.

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  return loadPortal(request, user);
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  return portalAction(request, user);
}

export default function Portal() {
  const { profile, now, bookingDates, bookingLimits, facilities, bookings, incidents, notifications, building, visitorPasses, visitorPassForm, modal, bookingDraft } =
    useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const created = actionData && "createdVisitorPass" in actionData ? actionData : null;
  const firstName = profile.firstName || profile.username;
  return (
    <>
      <header className="portal-header">
        <div>
          <h1>Bienvenido, {firstName}</h1>
          <p className="muted" data-testid="portal-unit">
            {profile.unitNumber ? `Unidad ${profile.unitNumber} · ` : ""}
            {profile.buildingName}
          </p>
        </div>
        <div className="actions">
          <Link to="?modal=reservar" className="button" preventScrollReset>
            Reservar
          </Link>
          <Link to="?modal=reportar" className="button" preventScrollReset>
            Reportar
          </Link>
          <Link to="?modal=perfil" className="button button-secondary" preventScrollReset>
            Mi Perfil
          </Link>
        </div>
      </header>
      <div className="portal-grid">
        <BookingsCard bookings={bookings} />
        <IncidentsCard incidents={incidents} />
        <NotificationsCard notifications={notifications} now={now} />
        <VisitorPassesCard passes={visitorPasses} />
        <BuildingCard building={building} now={now} />
      </div>

      {modal.name === "reservar" ? (
        <NewBookingModal facilities={facilities} dates={bookingDates} limits={bookingLimits} draft={bookingDraft} lastResult={resultFor(actionData, "create-booking")} />
      ) : null}
      {modal.name === "cancelar-reserva" ? (
        modal.booking ? (
          <CancelBookingModal booking={modal.booking} lastResult={resultFor(actionData, "cancel-booking")} />
        ) : (
          <NotFoundModal title="Cancelar reserva" message="Reserva no encontrada" />
        )
      ) : null}
      {modal.name === "reportar" ? <ReportIncidentModal lastResult={resultFor(actionData, "report-incident")} /> : null}
      {modal.name === "editar-incidencia" ? (
        modal.incident ? (
          <EditIncidentModal incident={modal.incident} lastResult={resultFor(actionData, "edit-incident")} />
        ) : (
          <NotFoundModal title="Editar Incidencia" message="Incidencia no encontrada" />
        )
      ) : null}
      {modal.name === "cancelar-incidencia" ? (
        modal.incident ? (
          <CancelIncidentModal incident={modal.incident} lastResult={resultFor(actionData, "cancel-incident")} />
        ) : (
          <NotFoundModal title="Cancelar incidencia" message="Incidencia no encontrada" />
        )
      ) : null}
      {created ? <CreatedVisitorPassModal pass={created.createdVisitorPass} qrSvg={created.qrSvg} /> : null}
      {modal.name === "invitar" && !created ? (
        <InviteVisitorModal doors={visitorPassForm.doors} dates={visitorPassForm.dates} lastResult={resultFor(actionData, "create-visitor-pass")} />
      ) : null}
      {modal.name === "anular-invitacion" ? (
        modal.visitorPass ? (
          <CancelVisitorPassModal pass={modal.visitorPass} errors={resultFor(actionData, "cancel-visitor-pass")?.error?.[""]} />
        ) : (
          <NotFoundModal title="Anular invitación" message="Invitación no encontrada" />
        )
      ) : null}
      {modal.name === "perfil" ? <ProfileModal profile={profile} lastResult={resultFor(actionData, "update-profile")} /> : null}
      {modal.name === "contrasena" ? <PasswordModal lastResult={resultFor(actionData, "change-password")} /> : null}
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
