import { Form, useLocation, useSubmit } from "@remix-run/react";
import { THEMES, THEME_LABELS, type ThemePreference } from "~/utils/theme";

/** A plain form (works without JavaScript); with it, choosing applies at once. */
export function ThemeSwitch({ theme, id = "theme" }: { theme: ThemePreference; id?: string }) {
  const location = useLocation();
  const submit = useSubmit();
  return (
    <Form
      method="post"
      action="/theme"
      className="theme-form"
      preventScrollReset
      onChange={(event) => submit(event.currentTarget, { preventScrollReset: true })}
    >
      <input type="hidden" name="redirectTo" value={`${location.pathname}${location.search}`} />
      <label htmlFor={id}>Tema</label>
      <select id={id} name="theme" defaultValue={theme} key={theme}>
        <option value="system">Automático (sistema)</option>
        {THEMES.map((value) => (
          <option key={value} value={value}>
            {THEME_LABELS[value]}
          </option>
        ))}
      </select>
      <noscript>
        <button type="submit" className="button button-small">
          Aplicar
        </button>
      </noscript>
    </Form>
  );
}
