// QR images of door keys' tokens (the `qrcode` package): a PNG for mail, an
// SVG for the lookup page (inline markup, which the pages' CSP allows).
import QRCode from "qrcode";

const OPTIONS = { errorCorrectionLevel: "M", margin: 2 } as const;

export function qrPng(text: string): Promise<Buffer> {
  return QRCode.toBuffer(text, { ...OPTIONS, type: "png", width: 240 });
}

export function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, { ...OPTIONS, type: "svg", width: 200 });
}
