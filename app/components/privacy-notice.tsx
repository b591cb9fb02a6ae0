/** The short data-protection notice every public form carries (RGPD / LOPDGDD). */
export function PrivacyNotice({ purpose, retention }: { purpose: string; retention: string }) {
  return (
    <p className="muted privacy-notice">
      <small>
        Responsable: La Casona Coliving. Finalidad: {purpose}. Conservación: {retention}. No cedemos tus datos a
        terceros. Puedes ejercer tus derechos de acceso, rectificación y supresión escribiendo a
        hola@lacasona-coliving.es. Más información en nuestra <a href="/privacidad">política de privacidad</a>.
      </small>
    </p>
  );
}
