import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { signOut } from "~/services/sign-in.server";
import { endUserSession, getSessionId, requireSameOrigin, safeRedirect } from "~/utils/auth.server";
import { readForm } from "~/utils/form-reply.server";

// Logout is a POST only: a link or an image cannot sign anyone out.
export async function loader() {
  return redirect("/");
}

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const form = await readForm(request);
  const sessionId = await getSessionId(request);
  if (sessionId) await signOut(sessionId);
  return endUserSession(request, safeRedirect(form.get("redirectTo"), "/"));
}
