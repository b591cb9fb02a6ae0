import * as z from "zod/mini";
import { textRule } from "./fields";

export const REQUIRED_LOGIN = "Por favor complete todos los campos";

// The username follows the one text rule (no NUL, no lone surrogate, no line
// break): it names rate-limit keys and audit rows, so what cannot be stored
// is refused here, before anything is counted.
export const LoginSchema = z.object({
  username: z.string({ error: REQUIRED_LOGIN }).check(z.trim(), z.minLength(1, REQUIRED_LOGIN), z.maxLength(100), ...textRule()),
  password: z.string({ error: REQUIRED_LOGIN }).check(z.minLength(1, REQUIRED_LOGIN), z.maxLength(200)),
  redirectTo: z.optional(z.string().check(z.maxLength(500))),
});
