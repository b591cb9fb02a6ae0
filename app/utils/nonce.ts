// The Content-Security-Policy nonce of the page being rendered on the server
// (app/entry.server.tsx), for the inline scripts Remix writes (<Scripts>,
// <ScrollRestoration>). In the browser there is none: those scripts have run.
import { createContext, useContext } from "react";

export const NonceContext = createContext<string | undefined>(undefined);

export function useNonce() {
  return useContext(NonceContext);
}
