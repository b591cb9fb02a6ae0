import { throwRefusal } from "~/utils/refusal.server";

// Unknown /api/* paths answer JSON, never the HTML 404 page.
export async function loader() {
  throwRefusal({ status: 404, message: "Recurso no encontrado" });
}

export async function action() {
  throwRefusal({ status: 404, message: "Recurso no encontrado" });
}
