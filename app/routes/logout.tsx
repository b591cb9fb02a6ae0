import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { safeRedirect } from "~/utils/auth.server";
import { assertSameOrigin } from "~/utils/csrf.server";
import { getSession, getSessionStorage } from "~/utils/session.server";

// Logout is a POST only: a link or an image cannot sign anyone out.
export async function loader() {
  return redirect("/");
}

export async function action({ request }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const form = await request.formData();
  const session = await getSession(request);
  session.unset("userId");
  session.flash("toast", { id: crypto.randomUUID(), type: "info", title: "Sesión cerrada" });
  return redirect(safeRedirect(form.get("redirectTo"), "/"), {
    headers: { "Set-Cookie": await getSessionStorage().commitSession(session) },
  });
}
