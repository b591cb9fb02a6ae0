import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/** False on the server and in the first client render, true once hydrated. */
export function useHydrated() {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
