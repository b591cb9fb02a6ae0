import * as z from "zod/mini";

export const REQUIRED_LOGIN = "Por favor complete todos los campos";

export const LoginSchema = z.object({
  username: z.string({ error: REQUIRED_LOGIN }).check(z.trim(), z.minLength(1, REQUIRED_LOGIN), z.maxLength(100)),
  password: z.string({ error: REQUIRED_LOGIN }).check(z.minLength(1, REQUIRED_LOGIN), z.maxLength(200)),
  redirectTo: z.optional(z.string().check(z.maxLength(500))),
});
