import { z } from "zod";

export const REQUIRED_LOGIN = "Por favor complete todos los campos";

export const LoginSchema = z.object({
  username: z.string({ error: REQUIRED_LOGIN }).trim().min(1, REQUIRED_LOGIN).max(100),
  password: z.string({ error: REQUIRED_LOGIN }).min(1, REQUIRED_LOGIN).max(200),
  redirectTo: z.string().max(500).optional(),
});
