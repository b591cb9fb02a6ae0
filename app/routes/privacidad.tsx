import { useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { getEnv } from "~/utils/env.server";
import { pageMeta } from "~/utils/meta";
import { cachedPageHandle } from "~/utils/page-handle";

export const meta = pageMeta("Política de Privacidad");
export const handle = cachedPageHandle();

/**
 * How long each kind of data is kept, as the daily purges apply it
 * (app/boot.server.ts): consultations and closed fault reports, the
 * access log (kept whole while ACCESS_LOG_RETENTION_MONTHS is unset) and the
 * audit trail.
 */
export function loader() {
  const env = getEnv();
  return {
    retentionMonths: env.RETENTION_MONTHS,
    accessLogMonths: env.ACCESS_LOG_RETENTION_MONTHS ?? null,
    auditMonths: env.AUDIT_RETENTION_MONTHS,
  };
}

function monthsText(months: number) {
  return months === 1 ? "1 mes" : `${months} meses`;
}

export default function PrivacyPage() {
  const { retentionMonths, accessLogMonths, auditMonths } = useLoaderData<typeof loader>();
  const retention = monthsText(retentionMonths);
  return (
    <article className="card" style={{ maxWidth: "48rem" }}>
      <h1>Política de Privacidad</h1>
      <h2>Responsable</h2>
      <p>La Casona Coliving, Calle del Muelle 12, 33500 Llanes, Asturias. Contacto: hola@lacasona-coliving.es.</p>
      <h2>Qué datos tratamos y para qué</h2>
      <ul>
        <li>Reservas: nombre, email, teléfono, fechas y peticiones, para gestionar tu reserva y contactarte sobre ella.</li>
        <li>Consultas y visitas: nombre, email, teléfono y mensaje, para responderte y organizar la visita.</li>
        <li>Avisos de averías: nombre, planta y descripción, para gestionar la reparación.</li>
        <li>Residentes: datos de la cuenta y de las tarjetas de acceso, para el acceso al edificio y los servicios del portal. Cada uso de una tarjeta queda registrado por seguridad.</li>
        <li>Registro de cambios: cada cambio hecho en el panel de administración o en tu cuenta, los inicios y cierres de sesión y las acciones sobre tu reserva quedan anotados con quién los hizo (nombre de usuario o código de reserva), la dirección IP y la hora, para poder comprobar qué pasó.</li>
      </ul>
      <p>La base legal es la ejecución de la reserva o del contrato que solicitas y nuestro interés legítimo en la seguridad del edificio. Guardamos también la dirección IP de los formularios para evitar abusos.</p>
      <h2>Cuánto tiempo</h2>
      <p data-testid="access-retention">
        Reservas: hasta un año después de la estancia, salvo obligación legal.{" "}
        {accessLogMonths === null
          ? "Registros de acceso: el tiempo que fije la administración del edificio."
          : `Registros de acceso: se borran automáticamente a los ${monthsText(accessLogMonths)}.`}{" "}
        Registro de cambios: se borra automáticamente a los {monthsText(auditMonths)}.
      </p>
      <p data-testid="retention">
        Consultas y solicitudes de visita, con la dirección IP desde la que se enviaron: se borran automáticamente a los {retention} de
        recibirlas. Avisos de averías: se borran automáticamente {retention} después de cerrarlos. El borrado se hace cada día.
      </p>
      <h2>Cookies</h2>
      <p>Solo usamos cookies necesarias: la de sesión (para mantenerte identificado), la del tema de colores que eliges y una de un solo uso para mostrarte el resultado de tu reserva. No usamos cookies de analítica ni de publicidad, por eso no te pedimos consentimiento.</p>
      <h2>Tus derechos</h2>
      <p>Puedes pedir el acceso, la rectificación, la supresión, la limitación u oposición y la portabilidad de tus datos escribiendo a hola@lacasona-coliving.es, y reclamar ante la Agencia Española de Protección de Datos (www.aepd.es).</p>
    </article>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
