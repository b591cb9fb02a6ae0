import { apiError } from "~/utils/auth.server";

// Unknown /api/* paths answer JSON, never the HTML 404 page.
export async function loader() {
  apiError(404, "Recurso no encontrado");
}

export async function action() {
  apiError(404, "Recurso no encontrado");
}
