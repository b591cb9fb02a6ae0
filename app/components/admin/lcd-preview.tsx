/** How the door's 16x2 display looks when idle: welcome on line 1, status on line 2. */
export function LcdPreview({ welcome, status }: { welcome: string; status: string }) {
  const line = (text: string) => Array.from(text).slice(0, 16).join("").padEnd(16, " ");
  return (
    <div className="lcd" aria-label={`Pantalla: ${welcome} / ${status}`} role="img">
      {line(welcome)}
      {"\n"}
      {line(status)}
    </div>
  );
}
