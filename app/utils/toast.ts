// The one toast shape, shared by the server (which sends toasts with a
// response) and the browser (the root's toaster, and toasts it makes itself).
export type ToastType = "success" | "error" | "warning" | "info";

export type Toast = {
  id: string;
  type: ToastType;
  title: string;
  description?: string;
};

let counter = 0;

export function makeToast(type: ToastType, title: string, description?: string): Toast {
  counter += 1;
  return { id: `${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 8)}`, type, title, description };
}

/** The error toast every refusal shows: a title naming what failed, the reason below. */
export function errorToast(title: string, description?: string): Toast {
  return makeToast("error", title, description);
}

export function successToast(title: string, description?: string): Toast {
  return makeToast("success", title, description);
}

export function infoToast(title: string, description?: string): Toast {
  return makeToast("info", title, description);
}
