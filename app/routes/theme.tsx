import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { z } from "zod";
import { safeRedirect } from "~/utils/auth.server";
import { assertSameOrigin } from "~/utils/csrf.server";
import { THEMES } from "~/utils/theme";
import { serializeTheme } from "~/utils/theme.server";

const ThemeSchema = z.object({
  theme: z.enum([...THEMES, "system"]),
  redirectTo: z.string().optional(),
});

export async function loader() {
  return redirect("/");
}

export async function action({ request }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const parsed = ThemeSchema.safeParse(Object.fromEntries(await request.formData()));
  if (!parsed.success) throw new Response("Tema no válido", { status: 400 });
  return redirect(safeRedirect(parsed.data.redirectTo, "/"), {
    headers: { "Set-Cookie": await serializeTheme(parsed.data.theme) },
  });
}
