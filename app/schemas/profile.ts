// A user's own profile and password (SPEC §3 User profile), for the portal's
// forms and the JSON API.
import * as z from "zod/mini";
import { email, newPassword, optionalText, phone, requiredText } from "./fields";

/** An empty value means "not given", as a form without JavaScript sends it. */
const emptyAsUndefined = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);

export const ProfileSchema = z.object({
  firstName: requiredText("El nombre es requerido", 80),
  lastName: optionalText(80),
  email: email({ required: "El email es requerido", invalid: "El email no es válido" }),
  phone: z.pipe(z.transform(emptyAsUndefined), z.optional(phone({ required: "El teléfono es requerido", invalid: "El teléfono no es válido" }))),
});

export type ProfileInput = z.output<typeof ProfileSchema>;

export const PasswordChangeSchema = z.object({
  currentPassword: z.string({ error: "La contraseña actual es requerida" }).check(z.minLength(1, "La contraseña actual es requerida"), z.maxLength(200)),
  newPassword: newPassword("La nueva contraseña es requerida"),
});

export type PasswordChangeInput = z.output<typeof PasswordChangeSchema>;

/** The portal's form also asks for the new password twice. */
export const PasswordFormSchema = z
  .extend(PasswordChangeSchema, {
    confirmPassword: z.string({ error: "Repite la nueva contraseña" }).check(z.minLength(1, "Repite la nueva contraseña")),
  })
  .check(
    z.refine((value) => value.newPassword === value.confirmPassword, {
      message: "Las contraseñas no coinciden",
      path: ["confirmPassword"],
    }),
  );
