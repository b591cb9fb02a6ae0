// The access log export's Spanish headers.
import { describe, expect, it } from "vitest";
import { csvLine } from "~/utils/csv";
import { CSV_HEADERS } from "./access-log-export.server";

const HEADER_LINE = '"Fecha","Tarjeta","Usuario","Puerta","Resultado","Motivo","Anónima","Sin conexión","IP","Credencial","Titular"\r\n';

describe("headers", () => {
  it("writes the Spanish headers", () => {
    expect(csvLine(CSV_HEADERS)).toBe(HEADER_LINE);
  });
});
