import { useState } from "react";
import { InputField, type AnyField } from "./forms";

export type Captcha = { captchaId: string; question: string };

/** Where a page's loader data holds its challenge: per-request values in a reused page (cachedPageHandle). */
export const CAPTCHA_HOLES = ["captcha.captchaId", "captcha.question"];

/**
 * The arithmetic anti-spam question. Its refresh button is a form submit
 * (intent=refresh-captcha) that keeps what was typed; with JavaScript it asks
 * /api/consultations/captcha instead and swaps the question in place.
 * Give it key={captcha.captchaId} so a new question from the server resets it.
 */
export function CaptchaField({ captcha, meta }: { captcha: Captcha; meta: AnyField }) {
  const [current, setCurrent] = useState(captcha);
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="captcha">
      <input type="hidden" name="captchaId" value={current.captchaId} />
      <input type="hidden" name="captchaQuestion" value={current.question} />
      <InputField
        label={
          <>
            Verificación anti-spam: <span data-testid="captcha-question">{current.question}</span>
          </>
        }
        meta={meta}
        inputMode="numeric"
        autoComplete="off"
      />
      <button
        type="submit"
        name="intent"
        value="refresh-captcha"
        formNoValidate
        className="button button-secondary button-small"
        onClick={async (event) => {
          event.preventDefault();
          try {
            const response = await fetch("/api/consultations/captcha", { headers: { Accept: "application/json" } });
            const body = (await response.json()) as { success: boolean; data?: Captcha };
            if (!body.success || !body.data) throw new Error("captcha");
            setCurrent(body.data);
            setError(null);
          } catch {
            setError("No se pudo cargar la verificación anti-spam");
          }
        }}
      >
        Nueva pregunta
      </button>
      {error ? <p className="field-error" role="alert">{error}</p> : null}
    </div>
  );
}
