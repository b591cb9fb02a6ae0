// The resident's profile (SPEC §3 User profile) and password, as URL-state
// modals of the portal.
import { getFormProps, type SubmissionResult } from "@conform-to/react";
import { Form, Link } from "@remix-run/react";
import { RouteModal } from "~/components/admin/route-modal";
import { FormAlert, InputField, SubmitButton, useSchemaForm } from "~/components/forms";
import { EMAIL_PATTERN, PASSWORD_MIN_LENGTH } from "~/schemas/fields";
import { PasswordFormSchema, ProfileSchema } from "~/schemas/profile";
import type { ProfileJson } from "~/services/profile.server";

const CLOSE_TO = "/portal";

export function ProfileModal({ profile, lastResult }: { profile: ProfileJson; lastResult?: SubmissionResult<string[]> }) {
  const [form, fields] = useSchemaForm(ProfileSchema, {
    id: "profile",
    lastResult,
    defaultValue: {
      firstName: profile.firstName ?? "",
      lastName: profile.lastName ?? "",
      email: profile.email,
      phone: profile.phone ?? "",
    },
  });
  return (
    <RouteModal title="Mi Perfil" closeTo={CLOSE_TO}>
      <dl className="details">
        <dt>Usuario</dt>
        <dd>{profile.username}</dd>
        <dt>Unidad</dt>
        <dd>{profile.unitNumber ?? "No especificado"}</dd>
        <dt>Edificio</dt>
        <dd>{profile.buildingName}</dd>
      </dl>
      <Form method="post" {...getFormProps(form)} className="form" preventScrollReset>
        <FormAlert id={form.errorId} title="No se pudo actualizar el perfil" errors={form.errors} />
        <div className="field-row">
          <InputField label="Nombre" meta={fields.firstName} autoComplete="given-name" />
          <InputField label="Apellidos (opcional)" meta={fields.lastName} autoComplete="family-name" />
        </div>
        <InputField
          label="Email"
          meta={fields.email}
          type="email"
          autoComplete="email"
          // An address stored before today's rule (the first admin's admin@localhost) says what to fix up front.
          hint={EMAIL_PATTERN.test(profile.email) ? undefined : `Tu email actual (${profile.email}) no es válido: escribe una dirección completa, como nombre@dominio.es.`}
        />
        <InputField label="Teléfono (opcional)" meta={fields.phone} type="tel" autoComplete="tel" />
        <div className="modal-actions">
          <Link className="button button-secondary" to="?modal=contrasena" preventScrollReset>
            Cambiar contraseña
          </Link>
          <SubmitButton intent="update-profile" label="Guardar Perfil" busyLabel="Guardando..." />
        </div>
      </Form>
    </RouteModal>
  );
}

export function PasswordModal({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const [form, fields] = useSchemaForm(PasswordFormSchema, {
    id: "password",
    lastResult,
  });
  return (
    <RouteModal title="Cambiar contraseña" closeTo={CLOSE_TO}>
      <Form method="post" {...getFormProps(form)} className="form" preventScrollReset>
        <FormAlert id={form.errorId} title="No se pudo cambiar la contraseña" errors={form.errors} />
        <InputField label="Contraseña actual" meta={fields.currentPassword} type="password" autoComplete="current-password" />
        <InputField
          label="Nueva contraseña"
          meta={fields.newPassword}
          type="password"
          autoComplete="new-password"
          hint={`Al menos ${PASSWORD_MIN_LENGTH} caracteres.`}
        />
        <InputField label="Repite la nueva contraseña" meta={fields.confirmPassword} type="password" autoComplete="new-password" />
        <SubmitButton intent="change-password" label="Cambiar contraseña" busyLabel="Guardando..." />
      </Form>
    </RouteModal>
  );
}
