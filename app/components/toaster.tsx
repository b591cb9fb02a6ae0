import { useEffect, useState } from "react";
import type { Toast } from "~/utils/session.server";

export const TOAST_DURATION_MS = 5000;

export function Toaster({ toast }: { toast: Toast | null }) {
  const [visible, setVisible] = useState<Toast | null>(toast);
  useEffect(() => setVisible(toast), [toast]);
  if (!visible) return null;
  const id = `toast-${visible.id ?? visible.type}`;
  return (
    <div className="toasts" role="status" aria-live="polite">
      <div key={id}>
        <input type="checkbox" id={id} className="toast-toggle" aria-label="Cerrar notificación" tabIndex={-1} />
        <label
          htmlFor={id}
          className={`toast toast-${visible.type}`}
          data-testid="toast"
          style={{ ["--toast-duration" as string]: `${TOAST_DURATION_MS}ms` }}
          onAnimationEnd={() => setVisible(null)}
        >
          <span className="toast-title">{visible.title}</span>
          {visible.description ? <span>{visible.description}</span> : null}
        </label>
      </div>
    </div>
  );
}
