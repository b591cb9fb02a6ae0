// Users and their cards: the list query, the admin's forms and the JSON API
// bodies (one schema per form, shared by the browser and the server).
// Browser-safe.
import * as z from "zod/mini";
import { CARD_TYPES, USER_ROLES, USER_STATUSES } from "~/db/schema-enums";
import { accessGroupIdsField } from "./access-group";
import { email, isCalendarDay, newPassword, optionalMultilineText, optionalPhone, optionalText, pagingFields, requiredText } from "./fields";

export type UserRole = (typeof USER_ROLES)[number];
export type UserStatus = (typeof USER_STATUSES)[number];

export const USER_ROLE_LABELS: Record<UserRole, string> = { user: "Usuario", admin: "Administrador" };
export const USER_STATUS_LABELS: Record<UserStatus, string> = { active: "Activo", inactive: "Inactivo", suspended: "Suspendido" };

/** SPEC §9. */
export const USER_PAGE_SIZE = 10;
export const USER_LIST_MAX_LIMIT = 100;
export const ASSIGNABLE_CARDS_LIMIT = 100;
export const USER_SEARCH_MAX_LENGTH = 100;

/** SPEC §5: the warning when a required field is empty. */
export const REQUIRED_FIELDS_TITLE = "Campos requeridos";
export const REQUIRED_FIELDS_MESSAGE = "Por favor completa todos los campos obligatorios";

const USERNAME_REQUIRED = "El usuario es requerido";
const EMAIL_REQUIRED = "El email es requerido";
const PASSWORD_REQUIRED = "La contraseña es requerida";
const ROLE_REQUIRED = "El rol es requerido";
const CARD_REQUIRED = "Selecciona una tarjeta";
const REQUIRED_MESSAGES = new Set([USERNAME_REQUIRED, EMAIL_REQUIRED, PASSWORD_REQUIRED, ROLE_REQUIRED, CARD_REQUIRED]);

export const PASSWORD_LIKE_NAME = "La contraseña no puede ser igual al usuario ni al email";

/** A JSON body's null means "not given", like an empty form field. */
function orNull<S extends z.ZodMiniType>(schema: S): z.ZodMiniPipe<z.ZodMiniTransform<unknown, unknown>, S> {
  return z.pipe(
    z.transform<unknown, unknown>((value) => (value === null ? undefined : value)),
    schema,
  );
}

const username = z.pipe(
  requiredText(USERNAME_REQUIRED, 50),
  z
    .string()
    .check(
      z.minLength(3, "El usuario debe tener al menos 3 caracteres"),
      z.regex(/^[\p{L}\p{N}._@-]+$/u, "El usuario solo admite letras, números, puntos, guiones, guiones bajos y @"),
    ),
);

const password = newPassword(PASSWORD_REQUIRED);

const role = z.enum(USER_ROLES, {
  error: (issue) => (issue.input === undefined ? ROLE_REQUIRED : "El rol debe ser user (Usuario) o admin (Administrador)"),
});
const STATUS_MESSAGE = "El estado debe ser active (Activo), inactive (Inactivo) o suspended (Suspendido)";
const status = z.enum(USER_STATUSES, { error: STATUS_MESSAGE });

const identityFields = {
  username,
  email: email({ required: EMAIL_REQUIRED, invalid: "El email no es válido" }),
};

const profileFields = {
  firstName: orNull(optionalText(100)),
  lastName: orNull(optionalText(100)),
  department: orNull(optionalText(100)),
  phone: orNull(optionalPhone("El teléfono no es válido")),
  role,
  notes: orNull(optionalMultilineText(1000)),
  unitNumber: orNull(optionalText(20)),
  /** Access group ids; left out: the API keeps them (a new resident gets the default group). */
  accessGroups: accessGroupIdsField,
};

type PasswordCheck = { username: string; email: string; password?: string };

/** The password may not be the username or the email. */
function passwordUnlikeName(value: PasswordCheck, context: z.core.$RefinementCtx<PasswordCheck>) {
  if (!value.password) return;
  const typed = value.password.normalize("NFKC").toLowerCase();
  if (typed === value.username.toLowerCase() || typed === value.email.toLowerCase()) {
    context.addIssue({ code: "custom", path: ["password"], message: PASSWORD_LIKE_NAME });
  }
}

/** 'Crear Usuario' and POST /api/users. */
export const UserCreateSchema = z
  .object({ ...identityFields, password, ...profileFields, status: z._default(status, "active") })
  .check(z.superRefine(passwordUnlikeName));

/** 'Editar' and PUT /api/users/{id}: an empty or missing password, or a missing status, keeps the current one. */
export const UserUpdateSchema = z
  .object({
    ...identityFields,
    password: z.pipe(
      z.transform((value: unknown) => (value === "" || value === null ? undefined : value)),
      z.optional(password),
    ),
    ...profileFields,
    status: z.optional(status),
  })
  .check(z.superRefine(passwordUnlikeName));

export type UserInput = z.output<typeof UserUpdateSchema>;
export type NewUserInput = z.output<typeof UserCreateSchema>;

/** PUT /api/users/{id}/status. */
export const UserStatusSchema = z.object({
  status,
});

/** The list: /admin/users and GET /api/users. */
export const UserFiltersSchema = z.object({
  search: z._default(
    z.string().check(z.trim(), z.maxLength(USER_SEARCH_MAX_LENGTH, `La búsqueda admite como máximo ${USER_SEARCH_MAX_LENGTH} caracteres`)),
    "",
  ),
});

export const UserListQuerySchema = z.extend(UserFiltersSchema, pagingFields(USER_LIST_MAX_LIMIT, USER_PAGE_SIZE));

const EXPIRY_INVALID = "La fecha de expiración no es válida";
const EXPIRY_PAST = "La fecha de expiración no puede ser anterior a hoy";
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A card's expiry: a day ("YYYY-MM-DD", the card works until that day ends in
 * the building), or for the API also an exact ISO instant; neither in the
 * past. Empty or null: no expiry.
 */
function expiry(today: string) {
  return z.pipe(
    z.transform((value: unknown) => (value === null || value === "" ? undefined : value)),
    z.optional(
      z.string({ error: EXPIRY_INVALID }).check(
        z.trim(),
        z.superRefine((value: string, context) => {
          if (isCalendarDay(value)) {
            if (value < today) context.addIssue({ code: "custom", message: EXPIRY_PAST });
          } else if (!INSTANT.test(value) || Number.isNaN(Date.parse(value))) {
            context.addIssue({ code: "custom", message: EXPIRY_INVALID });
          } else if (Date.parse(value) <= Date.now()) {
            context.addIssue({ code: "custom", message: EXPIRY_PAST });
          }
        }),
      ),
    ),
  );
}

export const CARD_TYPE_DEFAULT = "primary";

function cardDetails(today: string) {
  return {
    alias: orNull(optionalText(100)),
    description: orNull(optionalMultilineText(500)),
    cardType: z._default(z.enum(CARD_TYPES, { error: "El tipo debe ser primary, secondary, temporary o emergency" }), CARD_TYPE_DEFAULT),
    expiresAt: expiry(today),
  };
}

/**
 * 'Asignar Tarjeta' and POST /api/users/{userId}/cards. `today` is the
 * building's date. The page also sends `reassignFrom`: the holder the admin
 * agreed to take the card from.
 */
export function createCardAssignmentSchema({ today }: { today: string }) {
  return z.object({
    cardNumber: requiredText(CARD_REQUIRED, 64),
    ...cardDetails(today),
    reassignFrom: optionalText(64),
    /** The page's offer when the user's groups open no door: the group to add them to first. */
    joinGroup: optionalText(64),
  });
}

/** The API also accepts the older field names, cardId and expirationDate. */
export function createApiCardAssignmentSchema({ today }: { today: string }) {
  return z.pipe(
    z.transform((body: unknown) => {
      if (typeof body !== "object" || body === null) return body;
      const { cardId, expirationDate, ...rest } = body as Record<string, unknown>;
      return { ...rest, cardNumber: rest.cardNumber ?? cardId, expiresAt: rest.expiresAt !== undefined ? rest.expiresAt : expirationDate };
    }),
    z.omit(createCardAssignmentSchema({ today }), { reassignFrom: true, joinGroup: true }),
  );
}

/** 'Actualizar Tarjeta' and PUT /api/users/{userId}/cards/{cardId}. */
export function createUserCardUpdateSchema({ today }: { today: string }) {
  return z.object(cardDetails(today));
}

export type CardAssignmentInput = z.output<ReturnType<typeof createCardAssignmentSchema>>;
export type UserCardUpdateInput = z.output<ReturnType<typeof createUserCardUpdateSchema>>;

/**
 * How a form refused in the browser or by the server is announced: SPEC's
 * 'Campos requeridos' warning when a required field is empty, otherwise an
 * error titled `failureTitle` with the messages.
 */
export function validationNotice(errors: Record<string, string[] | null> | null | undefined, failureTitle: string) {
  const messages = [...new Set(Object.values(errors ?? {}).flatMap((list) => list ?? []))];
  if (messages.some((message) => REQUIRED_MESSAGES.has(message))) {
    return { type: "warning" as const, title: REQUIRED_FIELDS_TITLE, description: REQUIRED_FIELDS_MESSAGE };
  }
  return { type: "error" as const, title: failureTitle, description: messages.join(", ") };
}
