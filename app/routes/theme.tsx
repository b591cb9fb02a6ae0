import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { z } from "zod";
import { requireSameOrigin, safeRedirect } from "~/utils/auth.server";
import { readForm } from "~/utils/form-reply.server";
import { throwRefusal } from "~/utils/refusal.server";
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
  requireSameOrigin(request);
  const parsed = ThemeSchema.safeParse(Object.fromEntries(await readForm(request)));
  if (!parsed.success) throwRefusal({ status: 400, message: "Tema no válido" });
  return redirect(safeRedirect(parsed.data.redirectTo, "/"), {
    headers: { "Set-Cookie": await serializeTheme(parsed.data.theme) },
  });
}
