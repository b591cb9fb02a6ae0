import { Link, useNavigate } from "@remix-run/react";
import type { ReactNode } from "react";
import { Modal } from "../modal";

/**
 * A modal that is a route (or URL state): it opens by URL, submits a plain
 * form and closes with a link back to `closeTo`, all without JavaScript;
 * with it, Escape and the close link navigate back without a reload. A modal
 * whose actions already offer a way out ('Cancelar' to `closeTo`) passes
 * `closeLink={false}`: one way to leave, not two.
 */
export function RouteModal({ title, closeTo, closeLink = true, children }: { title: string; closeTo: string; closeLink?: boolean; children: ReactNode }) {
  const navigate = useNavigate();
  return (
    <Modal title={title} onClose={() => navigate(closeTo, { preventScrollReset: true })}>
      {children}
      {closeLink ? (
        <p className="modal-close">
          <Link to={closeTo} preventScrollReset className="button button-secondary button-small">
            Cerrar
          </Link>
        </p>
      ) : null}
    </Modal>
  );
}
