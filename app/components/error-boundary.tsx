import { isRouteErrorResponse, useRouteError } from "@remix-run/react";

const MESSAGES: Record<number, { title: string; description: string }> = {
  400: { title: "Solicitud no válida", description: "Revisa los datos enviados e inténtalo de nuevo." },
  403: { title: "Acceso denegado", description: "No tienes permiso para ver esta página." },
  404: { title: "Página no encontrada", description: "La página que buscas no existe o ha sido movida." },
  413: { title: "Solicitud demasiado grande", description: "La solicitud es demasiado grande. Acorta el texto e inténtalo de nuevo." },
  429: { title: "Demasiados intentos", description: "Por favor espera un momento antes de intentar nuevamente." },
};

const SERVER_ERROR = {
  title: "Error del servidor",
  description: "Ha ocurrido un error inesperado. Por favor inténtalo de nuevo más tarde.",
};

/** Spanish error page for any route: 404 and friends, or an unexpected 500. */
export function GeneralErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  if (!isRouteErrorResponse(error)) console.error(error);
  const message = MESSAGES[status] ?? SERVER_ERROR;
  return (
    <div className="error-page" role="alert">
      <p className="muted">Error {status}</p>
      <h1>{message.title}</h1>
      <p>{message.description}</p>
      <p>
        <a className="button" href="/">
          Volver al inicio
        </a>
      </p>
    </div>
  );
}
