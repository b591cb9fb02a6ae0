import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";
import type { Toast } from "~/utils/toast";

/**
 * SPEC §9: toasts close on click or after this long. Kept here, not in
 * ~/utils/toast: importing a value from that module would bundle its toast
 * makers into every page's JavaScript, pages without forms included.
 */
export const TOAST_DURATION_MS = 5000;
/** At most this many toasts show at once (the newest); older ones go, so a burst never covers the page. */
export const MAX_TOASTS = 3;

const ShowToast = createContext<(toast: Toast) => void>(() => {});

/** Shows a toast made in the browser (e.g. a form refused before it was sent). */
export function useToast() {
  return useContext(ShowToast);
}

/**
 * The one place toasts show, rendered by the root: the toasts a response
 * brought (the root loader's `toasts`) and those the browser adds with
 * useToast(), newest on top, at most MAX_TOASTS of them. Each closes on click (the whole toast is the
 * label of a hidden checkbox, so this works without JavaScript) or after
 * TOAST_DURATION_MS on its own (a CSS animation); the list is a live region.
 */
export function ToastProvider({ toasts: fromServer, children }: { toasts: Toast[]; children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>(() => fromServer.slice(0, MAX_TOASTS));
  const show = useCallback(
    (toast: Toast) => setToasts((shown) => (shown.some((t) => t.id === toast.id) ? shown : [toast, ...shown].slice(0, MAX_TOASTS))),
    [],
  );
  useEffect(() => {
    for (const toast of [...fromServer].reverse()) show(toast);
  }, [fromServer, show]);
  const dismiss = (id: string) => setToasts((shown) => shown.filter((toast) => toast.id !== id));
  return (
    <ShowToast.Provider value={show}>
      {children}
      <div className="toasts" role="status" aria-live="polite">
        {toasts.map((toast) => {
          const id = `toast-${toast.id}`;
          return (
            <div key={toast.id}>
              <input type="checkbox" id={id} className="toast-toggle" aria-label="Cerrar notificación" tabIndex={-1} />
              <label
                htmlFor={id}
                className={`toast toast-${toast.type}`}
                data-testid="toast"
                style={{ ["--toast-duration" as string]: `${TOAST_DURATION_MS}ms` }}
                onAnimationEnd={() => dismiss(toast.id)}
              >
                <span className="toast-title">{toast.title}</span>
                {toast.description ? <span>{toast.description}</span> : null}
              </label>
            </div>
          );
        })}
      </div>
    </ShowToast.Provider>
  );
}
