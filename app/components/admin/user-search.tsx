import { Form, useLocation, useNavigation, useSubmit } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { USER_SEARCH_MAX_LENGTH } from "~/schemas/user";
import { useHydrated } from "~/utils/use-hydrated";

/** How long typing must pause before the list reloads. */
const SEARCH_DEBOUNCE_MS = 300;

/**
 * The users' search as a GET form: without JavaScript "Buscar" submits it;
 * with it, the list reloads as the admin types (debounced, a client-side
 * navigation that keeps the URL in step). A new search starts at page 1.
 */
export function UserSearchForm({ search }: { search: string }) {
  const submit = useSubmit();
  const hydrated = useHydrated();
  const input = useRef<HTMLInputElement>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>();

  useEffect(() => () => clearTimeout(timer.current), []);
  // Back and forward change the URL's search: show it, unless the admin is typing.
  useEffect(() => {
    const field = input.current;
    if (field && document.activeElement !== field && field.value !== search) field.value = search;
  }, [search]);

  return (
    <Form method="get" role="search" aria-label="Buscar usuarios" className="user-search" preventScrollReset>
      <div className="field">
        <label htmlFor="user-search">Buscar</label>
        <input
          ref={input}
          id="user-search"
          type="search"
          name="search"
          defaultValue={search}
          maxLength={USER_SEARCH_MAX_LENGTH}
          placeholder="Buscar usuario, email, departamento..."
          autoComplete="off"
          onChange={(event) => {
            const form = event.currentTarget.form;
            clearTimeout(timer.current);
            timer.current = setTimeout(() => submit(form, { replace: true, preventScrollReset: true }), SEARCH_DEBOUNCE_MS);
          }}
        />
      </div>
      {hydrated ? null : (
        <button type="submit" className="button">
          Buscar
        </button>
      )}
    </Form>
  );
}

/** True while the list is reloading for another search or page (not while a modal opens). */
export function useListLoading() {
  const navigation = useNavigation();
  const location = useLocation();
  if (navigation.state !== "loading" || navigation.location.pathname !== location.pathname) return false;
  const next = new URLSearchParams(navigation.location.search);
  const current = new URLSearchParams(location.search);
  return (next.get("search") ?? "") !== (current.get("search") ?? "") || (next.get("page") ?? "1") !== (current.get("page") ?? "1");
}
