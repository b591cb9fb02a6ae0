// zod's own messages, for a rule no schema words itself (a number sent where
// text goes, a value past a limit only the API can exceed), in Spanish like
// every other message of the product. zod keeps one configuration for the
// process, shared by classic zod and zod/mini; boot sets it once.
import { z } from "zod";

export function useSpanishValidationMessages() {
  z.config(z.locales.es());
}
