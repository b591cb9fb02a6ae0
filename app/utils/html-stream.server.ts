// React 18.3's streaming renderer (renderToPipeableStream) can emit NUL bytes
// when a multi-byte character does not fit at the end of its 2 KB buffer: it
// flushes the whole buffer, unused bytes included (facebook/react#31134). A
// browser then shows "Paginaci\uFFFDón" or fails to match the text. UTF-8
// text never holds a NUL byte but for U+0000, which HTML does not carry, so
// the page's stream drops every NUL byte.
import { Transform } from "node:stream";

export function withoutNulBytes() {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      callback(null, chunk.includes(0) ? chunk.filter((byte) => byte !== 0) : chunk);
    },
  });
}
