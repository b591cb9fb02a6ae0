import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { DataTable } from "~/components/admin/list-parts";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { FormAlert, resultFor, SubmitButton } from "~/components/forms";
import { BACKUP_TRIGGER_LABELS, formatBytes } from "~/schemas/backup";
import { requireAdmin } from "~/utils/auth.server";
import { formatDateTime, formatDateTimeSeconds } from "~/utils/dates";
import { pageMeta } from "~/utils/meta";
import { backupsAction, loadBackupsPage } from "./admin.copias.server";

export const meta = pageMeta("Copias de seguridad");

// Rendered once per distinct data (ADR 0008): loaders and guards still run on every request.

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return loadBackupsPage();
}

export async function action({ request }: ActionFunctionArgs) {
  await requireAdmin(request);
  return backupsAction(request);
}

const COLUMNS = ["Fecha", "Tamaño", "Tipo", "Archivo", "Acciones"];

export default function BackupsPage() {
  const { backups, failure, settings } = useLoaderData<typeof loader>();
  const refused = resultFor(useActionData<typeof action>(), "create-backup")?.error?.[""];
  const newest = backups[0];
  // A failure older than the newest archive has been followed by a good backup.
  const failureResolved = Boolean(failure && newest && newest.createdAt > failure.at);
  return (
    <>
      <h1>Copias de seguridad</h1>
      <p className="muted">
        Cada día a las {settings.hour} (hora de Madrid) se hace una copia de la base de datos y de las fotos de las incidencias; se
        guardan las {settings.keep} más recientes en <code>{settings.directory}</code>.
      </p>
      {settings.remoteDatabase ? (
        <div className="alert alert-warning" role="status">
          La base de datos es remota: sus copias de seguridad son tarea del servidor remoto.
        </div>
      ) : null}
      {failure ? (
        <div className={`alert ${failureResolved ? "alert-warning" : "alert-error"}`} role={failureResolved ? "status" : "alert"} data-testid="backup-failure">
          <strong>Último fallo:</strong> {formatDateTime(failure.at)} ({BACKUP_TRIGGER_LABELS[failure.trigger]}): {failure.message}
          {failureResolved ? ". Después se hizo una copia correcta." : null}
        </div>
      ) : null}
      {refused ? <FormAlert title="No se pudo crear la copia de seguridad" errors={refused} /> : null}
      <Form method="post" className="admin-toolbar">
        <SubmitButton intent="create-backup" label="Crear copia ahora" busyLabel="Creando copia…" />
      </Form>
      <p className="muted" data-testid="backup-count">
        {backups.length === 1 ? "1 copia" : `${backups.length} copias`}
      </p>
      {backups.length === 0 ? (
        <p>Todavía no hay copias de seguridad.</p>
      ) : (
        <DataTable caption="Copias de seguridad, la más reciente primero" columns={COLUMNS}>
          {backups.map((backup) => (
            <tr key={backup.name}>
              <td data-label="Fecha">{formatDateTimeSeconds(backup.createdAt)}</td>
              <td data-label="Tamaño">{formatBytes(backup.sizeBytes)}</td>
              <td data-label="Tipo">{BACKUP_TRIGGER_LABELS[backup.trigger]}</td>
              <td data-label="Archivo">
                <code className="file-name">{backup.name}</code>
              </td>
              <td data-label="Acciones">
                <a
                  href={`/admin/copias/${encodeURIComponent(backup.name)}`}
                  className="button button-small button-secondary"
                  download
                  aria-label={`Descargar la copia del ${formatDateTimeSeconds(backup.createdAt)}`}
                >
                  Descargar
                </a>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
